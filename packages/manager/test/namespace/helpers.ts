// A namespace controller against an in-process sandbox that, as
// kube-apiserver does, keeps a deleted namespace Terminating until its
// `kubernetes` finalizer is removed through namespaces/{name}/finalize.
import type { Namespace } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  newMethodNotSupported,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type ResourceClientSource } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { serverPreferredNamespacedResources } from '../../src/discovery.js';
import {
  NamespaceController,
  type NamespaceControllerOptions,
} from '../../src/namespace/namespace-controller.js';
import {
  TestDiscovery,
  memoryLogger,
  sandboxMetadataSource,
  sandboxSource,
  until,
} from '../garbagecollector/helpers.js';

/**
 * The calls a controller made that change things, oldest first, such as
 * `deletecollection configmaps`, `delete configmaps/a` or `finalize demo`.
 */
export type CallLog = string[];

/** Options of {@link recording}. */
export interface RecordingOptions {
  /**
   * Resources (plural names) whose deletecollection is answered with 405
   * MethodNotAllowed, as by a server where a listed resource lacks it.
   */
  refuseCollections?: readonly string[];
}

/**
 * `source`'s clients, each call passed to the real client, with the deletes,
 * collection deletes and finalizes logged in `calls` as they are sent.
 */
export function recording(
  source: ResourceClientSource,
  calls: CallLog,
  opts: RecordingOptions = {},
): ResourceClientSource {
  const refused = new Set(opts.refuseCollections ?? []);
  return {
    resource<T extends KubeObject>(
      gvr: GroupVersionResource,
      o: { namespaced: boolean; kind: string },
    ): ResourceClient<T> {
      const wrap = (c: ResourceClient<T>): ResourceClient<T> => ({
        get namespace() {
          return c.namespace;
        },
        inNamespace: (ns) => wrap(c.inNamespace(ns)),
        list: (lo) => c.list(lo),
        watch: (lo) => c.watch(lo),
        get: (name, go) => c.get(name, go),
        create: (obj, co) => c.create(obj, co),
        update: (obj, uo) => {
          if (uo?.subresource === 'finalize') calls.push(`finalize ${obj.metadata?.name}`);
          return c.update(obj, uo);
        },
        updateStatus: (obj, uo) => c.updateStatus(obj, uo),
        patch: (name, p, po) => c.patch(name, p, po),
        patchStatus: (name, p, po) => c.patchStatus(name, p, po),
        delete: (name, d) => {
          calls.push(`delete ${gvr.resource}/${name}`);
          return c.delete(name, d);
        },
        deleteCollection: (d, lo) => {
          calls.push(`deletecollection ${gvr.resource}`);
          if (refused.has(gvr.resource)) {
            return Promise.reject(newMethodNotSupported(gvr, 'deletecollection'));
          }
          return c.deleteCollection(d, lo);
        },
      });
      return wrap(source.resource<T>(gvr, o));
    },
  };
}

export interface NSHarness {
  readonly clock: FakeClock;
  readonly sandbox: Sandbox;
  readonly discovery: TestDiscovery;
  readonly calls: CallLog;
  readonly logger: ReturnType<typeof memoryLogger>;
  /** The sandbox's namespaces client, for the test's own requests (not logged). */
  readonly namespaces: ResourceClient<Namespace>;
  /** The sandbox's client of `group/resource` in `ns`, for the test's own requests. */
  client<T extends KubeObject = KubeObject>(
    group: string,
    resource: string,
    ns: string,
  ): ResourceClient<T>;
  /** Advances the clock until `done` holds. */
  until(done: () => boolean | Promise<boolean>, what: string): Promise<void>;
  /** True once the namespace is gone from the server. */
  isGone(name: string): Promise<boolean>;
  /** True once a line of the controller's log starts with `prefix`. */
  logged(prefix: string): boolean;
  stop(): Promise<void>;
}

/**
 * Starts a sandbox that leaves namespaces to a namespace controller, and
 * that controller over it. Like the manager, the controller reads
 * namespaces and pods whole and the content through metadata-only clients
 * (whole-object clients with `fullObjects`).
 */
export async function startNamespaceController(
  opts: {
    workers?: number;
    discovery?: TestDiscovery;
    /** A sandbox started with `finishNamespaces: false` on `clock`; stopped with the harness. */
    sandbox?: Sandbox;
    clock?: FakeClock;
    /** Whole-object clients for the content too. */
    fullObjects?: boolean;
  } & RecordingOptions &
    Partial<NamespaceControllerOptions> = {},
): Promise<NSHarness> {
  const clock = opts.clock ?? new FakeClock();
  const sandbox =
    opts.sandbox ?? (await startSandbox({ clock, insecureHttp: true, finishNamespaces: false }));
  const calls: CallLog = [];
  const discovery = opts.discovery ?? new TestDiscovery();
  const logger = memoryLogger();
  const kubeClient = recording(sandboxSource(sandbox), calls);
  const metadataClient = recording(
    opts.fullObjects === true ? sandboxSource(sandbox) : sandboxMetadataSource(sandbox),
    calls,
    opts,
  );
  const factory = new SharedInformerFactory(sandboxSource(sandbox), 0, { clock });
  const controller = new NamespaceController({
    kubeClient,
    metadataClient,
    discoverResourcesFn: () => serverPreferredNamespacedResources(discovery),
    namespaceInformer: factory.namespaces(),
    clock,
    logger,
    ...opts,
  });
  const abort = new AbortController();
  factory.start(abort.signal);
  const running = controller.run(opts.workers ?? 2, abort.signal);
  const namespaces = sandbox.client<Namespace>('', 'namespaces');
  let stopped = false;
  return {
    clock,
    sandbox,
    discovery,
    calls,
    logger,
    namespaces,
    client: <T extends KubeObject>(group: string, resource: string, ns: string) =>
      sandbox.client<T>(group, resource).inNamespace(ns),
    until: (done, what) => until(clock, done, what, { step: 500, maxSteps: 400 }),
    async isGone(name) {
      return (await namespaces.list()).items.every((n) => n.metadata?.name !== name);
    },
    logged: (prefix) => logger.lines.some((l) => l.startsWith(prefix)),
    async stop() {
      if (stopped) return;
      stopped = true;
      abort.abort();
      await running;
      await factory.shutdown();
      await sandbox.stop();
    },
  };
}
