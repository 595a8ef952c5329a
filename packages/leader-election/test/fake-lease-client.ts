// An in-memory ResourceClient<Lease> with real optimistic concurrency and
// injectable failures, for the elector's tests.
import {
  newAlreadyExists,
  newConflict,
  newNotFound,
  optimisticLockErrorMsg,
} from '@kcm-ts/apimachinery';
import type { ObjectList, ResourceClient, WatchEvent } from '@kcm-ts/apimachinery';
import type { Lease } from 'kubernetes-types/coordination/v1.js';

const leases = { group: 'coordination.k8s.io', resource: 'leases' };

export type Verb = 'get' | 'create' | 'update';

/** A shared store of Leases; `client()` gives clients over it. */
export class LeaseStore {
  readonly objects = new Map<string, Lease>();
  readonly ops: string[] = [];
  #rv = 0;
  /** Decides, before each request, whether it fails (and with what). */
  inject: ((verb: Verb, name: string) => Error | undefined) | undefined;
  /** Time a request spends on its way to the store (`request`) and back (`response`). */
  latency:
    ((verb: Verb, leg: 'request' | 'response', signal?: AbortSignal) => Promise<void>) | undefined;
  /** Called with every Lease the store writes, when it writes it. */
  onWrite: ((lease: Lease) => void) | undefined;
  readonly #failNext: { verb: Verb; err: Error }[] = [];

  async travel(verb: Verb, leg: 'request' | 'response', signal?: AbortSignal): Promise<void> {
    await Promise.resolve();
    await this.latency?.(verb, leg, signal);
  }

  write(key: string, lease: Lease): void {
    this.objects.set(key, lease);
    this.onWrite?.(clone(lease));
  }

  /** Makes the next request with `verb` fail with `err`, once. */
  failNext(verb: Verb, err: Error): void {
    this.#failNext.push({ verb, err });
  }

  client(namespace?: string): ResourceClient<Lease> {
    return new FakeLeaseClient(this, namespace);
  }

  check(verb: Verb, namespace: string, name: string, signal?: AbortSignal): void {
    this.ops.push(verb);
    if (signal?.aborted) throw signal.reason;
    const i = this.#failNext.findIndex((f) => f.verb === verb);
    if (i >= 0) {
      const [f] = this.#failNext.splice(i, 1);
      throw f!.err;
    }
    const err = this.inject?.(verb, `${namespace}/${name}`);
    if (err) throw err;
  }

  nextRV(): string {
    this.#rv += 1;
    return String(this.#rv);
  }
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

class FakeLeaseClient implements ResourceClient<Lease> {
  constructor(
    readonly store: LeaseStore,
    readonly namespace: string | undefined,
  ) {}

  inNamespace(namespace: string): ResourceClient<Lease> {
    return new FakeLeaseClient(this.store, namespace === '' ? undefined : namespace);
  }

  async get(name: string, opts?: { signal?: AbortSignal }): Promise<Lease> {
    await this.store.travel('get', 'request', opts?.signal);
    const ns = this.namespace ?? '';
    this.store.check('get', ns, name, opts?.signal);
    const obj = this.store.objects.get(`${ns}/${name}`);
    if (!obj) throw newNotFound(leases, name);
    const found = clone(obj);
    await this.store.travel('get', 'response', opts?.signal);
    return found;
  }

  async create(obj: Lease, opts?: { signal?: AbortSignal }): Promise<Lease> {
    await this.store.travel('create', 'request', opts?.signal);
    const ns = obj.metadata?.namespace ?? this.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    this.store.check('create', ns, name, opts?.signal);
    const key = `${ns}/${name}`;
    if (this.store.objects.has(key)) throw newAlreadyExists(leases, name);
    const stored = clone(obj);
    const rv = this.store.nextRV();
    // The server assigns a uid at creation, as it does a resourceVersion.
    stored.metadata = { ...stored.metadata, namespace: ns, uid: `uid-${rv}`, resourceVersion: rv };
    this.store.write(key, stored);
    await this.store.travel('create', 'response', opts?.signal);
    return clone(stored);
  }

  async update(obj: Lease, opts?: { signal?: AbortSignal }): Promise<Lease> {
    await this.store.travel('update', 'request', opts?.signal);
    const ns = obj.metadata?.namespace ?? this.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    this.store.check('update', ns, name, opts?.signal);
    const key = `${ns}/${name}`;
    const current = this.store.objects.get(key);
    if (!current) throw newNotFound(leases, name);
    const rv = obj.metadata?.resourceVersion;
    if (rv !== undefined && rv !== current.metadata?.resourceVersion) {
      throw newConflict(leases, name, optimisticLockErrorMsg);
    }
    const stored = clone(obj);
    stored.metadata = { ...stored.metadata, resourceVersion: this.store.nextRV() };
    this.store.write(key, stored);
    await this.store.travel('update', 'response', opts?.signal);
    return clone(stored);
  }

  list(): Promise<ObjectList<Lease>> {
    return Promise.reject(new Error('not implemented'));
  }
  watch(): Promise<AsyncIterable<WatchEvent<Lease>>> {
    return Promise.reject(new Error('not implemented'));
  }
  updateStatus(): Promise<Lease> {
    return Promise.reject(new Error('not implemented'));
  }
  patch(): Promise<Lease> {
    return Promise.reject(new Error('not implemented'));
  }
  patchStatus(): Promise<Lease> {
    return Promise.reject(new Error('not implemented'));
  }
  delete(): Promise<Lease> {
    return Promise.reject(new Error('not implemented'));
  }

  deleteCollection(): Promise<void> {
    return Promise.reject(new Error('not implemented'));
  }
}
