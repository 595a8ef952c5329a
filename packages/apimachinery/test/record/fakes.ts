// Test doubles for the event recorder: an in-memory ResourceClient<Event>
// that applies strategic merge patches as the API server does, an EventSink
// with programmable answers, and a logger that keeps its lines.
import type { Event } from 'kubernetes-types/core/v1.js';
import type { Status } from 'kubernetes-types/meta/v1.js';
import {
  newAlreadyExists,
  newNotFound,
  patchMetaForKind,
  strategicMergePatch,
  type EventSink,
  type LogValues,
  type Logger,
  type ObjectList,
  type Patch,
  type ResourceClient,
  type WatchEvent,
} from '../../src/index.js';

const events = { group: '', resource: 'events' };

export type Verb = 'create' | 'patch';

/** The store behind {@link FakeEventsClient}: Events by `namespace/name`, and every request made. */
export class EventStore {
  readonly objects = new Map<string, Event>();
  /** Each request: `create ns/name` or `patch ns/name {"count":2,...}`. */
  readonly requests: string[] = [];
  /** Decides, before each request, whether it fails and with what. */
  inject: ((verb: Verb, key: string) => Error | undefined) | undefined;
  #rv = 0;

  client(namespace?: string): ResourceClient<Event> {
    return new FakeEventsClient(this, namespace);
  }

  nextRV(): string {
    this.#rv += 1;
    return String(this.#rv);
  }
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

class FakeEventsClient implements ResourceClient<Event> {
  constructor(
    readonly store: EventStore,
    readonly namespace: string | undefined,
  ) {}

  inNamespace(namespace: string): ResourceClient<Event> {
    return new FakeEventsClient(this.store, namespace === '' ? undefined : namespace);
  }

  #check(verb: Verb, key: string, signal: AbortSignal | undefined, detail = ''): void {
    this.store.requests.push(`${verb} ${key}${detail}`);
    if (signal?.aborted) throw signal.reason;
    const err = this.store.inject?.(verb, key);
    if (err) throw err;
  }

  async create(obj: Event, opts?: { signal?: AbortSignal }): Promise<Event> {
    await Promise.resolve();
    const ns = obj.metadata.namespace ?? this.namespace ?? '';
    const name = obj.metadata.name ?? '';
    const key = `${ns}/${name}`;
    this.#check('create', key, opts?.signal);
    if (obj.metadata.resourceVersion)
      throw new Error('resourceVersion should not be set on create');
    if (this.store.objects.has(key)) throw newAlreadyExists(events, name);
    const stored = clone(obj);
    stored.metadata = { ...stored.metadata, namespace: ns, resourceVersion: this.store.nextRV() };
    this.store.objects.set(key, stored);
    return clone(stored);
  }

  async patch(name: string, patch: Patch, opts?: { signal?: AbortSignal }): Promise<Event> {
    await Promise.resolve();
    if (this.namespace === undefined) throw new Error('patch needs a namespace');
    if (patch.type !== 'strategic') throw new Error(`unexpected patch type ${patch.type}`);
    const key = `${this.namespace}/${name}`;
    this.#check('patch', key, opts?.signal, ` ${JSON.stringify(patch.body)}`);
    const current = this.store.objects.get(key);
    if (!current) throw newNotFound(events, name);
    const patched = strategicMergePatch(
      current,
      patch.body,
      patchMetaForKind('v1', 'Event')!,
    ) as unknown as Event;
    patched.metadata = { ...patched.metadata, resourceVersion: this.store.nextRV() };
    this.store.objects.set(key, patched);
    return clone(patched);
  }

  get(): Promise<Event> {
    return Promise.reject(new Error('not implemented'));
  }
  update(): Promise<Event> {
    return Promise.reject(new Error('not implemented'));
  }
  updateStatus(): Promise<Event> {
    return Promise.reject(new Error('not implemented'));
  }
  patchStatus(): Promise<Event> {
    return Promise.reject(new Error('not implemented'));
  }
  delete(): Promise<Event | Status> {
    return Promise.reject(new Error('not implemented'));
  }
  deleteCollection(): Promise<void> {
    return Promise.reject(new Error('not implemented'));
  }
  list(): Promise<ObjectList<Event>> {
    return Promise.reject(new Error('not implemented'));
  }
  watch(): Promise<AsyncIterable<WatchEvent<Event>>> {
    return Promise.reject(new Error('not implemented'));
  }
}

/** An EventSink whose answers the test decides (client-go's testEventSink). */
export class TestEventSink implements EventSink {
  /** Each call: `create <name> count=<n>` or `patch <name> <patch JSON>`. */
  readonly calls: string[] = [];
  /** The signals the calls received. */
  readonly signals: (AbortSignal | undefined)[] = [];
  onCreate: (event: Event) => Promise<Event> = (e) => Promise.resolve(e);
  onPatch: (event: Event, data: object) => Promise<Event> = (e) => Promise.resolve(e);

  create(event: Event, signal?: AbortSignal): Promise<Event> {
    this.calls.push(`create ${event.metadata.name} count=${event.count}`);
    this.signals.push(signal);
    return this.onCreate(event);
  }

  patch(event: Event, data: object, signal?: AbortSignal): Promise<Event> {
    this.calls.push(`patch ${event.metadata.name} ${JSON.stringify(data)}`);
    this.signals.push(signal);
    return this.onPatch(event, data);
  }
}

/** One line written to a {@link RecordingLogger}. */
export interface LogLine {
  level: 'info' | 'error';
  v: number;
  msg: string;
  err?: unknown;
  values: LogValues;
}

/** A logger that keeps every line up to `verbosity` in `lines`. */
export class RecordingLogger implements Logger {
  constructor(
    readonly lines: LogLine[] = [],
    readonly verbosity = 10,
    readonly level = 0,
    readonly values: LogValues = {},
  ) {}

  info(msg: string, values: LogValues = {}): void {
    if (!this.enabled()) return;
    this.lines.push({ level: 'info', v: this.level, msg, values: { ...this.values, ...values } });
  }

  error(err: unknown, msg: string, values: LogValues = {}): void {
    this.lines.push({ level: 'error', v: 0, msg, err, values: { ...this.values, ...values } });
  }

  v(level: number): Logger {
    return new RecordingLogger(this.lines, this.verbosity, level, this.values);
  }

  enabled(): boolean {
    return this.level <= this.verbosity;
  }

  withValues(values: LogValues): Logger {
    return new RecordingLogger(this.lines, this.verbosity, this.level, {
      ...this.values,
      ...values,
    });
  }

  withName(): Logger {
    return this;
  }

  /** The messages written so far, errors marked. */
  messages(): string[] {
    return this.lines.map((l) => (l.level === 'error' ? `ERROR ${l.msg}` : l.msg));
  }
}

/** Lets every queued promise callback run, without moving the clock. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
