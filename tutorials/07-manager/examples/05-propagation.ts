// Chapter 7, fifth experiment: the garbage collector at work. The nginx
// Deployment (with a ConfigMap it owns) is deleted three times, once with
// each propagation policy kubectl's --cascade sends, and before that a
// ConfigMap names an owner that does not exist. Three listeners trace what
// happens, step by step: the API server's committed changes, the requests
// the collector sends, and every item its graph builder puts on the
// attemptToDelete and attemptToOrphan queues. At four moments the graph
// itself is copied out, and gc-svg.ts draws gc-graph.svg from the copies.
// Run: npm run propagation -w tutorials/07-manager
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  isNotFound,
  type GroupVersionResource,
  type KubeObject,
  type PropagationPolicy,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  GarbageCollector,
  implementedControllers,
  type InitFunc,
  type RestClientSource,
} from '@kcm-ts/manager';
import { informerResources } from '@kcm-ts/informer';
import { startCluster, startManager } from './cluster.js';
import { nginxDeployment } from './manifests.js';

/** One node of the collector's graph, copied out. */
export interface GraphNode {
  uid: string;
  kind: string;
  name: string;
  virtual: boolean;
  beingDeleted: boolean;
  deletingDependents: boolean;
  /** Not in the graph any more: an owner its dependents still name. */
  gone?: boolean;
  owners: { uid: string; blockOwnerDeletion: boolean }[];
}

/** The graph right after the graph builder applied one event, and what that event queued. */
export interface Snapshot {
  title: string;
  /** The event, as `update Deployment nginx-deployment`. */
  event: string;
  nodes: GraphNode[];
  queued: { queue: 'attemptToDelete' | 'attemptToOrphan'; uid: string }[];
}

/** What one deletion did, step by step. */
export interface Round {
  title: string;
  policy?: PropagationPolicy;
  /** `t= 0.5s  api    Pod nginx-deployment-...-xxxxx is gone`, from the delete request on. */
  steps: string[];
  /** What was left afterwards, as `Kind name` (pods masked). */
  left: string[];
  /** The ReplicaSets and pods left, with their ownerReferences. */
  leftObjects: KubeObject[];
}

/** Everything the experiment recorded. */
export interface Propagation {
  rounds: Round[];
  snapshots: Snapshot[];
}

type GraphBuilder = GarbageCollector['dependencyGraphBuilder'];
type Queue = GraphBuilder['attemptToDelete'];
type QueuedNode = Parameters<Queue['add']>[0];

// The uid of an owner that never existed.
const ghostUID = '00000000-dead-4bad-8000-000000000000';

/** A pod's name with its random suffix shown as xxxxx (generateName). */
const mask = (kind: string, name: string): string =>
  kind === 'Pod' ? name.replace(/-[a-z0-9]{5}$/, '-xxxxx') : name;

/** Runs the experiment, printing each round. */
export async function run(log: (line: string) => void = console.log): Promise<Propagation> {
  const c = await startCluster();
  const steps: string[] = [];
  let since = c.clock.now();
  const at = () => `t=${((c.clock.now() - since) / 1000).toFixed(1).padStart(4)}s`;
  const step = (who: string, what: string) => steps.push(`${at()}  ${who.padEnd(15)} ${what}`);
  const names = new Map<string, string>(); // uid → `Kind name`
  const nameOf = (uid: string) => names.get(uid) ?? uid;

  // What is being deleted: snapshots are taken only for these events.
  let snapshotWhen:
    { title: string; match: (type: string, obj: KubeObject) => boolean } | undefined;
  const snapshots: Snapshot[] = [];

  //#region trace-gc
  // The garbage collector as core.go's startGarbageCollectorController makes
  // it, with the example's listeners on its client and its graph builder.
  const tracedGarbageCollector: InitFunc = (ctx, name, signal) => {
    const gcConfig = ctx.componentConfig.garbageCollectorController;
    const gc = new GarbageCollector({
      metadataClient: traceRequests(
        ctx.clientBuilder.metadataClient('generic-garbage-collector', { qpsScale: 2 }),
        (what) => step('gc → api', what),
        nameOf,
      ),
      discovery: ctx.discovery,
      ignoredResources: gcConfig.gcIgnoredResources,
      informersStarted: ctx.informersStarted,
      eventRecorder: ctx.eventRecorder('garbage-collector-controller'),
      clock: ctx.clock,
      logger: ctx.logger.withName(name),
    });
    const gb = gc.dependencyGraphBuilder;
    let queued: Snapshot['queued'] | undefined;
    for (const queue of ['attemptToDelete', 'attemptToOrphan'] as const) {
      const q: Queue = gb[queue];
      const add = q.add.bind(q);
      q.add = (node: QueuedNode) => {
        const id = node.identity;
        if (id.namespace === 'default') {
          names.set(id.uid, `${id.kind} ${mask(id.kind, id.name)}`);
          step(
            queue,
            `← ${id.kind} ${mask(id.kind, id.name)}${node.isObserved() ? '' : ' (virtual)'}`,
          );
          queued?.push({ queue, uid: id.uid });
        }
        add(node);
      };
    }
    const process = gb.processGraphChanges.bind(gb);
    gb.processGraphChanges = (logger, event) => {
      const when = snapshotWhen;
      const take = when?.match(event.eventType, event.obj) === true;
      queued = take ? [] : undefined;
      process(logger, event);
      if (take && when) {
        const meta = event.obj.metadata ?? {};
        snapshots.push({
          title: when.title,
          event: `${event.eventType} ${event.gvk.kind} ${meta.name ?? ''}`,
          nodes: copyGraph(gb, names),
          queued: queued ?? [],
        });
        snapshotWhen = undefined;
      }
      queued = undefined;
    };
    return Promise.resolve({
      running: gc.run(gcConfig.concurrentGCSyncs, signal),
      debuggingHandler: gc.debuggingHandler(),
    });
  };
  //#endregion trace-gc

  // The API server's side: every committed change that matters to the collector.
  const kinds: Record<string, string> = {
    'deployments.apps': 'Deployment',
    'replicasets.apps': 'ReplicaSet',
    pods: 'Pod',
    configmaps: 'ConfigMap',
  };
  c.sandbox.registry.storage.subscribe((e) => {
    const kind = kinds[e.storage];
    const meta = e.object.metadata ?? {};
    if (kind === undefined || meta.namespace !== 'default') return;
    const what = `${kind} ${mask(kind, meta.name ?? '')}`;
    names.set(meta.uid ?? '', what);
    const before = e.prev?.metadata ?? {};
    if (e.type === 'DELETED') {
      step('api', `${what} is gone`);
      return;
    }
    if (e.type !== 'MODIFIED') return;
    if (meta.deletionTimestamp && !before.deletionTimestamp) {
      const f = meta.finalizers?.length ? `, finalizers [${meta.finalizers.join(', ')}]` : '';
      step('api', `${what} gets a deletionTimestamp${f}`);
    } else if (String(meta.finalizers ?? []) !== String(before.finalizers ?? [])) {
      step('api', `${what} finalizers [${(meta.finalizers ?? []).join(', ')}]`);
    }
    const owners = (refs?: OwnerReference[]) => (refs ?? []).map((r) => `${r.kind} ${r.name}`);
    if (String(owners(meta.ownerReferences)) !== String(owners(before.ownerReferences))) {
      const now = owners(meta.ownerReferences).join(', ');
      step('api', `${what} ownerReferences [${now}]`);
    }
  });

  const manager = startManager(c, {
    controllers: {
      ...implementedControllers,
      'garbage-collector-controller': tracedGarbageCollector,
    },
  });
  const deployments = c.client<Deployment>(informerResources.deployments, 'default');
  const replicaSets = c.client<ReplicaSet>(informerResources.replicaSets, 'default');
  const pods = c.client<Pod>(informerResources.pods, 'default');
  const configMaps = c.client<ConfigMap>(informerResources.configMaps, 'default');
  const rounds: Round[] = [];

  // Everything in the namespace, each object with its kind. The
  // kube-root-ca.crt ConfigMap the root-CA publisher keeps in every
  // namespace has no owner and plays no part here, so it is left out.
  const left = async () => {
    const all: KubeObject[] = [];
    for (const [client, kind] of [
      [deployments, 'Deployment'],
      [replicaSets, 'ReplicaSet'],
      [pods, 'Pod'],
      [configMaps, 'ConfigMap'],
    ] as const) {
      for (const o of (await (client as ResourceClient).list()).items) {
        if (kind === 'ConfigMap' && o.metadata?.name === 'kube-root-ca.crt') continue;
        all.push({ ...o, kind });
      }
    }
    return all;
  };
  const round = async (
    title: string,
    act: () => Promise<unknown>,
    done: (objects: KubeObject[]) => boolean,
    policy?: PropagationPolicy,
  ) => {
    steps.length = 0;
    since = c.clock.now();
    await act();
    let objects: KubeObject[] = [];
    await c.until(async () => done((objects = await left())));
    await c.step(1000); // anything still to come would show now
    objects = await left();
    rounds.push({
      title,
      ...(policy ? { policy } : {}),
      steps: fold(steps),
      left: objects.map((o) => `${o.kind} ${mask(o.kind ?? '', o.metadata?.name ?? '')}`),
      leftObjects: objects,
    });
  };

  // Puts the walkthrough's Deployment and a ConfigMap it owns in place, and waits for the pods.
  const apply = async () => {
    const d = await deployments.create(nginxDeployment());
    await configMaps.create({
      metadata: {
        name: 'nginx-index',
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: 'nginx-deployment',
            uid: d.metadata!.uid!,
          },
        ],
      },
      data: { 'index.html': '<h1>hello</h1>' },
    });
    await c.until(
      async () => (await deployments.get('nginx-deployment')).status?.availableReplicas === 3,
    );
    await c.step(1000);
  };
  const deleteDeployment = (policy: PropagationPolicy) => () =>
    deployments.delete('nginx-deployment', { propagationPolicy: policy });
  const isDeployment = (obj: KubeObject) => obj.metadata?.name === 'nginx-deployment';

  try {
    await c.until(() => manager.started() !== undefined);
    await apply();

    //#region rounds
    snapshotWhen = {
      title: 'A ConfigMap names an owner nobody has seen: a virtual node',
      match: (type, obj) => type === 'add' && obj.metadata?.name === 'leftover',
    };
    await round(
      'A dependent whose owner does not exist',
      () =>
        configMaps.create({
          metadata: {
            name: 'leftover',
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: 'Deployment', name: 'old-nginx', uid: ghostUID },
            ],
          },
        }),
      (objects) => !objects.some((o) => o.metadata?.name === 'leftover'),
    );

    snapshotWhen = {
      title: 'kubectl delete (background): the owner is gone, its dependents are queued',
      match: (type, obj) => type === 'delete' && isDeployment(obj),
    };
    await round(
      'kubectl delete deployment nginx-deployment --cascade=background',
      deleteDeployment('Background'),
      (objects) => objects.length === 0,
      'Background',
    );

    await apply();
    snapshotWhen = {
      title: 'kubectl delete --cascade=foreground: the owner waits for its dependents',
      match: (type, obj) =>
        type === 'update' &&
        isDeployment(obj) &&
        (obj.metadata?.finalizers ?? []).includes('foregroundDeletion'),
    };
    await round(
      'kubectl delete deployment nginx-deployment --cascade=foreground',
      deleteDeployment('Foreground'),
      (objects) => objects.length === 0,
      'Foreground',
    );

    await apply();
    snapshotWhen = {
      title: 'kubectl delete --cascade=orphan: the owner goes to attemptToOrphan',
      match: (type, obj) =>
        type === 'update' &&
        isDeployment(obj) &&
        (obj.metadata?.finalizers ?? []).includes('orphan'),
    };
    await round(
      'kubectl delete deployment nginx-deployment --cascade=orphan',
      deleteDeployment('Orphan'),
      (objects) =>
        objects
          .filter((o) => o.kind !== 'Pod')
          .every((o) => o.kind !== 'Deployment' && !o.metadata?.ownerReferences?.length),
      'Orphan',
    );
    //#endregion rounds

    await manager.stop();
  } finally {
    await c.stop();
  }

  for (const r of rounds) {
    log(`--- ${r.title} ---`);
    for (const s of r.steps) log(s);
    log(`left: ${r.left.length > 0 ? fold(r.left).join(', ') : 'nothing'}`);
    log('');
  }
  return { rounds, snapshots };
}

/**
 * The collector's graph, namespace `default` only, copied out; owners its
 * nodes name that are no longer in it are added as `gone`.
 */
function copyGraph(gb: GraphBuilder, names: ReadonlyMap<string, string>): GraphNode[] {
  const nodes: GraphNode[] = gb.uidToNode
    .nodes()
    .filter((n) => n.identity.namespace === 'default')
    .map((n) => ({
      uid: n.identity.uid,
      kind: n.identity.kind,
      name: mask(n.identity.kind, n.identity.name),
      virtual: !n.isObserved(),
      beingDeleted: n.isBeingDeleted(),
      deletingDependents: n.isDeletingDependents(),
      owners: n.owners.map((o) => ({
        uid: o.uid,
        blockOwnerDeletion: o.blockOwnerDeletion === true,
      })),
    }));
  for (const owner of nodes.flatMap((n) => n.owners)) {
    if (nodes.some((n) => n.uid === owner.uid)) continue;
    const [kind = '', name = ''] = (names.get(owner.uid) ?? '').split(' ');
    nodes.push({
      uid: owner.uid,
      kind,
      name,
      virtual: false,
      beingDeleted: false,
      deletingDependents: false,
      gone: true,
      owners: [],
    });
  }
  return nodes;
}

/**
 * Wraps the collector's client: its deletes and patches are noted, in words,
 * with owners named rather than shown by uid.
 */
function traceRequests(
  inner: RestClientSource,
  note: (what: string) => void,
  nameOf: (uid: string) => string,
): RestClientSource {
  return {
    resource<T extends KubeObject>(
      gvr: GroupVersionResource,
      opts: Parameters<RestClientSource['resource']>[1],
    ): ResourceClient<T> {
      const kind = opts.kind;
      const wrap = (client: ResourceClient<T>): ResourceClient<T> =>
        new Proxy(client, {
          get(target, prop) {
            if (prop === 'inNamespace') return (ns: string) => wrap(target.inNamespace(ns));
            if (prop === 'delete') {
              return (name: string, o?: { propagationPolicy?: string }) => {
                note(
                  `DELETE ${kind} ${mask(kind, name)} (propagationPolicy ${o?.propagationPolicy ?? 'unset'})`,
                );
                return target.delete(name, o as never);
              };
            }
            if (prop === 'get') {
              return async (name: string, o?: never) => {
                try {
                  return await target.get(name, o);
                } catch (err) {
                  if (isNotFound(err)) note(`GET ${kind} ${mask(kind, name)}: 404 Not Found`);
                  throw err;
                }
              };
            }
            if (prop === 'patch') {
              return (
                name: string,
                p: { body: { metadata?: Record<string, unknown> } },
                o?: never,
              ) => {
                note(
                  `PATCH ${kind} ${mask(kind, name)}: ${describePatch(p.body.metadata ?? {}, nameOf)}`,
                );
                return target.patch(name, p as never, o);
              };
            }
            const value: unknown = Reflect.get(target, prop);
            return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
          },
        });
      return wrap(inner.resource<T>(gvr, opts));
    },
  };
}

/** What a patch of the collector does, in words. */
function describePatch(meta: Record<string, unknown>, nameOf: (uid: string) => string): string {
  const parts: string[] = [];
  if ('finalizers' in meta) {
    const f = (meta.finalizers as string[] | null) ?? [];
    parts.push(`finalizers [${f.join(', ')}]`);
  }
  const refs = meta.ownerReferences as
    { $patch?: string; uid: string; blockOwnerDeletion?: boolean }[] | undefined;
  for (const ref of refs ?? []) {
    if (ref.$patch === 'delete') parts.push(`remove the ownerReference to ${nameOf(ref.uid)}`);
    else if (ref.blockOwnerDeletion === false)
      parts.push(`unblock the ownerReference to ${nameOf(ref.uid)}`);
  }
  return parts.join('; ') || JSON.stringify(meta);
}

/** Folds runs of the same line into one, with how many there were. */
export function fold(lines: readonly string[]): string[] {
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
