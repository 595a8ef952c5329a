// Chapter 5: adoption and release. Two pods made by hand match a new
// ReplicaSet's selector: it adopts them instead of creating pods. Then one of
// them is relabelled out of the selector: it is released, and replaced.
// Run: npm run adoption -w tutorials/05-replicaset
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { replicaSet, startLab, type Lab } from './lab.js';

/** What happened to the hand-made pods. */
export interface Adoption {
  /** The controller reference of orphan-1 once adopted, and after its relabelling. */
  adopted: OwnerReference[] | undefined;
  released: OwnerReference[] | undefined;
  /** Pod creates the controller sent. */
  creates: number;
  /** The pods the ReplicaSet owns at the end. */
  owned: string[];
  /** The requests the controller sent for the hand-made pods, uids replaced by names. */
  writes: string[];
}

/** The active pods whose controller is the ReplicaSet `name`. */
async function owned(lab: Lab, name: string): Promise<Pod[]> {
  const uid = (await lab.get(name)).metadata?.uid;
  return (await lab.pods.list()).items.filter(
    (p) =>
      !p.metadata?.deletionTimestamp &&
      p.metadata?.ownerReferences?.some((r) => r.controller && r.uid === uid),
  );
}

/** Runs the scenario and prints what the controller sent. */
export async function run(log: (line: string) => void = console.log): Promise<Adoption> {
  const lab = await startLab({ trace: true });
  try {
    //#region adopt
    // Two pods made by hand, as `kubectl run` makes them: labels, no owner.
    for (const name of ['orphan-1', 'orphan-2']) {
      await lab.pods.create({
        metadata: { name, labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
      });
    }
    await lab.replicaSets.create(replicaSet('web', 3));
    await lab.until(async () => (await owned(lab, 'web')).length === 3);
    const adopted = (await lab.pods.get('orphan-1')).metadata?.ownerReferences;
    const createsBefore = lab.creates;
    await lab.step(1000);

    // `kubectl label pod orphan-1 app=debug --overwrite`: out of the selector.
    await lab.pods.patch('orphan-1', {
      type: 'merge',
      body: { metadata: { labels: { app: 'debug' } } },
    });
    await lab.until(async () => {
      const names = (await owned(lab, 'web')).map((p) => p.metadata?.name);
      return names.length === 3 && !names.includes('orphan-1');
    });
    //#endregion adopt
    const released = (await lab.pods.get('orphan-1')).metadata?.ownerReferences;

    // Show uids by what they belong to.
    const uids = new Map<string, string>();
    uids.set((await lab.get('web')).metadata?.uid ?? '', '<uid of replicaset web>');
    for (const p of (await lab.pods.list()).items) {
      uids.set(p.metadata?.uid ?? '', `<uid of ${lab.alias(p.metadata?.name ?? '')}>`);
    }
    const named = (text: string) =>
      text.replace(
        /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
        (u) => uids.get(u) ?? u,
      );
    const writes = lab.steps
      .filter((s) => s.from === 'worker' && s.to === 'api' && !s.text.startsWith('update status'))
      .map((s) => `t=${(s.t / 1000).toFixed(3)}s  ${named(lab.alias(s.text))}`);
    log('--- what the controller sent ---');
    for (const w of writes) log(w);
    log(`creates before the relabelling: ${createsBefore}, after: ${lab.creates - createsBefore}`);
    log(`orphan-1 owned by: ${named(JSON.stringify(adopted))}`);
    log(`orphan-1 after the relabelling: ${JSON.stringify(released ?? [])}`);
    return {
      adopted,
      released,
      creates: lab.creates,
      owned: (await owned(lab, 'web')).map((p) => lab.alias(p.metadata?.name ?? '')).sort(),
      writes,
    };
  } finally {
    await lab.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
