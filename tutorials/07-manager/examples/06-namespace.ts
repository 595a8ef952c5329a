// Chapter 7, sixth experiment: a namespace deleted with a workload in it.
// The API server only marks the namespace; the namespace controller waits
// out its grace period, deletes every namespaced resource's content, keeps
// the namespace's status conditions up to date while pods terminate, and
// finally removes the `kubernetes` finalizer through the finalize
// subresource, at which point the API server removes the namespace.
// Run: npm run namespace -w tutorials/07-manager
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Namespace, NamespaceCondition } from 'kubernetes-types/core/v1.js';
import type { GroupVersionResource, KubeObject, ResourceClient } from '@kcm-ts/apimachinery';
import { informerResources } from '@kcm-ts/informer';
import type { RestClientSource } from '@kcm-ts/manager';
import { startCluster, startManager } from './cluster.js';
import { nginxDeployment } from './manifests.js';

/** What the experiment saw, for its test. */
export interface NamespaceDeletion {
  /** `t= 5.0s  api  ...` lines, from the delete request on. */
  steps: string[];
  /** Every state of the namespace the API server committed. */
  states: Namespace[];
  /** When the namespace was gone, in ms after the delete request. */
  goneAfter: number;
}

const kinds: Record<string, string> = {
  'deployments.apps': 'Deployment',
  'replicasets.apps': 'ReplicaSet',
  pods: 'Pod',
  configmaps: 'ConfigMap',
};

/** Runs the experiment, printing what happens to the namespace and what is in it. */
export async function run(log: (line: string) => void = console.log): Promise<NamespaceDeletion> {
  const c = await startCluster(); // finishNamespaces: false, as on a real cluster
  const steps: string[] = [];
  let since = c.clock.now();
  const at = () => `t=${((c.clock.now() - since) / 1000).toFixed(1).padStart(4)}s`;
  const step = (who: string, what: string) => steps.push(`${at()}  ${who.padEnd(20)} ${what}`);
  const states: Namespace[] = [];
  let tracing = false;

  // The API server's side: the namespace itself, and what leaves it.
  c.sandbox.registry.storage.subscribe((e) => {
    if (!tracing) return;
    const meta = e.object.metadata ?? {};
    if (e.storage === 'namespaces' && meta.name === 'shop') {
      const ns = e.object as Namespace;
      const before = e.prev as Namespace | undefined;
      states.push(ns);
      if (e.type === 'DELETED') return void step('api', 'Namespace shop is gone');
      if (meta.deletionTimestamp && !before?.metadata?.deletionTimestamp)
        step('api', `Namespace shop gets a deletionTimestamp, phase ${ns.status?.phase}`);
      for (const cond of changedConditions(before, ns))
        step('api', `Namespace shop condition ${cond.type}=${cond.status} (${cond.reason})`);
      if (String(ns.spec?.finalizers) !== String(before?.spec?.finalizers))
        step('api', `Namespace shop spec.finalizers [${(ns.spec?.finalizers ?? []).join(', ')}]`);
      return;
    }
    const kind = kinds[e.storage];
    if (kind === undefined || meta.namespace !== 'shop') return;
    const name = kind === 'Pod' ? (meta.name ?? '').replace(/-[a-z0-9]{5}$/, '-xxxxx') : meta.name;
    if (e.type === 'DELETED') step('api', `${kind} ${name} is gone`);
    else if (meta.deletionTimestamp && !e.prev?.metadata?.deletionTimestamp)
      step('api', `${kind} ${name} gets a deletionTimestamp`);
  });

  // The namespace controller's side: what it asks of the API server.
  const source = traceNamespaceController(c.source, (what) => step('namespace-controller', what));
  const manager = startManager(c, { source });
  const namespaces = c.sandbox.client<Namespace>('', 'namespaces');
  const deployments = c.client<Deployment>(informerResources.deployments, 'shop');
  try {
    await c.until(() => manager.started() !== undefined);
    //#region delete-namespace
    await namespaces.create({ metadata: { name: 'shop' } });
    await deployments.create(nginxDeployment());
    await c.until(
      async () => (await deployments.get('nginx-deployment')).status?.availableReplicas === 3,
    );
    since = c.clock.now();
    tracing = true;
    await namespaces.delete('shop'); // kubectl delete namespace shop
    await c.until(
      async () => !(await namespaces.list()).items.some((n) => n.metadata?.name === 'shop'),
    );
    //#endregion delete-namespace
    const goneAfter = c.clock.now() - since;
    await manager.stop();
    const folded = fold(steps);
    for (const s of folded) log(s);
    return { steps: folded, states, goneAfter };
  } finally {
    await c.stop();
  }
}

/** The conditions whose status or reason changed. */
function changedConditions(before: Namespace | undefined, after: Namespace): NamespaceCondition[] {
  const old = new Map((before?.status?.conditions ?? []).map((cond) => [cond.type, cond]));
  return (after.status?.conditions ?? []).filter((cond) => {
    const prev = old.get(cond.type);
    return prev === undefined || prev.status !== cond.status || prev.reason !== cond.reason;
  });
}

/**
 * Wraps the manager's client source so that the namespace controller's
 * deletions and finalize calls are noted (its user agent ends in its name).
 */
function traceNamespaceController(
  inner: RestClientSource,
  note: (what: string) => void,
): RestClientSource {
  return {
    resource<T extends KubeObject>(
      gvr: GroupVersionResource,
      opts: Parameters<RestClientSource['resource']>[1],
    ): ResourceClient<T> {
      const client = inner.resource<T>(gvr, opts);
      if (!opts.userAgent?.endsWith('/namespace-controller')) return client;
      const resource = gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource;
      const wrap = (target: ResourceClient<T>): ResourceClient<T> =>
        new Proxy(target, {
          get(t, prop) {
            if (prop === 'inNamespace') return (ns: string) => wrap(t.inNamespace(ns));
            if (prop === 'deleteCollection')
              return (...args: Parameters<ResourceClient<T>['deleteCollection']>) => {
                note(`DELETE ${resource} (the whole collection in ${t.namespace ?? ''})`);
                return t.deleteCollection(...args);
              };
            if (prop === 'update')
              return (obj: T, o?: { subresource?: string }) => {
                const spec = (obj as Namespace).spec;
                if (o?.subresource === 'finalize')
                  note(
                    `PUT namespaces/${obj.metadata?.name}/finalize: spec.finalizers [${(spec?.finalizers ?? []).join(', ')}]`,
                  );
                return t.update(obj, o);
              };
            const value: unknown = Reflect.get(t, prop);
            return typeof value === 'function' ? (value as () => unknown).bind(t) : value;
          },
        });
      return wrap(client);
    },
  };
}

/** Folds runs of the same line into one, with how many there were. */
function fold(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    let j = i + 1;
    while (j < lines.length && lines[j] === lines[i]) j++;
    out.push(j - i > 1 ? `${lines[i]} (×${j - i})` : lines[i]!);
    i = j;
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
