// A ResourceClient that calls the registry directly: the same semantics as
// the HTTP API (the same code decides), without sockets or JSON, for fast
// unit tests of controllers; and its metadata-only form, as client-go's
// metadata/metadata.go reads PartialObjectMetadata. Given the fault lab, it
// meets the faults an HTTP client would (the server's filter chain,
// staging/src/k8s.io/apiserver/pkg/server/config.go, stands in the lab's
// place), so fault tests can run on a fake clock.
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  KubeObject,
  ListOptions,
  ObjectList,
  Patch,
  PatchOptions,
  ResourceClient,
  UpdateOptions,
  WatchEvent,
} from '@kcm-ts/apimachinery';
import { isStatus, newMethodNotSupported, newNotFound } from '@kcm-ts/apimachinery';
import type { Status } from 'kubernetes-types/meta/v1.js';
import type { Binding } from 'kubernetes-types/core/v1.js';
import type { FaultLab } from '../lab/faults.js';
import type { Registry } from '../apiserver/registry/store.js';
import { asPartialObjectMetadata, asPartialObjectMetadataList } from '../apiserver/response.js';
import type { PartialObjectMetadata } from '../apiserver/response.js';
import type { ResourceInfo, Verb } from '../apiserver/resources.js';
import type { Watch } from '../apiserver/storage/watch.js';

function checkSignal(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

// Every call answers on a later tick, as a network client would, so callers
// cannot come to rely on synchronous results.
async function later<T>(signal: AbortSignal | undefined, fn: () => T): Promise<T> {
  await Promise.resolve();
  checkSignal(signal);
  return fn();
}

/**
 * Options of an in-process client.
 *
 * @category Client
 */
export interface InProcessClientOptions {
  /**
   * The fault lab whose faults this client meets, as HTTP clients do: planned
   * failures, latency on the sandbox's clock, dropped and hung watches, and
   * the request counts. Without it the client meets none.
   */
  faults?: FaultLab;
}

class InProcessClient<T extends KubeObject> implements ResourceClient<T> {
  constructor(
    private readonly registry: Registry,
    private readonly info: ResourceInfo,
    readonly namespace: string | undefined,
    private readonly faults?: FaultLab,
  ) {}

  /** Answers on a later tick, after the faults a request with this verb meets. */
  private async call<R>(
    verb: Verb,
    name: string,
    signal: AbortSignal | undefined,
    fn: () => R,
  ): Promise<R> {
    if (!this.faults) return later(signal, fn);
    await Promise.resolve();
    checkSignal(signal);
    const { group, resource } = this.info;
    await this.faults.beforeRequest(verb, { group, resource }, name);
    checkSignal(signal);
    return fn();
  }

  private ns(obj?: KubeObject): string {
    if (!this.info.namespaced) return '';
    return this.namespace ?? obj?.metadata?.namespace ?? '';
  }

  inNamespace(namespace: string): ResourceClient<T> {
    return new InProcessClient<T>(
      this.registry,
      this.info,
      namespace === '' ? undefined : namespace,
      this.faults,
    );
  }

  list(opts: ListOptions = {}): Promise<ObjectList<T>> {
    return this.call(
      'list',
      '',
      opts.signal,
      () => this.registry.list(this.info, this.ns(), opts) as ObjectList<T>,
    );
  }

  watch(opts: ListOptions = {}): Promise<AsyncIterable<WatchEvent<T>>> {
    return this.call('watch', '', opts.signal, () => {
      const watch = this.registry.watch(this.info, this.ns(), opts);
      const signal = opts.signal;
      if (signal) {
        // Taken off when the watch ends by itself, so that a long-lived
        // signal does not gather one listener per watch.
        const onAbort = (): void => watch.stop();
        signal.addEventListener('abort', onAbort, { once: true });
        watch.onStop(() => signal.removeEventListener('abort', onAbort));
      }
      const events = this.faults ? faultedWatch(watch, this.faults, this.info, opts.signal) : watch;
      return events as AsyncIterable<WatchEvent<T>>;
    });
  }

  get(name: string, opts: GetOptions = {}): Promise<T> {
    return this.call(
      'get',
      name,
      opts.signal,
      () => this.registry.get(this.info, this.ns(), name) as T,
    );
  }

  /**
   * Creates an object; as client-go's typed `EvictV1` and `CreateToken` do
   * through their subresources, a policy Eviction given to the pods client
   * evicts the pod it names, and a TokenRequest given to the serviceaccounts
   * client issues a token for the account it names. Both answer what the
   * subresource answers (a Status; the TokenRequest with its status).
   */
  create(obj: T, opts: CreateOptions = {}): Promise<T> {
    const name = obj.metadata?.name ?? '';
    if (this.info.storage === 'pods' && obj.kind === 'Eviction') {
      return this.call('create', name, opts.signal, () =>
        this.registry.evictPod(this.ns(obj), name, obj, opts.dryRun ? { dryRun: 'All' } : {}),
      ) as unknown as Promise<T>;
    }
    if (this.info.storage === 'serviceaccounts' && obj.kind === 'TokenRequest') {
      return this.call(
        'create',
        name,
        opts.signal,
        () => this.registry.createServiceAccountToken(this.ns(obj), name, obj) as T,
      );
    }
    return this.call(
      'create',
      '',
      opts.signal,
      () => this.registry.create(this.info, this.ns(obj), obj, opts) as T,
    );
  }

  update(obj: T, opts: UpdateOptions = {}): Promise<T> {
    const { subresource, ...rest } = opts;
    const name = obj.metadata?.name ?? '';
    return this.call('update', name, opts.signal, () => {
      if (subresource === 'finalize' && this.info.storage === 'namespaces')
        return this.registry.finalizeNamespace(name, obj) as T;
      // A Scale in, a Scale out: the caller's T is the Scale here.
      if (subresource === 'scale' && this.info.subresources.includes('scale'))
        return this.registry.updateScale(this.info, this.ns(obj), name, obj, rest) as unknown as T;
      if (subresource !== undefined && subresource !== 'status') {
        throw newNotFound(
          { group: this.info.group, resource: `${this.info.resource}/${subresource}` },
          name,
        );
      }
      return this.registry.update(this.info, this.ns(obj), name, obj, {
        ...rest,
        ...(subresource === 'status' ? { subresource } : {}),
      }).object as T;
    });
  }

  updateStatus(obj: T, opts: UpdateOptions = {}): Promise<T> {
    const name = obj.metadata?.name ?? '';
    return this.call(
      'update',
      name,
      opts.signal,
      () =>
        this.registry.update(this.info, this.ns(obj), name, obj, {
          ...opts,
          subresource: 'status',
        }).object as T,
    );
  }

  patch(name: string, patch: Patch, opts: PatchOptions = {}): Promise<T> {
    return this.call(
      'patch',
      name,
      opts.signal,
      () => this.registry.patch(this.info, this.ns(), name, patch, opts).object as T,
    );
  }

  patchStatus(name: string, patch: Patch, opts: PatchOptions = {}): Promise<T> {
    return this.call(
      'patch',
      name,
      opts.signal,
      () =>
        this.registry.patch(this.info, this.ns(), name, patch, { ...opts, subresource: 'status' })
          .object as T,
    );
  }

  delete(name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    return this.call(
      'delete',
      name,
      opts.signal,
      () => this.registry.delete(this.info, this.ns(), name, opts) as T | Status,
    );
  }

  deleteCollection(opts: DeleteOptions = {}, listOpts: ListOptions = {}): Promise<void> {
    // As over HTTP: only a namespaced path deletes a namespaced collection,
    // and a path that is not served meets no fault.
    if (!this.info.verbs.includes('deletecollection') || (this.info.namespaced && !this.ns())) {
      const refused = newMethodNotSupported(
        { group: this.info.group, resource: this.info.resource },
        'deletecollection',
      );
      return later(opts.signal ?? listOpts.signal, () => {
        throw refused;
      });
    }
    return this.call('deletecollection', '', opts.signal ?? listOpts.signal, () => {
      const { signal: _signal, ...selection } = listOpts;
      this.registry.deleteCollection(this.info, this.ns(), selection, opts);
    });
  }
}

/**
 * A watch as a client of a faulty server sees it: dropped when the lab drops
 * watches, silent while the lab hangs them, and then open past its timeout
 * until dropped or abandoned, as the HTTP handler holds a hung stream.
 */
async function* faultedWatch(
  watch: Watch,
  faults: FaultLab,
  info: ResourceInfo,
  signal: AbortSignal | undefined,
): AsyncGenerator<WatchEvent<KubeObject>> {
  let dropped!: () => void;
  const gone = new Promise<void>((resolve) => (dropped = resolve));
  signal?.addEventListener('abort', () => dropped(), { once: true });
  const tracked = faults.openWatch(info.resource, () => {
    watch.stop();
    dropped();
  });
  try {
    for await (const event of watch) {
      if (!tracked.hung()) yield event;
    }
    if (tracked.hung()) await gone;
  } finally {
    tracked.close();
    watch.stop();
  }
}

/**
 * The typed pods client's `Bind` (client-go kubernetes/typed/core/v1/
 * pod_expansion.go), in process: a POST to `pods/binding`, which the
 * ResourceClient interface has no verb for.
 */
export function inProcessPodBinder(registry: Registry): {
  bind(binding: Binding): Promise<void>;
} {
  return {
    bind: (binding) =>
      later(undefined, () => {
        const meta = binding.metadata ?? {};
        registry.bindPod(meta.namespace ?? '', meta.name ?? '', binding);
      }),
  };
}

/** A {@link ResourceClient} for `info` over `registry`, unscoped (all namespaces). */
export function inProcessClient<T extends KubeObject>(
  registry: Registry,
  info: ResourceInfo,
  opts: InProcessClientOptions = {},
): ResourceClient<T> {
  return new InProcessClient<T>(registry, info, undefined, opts.faults);
}

// client-go's metadata client (metadata/metadata.go) has no create or update:
// there is no object to write, only metadata to read and patch.
function noWrites(verb: string): Promise<never> {
  return Promise.reject(
    new Error(
      `${verb}: a metadata client reads, watches, patches and deletes; it cannot write whole objects (use a full client)`,
    ),
  );
}

class InProcessMetadataClient implements ResourceClient<PartialObjectMetadata> {
  readonly #full: ResourceClient<KubeObject>;

  constructor(full: ResourceClient<KubeObject>) {
    this.#full = full;
  }

  get namespace(): string | undefined {
    return this.#full.namespace;
  }

  inNamespace(namespace: string): ResourceClient<PartialObjectMetadata> {
    return new InProcessMetadataClient(this.#full.inNamespace(namespace));
  }

  async list(opts: ListOptions = {}): Promise<ObjectList<PartialObjectMetadata>> {
    return asPartialObjectMetadataList(await this.#full.list(opts));
  }

  async watch(opts: ListOptions = {}): Promise<AsyncIterable<WatchEvent<PartialObjectMetadata>>> {
    const events = await this.#full.watch(opts);
    return (async function* () {
      for await (const event of events) {
        yield event.type === 'ERROR'
          ? event
          : { type: event.type, object: asPartialObjectMetadata(event.object) };
      }
    })();
  }

  async get(name: string, opts: GetOptions = {}): Promise<PartialObjectMetadata> {
    return asPartialObjectMetadata(await this.#full.get(name, opts));
  }

  create(): Promise<PartialObjectMetadata> {
    return noWrites('create');
  }

  update(): Promise<PartialObjectMetadata> {
    return noWrites('update');
  }

  updateStatus(): Promise<PartialObjectMetadata> {
    return noWrites('updateStatus');
  }

  async patch(name: string, patch: Patch, opts: PatchOptions = {}): Promise<PartialObjectMetadata> {
    return asPartialObjectMetadata(await this.#full.patch(name, patch, opts));
  }

  async patchStatus(
    name: string,
    patch: Patch,
    opts: PatchOptions = {},
  ): Promise<PartialObjectMetadata> {
    return asPartialObjectMetadata(await this.#full.patchStatus(name, patch, opts));
  }

  async delete(name: string, opts: DeleteOptions = {}): Promise<PartialObjectMetadata | Status> {
    const out = await this.#full.delete(name, opts);
    return isStatus(out) ? out : asPartialObjectMetadata(out);
  }

  deleteCollection(opts: DeleteOptions = {}, listOpts: ListOptions = {}): Promise<void> {
    return this.#full.deleteCollection(opts, listOpts);
  }
}

/**
 * A metadata-only {@link ResourceClient} for `info` over `registry`, unscoped:
 * what client-go's metadata client reads from kube-apiserver with
 * `Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`.
 * Objects come back as `meta.k8s.io/v1` PartialObjectMetadata, lists as
 * PartialObjectMetadataList; create and update reject, as the metadata
 * client has neither.
 */
export function inProcessMetadataClient(
  registry: Registry,
  info: ResourceInfo,
  opts: InProcessClientOptions = {},
): ResourceClient<PartialObjectMetadata> {
  return new InProcessMetadataClient(inProcessClient<KubeObject>(registry, info, opts));
}
