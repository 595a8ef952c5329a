// Shared test fixtures: DaemonSets, nodes and pods in wire format shaped like
// the ones daemon_controller_test.go builds (newDaemonSet, newNode, newPod,
// setNodeTaint), and a controller over caches filled by hand (Go's
// newTestController): a fake pod control, and in-memory clients for
// DaemonSets and ControllerRevisions that write through to the caches.
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod, PodTemplateSpec, Taint } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  FakeClock,
  FakeRecorder,
  formatTime,
  newAlreadyExists,
  newControllerRef,
  newNotFound,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type Indexer } from '@kcm-ts/informer';
import { FakePodControl, computeHash, type PodControl } from '@kcm-ts/controller';
import {
  DaemonSetsController,
  controllerRevisionHashLabelKey,
  daemonSetKind,
} from '../src/index.js';
import { getTargetNodeName } from '../src/daemonset-util.js';

/** `T` with its read-only fields writable, for a test to set server-set fields. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };
export const mut = <T>(x: T): Writable<T> => x;

/** Lets promise chains and in-process I/O run. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

export const simpleDaemonSetLabel = { name: 'simple-daemon', type: 'production' };
export const simpleDaemonSetLabel2 = { name: 'simple-daemon', type: 'test' };
export const simpleNodeLabel = { color: 'blue', speed: 'fast' };

let uidSeq = 0;
export const nextUid = (): string => `uid-${++uidSeq}`;

/** Go's `newDaemonSet`: selector and template labels `simpleDaemonSetLabel`, RollingUpdate maxUnavailable 1. */
export function newDaemonSet(name: string): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'default', uid: nextUid(), generation: 1, resourceVersion: '1' },
    spec: {
      selector: { matchLabels: { ...simpleDaemonSetLabel } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      revisionHistoryLimit: 10,
      template: {
        metadata: { labels: { ...simpleDaemonSetLabel } },
        spec: {
          containers: [{ name: 'foo', image: 'foo/bar', terminationMessagePath: '/dev/null' }],
          dnsPolicy: 'Default',
        },
      },
    },
  };
}

/** Go's `newNode`: a Ready node with `labels`. */
export function newNode(name: string, labels?: Record<string, string>): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { ...labels }, resourceVersion: '1' },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

export function setNodeTaint(node: Node, taints: Taint[]): void {
  node.spec = { ...node.spec, taints };
}

export const noScheduleTaints: Taint[] = [
  { key: 'dedicated', value: 'user1', effect: 'NoSchedule' },
];
export const noExecuteTaints: Taint[] = [{ key: 'dedicated', value: 'user1', effect: 'NoExecute' }];

/** A ready pod on `nodeName` owned by `ds` (when given), created at `created`. */
export function newPod(
  name: string,
  nodeName: string,
  labels: Record<string, string>,
  ds?: DaemonSet,
  created = '2026-01-01T00:00:00Z',
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: nextUid(),
      // As Go's newPod: a pod of a DaemonSet runs its current template.
      labels: {
        ...labels,
        ...(ds && {
          [controllerRevisionHashLabelKey]: computeHash(
            ds.spec!.template,
            ds.status?.collisionCount,
          ),
        }),
      },
      creationTimestamp: created,
      resourceVersion: '1',
      ...(ds && { ownerReferences: [newControllerRef(ds, daemonSetKind)] }),
    },
    spec: { nodeName, containers: [{ name: 'foo', image: 'foo/bar' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    },
  };
}

/** An in-memory client over a cache: writes land in the cache at once (no handlers run). */
function memoryClient<T extends KubeObject>(
  indexer: Indexer<T>,
  resource: { group: string; resource: string },
  clock: FakeClock,
  log: { creates: T[]; deletes: string[]; statusUpdates: T[] },
): ResourceClient<T> {
  let rv = 100;
  const make = (namespace: string): ResourceClient<T> =>
    ({
      inNamespace: (ns: string) => make(ns),
      get: (name: string) => {
        const found = indexer.getByKey(namespace ? `${namespace}/${name}` : name);
        return found
          ? Promise.resolve(structuredClone(found))
          : Promise.reject(newNotFound(resource, name));
      },
      create: (obj: T) => {
        const copy = structuredClone(obj) as Writable<T>;
        const meta = { ...copy.metadata } as Writable<NonNullable<T['metadata']>>;
        meta.namespace = namespace;
        meta.name ??= `${meta.generateName ?? 'obj-'}${++rv}`;
        if (indexer.getByKey(`${namespace}/${meta.name}`)) {
          return Promise.reject(newAlreadyExists(resource, meta.name));
        }
        meta.uid = nextUid();
        meta.resourceVersion = String(++rv);
        meta.creationTimestamp = formatTime(clock.now());
        copy.metadata = meta;
        indexer.add(copy);
        log.creates.push(copy);
        return Promise.resolve(structuredClone(copy as T));
      },
      update: (obj: T) => {
        const copy = structuredClone(obj) as Writable<T>;
        copy.metadata = { ...copy.metadata, resourceVersion: String(++rv) };
        indexer.update(copy);
        return Promise.resolve(structuredClone(copy as T));
      },
      updateStatus: (obj: T) => {
        const copy = structuredClone(obj) as Writable<T>;
        copy.metadata = { ...copy.metadata, resourceVersion: String(++rv) };
        indexer.update(copy);
        log.statusUpdates.push(structuredClone(copy as T));
        return Promise.resolve(structuredClone(copy as T));
      },
      delete: (name: string) => {
        const found = indexer.getByKey(`${namespace}/${name}`);
        if (!found) return Promise.reject(newNotFound(resource, name));
        indexer.delete(found);
        log.deletes.push(name);
        return Promise.resolve(found);
      },
      // Labels merge; owner references merge by uid (an adoption's strategic merge patch).
      patch: (
        name: string,
        patch: {
          body: {
            metadata?: { labels?: Record<string, string>; ownerReferences?: OwnerReference[] };
          };
        },
      ) => {
        const found = indexer.getByKey(`${namespace}/${name}`);
        if (!found) return Promise.reject(newNotFound(resource, name));
        const copy = structuredClone(found) as Writable<T>;
        const labels = patch.body.metadata?.labels;
        const refs = patch.body.metadata?.ownerReferences;
        copy.metadata = {
          ...copy.metadata,
          ...(labels && { labels: { ...copy.metadata?.labels, ...labels } }),
          ...(refs && {
            ownerReferences: [
              ...(copy.metadata?.ownerReferences ?? []).filter(
                (r) => !refs.some((p) => p.uid === r.uid),
              ),
              ...refs,
            ],
          }),
          resourceVersion: String(++rv),
        };
        indexer.update(copy);
        return Promise.resolve(structuredClone(copy as T));
      },
    }) as unknown as ResourceClient<T>;
  return make('');
}

export interface ClientLog<T> {
  creates: T[];
  deletes: string[];
  statusUpdates: T[];
}

/** A controller over caches filled by hand, as daemon_controller_test.go's `newTestController`. */
export interface Fixture {
  controller: DaemonSetsController;
  clock: FakeClock;
  podControl: FakePodControl;
  recorder: FakeRecorder;
  dsIndexer: Indexer<DaemonSet>;
  podIndexer: Indexer<Pod>;
  nodeIndexer: Indexer<Node>;
  historyIndexer: Indexer<ControllerRevision>;
  dsLog: ClientLog<DaemonSet>;
  historyLog: ClientLog<ControllerRevision>;
  podLog: ClientLog<Pod>;
  /** With `world: true`, the pod control that makes the pod cache the world. */
  world: WorldPodControl;
  /** Syncs the DaemonSet once by key. */
  sync(ds: DaemonSet): Promise<void>;
  /** The keys waiting in the queue, taken out. */
  drain(): Promise<string[]>;
}

export function fixture(
  opts: { clock?: FakeClock; podControl?: PodControl; world?: boolean } = {},
): Fixture {
  const clock = opts.clock ?? new FakeClock();
  const source = {
    resource: <T extends KubeObject>(_gvr: GroupVersionResource) =>
      ({}) as unknown as ResourceClient<T>,
  };
  const factory = new SharedInformerFactory(source, 0, { clock });
  const podControl = new FakePodControl();
  const recorder = new FakeRecorder();
  const dsIndexer = factory.daemonSets().informer().getIndexer();
  const podIndexer = factory.pods().informer().getIndexer();
  const nodeIndexer = factory.nodes().informer().getIndexer();
  const historyIndexer = factory.controllerRevisions().informer().getIndexer();
  const dsLog: ClientLog<DaemonSet> = { creates: [], deletes: [], statusUpdates: [] };
  const historyLog: ClientLog<ControllerRevision> = { creates: [], deletes: [], statusUpdates: [] };
  const world = new WorldPodControl(podIndexer, clock);
  const podLog: ClientLog<Pod> = { creates: [], deletes: [], statusUpdates: [] };
  const controller = new DaemonSetsController({
    daemonSets: factory.daemonSets(),
    controllerRevisions: factory.controllerRevisions(),
    pods: factory.pods(),
    nodes: factory.nodes(),
    client: {
      daemonSets: memoryClient(dsIndexer, { group: 'apps', resource: 'daemonsets' }, clock, dsLog),
      controllerRevisions: memoryClient(
        historyIndexer,
        { group: 'apps', resource: 'controllerrevisions' },
        clock,
        historyLog,
      ),
      pods: memoryClient(podIndexer, { group: '', resource: 'pods' }, clock, podLog),
    },
    podControl: opts.podControl ?? (opts.world ? world : podControl),
    recorder,
    clock,
  });
  world.controller = controller;
  return {
    world,
    controller,
    clock,
    podControl,
    recorder,
    dsIndexer,
    podIndexer,
    nodeIndexer,
    historyIndexer,
    dsLog,
    historyLog,
    podLog,
    sync: (ds) => controller.syncDaemonSet(`${ds.metadata!.namespace}/${ds.metadata!.name}`),
    async drain() {
      const keys: string[] = [];
      while (controller.queue.len() > 0) {
        const [key] = await controller.queue.get();
        if (key === undefined) break;
        keys.push(key);
        controller.queue.done(key);
      }
      return keys;
    },
  };
}

/** The node each created pod template is pinned to. */
export const pinnedNodes = (podControl: FakePodControl): string[] =>
  podControl.templates.map((t) => getTargetNodeName({ spec: t.spec! }));

/**
 * A pod control that makes the cache the world: created pods land in the pod
 * cache bound to their node (as the scheduler would bind them) and not ready;
 * deleted pods leave it. The controller's expectations are observed at once,
 * as its informer handlers would.
 */
export class WorldPodControl implements PodControl {
  created = 0;
  deleted = 0;
  #seq = 0;
  controller: DaemonSetsController | undefined;
  constructor(
    private readonly podIndexer: Indexer<Pod>,
    private readonly clock: FakeClock,
  ) {}

  createPods(
    namespace: string,
    template: PodTemplateSpec,
    controllerObject: KubeObject,
    controllerRef: OwnerReference,
  ): Promise<void> {
    const name = `${controllerObject.metadata?.name ?? ''}-${++this.#seq}`;
    const nodeName = getTargetNodeName({ spec: template.spec! });
    const pod: Pod = {
      metadata: {
        ...structuredClone(template.metadata),
        name,
        namespace,
        uid: nextUid(),
        creationTimestamp: formatTime(this.clock.now()),
        resourceVersion: String(this.#seq),
        ownerReferences: [controllerRef],
      },
      spec: { ...structuredClone(template.spec!), nodeName },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] },
    };
    this.podIndexer.add(pod);
    this.created++;
    this.controller?.expectations.creationObserved(
      `${controllerObject.metadata?.namespace ?? ''}/${controllerObject.metadata?.name ?? ''}`,
    );
    return Promise.resolve();
  }

  createPodsWithGenerateName(): Promise<void> {
    return Promise.reject(new Error('not used'));
  }

  deletePod(namespace: string, podID: string, controllerObject: KubeObject): Promise<void> {
    const pod = this.podIndexer.getByKey(`${namespace}/${podID}`);
    if (pod === undefined)
      return Promise.reject(newNotFound({ group: '', resource: 'pods' }, podID));
    this.podIndexer.delete(pod);
    this.deleted++;
    this.controller?.expectations.deletionObserved(
      `${controllerObject.metadata?.namespace ?? ''}/${controllerObject.metadata?.name ?? ''}`,
    );
    return Promise.resolve();
  }

  patchPod(): Promise<void> {
    return Promise.resolve();
  }

  /** Makes every pod not ready yet Ready now (or only those `pick` chooses). */
  markReady(pick: (pod: Pod) => boolean = () => true): void {
    for (const pod of this.podIndexer.list()) {
      const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      if (ready || !pick(pod)) continue;
      this.podIndexer.update({
        ...pod,
        metadata: { ...pod.metadata, resourceVersion: String(++this.#seq) },
        status: {
          phase: 'Running',
          conditions: [
            { type: 'Ready', status: 'True', lastTransitionTime: formatTime(this.clock.now()) },
          ],
        },
      });
    }
  }
}
