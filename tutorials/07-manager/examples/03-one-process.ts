// Chapter 7, third experiment: how chapters 1 to 6 meet in one process. The
// manager runs as `kcm-ts up` runs it (leader election on, every implemented
// controller), the nginx Deployment is applied and deleted and a namespace
// is created and deleted, and three listeners record what is shared: the
// requests the API server sees, by user agent; the shared informers each
// controller asks the controller context for, and the clients it asks the
// client builder for; and the work queues each controller creates.
// process-svg.ts draws one-process.svg from the result.
// Run: npm run one-process -w tutorials/07-manager
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Namespace } from 'kubernetes-types/core/v1.js';
import type { GroupVersionResource, KubeObject, ResourceClient } from '@kcm-ts/apimachinery';
import { informerResources, type BuiltinInformerResource } from '@kcm-ts/informer';
import {
  defaultConfiguration,
  implementedControllers,
  newManagerMetrics,
  type ClientScale,
  type ControllerContext,
  type InitFunc,
  type RestClientSource,
  type TestEnvironment,
} from '@kcm-ts/manager';
import { startCluster, startManager } from './cluster.js';
import { nginxDeployment } from './manifests.js';

/** One client of the process, as the API server saw it. */
export interface ClientUse {
  /** The controller name its user agent ends in, such as `replicaset-controller`. */
  name: string;
  /** Requests per second and burst of its token bucket. */
  qps: number;
  burst: number;
  /** Whether it asked for metadata only (PartialObjectMetadata). */
  metadataOnly: boolean;
  /** The verbs it sent, by resource (`pods`, `replicasets.apps`, `replicasets.apps/status`). */
  requests: Map<string, Set<string>>;
  /** How many lists it sent, by resource. */
  lists: Map<string, number>;
}

/** One controller and what it took from the context. */
export interface ControllerUse {
  name: string;
  /** The shared informers it asked the factory for. */
  informers: string[];
  /** The clients it asked the client builder for. */
  clients: string[];
  /** The work queues it created, by their metric name. */
  queues: string[];
}

/** What the process is made of. */
export interface ProcessMap {
  userAgentPrefix: string;
  clients: ClientUse[];
  controllers: ControllerUse[];
  /** The informers the shared factory ran (what `shared-informers` listed and watched). */
  sharedInformers: string[];
  /** The resources the garbage collector's own metadata informers listed and watched. */
  gcMonitors: string[];
}

const resourceKey = (gvr: GroupVersionResource): string =>
  gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource;

//#region record-requests
/**
 * Wraps the manager's client source: every request is noted under the
 * controller name at the end of its user agent, as an API server's audit
 * log would show it.
 */
function recordRequests(inner: RestClientSource, seen: Map<string, ClientUse>): RestClientSource {
  const verbs: Record<string, string> = {
    list: 'list',
    watch: 'watch',
    get: 'get',
    create: 'create',
    update: 'update',
    updateStatus: 'update',
    patch: 'patch',
    patchStatus: 'patch',
    delete: 'delete',
    deleteCollection: 'deletecollection',
  };
  return {
    resource<T extends KubeObject>(
      gvr: GroupVersionResource,
      opts: { namespaced: boolean; kind: string; userAgent?: string; metadataOnly?: boolean },
    ): ResourceClient<T> {
      const name = opts.userAgent?.split('/').pop() ?? '(none)';
      const use = seen.get(name) ?? {
        name,
        qps: 0,
        burst: 0,
        metadataOnly: opts.metadataOnly === true,
        requests: new Map<string, Set<string>>(),
        lists: new Map<string, number>(),
      };
      seen.set(name, use);
      const wrap = (client: ResourceClient<T>): ResourceClient<T> =>
        new Proxy(client, {
          get(target, prop) {
            if (prop === 'inNamespace') return (ns: string) => wrap(target.inNamespace(ns));
            const value: unknown = Reflect.get(target, prop);
            const verb = typeof prop === 'string' ? verbs[prop] : undefined;
            if (typeof value !== 'function' || verb === undefined) return value;
            return (...args: unknown[]) => {
              const sub = prop === 'updateStatus' || prop === 'patchStatus' ? '/status' : '';
              const subresource = (args[1] as { subresource?: string } | undefined)?.subresource;
              const key = resourceKey(gvr) + (subresource ? `/${subresource}` : sub);
              const set = use.requests.get(key) ?? new Set<string>();
              use.requests.set(key, set.add(verb));
              if (verb === 'list') use.lists.set(key, (use.lists.get(key) ?? 0) + 1);
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          },
        });
      return wrap(inner.resource<T>(gvr, opts));
    },
  };
}
//#endregion record-requests

//#region record-context
/**
 * Wraps an init function: the controller gets the real context, seen
 * through a proxy that notes which shared informers and clients it asks for.
 */
function recordContext(init: InitFunc, use: ControllerUse, scales: Map<string, ClientScale>) {
  const wrapped: InitFunc = (ctx, name, signal) => {
    const factory = new Proxy(ctx.informerFactory, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const resource =
            informerResources[prop as BuiltinInformerResource] ??
            (prop === 'forResource' || prop === 'informerFor'
              ? (args[0] as GroupVersionResource)
              : undefined);
          if (resource && !use.informers.includes(resourceKey(resource)))
            use.informers.push(resourceKey(resource));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const builder: ControllerContext['clientBuilder'] = {
      client: (client, scale) => note(client, scale, () => ctx.clientBuilder.client(client, scale)),
      metadataClient: (client, scale) =>
        note(client, scale, () => ctx.clientBuilder.metadataClient(client, scale)),
    };
    function note<T>(client: string, scale: ClientScale | undefined, make: () => T): T {
      if (!use.clients.includes(client)) use.clients.push(client);
      scales.set(client, scale ?? {});
      return make();
    }
    return init({ ...ctx, informerFactory: factory, clientBuilder: builder }, name, signal);
  };
  return wrapped;
}
//#endregion record-context

/** Runs the manager, exercises every controller once, and maps what it shared. */
export async function run(log: (line: string) => void = console.log): Promise<ProcessMap> {
  const c = await startCluster();
  const seen = new Map<string, ClientUse>();
  const scales = new Map<string, ClientScale>();
  const uses: ControllerUse[] = [];
  let initializing: ControllerUse | undefined;

  // The work queues: the manager hands its metrics provider to every queue
  // made afterwards; each queue made while a controller starts is its own.
  const metrics = newManagerMetrics({ processMetrics: false });
  const workqueue = {
    ...metrics.workqueue,
    newDepthMetric: (queue: string) => {
      initializing?.queues.push(queue);
      return metrics.workqueue.newDepthMetric(queue);
    },
  };

  const controllers: Record<string, InitFunc> = {};
  for (const [name, init] of Object.entries(implementedControllers)) {
    const use: ControllerUse = { name, informers: [], clients: [], queues: [] };
    uses.push(use);
    const recorded = recordContext(init, use, scales);
    controllers[name] = async (ctx, controllerName, signal) => {
      initializing = use;
      try {
        return await recorded(ctx, controllerName, signal);
      } finally {
        initializing = undefined;
      }
    };
  }

  const manager = startManager(c, {
    identity: 'manager-1',
    version: '0.1.0',
    configure: (config) => (config.generic.leaderElection.leaderElect = true),
    source: recordRequests(c.source, seen),
    metrics: { ...metrics, workqueue },
    controllers,
  });
  try {
    await c.until(() => manager.started() !== undefined);
    await exercise(c);
    await manager.stop();
  } finally {
    await c.stop();
  }

  const config = defaultConfiguration().generic.clientConnection;
  for (const use of seen.values()) {
    const scale = scales.get(use.name) ?? {};
    use.qps = config.qps * (scale.qpsScale ?? 1);
    use.burst = config.burst * (scale.burstScale ?? 1);
  }
  const listed = (name: string) =>
    [...(seen.get(name)?.requests ?? [])]
      .filter(([, v]) => v.has('list') && v.has('watch'))
      .map(([k]) => k)
      .sort();
  const map: ProcessMap = {
    userAgentPrefix: 'kube-controller-manager/0.1.0 kcm-ts',
    clients: [...seen.values()],
    controllers: (manager.started() ?? []).map((n) => uses.find((u) => u.name === n)!),
    sharedInformers: listed('shared-informers'),
    gcMonitors: listed('generic-garbage-collector'),
  };
  print(map, log);
  return map;
}

/**
 * Gives the controllers of chapters 5 to 7 something to do: a rollout, a
 * cascade, a namespace. The others get no Job, CronJob, DaemonSet,
 * StatefulSet, claim, volume, taint or orphaned pod, and one healthy node,
 * so they make no requests.
 */
async function exercise(c: TestEnvironment): Promise<void> {
  const deployments = c.client<Deployment>(informerResources.deployments, 'default');
  await deployments.create(nginxDeployment());
  await c.until(
    async () => (await deployments.get('nginx-deployment')).status?.availableReplicas === 3,
  );
  await deployments.delete('nginx-deployment');
  await c.until(
    async () => (await c.client(informerResources.pods, 'default').list()).items.length === 0,
  );
  const namespaces = c.sandbox.client<Namespace>('', 'namespaces');
  await namespaces.create({ metadata: { name: 'scratch' } });
  await namespaces.delete('scratch');
  await c.until(
    async () => !(await namespaces.list()).items.some((n) => n.metadata?.name === 'scratch'),
  );
}

function print(map: ProcessMap, log: (line: string) => void): void {
  const verbs = (requests: Map<string, Set<string>>) =>
    [...requests]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([resource, v]) => `${resource} ${[...v].sort().join(',')}`)
      .join('; ');
  log(`clients, by the name at the end of their user agent (${map.userAgentPrefix}/<name>):`);
  const width = Math.max(...map.clients.map((cl) => cl.name.length));
  for (const cl of [...map.clients].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const limits = `${cl.qps} qps, burst ${cl.burst}${cl.metadataOnly ? ', metadata' : ''}`;
    log(`  ${cl.name.padEnd(width)} ${limits.padEnd(28)} ${verbs(cl.requests) || '(no requests)'}`);
  }
  log('');
  log(`shared informer factory: ${map.sharedInformers.join(', ')}`);
  log(`garbage collector's own metadata informers: ${map.gcMonitors.join(', ')}`);
  log('');
  log('controllers:');
  for (const u of map.controllers) {
    log(`  ${u.name}`);
    log(`    shared informers: ${u.informers.join(', ') || '(none)'}`);
    log(`    clients:          ${u.clients.join(', ')}`);
    log(`    work queues:      ${u.queues.join(', ')}`);
  }
  log('');
  for (const informer of map.sharedInformers) {
    const users = map.controllers.filter((u) => u.informers.includes(informer)).map((u) => u.name);
    log(`the ${informer} informer feeds: ${users.join(', ')}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
