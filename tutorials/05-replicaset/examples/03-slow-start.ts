// Chapter 5: slow start and the burst limit, measured. A quota admits 7 pods
// of a ReplicaSet of 20, then is raised; later a ReplicaSet of 1,200 is
// created at once. Every create the API server receives is grouped into the
// batches that were in flight together.
// Run: npm run slow-start -w tutorials/05-replicaset
import { newForbidden } from '@kcm-ts/apimachinery';
import { replicaSet, startLab, type Batch, type Lab } from './lab.js';

/** Each sync that sent creates, with its batches: `{ sync: 1, t: 100, batches: [...] }`. */
export interface SyncBatches {
  sync: number;
  t: number;
  batches: Batch[];
}

/** The batches of `lab`, grouped by the sync that sent them. */
export function bySync(batches: readonly Batch[]): SyncBatches[] {
  const out: SyncBatches[] = [];
  for (const b of batches) {
    const last = out.at(-1);
    if (last?.sync === b.sync) last.batches.push(b);
    else out.push({ sync: b.sync, t: b.t, batches: [b] });
  }
  return out;
}

const shape = (s: SyncBatches): string =>
  s.batches
    .map((b) => (b.failed > 0 ? `${b.size} (${b.failed} refused)` : String(b.size)))
    .join(', ');

/** One line per sync, or per run of syncs at the same time that sent the same batches. */
export function showSyncs(syncs: readonly SyncBatches[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < syncs.length;) {
    const s = syncs[i]!;
    let j = i + 1;
    while (
      j < syncs.length &&
      syncs[j]!.t === s.t &&
      syncs[j]!.sync === syncs[j - 1]!.sync + 1 &&
      shape(syncs[j]!) === shape(s)
    ) {
      j++;
    }
    const which = j - i === 1 ? `sync ${s.sync}` : `syncs ${s.sync}-${syncs[j - 1]!.sync}`;
    const total = s.batches.reduce((n, b) => n + b.size, 0);
    out.push(
      `t=${(s.t / 1000).toFixed(3)}s  ${which}: batches ${shape(s)}${s.batches.length > 1 ? ` = ${total}` : ''}${j - i > 1 ? ' each' : ''}`,
    );
    i = j;
  }
  return out;
}

/** What the two scenarios measured. */
export interface SlowStart {
  quota: {
    /** The syncs that sent creates. */
    syncs: SyncBatches[];
    /** How many of them ran while the quota was full, and the creates refused then. */
    failingSyncs: number;
    refused: number;
    /** The ReplicaSet's condition while the quota was full. */
    condition: string | undefined;
    failedCreateEvents: number;
    /** Syncs between the quota being raised and the ReplicaSet being touched. */
    syncsAfterRaise: number;
    /** The key's requeues (failures in a row) when the quota was raised. */
    requeues: number;
    /** Ready pods and conditions at the end. */
    ready: number | undefined;
    conditionsAtEnd: number;
  };
  burst: { syncs: SyncBatches[]; creates: number };
}

/** Runs both scenarios and prints the batches of every sync. */
export async function run(log: (line: string) => void = console.log): Promise<SlowStart> {
  let quota!: SlowStart['quota'];
  let lab: Lab | undefined;
  try {
    //#region quota
    let limit = 7; // a ResourceQuota of 7 pods in the namespace
    lab = await startLab({
      refuseCreate: async (pod, pods) => {
        const used = (await pods.inNamespace('default').list()).items.length;
        if (used < limit) return undefined;
        return newForbidden(
          { group: '', resource: 'pods' },
          pod.metadata?.generateName ?? '',
          new Error(
            `exceeded quota: pods, requested: pods=1, used: pods=${used}, limited: pods=${limit}`,
          ),
        );
      },
    });
    await lab.replicaSets.create(replicaSet('web', 20));
    await lab.step(3000);
    const whileFull = await lab.get('web');
    const requeues = lab.controller.queue.numRequeues('default/web');
    limit = 20; // the administrator raises the quota: nothing tells the controller
    await lab.step(5000);
    // Any change to the ReplicaSet queues it at once, backoff or not.
    await lab.replicaSets.patch('web', {
      type: 'merge',
      body: { metadata: { annotations: { 'example.com/quota': 'raised' } } },
    });
    await lab.until(async () => (await lab!.get('web')).status?.readyReplicas === 20);
    //#endregion quota
    log('--- a ReplicaSet of 20 under a quota of 7 pods ---');
    const syncs = bySync(lab.batches);
    const failing = syncs.filter((s) => s.t < 3000);
    for (const line of showSyncs(failing)) log(line);
    const refused = failing.flatMap((s) => s.batches).reduce((n, b) => n + b.failed, 0);
    const c = whileFull.status?.conditions?.[0];
    const condition = c && `${c.type}=${c.status} ${c.reason}: ${c.message}`;
    log(`t=3.000s  status: replicas ${whileFull.status?.replicas}, condition ${condition}`);
    log(`t=3.000s  the quota is raised to 20; the key has failed ${requeues} times in a row`);
    const after = syncs.filter((s) => s.t >= 3000);
    const quiet = syncs.filter((s) => s.t >= 3000 && s.t < 8000).length;
    log(
      `t=8.000s  syncs since the quota was raised: ${quiet}; an annotation is added to the ReplicaSet`,
    );
    for (const line of showSyncs(after)) log(line);
    log(`creates refused while the quota was full: ${refused}, in ${failing.length} syncs`);
    const failed = lab.events.filter((e) => e.startsWith('Warning FailedCreate'));
    log(`events: ${failed.length} × ${failed[0]}`);
    const status = (await lab.get('web')).status;
    log(
      `at the end: ${status?.readyReplicas} ready, conditions: ${status?.conditions?.length ?? 0}`,
    );
    quota = {
      syncs,
      failingSyncs: failing.length,
      refused,
      condition,
      failedCreateEvents: failed.length,
      syncsAfterRaise: quiet,
      requeues,
      ready: status?.readyReplicas,
      conditionsAtEnd: status?.conditions?.length ?? 0,
    };
  } finally {
    await lab?.stop();
  }

  // No node, so the pods stay Pending: only the controller's writes matter here.
  const big = await startLab({ nodes: 0 });
  try {
    //#region burst
    await big.replicaSets.create(replicaSet('big', 1200));
    await big.until(async () => (await big.get('big')).status?.replicas === 1200);
    //#endregion burst
    const syncs = bySync(big.batches);
    log('--- a ReplicaSet of 1,200 (burst limit 500) ---');
    for (const line of showSyncs(syncs)) log(line);
    return { quota, burst: { syncs, creates: big.creates } };
  } finally {
    await big.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
