// Chapter 11, first experiment: the EndpointSlice of a Service. Three pods
// labelled `app: web` run on the workers; the Service `web` selects them,
// and the controller writes one slice listing each pod's address with its
// node, its conditions and the port its `http` name resolves to. A deleted
// pod stays in the slice as terminating (serving, not ready) until it is
// gone; a new pod appears not ready, then ready. Every change is an update
// of the same slice.
// Run: npm run slices -w tutorials/11-services
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { isReady, readyEndpoints, slicesOf, startCluster, type Cluster } from './cluster.js';
import { podNames, webPod, webService } from './manifests.js';
import { conditions, lines, syncSummary } from './trace.js';

/** What the experiment found, for its test. */
export interface SlicesRun {
  /** The slice once the three pods are in it. */
  slice: EndpointSlice;
  /** The conditions the deleted pod's endpoint had while it stopped. */
  terminating: string;
  /** The slice names seen over the run (all the same one). */
  names: string[];
  /** The creation time of the Service and the slice's trigger-time annotation. */
  serviceCreated: string;
  triggerTime: string;
  syncs: string;
}

/** The slice as `kubectl get endpointslice -o yaml` would show its essentials. */
function show(c: Cluster, s: EndpointSlice, log: (line: string) => void): void {
  const meta = s.metadata ?? {};
  log(`  name: ${c.mask(meta.name)}  (generateName ${meta.generateName ?? ''})`);
  for (const [k, v] of Object.entries(meta.labels ?? {})) log(`  label ${k}: ${v}`);
  for (const [k, v] of Object.entries(meta.annotations ?? {})) log(`  annotation ${k}: ${v}`);
  const owner = meta.ownerReferences?.[0];
  log(
    `  owner: ${owner?.kind ?? ''} ${owner?.name ?? ''}, controller ${String(owner?.controller)}`,
  );
  log(`  addressType: ${s.addressType}`);
  for (const p of s.ports ?? []) log(`  port: ${p.name ?? ''} ${p.port ?? ''}/${p.protocol ?? ''}`);
  for (const e of s.endpoints ?? []) {
    log(
      `  endpoint ${e.addresses.join(',')}  ${conditions(e)}  node ${e.nodeName ?? ''}  pod ${e.targetRef?.name ?? ''}`,
    );
  }
}

/** Runs the Service `web` over three pods, deletes one and adds another. */
export async function run(log: (line: string) => void = console.log): Promise<SlicesRun> {
  const c = await startCluster();
  try {
    await c.startTimer();
    log('three pods labelled app=web');
    for (const name of podNames(3)) await c.pods.create(webPod(name));
    await c.until(async () => (await c.pods.list()).items.filter(isReady).length === 3);
    for (const l of lines(c, 0, ['Pod'])) log(l);
    log('');

    //#region create-service
    log('kubectl create -f service.yaml: the Service web selects app=web, port 80 -> http');
    let mark = c.changes.length;
    const service = await c.services.create(webService());
    await c.until(async () => (await readyEndpoints(c, 'web')) === 3);
    //#endregion create-service
    await c.step(1000);
    for (const l of lines(c, mark)) log(l);
    const [slice] = await slicesOf(c, 'web');
    log('kubectl get endpointslices -l kubernetes.io/service-name=web -o yaml:');
    show(c, slice!, log);
    log('');

    log('kubectl delete pod web-002');
    mark = c.changes.length;
    const gone = (await c.pods.get('web-002')).status?.podIP ?? '';
    await c.pods.delete('web-002');
    let terminating = '';
    await c.until(async () => {
      const ep = (await slicesOf(c, 'web'))
        .flatMap((s) => s.endpoints ?? [])
        .find((e) => e.addresses[0] === gone);
      if (ep?.conditions?.terminating === true) terminating = conditions(ep);
      return ep === undefined;
    });
    await c.step(1000);
    for (const l of lines(c, mark)) log(l);
    log('');

    log('kubectl create: a new pod web-004');
    mark = c.changes.length;
    await c.pods.create(webPod('web-004'));
    await c.until(async () => (await readyEndpoints(c, 'web')) === 3);
    await c.step(1000);
    for (const l of lines(c, mark)) log(l);
    log('');

    const names = [
      ...new Set(
        c.changes
          .filter((ch) => ch.kind === 'EndpointSlice')
          .map((ch) => c.mask(ch.object.metadata?.name)),
      ),
    ];
    const syncs = syncSummary(c);
    log(`slices written: ${names.join(', ')}; the controller's ${syncs}`);
    return {
      slice: slice!,
      terminating,
      names,
      serviceCreated: service.metadata?.creationTimestamp ?? '',
      triggerTime:
        slice!.metadata?.annotations?.['endpoints.kubernetes.io/last-change-trigger-time'] ?? '',
      syncs,
    };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
