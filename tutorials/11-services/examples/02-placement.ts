// Chapter 11, second experiment: where the reconciler puts endpoints. A
// Service over 250 running pods gets three slices (100, 100 and 50: at most
// `maxEndpointsPerSlice` each). Then one pod is deleted: one slice is
// written. Five new pods go first into the hole it left (the slice they
// fill best), then into the half-empty slice; no slice is created. 99
// pods deleted across two slices leave them half full: the
// controller never moves endpoints between slices to pack them.
// Run: npm run placement -w tutorials/11-services
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { isReady, readyEndpoints, slicesOf, startCluster, type Cluster } from './cluster.js';
import { podNames, webPod, webService } from './manifests.js';
import { syncSummary } from './trace.js';

/** One slice after a step: its endpoints, and what the step did to it. */
export interface SliceState {
  name: string;
  endpoints: number;
  /** How many times the step wrote it (create, update or delete). */
  writes: number;
  created: boolean;
  deleted: boolean;
}

/** One step of the experiment and the slices after it. */
export interface Step {
  label: string;
  slices: SliceState[];
  /** The controller's syncs during the step, as `3 syncs: 3 success`. */
  syncs: string;
}

/** The slices after the step that began at change `mark`, with the writes of the step. */
async function after(c: Cluster, label: string, mark: number, syncMark: number): Promise<Step> {
  const live = await slicesOf(c, 'web');
  const writes = new Map<string, { n: number; created: boolean; deleted: boolean }>();
  for (const ch of c.changes.slice(mark)) {
    if (ch.kind !== 'EndpointSlice') continue;
    const name = c.mask(ch.object.metadata?.name);
    const w = writes.get(name) ?? { n: 0, created: false, deleted: false };
    w.n++;
    if (ch.type === 'ADDED') w.created = true;
    if (ch.type === 'DELETED') w.deleted = true;
    writes.set(name, w);
  }
  const names = new Set([...live.map((s) => c.mask(s.metadata?.name)), ...writes.keys()]);
  const byName = new Map<string, EndpointSlice>(live.map((s) => [c.mask(s.metadata?.name), s]));
  return {
    label,
    syncs: syncSummary(c, syncMark),
    slices: [...names].sort().map((name) => ({
      name,
      endpoints: byName.get(name)?.endpoints?.length ?? 0,
      writes: writes.get(name)?.n ?? 0,
      created: writes.get(name)?.created ?? false,
      deleted: writes.get(name)?.deleted ?? false,
    })),
  };
}

/** The step as lines: each slice with its endpoints and writes. */
function show(step: Step, log: (line: string) => void): void {
  for (const s of step.slices) {
    const what = s.deleted
      ? 'deleted'
      : s.created
        ? 'created'
        : s.writes === 0
          ? 'untouched'
          : `${s.writes} update${s.writes === 1 ? '' : 's'}`;
    log(`  ${s.name}  ${String(s.endpoints).padStart(3)} endpoints  ${what}`);
  }
}

/** Where 250 endpoints go, then one pod less, five more, and 99 less. */
export async function run(log: (line: string) => void = console.log): Promise<Step[]> {
  // Three workers of 110 pods each: room for 250.
  const c = await startCluster({ nodes: 4 });
  try {
    const steps: Step[] = [];
    const names = podNames(250);
    for (const name of names) await c.pods.create(webPod(name));
    await c.until(async () => (await c.pods.list()).items.filter(isReady).length === 250);
    await c.startTimer();

    log('kubectl create -f service.yaml, over 250 running pods');
    let mark = c.changes.length;
    let syncMark = c.syncs.length;
    await c.services.create(webService());
    await c.until(async () => (await readyEndpoints(c, 'web')) === 250);
    await c.step(2000);
    steps.push(await after(c, '250 pods', mark, syncMark));
    show(steps.at(-1)!, log);
    log('');

    //#region one-pod
    log('kubectl delete pod web-150');
    mark = c.changes.length;
    syncMark = c.syncs.length;
    await c.pods.delete('web-150');
    await c.until(async () => (await c.pods.list()).items.length === 249);
    await c.step(2000);
    steps.push(await after(c, 'delete 1 pod', mark, syncMark));
    //#endregion one-pod
    show(steps.at(-1)!, log);
    log('');

    log('kubectl create: five more pods, web-251 to web-255');
    mark = c.changes.length;
    syncMark = c.syncs.length;
    for (const name of podNames(5, 251)) await c.pods.create(webPod(name));
    await c.until(async () => (await readyEndpoints(c, 'web')) === 254);
    await c.step(2000);
    steps.push(await after(c, 'add 5 pods', mark, syncMark));
    show(steps.at(-1)!, log);
    log('');

    log('kubectl delete: web-002, web-004, ... web-200 (99 pods: web-150 is gone already)');
    mark = c.changes.length;
    syncMark = c.syncs.length;
    const even = names.slice(0, 200).filter((n, i) => i % 2 === 1 && n !== 'web-150');
    for (const name of even) await c.pods.delete(name);
    await c.until(async () => (await c.pods.list()).items.length === 155);
    await c.step(2000);
    steps.push(await after(c, 'delete 99 pods', mark, syncMark));
    show(steps.at(-1)!, log);
    return steps;
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
