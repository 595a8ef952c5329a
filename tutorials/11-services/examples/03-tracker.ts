// Chapter 11, third experiment: the controller and its own writes. First,
// every slice the controller writes comes back to it through its informer,
// and the tracker tells it that it wrote this one itself: no sync follows.
// Then the controller's EndpointSlice watch hangs (the fault lab holds it
// open but sends nothing) before the Service is created: the controller
// creates the slice, but its cache never hears of it. When a pod changes,
// the tracker knows a slice is missing from the cache, and the sync fails
// with StaleInformerCacheError and is retried with backoff, instead of
// creating a second slice for the same pods. Once the watch is back, the
// retry updates the one slice.
// Run: npm run tracker -w tutorials/11-services
import { isReady, readyEndpoints, slicesOf, startCluster, type Cluster } from './cluster.js';
import { podNames, webPod, webService } from './manifests.js';
import { describe } from './trace.js';

/** What the experiment found, for its test. */
export interface TrackerRun {
  /** Syncs after the first Service's slice was written, with no pod changing: none. */
  syncsFromOwnWrites: number;
  /** The results of the syncs while the watch hung, in order. */
  staleResults: string[];
  /** The times (ms) of those syncs. */
  staleTimes: number[];
  /** The slices of the second Service at the end. */
  slices: number;
  /** The endpoints of that slice. */
  endpoints: string[];
}

/** The slice changes and syncs since the marks, merged in time order. */
function timeline(c: Cluster, mark: number, syncMark: number, service: string): string[] {
  const out: { t: number; line: string }[] = [];
  for (const ch of c.changes.slice(mark)) {
    if (ch.kind !== 'EndpointSlice') continue;
    if (ch.object.metadata?.labels?.['kubernetes.io/service-name'] !== service) continue;
    const line = describe(c, ch);
    if (line !== undefined) out.push({ t: ch.t, line: `${c.at(ch.t)}  ${line}` });
  }
  for (const s of c.syncs.slice(syncMark)) {
    out.push({ t: s.t, line: `${c.at(s.t)}    sync: ${s.result}` });
  }
  // Stable: at the same time, the writes come before the sync that made them ends.
  return out.sort((a, b) => a.t - b.t).map((o) => o.line);
}

/** The two halves: own writes ignored, then a stale cache refused. */
export async function run(log: (line: string) => void = console.log): Promise<TrackerRun> {
  const c = await startCluster();
  try {
    for (const name of podNames(3)) await c.pods.create(webPod(name));
    await c.until(async () => (await c.pods.list()).items.filter(isReady).length === 3);
    await c.startTimer();

    log('kubectl create -f service.yaml; then nothing changes for 10 s');
    let mark = c.changes.length;
    let syncMark = c.syncs.length;
    await c.services.create(webService());
    await c.until(async () => (await readyEndpoints(c, 'web')) === 3);
    const written = c.syncs.length;
    await c.step(10_000);
    const syncsFromOwnWrites = c.syncs.length - written;
    for (const l of timeline(c, mark, syncMark, 'web')) log(l);
    log(`syncs in the 10 s after the write came back through the informer: ${syncsFromOwnWrites}`);
    log('');

    await c.services.delete('web');
    await c.step(1000);
    //#region hang
    log("kubectl delete service web; the controller's EndpointSlice watch hangs");
    c.sandbox.faults.hangWatches('endpointslices');
    log('kubectl create service api, selecting app=web too');
    mark = c.changes.length;
    syncMark = c.syncs.length;
    const api = webService();
    api.metadata!.name = 'api';
    await c.services.create(api);
    await c.until(async () => (await slicesOf(c, 'api')).length === 1);
    await c.step(2000);
    for (const l of timeline(c, mark, syncMark, 'api')) log(l);

    log('kubectl delete pod web-002');
    mark = c.changes.length;
    syncMark = c.syncs.length;
    await c.pods.delete('web-002');
    await c.step(8000);
    const hung = c.syncs.slice(syncMark);
    for (const l of timeline(c, mark, syncMark, 'api')) log(l);

    log(`${c.at()}  the watch comes back`);
    mark = c.changes.length;
    syncMark = c.syncs.length;
    c.sandbox.faults.releaseWatches();
    await c.until(async () => (await slicesOf(c, 'api'))[0]?.endpoints.length === 2);
    await c.step(3000);
    //#endregion hang
    for (const l of timeline(c, mark, syncMark, 'api')) log(l);

    const slices = await slicesOf(c, 'api');
    const endpoints = (slices[0]?.endpoints ?? []).map((e) => e.targetRef?.name ?? '');
    log(
      `slices of api: ${slices.map((s) => c.mask(s.metadata?.name)).join(', ')}, endpoints ${endpoints.join(', ')}`,
    );
    return {
      syncsFromOwnWrites,
      staleResults: hung.map((s) => s.result),
      staleTimes: hung.map((s) => s.t),
      slices: slices.length,
      endpoints,
    };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
