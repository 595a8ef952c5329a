// A garbage collector against an in-process sandbox on a fake clock.
import type { APIResourceList } from 'kubernetes-types/meta/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  FakeClock,
  FakeRecorder,
  isNotFound,
  type GroupVersionResource,
  type KubeObject,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { ResourceClientSource } from '@kcm-ts/informer';
import { resources, startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import type { ResourceDiscovery } from '@kcm-ts/apimachinery';
import {
  GarbageCollector,
  type GarbageCollectorOptions,
} from '../../src/garbagecollector/garbage-collector.js';

/** The sandbox's resources as discovery lists them, one list per group version. */
export function sandboxResourceLists(): APIResourceList[] {
  const lists = new Map<string, APIResourceList>();
  for (const r of resources) {
    const gv = r.group ? `${r.group}/${r.version}` : r.version;
    let list = lists.get(gv);
    if (list === undefined) lists.set(gv, (list = { groupVersion: gv, resources: [] }));
    list.resources.push({
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: [...r.verbs],
    });
  }
  return [...lists.values()];
}

/** A discovery whose answer a test can change, and that counts its calls. */
export class TestDiscovery implements ResourceDiscovery {
  lists: APIResourceList[];
  error: Error | undefined;
  calls = 0;

  constructor(lists: APIResourceList[] = sandboxResourceLists()) {
    this.lists = lists;
  }

  serverPreferredResources(): Promise<APIResourceList[]> {
    this.calls++;
    if (this.error !== undefined) return Promise.reject(this.error);
    return Promise.resolve(structuredClone(this.lists));
  }
}

/** The sandbox's in-process clients as a client source: whole objects. */
export function sandboxSource(sandbox: Sandbox): ResourceClientSource {
  return {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.client<T>(gvr.group, gvr.resource),
  };
}

/**
 * The sandbox's in-process metadata-only clients as a client source:
 * objects come as `meta.k8s.io/v1` PartialObjectMetadata, as the manager's
 * metadata clients read them.
 */
export function sandboxMetadataSource(sandbox: Sandbox): ResourceClientSource {
  return {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.metadataClient(gvr.group, gvr.resource) as unknown as ResourceClient<T>,
  };
}

/** A logger that keeps every line (verbosity up to 5), for assertions. */
export function memoryLogger(lines: string[] = []): Logger & { lines: string[] } {
  const make = (values: Record<string, unknown>): Logger => ({
    info: (msg, v) => void lines.push(`${msg} ${JSON.stringify({ ...values, ...v })}`),
    error: (err, msg, v) =>
      void lines.push(
        `ERROR ${msg}: ${err instanceof Error ? err.message : String(err)} ${JSON.stringify({ ...values, ...v })}`,
      ),
    v: () => make(values),
    enabled: () => true,
    withValues: (v) => make({ ...values, ...v }),
    withName: () => make(values),
  });
  return Object.assign(make({}), { lines });
}

/**
 * Advances the fake clock in `step` ms hops until `done` holds; fails after
 * `maxSteps` hops.
 */
export async function until(
  clock: FakeClock,
  done: () => boolean | Promise<boolean>,
  what = 'condition',
  { step = 100, maxSteps = 600 } = {},
): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    if (await done()) return;
    await clock.advance(step);
  }
  if (await done()) return;
  throw new Error(`timed out waiting for ${what}`);
}

/** True when the object is gone from the server. */
export async function gone(client: ResourceClient, name: string): Promise<boolean> {
  try {
    await client.get(name);
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

/** An owner reference to `owner`, of `kind` at `apiVersion`. */
export function ownerRef(
  owner: KubeObject,
  apiVersion: string,
  kind: string,
  extra: Partial<OwnerReference> = {},
): OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata?.name ?? '',
    uid: owner.metadata?.uid ?? '',
    ...extra,
  };
}

export interface GCHarness {
  readonly clock: FakeClock;
  readonly sandbox: Sandbox;
  readonly gc: GarbageCollector;
  readonly recorder: FakeRecorder;
  readonly discovery: TestDiscovery;
  readonly logger: Logger & { lines: string[] };
  /** Clients by `group/resource`, such as `apps/deployments` or `/pods`, in `ns`. */
  client<T extends KubeObject = KubeObject>(
    group: string,
    resource: string,
    ns?: string,
  ): ResourceClient<T>;
  /** Advances the clock until the graph holds every one of `uids`. */
  waitForGraph(...uids: string[]): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts a sandbox and a garbage collector over it, and waits for the graph
 * to sync. Its clients give whole objects unless `metadata` is true.
 */
export async function startGC(
  opts: Partial<GarbageCollectorOptions> & {
    workers?: number;
    sandbox?: Sandbox;
    clock?: FakeClock;
    /** Metadata-only clients (`sandbox.metadataClient`), as the manager gives the collector. */
    metadata?: boolean;
  } = {},
): Promise<GCHarness> {
  const clock = opts.clock ?? new FakeClock();
  const sandbox = opts.sandbox ?? (await startSandbox({ clock, insecureHttp: true }));
  const recorder = new FakeRecorder();
  const discovery = (opts.discovery as TestDiscovery | undefined) ?? new TestDiscovery();
  const logger = memoryLogger();
  const metadata = opts.metadata ?? false;
  const gc = new GarbageCollector({
    metadataClient: metadata ? sandboxMetadataSource(sandbox) : sandboxSource(sandbox),
    fullObjects: !metadata,
    discovery,
    clock,
    eventRecorder: recorder,
    logger,
    ...opts,
  });
  const abort = new AbortController();
  const running = gc.run(opts.workers ?? 5, abort.signal);
  let stopped = false;
  const harness: GCHarness = {
    clock,
    sandbox,
    gc,
    recorder,
    discovery,
    logger,
    client: <T extends KubeObject>(group: string, resource: string, ns = 'default') =>
      sandbox.client<T>(group, resource).inNamespace(ns),
    waitForGraph: (...uids) => until(clock, () => uids.every((u) => gc.graphHasUID(u)), 'graph'),
    async stop() {
      if (stopped) return;
      stopped = true;
      abort.abort();
      await running;
      if (opts.sandbox === undefined) await sandbox.stop();
    },
  };
  try {
    await until(clock, () => gc.isSynced(), 'the graph to sync');
  } catch (err) {
    await harness.stop();
    throw err;
  }
  return harness;
}

/** A Deployment with a one-container pod template labelled `app: name`. */
export function deployment(name: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  } as KubeObject;
}

/** A ReplicaSet like the Deployment controller makes, owned by `owner` if given. */
export function replicaSet(name: string, app: string, owners: OwnerReference[] = []): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, ownerReferences: owners },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  } as KubeObject;
}

/** An unscheduled pod (deleted at once, with no kubelet to wait for). */
export function pod(name: string, owners: OwnerReference[] = []): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ownerReferences: owners },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  } as KubeObject;
}

/** A ConfigMap with optional owners and finalizers. */
export function configMap(
  name: string,
  owners: OwnerReference[] = [],
  finalizers: string[] = [],
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      ...(owners.length > 0 ? { ownerReferences: owners } : {}),
      ...(finalizers.length > 0 ? { finalizers } : {}),
    },
    data: { k: 'v' },
  } as KubeObject;
}

/** The controller reference a controller sets: controller and blockOwnerDeletion true. */
export function controllerRef(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return ownerRef(owner, apiVersion, kind, { controller: true, blockOwnerDeletion: true });
}
