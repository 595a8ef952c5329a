// A ListerWatcher over an in-memory set of objects for the reflector tests, in
// the manner of client-go's FakeControllerSource
// (tools/cache/testing/fake_controller_source.go), with pagination, failure
// injection and a record of every call.
import {
  initialEventsEndAnnotation,
  newInternalError,
  newTooManyRequests,
  newBadRequest,
  type StatusError,
  newGone,
  newResourceExpired,
  type ListOptions,
  type ListerWatcher,
  type ObjectList,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import type { TestObj } from './helpers.js';

/** A test object that carries a resourceVersion. */
export interface SourceObj extends TestObj {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}

/** One request the fake received. */
export interface SourceCall {
  method: 'list' | 'watch';
  opts: ListOptions;
}

/** A watch stream the test can push events into, close, or end with an error event. */
export class FakeWatch<T> implements AsyncIterable<WatchEvent<T>> {
  readonly #queue: WatchEvent<T>[] = [];
  #closed = false;
  #wake: (() => void) | undefined;
  /** The options the watch was opened with. */
  readonly opts: ListOptions;

  constructor(opts: ListOptions) {
    this.opts = opts;
    opts.signal?.addEventListener('abort', () => this.close(), { once: true });
  }

  /** Whether the stream has ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Queues an event. */
  push(event: WatchEvent<T>): void {
    if (this.#closed) return;
    this.#queue.push(event);
    this.#notify();
  }

  /** Sends an ERROR event with `err`'s status, then closes. */
  fail(err: StatusError): void {
    this.push({ type: 'ERROR', object: err.toStatus() });
    this.close();
  }

  /** Ends the stream once queued events are read. */
  close(): void {
    this.#closed = true;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    try {
      for (;;) {
        const next = this.#queue.shift();
        if (next !== undefined) {
          yield next;
          continue;
        }
        if (this.#closed) return;
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      this.#closed = true;
    }
  }
}

interface Change {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: SourceObj;
  rv: number;
}

const clone = (o: SourceObj): SourceObj => structuredClone(o);

/** The fake ListerWatcher. */
export class FakeSource implements ListerWatcher<SourceObj> {
  readonly #objects = new Map<string, SourceObj>();
  #changes: Change[] = [];
  #rv = 0;
  /** Changes at or before this version are forgotten; older watches get 410. */
  #compactedAt = 0;
  /** Every request, in order. */
  readonly calls: SourceCall[] = [];
  /** Every watch opened, in order. */
  readonly watches: FakeWatch<SourceObj>[] = [];
  /** Errors the next list requests fail with, first one first. */
  readonly listErrors: Error[] = [];
  /** Errors the next watch requests fail with, first one first. */
  readonly watchErrors: Error[] = [];
  /** When set, a list with a continue token fails with 410 Expired. */
  expireContinue = false;
  /** When set, a watch with sendInitialEvents fails with 400 Bad Request. */
  watchListUnsupported = false;
  /** How many streaming lists to end before their bookmark. */
  dropWatchListBeforeBookmark = 0;

  /** The current resourceVersion. */
  get resourceVersion(): number {
    return this.#rv;
  }

  /** The live objects, sorted by name. */
  live(): SourceObj[] {
    return [...this.#objects.values()]
      .map(clone)
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }

  /** Adds or replaces an object and tells every watcher. */
  add(name: string, val: unknown): void {
    this.#change(this.#objects.has(name) ? 'MODIFIED' : 'ADDED', name, val);
  }

  /** Modifies an object and tells every watcher. */
  modify(name: string, val: unknown): void {
    this.#change('MODIFIED', name, val);
  }

  /** Deletes an object, if present, and tells every watcher. */
  delete(name: string): void {
    const old = this.#objects.get(name);
    if (old === undefined) return;
    this.#change('DELETED', name, old.val);
  }

  /** Forgets the change history, so watches from before now fail with 410 Gone. */
  compact(): void {
    this.#compactedAt = this.#rv;
    this.#changes = [];
  }

  /** Closes every open watch. */
  closeWatches(): void {
    for (const w of this.watches) w.close();
  }

  /** The watches still open. */
  openWatches(): FakeWatch<SourceObj>[] {
    return this.watches.filter((w) => !w.closed);
  }

  #change(type: Change['type'], name: string, val: unknown): void {
    const rv = ++this.#rv;
    const object: SourceObj = { metadata: { name, resourceVersion: String(rv) }, val };
    if (type === 'DELETED') this.#objects.delete(name);
    else this.#objects.set(name, object);
    this.#changes.push({ type, object, rv });
    for (const w of this.openWatches()) w.push({ type, object: clone(object) });
  }

  list(opts: ListOptions = {}): Promise<ObjectList<SourceObj>> {
    this.calls.push({ method: 'list', opts: { ...opts } });
    const err = this.listErrors.shift();
    if (err !== undefined) return Promise.reject(err);
    if (opts.continue !== undefined && this.expireContinue) {
      return Promise.reject(newResourceExpired('continue token expired'));
    }
    const all = this.live();
    const offset = opts.continue === undefined ? 0 : Number(opts.continue.split(':')[1]);
    const rv = opts.continue === undefined ? String(this.#rv) : opts.continue.split(':')[0]!;
    const limit = opts.limit ?? 0;
    const items = limit > 0 ? all.slice(offset, offset + limit) : all.slice(offset);
    const next = offset + items.length;
    const metadata: ObjectList<SourceObj>['metadata'] = { resourceVersion: rv };
    if (limit > 0 && next < all.length) metadata.continue = `${rv}:${next}`;
    return Promise.resolve({ apiVersion: 'v1', kind: 'TestList', metadata, items });
  }

  watch(opts: ListOptions = {}): Promise<AsyncIterable<WatchEvent<SourceObj>>> {
    this.calls.push({ method: 'watch', opts: { ...opts } });
    const err = this.watchErrors.shift();
    if (err !== undefined) return Promise.reject(err);
    const from = opts.resourceVersion ?? '';
    const w = new FakeWatch<SourceObj>(opts);
    if (opts.sendInitialEvents === true) {
      // A streaming list: the state, then the bookmark that ends it.
      if (this.watchListUnsupported) {
        return Promise.reject(newBadRequest('sendInitialEvents is not supported'));
      }
      for (const object of this.live()) w.push({ type: 'ADDED', object });
      if (this.dropWatchListBeforeBookmark > 0) {
        this.dropWatchListBeforeBookmark--;
        w.close();
      } else {
        w.push({
          type: 'BOOKMARK',
          object: {
            metadata: {
              name: '',
              resourceVersion: String(this.#rv),
              annotations: { [initialEventsEndAnnotation]: 'true' },
            },
            val: undefined,
          } as SourceObj,
        });
      }
    } else if (from === '' || from === '0') {
      for (const object of this.live()) w.push({ type: 'ADDED', object });
    } else {
      const rv = Number(from);
      if (rv > this.#rv)
        return Promise.reject(new Error(`resourceVersion ${from} is in the future`));
      if (rv < this.#compactedAt) {
        w.fail(newGone('too old resource version'));
      } else {
        for (const c of this.#changes) {
          if (c.rv > rv) w.push({ type: c.type, object: clone(c.object) });
        }
      }
    }
    this.watches.push(w);
    return Promise.resolve(w);
  }

  /** The calls made with `method`. */
  callsOf(method: 'list' | 'watch'): ListOptions[] {
    return this.calls.filter((c) => c.method === method).map((c) => c.opts);
  }
}

/** A change or a fault the property tests apply to a {@link FakeSource}. */
export type SourceOp =
  | { op: 'add'; name: string; val: number }
  | { op: 'delete'; name: string }
  | { op: 'close' | 'expire' | 'compact' | 'internal' | 'tooMany' | 'listError' };

/** The faults of {@link SourceOp}, by name. */
export const sourceFaults = [
  'close',
  'expire',
  'compact',
  'internal',
  'tooMany',
  'listError',
] as const;

/** Applies `op` to `source`; returns false for an op that is not a source op. */
export function applySourceOp(source: FakeSource, op: { op: string }): boolean {
  const o = op as SourceOp;
  switch (o.op) {
    case 'add':
      source.add(o.name, o.val);
      return true;
    case 'delete':
      source.delete(o.name);
      return true;
    case 'close':
      source.closeWatches();
      return true;
    case 'expire':
      for (const w of source.openWatches()) w.fail(newResourceExpired('expired'));
      return true;
    case 'compact':
      source.compact();
      source.closeWatches();
      return true;
    case 'internal':
      for (const w of source.openWatches()) w.fail(newInternalError('boom'));
      return true;
    case 'tooMany':
      for (const w of source.openWatches()) w.fail(newTooManyRequests('slow', 1));
      return true;
    case 'listError':
      source.listErrors.push(newInternalError('list failed'));
      return true;
    default:
      return false;
  }
}
