// Chapter 11, fifth experiment: the Endpoints controller and the mirroring
// controller. The Service `web` is created first, then its three pods, of
// which `web-003` names port 8080 `http` where the others name port 80. The
// Endpoints controller writes one core/v1 Endpoints object for the Service
// and rewrites it whole on every change: the pods appear under
// `notReadyAddresses`, then move to `addresses`, and the two port numbers
// make two subsets. Then a Service without a selector, `db`, gets an
// Endpoints object written by hand, and the mirroring controller copies it
// into an EndpointSlice of its own.
// Run: npm run endpoints -w tutorials/11-services
import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { slicesOf, startCluster, type Cluster } from './cluster.js';
import { podNames, webPod, webService } from './manifests.js';
import { conditions, lines } from './trace.js';

/** What the experiment found, for its test. */
export interface EndpointsRun {
  /** The Endpoints object of `web` once its three pods are ready. */
  web: Endpoints;
  /** The Endpoints lines of the timeline (one write per change). */
  writes: number;
  /** The `Endpoints:` line `kubectl describe service web` printed up to kubectl 1.30. */
  describe: string;
  /** The slice mirrored from the hand-written Endpoints `db`, after its edit. */
  mirrored: EndpointSlice;
  /** The slices of `web`: only the EndpointSlice controller's, none mirrored. */
  webManagers: string[];
}

//#region db
/** The Service `db`: a port, no selector; its addresses are written by hand. */
export function dbService(): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'db' },
    spec: { ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }] },
  };
}

/** The Endpoints `db`, as a user writes it: two database servers outside the cluster. */
export function dbEndpoints(ips: string[]): Endpoints {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'db' },
    subsets: [
      {
        addresses: ips.map((ip) => ({ ip })),
        ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
      },
    ],
  };
}
//#endregion db

/** The Endpoints object as `kubectl get endpoints -o yaml` would show its essentials. */
function show(ep: Endpoints, log: (line: string) => void): void {
  const meta = ep.metadata ?? {};
  for (const [k, v] of Object.entries(meta.labels ?? {})) log(`  label ${k}: ${v}`);
  for (const [k, v] of Object.entries(meta.annotations ?? {})) log(`  annotation ${k}: ${v}`);
  (ep.subsets ?? []).forEach((s, i) => {
    const ports = (s.ports ?? []).map((p) => `${p.name ?? ''} ${p.port}/${p.protocol ?? ''}`);
    log(`  subset ${i + 1}: ports ${ports.join(', ')}`);
    const addr = (a: { ip: string; targetRef?: { name?: string } }) =>
      `${a.ip} (${a.targetRef?.name ?? ''})`;
    if (s.addresses?.length) log(`    addresses ${s.addresses.map(addr).join(', ')}`);
    if (s.notReadyAddresses?.length) {
      log(`    notReadyAddresses ${s.notReadyAddresses.map(addr).join(', ')}`);
    }
  });
}

/**
 * The `Endpoints:` line of `kubectl describe service` for the port named
 * `port`, as kubectl's describer printed it from the Endpoints object
 * (`formatEndpoints` in `k8s.io/kubectl/pkg/describe/describe.go`): the
 * ready addresses with their port, three at most, then `+ N more...`.
 */
export function describeEndpoints(ep: Endpoints | undefined, port: string): string {
  const list: string[] = [];
  for (const s of ep?.subsets ?? []) {
    for (const p of s.ports ?? []) {
      if ((p.name ?? '') !== port) continue;
      for (const a of s.addresses ?? []) list.push(`${a.ip}:${p.port}`);
    }
  }
  if (list.length === 0) return '<none>';
  const shown = list.slice(0, 3).join(',');
  return list.length > 3 ? `${shown} + ${list.length - 3} more...` : shown;
}

/** One slice in a line: its name, manager, owner and endpoints. */
function showSlice(c: Cluster, s: EndpointSlice, log: (line: string) => void): void {
  const meta = s.metadata ?? {};
  const owner = meta.ownerReferences?.[0];
  log(`  name: ${c.mask(meta.name)}`);
  for (const [k, v] of Object.entries(meta.labels ?? {})) log(`  label ${k}: ${v}`);
  log(
    `  owner: ${owner?.kind ?? ''} ${owner?.name ?? ''}, controller ${String(owner?.controller)}`,
  );
  for (const p of s.ports ?? []) log(`  port: ${p.name ?? ''} ${p.port ?? ''}/${p.protocol ?? ''}`);
  for (const e of s.endpoints ?? []) log(`  endpoint ${e.addresses.join(',')}  ${conditions(e)}`);
}

/** Runs the Service `web` with the Endpoints controller, then mirrors the hand-written `db`. */
export async function run(log: (line: string) => void = console.log): Promise<EndpointsRun> {
  const c = await startCluster({ endpoints: true });
  try {
    await c.startTimer();
    //#region web
    log('kubectl create -f service.yaml, then three pods; web-003 names its port 8080 http');
    await c.services.create(webService());
    for (const name of podNames(3)) {
      const pod = webPod(name);
      if (name === 'web-003') pod.spec!.containers[0]!.ports![0]!.containerPort = 8080;
      await c.pods.create(pod);
    }
    const ready = async (): Promise<number> => {
      const ep = await c.endpoints.get('web').catch(() => undefined);
      return (ep?.subsets ?? []).reduce((n, s) => n + (s.addresses ?? []).length, 0);
    };
    await c.until(async () => (await ready()) === 3);
    //#endregion web
    await c.step(1000);
    const timeline = lines(c, 0, ['Endpoints']);
    for (const l of timeline) log(l);
    const web = await c.endpoints.get('web');
    log('kubectl get endpoints web -o yaml:');
    show(web, log);
    const describe = describeEndpoints(web, 'http');
    log(`kubectl describe service web (kubectl 1.30):  Endpoints: ${describe}`);
    log('');

    //#region mirror
    log('kubectl create -f db.yaml: the Service db, without a selector, and its Endpoints by hand');
    let mark = c.changes.length;
    await c.services.create(dbService());
    await c.endpoints.create(dbEndpoints(['192.168.1.10', '192.168.1.11']));
    await c.until(async () => (await slicesOf(c, 'db')).length === 1);
    await c.step(1000);
    for (const l of lines(c, mark, ['EndpointSlice'])) log(l);
    //#endregion mirror
    log('kubectl edit endpoints db: a third server');
    mark = c.changes.length;
    const cur = await c.endpoints.get('db');
    await c.endpoints.update({
      ...cur,
      subsets: dbEndpoints(['192.168.1.10', '192.168.1.11', '192.168.1.12']).subsets,
    });
    await c.until(async () => (await slicesOf(c, 'db'))[0]?.endpoints.length === 3);
    await c.step(1000);
    for (const l of lines(c, mark, ['EndpointSlice'])) log(l);
    const [mirrored] = await slicesOf(c, 'db');
    log('kubectl get endpointslices -l kubernetes.io/service-name=db -o yaml:');
    showSlice(c, mirrored!, log);
    const webManagers = (await slicesOf(c, 'web')).map(
      (s) => s.metadata?.labels?.['endpointslice.kubernetes.io/managed-by'] ?? '',
    );
    log(`slices of web: ${webManagers.length}, managed by ${[...new Set(webManagers)].join(', ')}`);
    return {
      web,
      writes: timeline.length,
      describe,
      mirrored: mirrored!,
      webManagers,
    };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
