// A ResourceClient that calls the registry directly: the same semantics as
// the HTTP API (the same code decides), without sockets or JSON, for fast
// unit tests of controllers.
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
import type { Status } from 'kubernetes-types/meta/v1.js';
import type { Registry } from './registry.js';
import type { ResourceInfo } from './resources.js';

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

class InProcessClient<T extends KubeObject> implements ResourceClient<T> {
  constructor(
    private readonly registry: Registry,
    private readonly info: ResourceInfo,
    readonly namespace: string | undefined,
  ) {}

  private ns(obj?: KubeObject): string {
    if (!this.info.namespaced) return '';
    return this.namespace ?? obj?.metadata?.namespace ?? '';
  }

  inNamespace(namespace: string): ResourceClient<T> {
    return new InProcessClient<T>(
      this.registry,
      this.info,
      namespace === '' ? undefined : namespace,
    );
  }

  list(opts: ListOptions = {}): Promise<ObjectList<T>> {
    return later(
      opts.signal,
      () => this.registry.list(this.info, this.ns(), opts) as ObjectList<T>,
    );
  }

  watch(opts: ListOptions = {}): Promise<AsyncIterable<WatchEvent<T>>> {
    return later(opts.signal, () => {
      const watch = this.registry.watch(this.info, this.ns(), opts);
      opts.signal?.addEventListener('abort', () => watch.stop(), { once: true });
      return watch as AsyncIterable<WatchEvent<T>>;
    });
  }

  get(name: string, opts: GetOptions = {}): Promise<T> {
    return later(opts.signal, () => this.registry.get(this.info, this.ns(), name) as T);
  }

  create(obj: T, opts: CreateOptions = {}): Promise<T> {
    return later(opts.signal, () => this.registry.create(this.info, this.ns(obj), obj, opts) as T);
  }

  update(obj: T, opts: UpdateOptions = {}): Promise<T> {
    return later(
      opts.signal,
      () =>
        this.registry.update(this.info, this.ns(obj), obj.metadata?.name ?? '', obj, opts)
          .object as T,
    );
  }

  updateStatus(obj: T, opts: UpdateOptions = {}): Promise<T> {
    return later(
      opts.signal,
      () =>
        this.registry.update(this.info, this.ns(obj), obj.metadata?.name ?? '', obj, {
          ...opts,
          subresource: 'status',
        }).object as T,
    );
  }

  patch(name: string, patch: Patch, opts: PatchOptions = {}): Promise<T> {
    return later(
      opts.signal,
      () => this.registry.patch(this.info, this.ns(), name, patch, opts).object as T,
    );
  }

  patchStatus(name: string, patch: Patch, opts: PatchOptions = {}): Promise<T> {
    return later(
      opts.signal,
      () =>
        this.registry.patch(this.info, this.ns(), name, patch, { ...opts, subresource: 'status' })
          .object as T,
    );
  }

  delete(name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    return later(
      opts.signal,
      () => this.registry.delete(this.info, this.ns(), name, opts) as T | Status,
    );
  }
}

/** A {@link ResourceClient} for `info` over `registry`, unscoped (all namespaces). */
export function inProcessClient<T extends KubeObject>(
  registry: Registry,
  info: ResourceInfo,
): ResourceClient<T> {
  return new InProcessClient<T>(registry, info, undefined);
}
