// Chapter 11, fourth experiment: why slices exist. A Service of 1,000 pods
// on ten workers, listed twice: by the EndpointSlice controller in ten
// slices of 100, and by the Endpoints controller in one core/v1 Endpoints
// object of 1,000 addresses. Two watchers, as kube-proxy on a node holds
// them, follow the two over HTTP. The container of one pod crashes and
// restarts: the pod goes not ready and ready again. Every byte each
// watcher receives is counted. Last, a 1,001st pod: the slices take it,
// the Endpoints object is full and says it is truncated.
// Run: npm run bytes -w tutorials/11-services
import { isReady, readyEndpoints, slicesOf, startCluster, type Cluster } from './cluster.js';
import { podNames, webPod, webService } from './manifests.js';
import { lines } from './trace.js';

/** What the experiment measured, for its test and the picture. */
export interface BytesRun {
  pods: number;
  slices: number;
  /** Bytes and events the Endpoints watcher received. */
  endpointsBytes: number;
  endpointsEvents: number;
  /** Bytes and events the EndpointSlice watcher received. */
  slicesBytes: number;
  slicesEvents: number;
  /** Events each watcher received (the same number). */
  events: number;
  /** The size of one slice and of the Endpoints object, as JSON. */
  sliceSize: number;
  endpointsSize: number;
  /** After the 1,001st pod: the addresses in the Endpoints object, and its over-capacity annotation. */
  truncatedAddresses: number;
  overCapacity: string;
  /** After the 1,001st pod: the endpoints in the slices. */
  sliceEndpoints: number;
}

/** A watch over HTTP from `resourceVersion`, counting what it receives. */
function watch(c: Cluster, path: string, resourceVersion: string) {
  const abort = new AbortController();
  const seen = { bytes: 0, events: 0 };
  const done = (async () => {
    const res = await fetch(`${c.sandbox.url}${path}?watch=1&resourceVersion=${resourceVersion}`, {
      headers: { authorization: `Bearer ${c.sandbox.token}` },
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    try {
      for (;;) {
        const chunk = (await reader.read()) as { done: boolean; value?: Uint8Array };
        if (chunk.done || chunk.value === undefined) return;
        const value = chunk.value;
        seen.bytes += value.byteLength;
        for (const b of value) if (b === 0x0a) seen.events++;
      }
    } catch {
      // aborted
    }
  })();
  return {
    seen,
    async stop() {
      abort.abort();
      await done.catch(() => undefined);
    },
  };
}

/** The addresses of the Endpoints object `name` that are ready (0 while it does not exist). */
async function readyAddresses(c: Cluster, name: string): Promise<number> {
  const ep = await c.endpoints.get(name).catch(() => undefined);
  return (ep?.subsets ?? []).reduce((n, s) => n + (s.addresses ?? []).length, 0);
}

/** A Service of 1,000 pods; one pod's container crashes and restarts; then a 1,001st pod. */
export async function run(log: (line: string) => void = console.log): Promise<BytesRun> {
  // Ten workers of 110 pods each: room for 1,000.
  // The Endpoints controller and the mirroring controller run too.
  const c = await startCluster({ nodes: 11, endpoints: true });
  try {
    const names = podNames(1000);
    for (const name of names) {
      const pod = webPod(name);
      // The container of web-500 exits with code 1 thirty seconds after it starts.
      if (name === 'web-500')
        pod.metadata!.annotations = { 'sandbox.kcm-ts.io/crash-after': '30s' };
      await c.pods.create(pod);
    }
    await c.until(async () => (await c.pods.list()).items.filter(isReady).length === 1000);
    await c.services.create(webService());
    await c.until(
      async () =>
        (await readyEndpoints(c, 'web')) === 1000 && (await readyAddresses(c, 'web')) === 1000,
    );
    await c.step(1000);
    const slices = await slicesOf(c, 'web');
    const object = await c.endpoints.get('web');
    const sliceSize = JSON.stringify(slices[0]).length;
    const endpointsSize = JSON.stringify(object).length;
    log(`the Service web: 1,000 ready pods on ${c.sandbox.nodes.length - 1} workers`);
    log(
      `  EndpointSlices: ${slices.length} slices of ${slices.map((s) => s.endpoints.length).join(', ')} endpoints, ${(sliceSize / 1024).toFixed(1)} KiB each as JSON`,
    );
    log(
      `  Endpoints: 1 object of ${object.subsets?.[0]?.addresses?.length ?? 0} addresses, ${(endpointsSize / 1024).toFixed(1)} KiB as JSON`,
    );
    log('');

    //#region watchers
    const rv = (await c.slices.list()).metadata?.resourceVersion ?? '0';
    const endpointsWatch = watch(c, '/api/v1/namespaces/default/endpoints', rv);
    const slicesWatch = watch(c, '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', rv);
    await c.startTimer();
    // The crash, the kubelet's back-off of 10 s, the restart.
    await c.until(async () => {
      const p = await c.pods.get('web-500');
      return isReady(p) && (p.status?.containerStatuses?.[0]?.restartCount ?? 0) === 1;
    });
    await c.step(2000);
    await endpointsWatch.stop();
    await slicesWatch.stop();
    //#endregion watchers

    log('the container of web-500 crashes and restarts (watched from here):');
    for (const l of lines(c, 0, ['Pod', 'Endpoints', 'EndpointSlice'])) log(l);
    log('');
    const e = endpointsWatch.seen;
    const s = slicesWatch.seen;
    log(
      `the Endpoints watcher received      ${String(e.events)} events, ${(e.bytes / 1024).toFixed(1).padStart(6)} KiB`,
    );
    log(
      `the EndpointSlice watcher received  ${String(s.events)} events, ${(s.bytes / 1024).toFixed(1).padStart(6)} KiB`,
    );
    log(`ratio ${(e.bytes / s.bytes).toFixed(1)} : 1`);
    const nodes = 5000;
    log(
      `with kube-proxy watching from each of ${nodes.toLocaleString('en-US')} nodes: ${((e.bytes * nodes) / 2 ** 20).toFixed(0)} MiB against ${((s.bytes * nodes) / 2 ** 20).toFixed(0)} MiB sent for this one pod`,
    );
    log('');

    //#region one-more
    log('kubectl create: one pod more, web-1001');
    await c.pods.create(webPod('web-1001'));
    await c.until(async () => (await readyEndpoints(c, 'web')) === 1001);
    await c.step(1000);
    const full = await c.endpoints.get('web');
    const overCapacity =
      full.metadata?.annotations?.['endpoints.kubernetes.io/over-capacity'] ?? '';
    const truncatedAddresses = (full.subsets ?? []).reduce(
      (n, s) => n + (s.addresses ?? []).length + (s.notReadyAddresses ?? []).length,
      0,
    );
    const after = await slicesOf(c, 'web');
    const sliceEndpoints = after.reduce((n, s) => n + (s.endpoints ?? []).length, 0);
    //#endregion one-more
    log(
      `  EndpointSlices: ${after.length} slices, ${sliceEndpoints} endpoints (${after.map((s) => s.endpoints.length).join(', ')})`,
    );
    log(
      `  Endpoints: ${truncatedAddresses} addresses, annotation endpoints.kubernetes.io/over-capacity: ${overCapacity || '(none)'}`,
    );
    return {
      pods: 1000,
      slices: slices.length,
      endpointsBytes: e.bytes,
      endpointsEvents: e.events,
      slicesBytes: s.bytes,
      slicesEvents: s.events,
      events: s.events,
      sliceSize,
      endpointsSize,
      truncatedAddresses,
      overCapacity,
      sliceEndpoints,
    };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
