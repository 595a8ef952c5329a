// Chapter 10, third experiment: the StatefulSet `web` of the Kubernetes
// documentation on the three-node sandbox. Its pods start in order, web-0,
// then web-1 once web-0 is Running and Ready, then web-2, each after its
// claim www-web-N from the volume claim template (bound by the sandbox's
// `standard` StorageClass to a volume on the node the pod was scheduled
// to). A deleted web-1 comes back under its name, on its claim. Scaling
// down deletes from the top and keeps the claims; scaling up again reuses
// them. With `whenScaled: Delete`, the controller hands the claims of the
// pods it removes to those pods, for the garbage collector to delete.
// Run: npm run statefulset -w tutorials/10-daemonset-statefulset
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { isLive, isReady, startCluster, type Cluster } from './cluster.js';
import { podLives, type PodLife } from './lives.js';
import { web } from './manifests.js';
import { lines } from './trace.js';

/** What the experiment found, for its test and the timeline. */
export interface StatefulSetRun {
  pods: PodLife[];
  /** Pod names in the order they were created. */
  created: string[];
  /** Pod names in the order their deletion started. */
  deleted: string[];
  /** web-1 before and after it was deleted: uid, node, claim. */
  web1: { before: [string, string, string]; after: [string, string, string] };
  /** The claims' volumes when first bound, and after the scale up (name -> volume). */
  volumes: Record<string, string>;
  reused: Record<string, string>;
  /** The owner references of the claims after the scale down with whenScaled: Delete. */
  owners: Record<string, string[]>;
  marks: { t: number; text: string }[];
  end: number;
  events: string[];
}

const ordinalOrder = (a: Pod, b: Pod): number =>
  Number(a.metadata?.name?.split('-').at(-1)) - Number(b.metadata?.name?.split('-').at(-1));

/** Waits until the set has `n` ready pods, all current, and nothing terminating. */
async function settled(c: Cluster, n: number): Promise<void> {
  await c.until(async () => {
    const set = await c.statefulSets.get('web');
    const pods = (await c.pods.list()).items;
    return (
      set.status?.observedGeneration === set.metadata?.generation &&
      set.status?.readyReplicas === n &&
      set.status.replicas === n &&
      pods.length === n &&
      pods.every((p) => isLive(p) && isReady(p))
    );
  });
  await c.step(1000);
}

async function podTable(c: Cluster, log: (line: string) => void): Promise<void> {
  for (const p of (await c.pods.list()).items.sort(ordinalOrder)) {
    const claim = p.spec?.volumes?.find((v) => v.name === 'www')?.persistentVolumeClaim?.claimName;
    log(
      `  pod ${p.metadata?.name}  node ${p.spec?.nodeName}  hostname ${p.spec?.hostname}.${p.spec?.subdomain}  claim ${claim}  pod-index ${p.metadata?.labels?.['apps.kubernetes.io/pod-index']}`,
    );
  }
}

async function claimTable(
  c: Cluster,
  log: (line: string) => void,
): Promise<PersistentVolumeClaim[]> {
  const claims = (await c.claims.list()).items.sort((a, b) =>
    (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1,
  );
  for (const pvc of claims) {
    const owners = (pvc.metadata?.ownerReferences ?? []).map((o) => `${o.kind}/${o.name}`);
    log(
      `  claim ${pvc.metadata?.name}  ${pvc.status?.phase}  volume ${c.mask(pvc.spec?.volumeName)}  node ${pvc.metadata?.annotations?.['volume.kubernetes.io/selected-node']}  owners ${owners.join(',') || '<none>'}`,
    );
  }
  return claims;
}

/** Scales the set through its spec, as `kubectl scale sts web --replicas=n` does through the scale subresource. */
async function scale(c: Cluster, replicas: number): Promise<void> {
  await c.statefulSets.patch('web', { type: 'merge', body: { spec: { replicas } } });
}

/** Runs the documentation's StatefulSet through creation, a deletion and two scalings. */
export async function run(log: (line: string) => void = console.log): Promise<StatefulSetRun> {
  const c = await startCluster({ controllers: ['statefulset'] });
  try {
    await c.startTimer();
    const marks: StatefulSetRun['marks'] = [];

    //#region create
    log('kubectl create -f statefulset.yaml');
    marks.push({ t: c.now(), text: 'create' });
    await c.statefulSets.create(web());
    await settled(c, 3);
    //#endregion create
    for (const l of lines(c)) log(l);
    await podTable(c, log);
    const volumes: Record<string, string> = {};
    for (const pvc of await claimTable(c, log)) {
      volumes[pvc.metadata!.name!] = pvc.spec?.volumeName ?? '';
    }
    log('');

    const identity = async (): Promise<[string, string, string]> => {
      const p = await c.pods.get('web-1');
      const claim = p.spec?.volumes?.find((v) => v.name === 'www')?.persistentVolumeClaim;
      return [p.metadata?.uid ?? '', p.spec?.nodeName ?? '', claim?.claimName ?? ''];
    };
    const before = await identity();
    //#region delete-web-1
    log('kubectl delete pod web-1');
    let mark = c.changes.length;
    marks.push({ t: c.now(), text: 'delete pod web-1' });
    await c.pods.delete('web-1');
    await c.until(async () => (await identity())[0] !== before[0]);
    await settled(c, 3);
    //#endregion delete-web-1
    for (const l of lines(c, mark)) log(l);
    const after = await identity();
    log(
      `web-1 is a new pod (uid changed: ${before[0] !== after[0]}), on ${after[1]} as before (${before[1]}), with claim ${after[2]}`,
    );
    log('');

    //#region scale-down
    log('kubectl scale sts web --replicas=1');
    mark = c.changes.length;
    marks.push({ t: c.now(), text: 'scale to 1' });
    await scale(c, 1);
    await settled(c, 1);
    //#endregion scale-down
    for (const l of lines(c, mark)) log(l);
    await claimTable(c, log);
    log('');

    log('kubectl scale sts web --replicas=3');
    mark = c.changes.length;
    marks.push({ t: c.now(), text: 'scale to 3' });
    await scale(c, 3);
    await settled(c, 3);
    for (const l of lines(c, mark)) log(l);
    const reused: Record<string, string> = {};
    for (const pvc of await claimTable(c, log)) {
      reused[pvc.metadata!.name!] = pvc.spec?.volumeName ?? '';
    }
    log('');

    //#region retention
    log(
      'kubectl patch sts web: persistentVolumeClaimRetentionPolicy whenScaled Delete; scale to 1',
    );
    mark = c.changes.length;
    marks.push({ t: c.now(), text: 'whenScaled: Delete, scale to 1' });
    await c.statefulSets.patch('web', {
      type: 'merge',
      body: {
        spec: {
          persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete', whenDeleted: 'Retain' },
        },
      },
    });
    await scale(c, 1);
    await settled(c, 1);
    //#endregion retention
    for (const l of lines(c, mark)) log(l);
    const owners: Record<string, string[]> = {};
    for (const pvc of await claimTable(c, log)) {
      owners[pvc.metadata!.name!] = (pvc.metadata?.ownerReferences ?? []).map(
        (o) => `${o.kind}/${o.name}`,
      );
    }
    log('');
    log('events:');
    for (const e of c.events) log(e);

    const created = c.changes
      .filter((ch) => ch.kind === 'Pod' && ch.type === 'ADDED')
      .map((ch) => ch.object.metadata?.name ?? '');
    const deleted = c.changes
      .filter(
        (ch) =>
          ch.kind === 'Pod' &&
          ch.object.metadata?.deletionTimestamp &&
          !ch.prev?.metadata?.deletionTimestamp,
      )
      .map((ch) => ch.object.metadata?.name ?? '');
    return {
      pods: podLives(c),
      created,
      deleted,
      web1: { before, after },
      volumes,
      reused,
      owners,
      marks,
      end: c.now(),
      events: [...c.events],
    };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
