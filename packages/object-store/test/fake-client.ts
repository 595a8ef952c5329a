// An in-memory ResourceClient for Secrets and ConfigMaps with get, list and
// watch (a `metadata.name=` field selector understood), a record of every
// request, and injectable failures: enough for the kubelet managers' tests.
import {
  newNotFound,
  type GetOptions,
  type KubeObject,
  type ListOptions,
  type ObjectList,
  type ResourceClient,
  type WatchEvent,
} from '@kcm-ts/apimachinery';

export type Verb = 'get' | 'list' | 'watch';

/** One request: its verb, namespace, name (get) and options. */
export interface Call {
  verb: Verb;
  namespace: string;
  name?: string;
  opts: GetOptions | ListOptions;
}

class Stream<T> implements AsyncIterable<WatchEvent<T>> {
  readonly #queue: WatchEvent<T>[] = [];
  #closed = false;
  #wake: (() => void) | undefined;

  constructor(
    readonly namespace: string,
    readonly name: string | undefined,
    signal: AbortSignal | undefined,
  ) {
    signal?.addEventListener('abort', () => this.close(), { once: true });
  }

  get closed(): boolean {
    return this.#closed;
  }

  push(event: WatchEvent<T>): void {
    if (this.#closed) return;
    this.#queue.push(event);
    this.#wake?.();
  }

  close(): void {
    this.#closed = true;
    this.#wake?.();
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
        this.#wake = undefined;
      }
    } finally {
      this.#closed = true;
    }
  }
}

const nameFrom = (opts: ListOptions): string | undefined =>
  /^metadata\.name=(.*)$/.exec(opts.fieldSelector ?? '')?.[1];

/** The shared state behind {@link FakeClient}s. */
export class FakeServer<T extends KubeObject> {
  readonly objects = new Map<string, T>();
  readonly calls: Call[] = [];
  readonly streams: Stream<T>[] = [];
  /** Errors the next requests with that verb fail with, first one first. */
  readonly failNext: Partial<Record<Verb, Error[]>> = {};
  /** When set, gets wait for it before answering. */
  gate: Promise<void> | undefined;
  /** When set, lists wait for it before answering. */
  listGate: Promise<void> | undefined;
  #rv = 0;

  constructor(readonly resource: string) {}

  /** Creates or replaces `namespace/name`, bumping the resourceVersion and telling watchers. */
  set(obj: T): T {
    const ns = obj.metadata?.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    const key = `${ns}/${name}`;
    const existed = this.objects.has(key);
    const stored = structuredClone(obj);
    stored.metadata = { ...stored.metadata, resourceVersion: String(++this.#rv) };
    this.objects.set(key, stored);
    this.#tell(existed ? 'MODIFIED' : 'ADDED', stored);
    return stored;
  }

  remove(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    const obj = this.objects.get(key);
    if (obj === undefined) return;
    this.objects.delete(key);
    const gone = structuredClone(obj);
    gone.metadata = { ...gone.metadata, resourceVersion: String(++this.#rv) };
    this.#tell('DELETED', gone);
  }

  /** Open watch streams. */
  openWatches(): number {
    return this.streams.filter((s) => !s.closed).length;
  }

  count(verb: Verb): number {
    return this.calls.filter((c) => c.verb === verb).length;
  }

  client(): ResourceClient<T> {
    // Only the verbs the managers use; the others are absent on purpose.
    return new FakeClient(this, '') as unknown as ResourceClient<T>;
  }

  record(call: Call): void {
    this.calls.push(call);
    const err = this.failNext[call.verb]?.shift();
    if (err !== undefined) throw err;
  }

  get rv(): number {
    return this.#rv;
  }

  #tell(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T): void {
    for (const s of this.streams) {
      if (s.namespace !== (obj.metadata?.namespace ?? '')) continue;
      if (s.name !== undefined && s.name !== obj.metadata?.name) continue;
      s.push({ type, object: structuredClone(obj) });
    }
  }
}

class FakeClient<T extends KubeObject> {
  constructor(
    readonly server: FakeServer<T>,
    readonly namespace: string,
  ) {}

  inNamespace(namespace: string): ResourceClient<T> {
    return new FakeClient(this.server, namespace) as unknown as ResourceClient<T>;
  }

  async get(name: string, opts: GetOptions = {}): Promise<T> {
    await Promise.resolve();
    this.server.record({ verb: 'get', namespace: this.namespace, name, opts });
    if (this.server.gate !== undefined) await this.server.gate;
    const obj = this.server.objects.get(`${this.namespace}/${name}`);
    if (obj === undefined) throw newNotFound({ group: '', resource: this.server.resource }, name);
    return structuredClone(obj);
  }

  async list(opts: ListOptions = {}): Promise<ObjectList<T>> {
    await Promise.resolve();
    this.server.record({ verb: 'list', namespace: this.namespace, opts });
    if (this.server.listGate !== undefined) await this.server.listGate;
    const name = nameFrom(opts);
    const items = [...this.server.objects.values()].filter(
      (o) =>
        (o.metadata?.namespace ?? '') === this.namespace &&
        (name === undefined || o.metadata?.name === name),
    );
    return {
      apiVersion: 'v1',
      kind: 'List',
      metadata: { resourceVersion: String(this.server.rv) },
      items: items.map((o) => structuredClone(o)),
    };
  }

  async watch(opts: ListOptions = {}): Promise<AsyncIterable<WatchEvent<T>>> {
    await Promise.resolve();
    this.server.record({ verb: 'watch', namespace: this.namespace, opts });
    const stream = new Stream<T>(this.namespace, nameFrom(opts), opts.signal);
    this.server.streams.push(stream);
    return stream;
  }
}
