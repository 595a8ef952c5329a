// The broadcaster end to end: the scenarios of client-go
// tools/record/event_test.go (TestEventf, TestEventfNoNamespace,
// TestWriteEventError, TestUpdateExpiredEvent, TestCancelEvent,
// TestLotsOfEvents, TestBroadcasterShutdown), on the fake clock, plus what
// the port promises: recording never waits, and shutdown leaves no timer.
import { afterEach, describe, expect, it } from 'vitest';
import type { Event, ObjectReference, Pod } from 'kubernetes-types/core/v1.js';
import {
  EventSinkImpl,
  FakeClock,
  StatusError,
  formatTime,
  maxQueuedEvents,
  newAlreadyExists,
  newBroadcaster,
  newInternalError,
  type EventBroadcaster,
  type EventBroadcasterOptions,
} from '../../src/index.js';
import { EventStore, RecordingLogger, TestEventSink, flush } from './fakes.js';

const started: EventBroadcaster[] = [];

afterEach(() => {
  for (const b of started.splice(0)) b.shutdown();
});

function setup(opts: EventBroadcasterOptions = {}) {
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const broadcaster = newBroadcaster({
    clock,
    logger,
    random: () => 0.5,
    uuid: () => 'd2b1f5a4-3c1e-4a57-9d0e-5f2a8c7b6e10',
    ...opts,
  });
  started.push(broadcaster);
  const recorder = broadcaster.newRecorder({ component: 'eventTest' });
  return { clock, logger, broadcaster, recorder };
}

/** The name client-go gives an Event about `name` made at `ms`. */
/** `<name>.<nanoseconds in hex>`; `later` nanoseconds on, for the next Events made at one instant. */
function eventName(name: string, ms: number, later = 0): string {
  return `${name}.${(BigInt(ms) * 1_000_000n + BigInt(later)).toString(16)}`;
}

const testPod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'foo', namespace: 'baz', uid: 'bar' },
};
// GetPartialReference(testPod, "spec.containers[2]")
const testRef: ObjectReference = {
  kind: 'Pod',
  namespace: 'baz',
  name: 'foo',
  uid: 'bar',
  apiVersion: 'v1',
  fieldPath: 'spec.containers[2]',
};
const testRef2: ObjectReference = {
  ...testRef,
  uid: 'differentUid',
  fieldPath: 'spec.containers[3]',
};

describe('recording to a sink (TestEventf)', () => {
  it('creates an Event per new event and patches count and lastTimestamp on repeats', async () => {
    const { clock, logger, broadcaster, recorder } = setup();
    const store = new EventStore();
    broadcaster.startRecordingToSink(new EventSinkImpl(store.client()));
    const lines: string[] = [];
    broadcaster.startLogging((line) => lines.push(line));
    broadcaster.startStructuredLogging(0);

    const table: [ObjectReference | Pod, string, string][] = [
      [testRef, 'Started', 'some verbose message: 1'],
      [testPod, 'Killed', 'some other verbose message: 1'],
      [testRef, 'Started', 'some verbose message: 1'],
      [testRef2, 'Started', 'some verbose message: 1'],
      [testRef, 'Started', 'some verbose message: 1'],
      [testRef2, 'Stopped', 'some verbose message: 1'],
      [testRef2, 'Stopped', 'some verbose message: 1'],
    ];
    const start = clock.now();
    for (const [obj, reason, message] of table) {
      clock.step(1_000);
      recorder.event(obj, 'Normal', reason, message);
      await flush();
    }

    const t = (i: number) => start + (i + 1) * 1_000;
    expect(store.requests).toEqual([
      `create baz/${eventName('foo', t(0))}`,
      `create baz/${eventName('foo', t(1))}`,
      `patch baz/${eventName('foo', t(0))} ` +
        JSON.stringify({
          count: 2,
          lastTimestamp: formatTime(t(2)),
          message: 'some verbose message: 1',
        }),
      `create baz/${eventName('foo', t(3))}`,
      `patch baz/${eventName('foo', t(0))} ` +
        JSON.stringify({
          count: 3,
          lastTimestamp: formatTime(t(4)),
          message: 'some verbose message: 1',
        }),
      `create baz/${eventName('foo', t(5))}`,
      `patch baz/${eventName('foo', t(5))} ` +
        JSON.stringify({
          count: 2,
          lastTimestamp: formatTime(t(6)),
          message: 'some verbose message: 1',
        }),
    ]);

    // The first Event as stored after its two repeats.
    const first = store.objects.get(`baz/${eventName('foo', t(0))}`);
    expect(first).toEqual({
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: eventName('foo', t(0)), namespace: 'baz', resourceVersion: '5' },
      involvedObject: testRef,
      reason: 'Started',
      message: 'some verbose message: 1',
      source: { component: 'eventTest' },
      firstTimestamp: formatTime(t(0)),
      lastTimestamp: formatTime(t(4)),
      count: 3,
      type: 'Normal',
      reportingComponent: 'eventTest',
      reportingInstance: '',
    });
    // An object gives a reference without field path.
    expect(store.objects.get(`baz/${eventName('foo', t(1))}`)?.involvedObject).toEqual({
      kind: 'Pod',
      namespace: 'baz',
      name: 'foo',
      uid: 'bar',
      apiVersion: 'v1',
    });

    expect(lines[0]).toBe(
      'Event(v1.ObjectReference{Kind:"Pod", Namespace:"baz", Name:"foo", UID:"bar", APIVersion:"v1", ' +
        `ResourceVersion:"", FieldPath:"spec.containers[2]"}): type: 'Normal' reason: 'Started' some verbose message: 1`,
    );
    expect(lines[1]).toBe(
      'Event(v1.ObjectReference{Kind:"Pod", Namespace:"baz", Name:"foo", UID:"bar", APIVersion:"v1", ' +
        `ResourceVersion:"", FieldPath:""}): type: 'Normal' reason: 'Killed' some other verbose message: 1`,
    );
    expect(lines).toHaveLength(7);

    const structured = logger.lines.filter((l) => l.msg === 'Event occurred');
    expect(structured).toHaveLength(7);
    expect(structured[3]).toEqual({
      level: 'info',
      v: 0,
      msg: 'Event occurred',
      values: {
        object: 'baz/foo',
        fieldPath: 'spec.containers[3]',
        kind: 'Pod',
        apiVersion: 'v1',
        type: 'Normal',
        reason: 'Started',
        message: 'some verbose message: 1',
      },
    });
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('writes an event about a cluster-scoped object to the default namespace (TestEventfNoNamespace)', async () => {
    const { clock, broadcaster, recorder } = setup();
    const store = new EventStore();
    broadcaster.startRecordingToSink(new EventSinkImpl(store.client()));
    const noNamespace: ObjectReference = { ...testRef, namespace: '' };
    recorder.event(noNamespace, 'Normal', 'Started', 'some verbose message: 1');
    recorder.event(
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'n1' } },
      'Warning',
      'NodeNotReady',
      'Node is not ready',
    );
    await flush();
    const created = [...store.objects.values()];
    expect(created.map((e) => [e.metadata.namespace, e.metadata.name])).toEqual([
      ['default', eventName('foo', clock.now())],
      // Made at the same instant of the fake clock: named a nanosecond later.
      ['default', eventName('node-1', clock.now(), 1)],
    ]);
    expect(created[0]?.involvedObject.namespace).toBe('');
    expect(created[1]?.involvedObject).toEqual({
      kind: 'Node',
      name: 'node-1',
      uid: 'n1',
      apiVersion: 'v1',
    });
  });

  it('sets source host, reporting instance and annotations', async () => {
    const { broadcaster } = setup();
    const store = new EventStore();
    broadcaster.startRecordingToSink(new EventSinkImpl(store.client()));
    const recorder = broadcaster.newRecorder({ component: 'kubelet', host: 'node-1' });
    recorder.annotatedEvent(
      testPod,
      { 'example.com/b': '2', 'example.com/a': '1' },
      'Warning',
      'BackOff',
      'x',
    );
    await flush();
    const [event] = [...store.objects.values()];
    expect(event?.source).toEqual({ component: 'kubelet', host: 'node-1' });
    expect(event?.reportingComponent).toBe('kubelet');
    expect(event?.reportingInstance).toBe('node-1');
    expect(event?.metadata.annotations).toEqual({ 'example.com/b': '2', 'example.com/a': '1' });
    expect(event?.type).toBe('Warning');
  });

  it('names an Event with a UUID when the object name makes no valid Event name', async () => {
    const { broadcaster, recorder } = setup();
    const sink = new TestEventSink();
    broadcaster.startRecordingToSink(sink);
    recorder.event({ ...testRef, name: 'Not_A_DNS_Name' }, 'Normal', 'Started', 'x');
    await flush();
    expect(sink.calls).toEqual(['create d2b1f5a4-3c1e-4a57-9d0e-5f2a8c7b6e10 count=1']);
  });

  it('drops, with a logged error, an object whose kind is unknown and an unknown type', async () => {
    const { logger, broadcaster, recorder } = setup();
    const sink = new TestEventSink();
    broadcaster.startRecordingToSink(sink);
    recorder.event({ metadata: { name: 'kindless', namespace: 'ns' } }, 'Normal', 'Started', 'x');
    recorder.event(testRef, 'Bogus' as 'Normal', 'Started', 'x');
    await flush();
    expect(sink.calls).toEqual([]);
    expect(logger.messages()).toEqual([
      'ERROR Could not construct reference, will not report event',
      'ERROR Unsupported event type',
    ]);
    expect(logger.lines[0]?.values).toMatchObject({
      eventType: 'Normal',
      reason: 'Started',
      message: 'x',
    });
    expect(logger.lines[1]?.values).toEqual({ eventType: 'Bogus' });
  });

  it('logs through the logger a recorder was given (withLogger)', () => {
    const { broadcaster, logger } = setup();
    broadcaster.shutdown();
    const own = new RecordingLogger();
    broadcaster.newRecorder({ component: 'c' }).withLogger(own).event(testRef, 'Normal', 'R', 'm');
    expect(own.messages()).toEqual(['ERROR Unable to record event (will not retry!)']);
    expect(logger.messages()).toEqual([]);
  });

  it('aggregates similar events and then counts the aggregate', async () => {
    const { broadcaster, recorder, clock } = setup();
    const store = new EventStore();
    broadcaster.startRecordingToSink(new EventSinkImpl(store.client()));
    for (let i = 0; i < 11; i++) {
      // Names carry the time: events made at the same instant would collide.
      clock.step(1);
      recorder.event(testPod, 'Warning', 'FailedCreate', `Error creating: quota exceeded #${i}`);
    }
    await flush();
    const stored = [...store.objects.values()];
    expect(stored).toHaveLength(10);
    expect(stored.slice(0, 9).map((e) => e.message)).toEqual(
      Array.from({ length: 9 }, (_, i) => `Error creating: quota exceeded #${i}`),
    );
    expect(stored[9]?.message).toBe(
      '(combined from similar events): Error creating: quota exceeded #10',
    );
    expect(stored[9]?.count).toBe(2);
  });

  it('drops events a source sends about one object beyond the burst of 25', async () => {
    const { broadcaster, recorder, clock } = setup();
    const sink = new TestEventSink();
    broadcaster.startRecordingToSink(sink);
    for (let i = 0; i < 30; i++) recorder.event(testPod, 'Normal', `Reason${i}`, `message ${i}`);
    await flush();
    expect(sink.calls).toHaveLength(25);
    await clock.advance(300_000);
    recorder.event(testPod, 'Normal', 'Later', 'after five minutes');
    await flush();
    expect(sink.calls).toHaveLength(26);
  });
});

describe('writing with retries (TestWriteEventError)', () => {
  it('gives up at once on any Status error: the server answered', async () => {
    for (const err of [
      new StatusError({ code: 0, reason: '', message: '' }),
      newInternalError(new Error('etcd is down')),
    ]) {
      const { broadcaster, recorder, clock, logger } = setup();
      const sink = new TestEventSink();
      sink.onCreate = () => Promise.reject(err);
      broadcaster.startRecordingToSink(sink);
      recorder.event(testPod, 'Normal', 'Started', 'x');
      await clock.advance(600_000);
      expect(sink.calls).toHaveLength(1);
      expect(logger.messages()).toEqual(['ERROR Server rejected event (will not retry!)']);
      expect(clock.hasWaiters()).toBe(false);
    }
  });

  it('gives up quietly on AlreadyExists and on a terminating namespace', async () => {
    const terminating = new StatusError({
      code: 403,
      reason: 'Forbidden',
      message: 'unable to create new content in namespace baz because it is being terminated',
      details: { causes: [{ reason: 'NamespaceTerminating', field: 'metadata.namespace' }] },
    });
    for (const err of [newAlreadyExists({ group: '', resource: 'events' }, 'foo.1'), terminating]) {
      const { broadcaster, recorder, clock, logger } = setup();
      const sink = new TestEventSink();
      sink.onCreate = () => Promise.reject(err);
      broadcaster.startRecordingToSink(sink);
      recorder.event(testPod, 'Normal', 'Started', 'x');
      await clock.advance(600_000);
      expect(sink.calls).toHaveLength(1);
      expect(logger.lines).toMatchObject([
        { level: 'info', v: 5, msg: 'Server rejected event (will not retry!)' },
      ]);
    }
  });

  it('retries other errors 12 times, the first wait jittered and then 10 s apart, and gives up', async () => {
    const { broadcaster, recorder, clock, logger } = setup({ random: () => 0.25 });
    const sink = new TestEventSink();
    const times: number[] = [];
    sink.onCreate = () => {
      times.push(clock.now());
      return Promise.reject(new TypeError('fetch failed'));
    };
    broadcaster.startRecordingToSink(sink);
    const start = clock.now();
    recorder.event(testPod, 'Normal', 'Started', 'x');
    await clock.advance(3_600_000);
    expect(times.map((t) => t - start)).toEqual([
      0, 2_500, 12_500, 22_500, 32_500, 42_500, 52_500, 62_500, 72_500, 82_500, 92_500, 102_500,
    ]);
    expect(logger.messages()).toEqual([
      ...Array<string>(12).fill('ERROR Unable to write event (may retry after sleeping)'),
      'ERROR Unable to write event (retry limit exceeded!)',
    ]);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('stops retrying once a try succeeds', async () => {
    const { broadcaster, recorder, clock } = setup();
    const sink = new TestEventSink();
    let attempts = 0;
    sink.onCreate = (e) =>
      ++attempts < 2 ? Promise.reject(new Error('A weird error')) : Promise.resolve(e);
    broadcaster.startRecordingToSink(sink);
    recorder.event(testPod, 'Normal', 'Started', 'x');
    await clock.advance(600_000);
    expect(attempts).toBe(2);
  });

  it('creates the Event anew when its patch finds it gone (TestUpdateExpiredEvent)', async () => {
    const { broadcaster, recorder, clock, logger } = setup();
    const store = new EventStore();
    broadcaster.startRecordingToSink(new EventSinkImpl(store.client()));
    recorder.event(testPod, 'Normal', 'Started', 'x');
    await flush();
    const name = eventName('foo', clock.now());
    // The Event expires on the server (its TTL is an hour by default).
    store.objects.clear();
    clock.step(1_000);
    recorder.event(testPod, 'Normal', 'Started', 'x');
    await flush();
    expect(store.requests.map((r) => r.split(' ').slice(0, 2).join(' '))).toEqual([
      `create baz/${name}`,
      `patch baz/${name}`,
      `create baz/${name}`,
    ]);
    // The fake client rejects a create that carries a resourceVersion.
    const recreated = store.objects.get(`baz/${name}`);
    expect(recreated?.count).toBe(2);
    expect(recreated?.lastTimestamp).toBe(formatTime(clock.now()));
    expect(logger.lines).toEqual([]);
  });

  it('gives up on a patch rejected with anything but NotFound', async () => {
    const { broadcaster, recorder, clock } = setup();
    const sink = new TestEventSink();
    let patches = 0;
    sink.onPatch = () => {
      patches++;
      return Promise.reject(newInternalError(new Error('boom')));
    };
    broadcaster.startRecordingToSink(sink);
    recorder.event(testPod, 'Normal', 'Started', 'x');
    recorder.event(testPod, 'Normal', 'Started', 'x');
    await clock.advance(600_000);
    expect(sink.calls.map((c) => c.split(' ')[0])).toEqual(['create', 'patch']);
    expect(patches).toBe(1);
  });

  it('delivers every one of 1000 queued events through failures (TestLotsOfEvents)', async () => {
    const { broadcaster, recorder, clock } = setup();
    const counts = new Array<number>(maxQueuedEvents).fill(0);
    const written: number[] = [];
    const sink = new TestEventSink();
    sink.onCreate = (e) => {
      const n = Number(e.message);
      counts[n]!++;
      if (counts[n]! < 5) return Promise.reject(new Error('fake error'));
      written.push(n);
      return Promise.resolve(e);
    };
    broadcaster.startRecordingToSink(sink);
    let logged = 0;
    broadcaster.startLogging(() => void logged++);
    for (let i = 0; i < maxQueuedEvents; i++) {
      // A unique object per event escapes the spam filter, a unique reason aggregation.
      const ref: ObjectReference = {
        kind: 'Pod',
        name: `foo-${i}`,
        namespace: 'baz',
        uid: 'bar',
        apiVersion: 'version',
      };
      recorder.event(ref, 'Normal', `Reason-${i}`, String(i));
    }
    // Each event takes 4 failures: waits of 5 s, then 10 s three times.
    await clock.advance(maxQueuedEvents * 35_000);
    expect(logged).toBe(maxQueuedEvents);
    expect(written).toHaveLength(maxQueuedEvents);
    expect(counts.every((c) => c === 5)).toBe(true);
    expect(clock.hasWaiters()).toBe(false);
  });
});

describe('never blocking the caller', () => {
  it('keeps recording while the sink hangs, dropping what overflows the queues', async () => {
    const { broadcaster, recorder, logger } = setup();
    const sink = new TestEventSink();
    // A request that never answers, as from an API server that stopped responding.
    sink.onCreate = () => new Promise<Event>(() => {});
    broadcaster.startRecordingToSink(sink);
    const logged: string[] = [];
    broadcaster.startLogging((line) => logged.push(line));

    const ref = (i: number): ObjectReference => ({
      kind: 'Pod',
      name: `p-${i}`,
      namespace: 'ns',
      uid: `${i}`,
    });
    for (let i = 0; i < 2500; i++) recorder.event(ref(i), 'Normal', 'Started', `${i}`);
    // Synchronously, 1000 events fit the incoming queue; the rest were dropped, each logged.
    const dropped = () =>
      logger.messages().filter((m) => m.includes('too many queued events')).length;
    expect(dropped()).toBe(1500);
    expect(sink.calls).toEqual([]);

    await flush();
    // The sink holds the first event; the other destination saw all 1000.
    expect(sink.calls).toHaveLength(1);
    expect(logged).toHaveLength(1000);

    for (let i = 0; i < 10; i++) recorder.event(ref(3000 + i), 'Normal', 'Started', `${3000 + i}`);
    await flush();
    expect(dropped()).toBe(1500);
    expect(logged).toHaveLength(1010);
    expect(sink.calls).toHaveLength(1);

    broadcaster.shutdown();
    expect(sink.signals[0]?.aborted).toBe(true);
  });
});

describe('the queue of a slow destination', () => {
  it('holds 1000 events while the sink is busy, and drops the rest', async () => {
    const { broadcaster, recorder, logger } = setup();
    const sink = new TestEventSink();
    let release: () => void = () => {};
    const busy = new Promise<void>((resolve) => (release = resolve));
    sink.onCreate = async (e) => {
      await busy;
      return e;
    };
    broadcaster.startRecordingToSink(sink);
    const ref = (i: number): ObjectReference => ({
      kind: 'Pod',
      name: `p-${i}`,
      namespace: 'ns',
      uid: `${i}`,
    });
    for (let i = 0; i < maxQueuedEvents; i++) recorder.event(ref(i), 'Normal', 'Started', `${i}`);
    await flush();
    // One event is being written, 999 wait in the sink's queue...
    for (let i = 0; i < maxQueuedEvents; i++)
      recorder.event(ref(1000 + i), 'Normal', 'Started', `${1000 + i}`);
    await flush();
    // ...which takes one more of the second thousand and drops the others.
    expect(logger.lines).toEqual([]);
    release();
    await flush();
    expect(sink.calls).toHaveLength(maxQueuedEvents + 1);
    expect(sink.calls.at(-1)).toMatch(/^create p-1000\./);
  });
});

describe('shutdown', () => {
  it('stops a retry under way: no timer is left, and no further try is made (TestCancelEvent)', async () => {
    const { broadcaster, recorder, clock, logger } = setup();
    const sink = new TestEventSink();
    sink.onCreate = () => Promise.reject(new Error('connection refused'));
    broadcaster.startRecordingToSink(sink);
    recorder.event(testPod, 'Normal', 'Started', 'x');
    await flush();
    expect(sink.calls).toHaveLength(1);
    expect(clock.hasWaiters()).toBe(true);

    broadcaster.shutdown();
    expect(clock.hasWaiters()).toBe(false);
    await clock.advance(600_000);
    expect(sink.calls).toHaveLength(1);
    expect(logger.messages()).toEqual([
      'ERROR Unable to write event (may retry after sleeping)',
      'ERROR Unable to write event (broadcaster is shut down)',
    ]);
  });

  it('aborts a request under way, and drops queued and later events', async () => {
    const { broadcaster, recorder, clock, logger } = setup();
    const sink = new TestEventSink();
    sink.onCreate = (_e) =>
      new Promise<Event>((_resolve, reject) => {
        const signal = sink.signals.at(-1)!;
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    broadcaster.startRecordingToSink(sink);
    recorder.event(testPod, 'Normal', 'First', 'x');
    recorder.event(testPod, 'Normal', 'Queued', 'y');
    await flush();
    expect(sink.calls).toHaveLength(1);

    broadcaster.shutdown();
    recorder.event(testPod, 'Normal', 'Late', 'z');
    await clock.advance(600_000);
    expect(sink.calls).toHaveLength(1);
    expect(clock.hasWaiters()).toBe(false);
    expect(logger.messages()).toEqual([
      'ERROR Unable to record event (will not retry!)',
      'ERROR Unable to write event (may retry after sleeping)',
      'ERROR Unable to write event (broadcaster is shut down)',
    ]);
  });

  it('follows the signal it was given (WithContext)', async () => {
    const ctrl = new AbortController();
    const { recorder, broadcaster, clock, logger } = setup({ signal: ctrl.signal });
    const sink = new TestEventSink();
    sink.onCreate = () => Promise.reject(new Error('connection refused'));
    broadcaster.startRecordingToSink(sink);
    recorder.event(testPod, 'Normal', 'Started', 'x');
    await flush();
    ctrl.abort();
    expect(clock.hasWaiters()).toBe(false);
    recorder.event(testPod, 'Normal', 'Started', 'y');
    expect(logger.messages().at(-1)).toBe('ERROR Unable to record event (will not retry!)');

    // A signal aborted already shuts it down at once.
    const late = newBroadcaster({ signal: AbortSignal.abort(), logger });
    expect(late.startLogging(() => {})).toBeDefined();
    expect(logger.messages().at(-1)).toBe('ERROR Unable start event watcher (will not retry!)');
  });

  it('stopping one destination stops its retries and its deliveries only', async () => {
    const { broadcaster, recorder, clock } = setup();
    const sink = new TestEventSink();
    sink.onCreate = () => Promise.reject(new Error('connection refused'));
    const watcher = broadcaster.startRecordingToSink(sink);
    const lines: string[] = [];
    broadcaster.startLogging((l) => lines.push(l));
    recorder.event(testPod, 'Normal', 'Started', 'x');
    await flush();
    watcher.stop();
    expect(clock.hasWaiters()).toBe(false);
    recorder.event(testPod, 'Normal', 'Again', 'y');
    await clock.advance(600_000);
    expect(sink.calls).toHaveLength(1);
    expect(lines).toHaveLength(2);
  });
});

describe('event names', () => {
  it('never repeat, even for Events about one object at one instant of a fake clock', async () => {
    const { clock, broadcaster, recorder } = setup();
    const store = new EventStore();
    broadcaster.startRecordingToSink(new EventSinkImpl(store.client()));
    for (const reason of ['SuccessfulCreate', 'SuccessfulDelete', 'Completed']) {
      recorder.event(testRef, 'Normal', reason, reason);
    }
    await flush();
    const names = [...store.objects.values()].map((e) => e.metadata.name);
    expect(names).toEqual([0, 1, 2].map((n) => eventName('foo', clock.now(), n)));
  });
});
