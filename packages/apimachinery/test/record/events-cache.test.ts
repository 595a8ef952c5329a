// The correlator: the scenarios of client-go tools/record/events_cache_test.go
// (TestEventAggregatorByReasonFunc, TestEventAggregatorByReasonMessageFunc,
// TestEventCorrelator, TestEventSpamFilter), on the fake clock, plus the
// cache limits.
import { describe, expect, it } from 'vitest';
import type { Event, ObjectReference } from 'kubernetes-types/core/v1.js';
import {
  EventCorrelator,
  FakeClock,
  eventAggregatorByReasonFunc,
  eventAggregatorByReasonMessageFunc,
  formatTime,
  type EventCorrelateResult,
} from '../../src/index.js';

function makeObjectReference(kind: string, name: string, namespace: string): ObjectReference {
  return {
    kind,
    name,
    namespace,
    uid: 'C934D34AFB20242',
    apiVersion: 'version',
    fieldPath: 'spec.containers{mycontainer}',
  };
}

function makeEvent(reason: string, message: string, involvedObject: ObjectReference): Event {
  return {
    metadata: { name: `${involvedObject.name}.1`, namespace: involvedObject.namespace },
    involvedObject,
    reason,
    message,
    source: { component: 'kubelet', host: 'kublet.node1' },
    count: 1,
    type: 'Normal',
  };
}

function makeEvents(num: number, template: Event): Event[] {
  return Array.from({ length: num }, () => structuredClone(template));
}

function makeUniqueEvents(num: number): Event[] {
  return Array.from({ length: num }, (_, i) =>
    makeEvent(`reason-${i}`, `message-${i}`, makeObjectReference('Pod', `pod-${i}`, `ns-${i}`)),
  );
}

function makeSimilarEvents(num: number, template: Event, messagePrefix: string): Event[] {
  return makeEvents(num, template).map((e, i) => ({
    ...e,
    message: `${messagePrefix}-${i}-${e.message}`,
  }));
}

/** Correlates `event` stamped with the clock's time, as the recorder would have stamped it. */
function correlate(
  correlator: EventCorrelator,
  clock: FakeClock,
  event: Event,
): EventCorrelateResult {
  const now = formatTime(clock.now());
  return correlator.eventCorrelate({ ...event, firstTimestamp: now, lastTimestamp: now });
}

/** Plays back `previous`, stepping the clock before each, and stores what was not skipped. */
function playBack(
  correlator: EventCorrelator,
  clock: FakeClock,
  previous: Event[],
  intervalSeconds: number,
): void {
  for (const event of previous) {
    clock.step(intervalSeconds * 1000);
    const result = correlate(correlator, clock, event);
    if (!result.skip) correlator.updateState(result.event!);
  }
}

/** client-go's validateEvent: count, timestamps and every other field. */
function expectEvent(actual: Event | undefined, expected: Event, count: number): void {
  expect(actual).toBeDefined();
  const a = actual!;
  expect(a.firstTimestamp).toBeTruthy();
  expect(a.lastTimestamp).toBeTruthy();
  if (count > 1) expect(a.firstTimestamp).not.toBe(a.lastTimestamp);
  else expect(a.firstTimestamp).toBe(a.lastTimestamp);
  expect(a.metadata.name?.startsWith(expected.involvedObject.name ?? '')).toBe(true);
  expect(a.count).toBe(count);
  expect({
    involvedObject: a.involvedObject,
    reason: a.reason,
    message: a.message,
    source: a.source,
    type: a.type,
  }).toEqual({
    involvedObject: expected.involvedObject,
    reason: expected.reason,
    message: expected.message,
    source: expected.source,
    type: expected.type,
  });
}

describe('EventAggregatorByReasonFunc', () => {
  it('groups events that vary only by message', () => {
    const ref = makeObjectReference('Pod', 'pod1', 'other');
    const [aggKey1, localKey1] = eventAggregatorByReasonFunc(
      makeEvent('end-of-world', 'it was fun', ref),
    );
    const [aggKey2, localKey2] = eventAggregatorByReasonFunc(
      makeEvent('end-of-world', 'it was awful', ref),
    );
    const [aggKey3] = eventAggregatorByReasonFunc(makeEvent('nevermind', 'it was a bug', ref));
    expect(aggKey1).toBe(aggKey2);
    expect(localKey1).not.toBe(localKey2);
    expect(aggKey1).not.toBe(aggKey3);
  });

  it('writes the aggregate message', () => {
    const event = makeEvent(
      'end-of-world',
      'it was fun',
      makeObjectReference('Pod', 'pod1', 'other'),
    );
    expect(eventAggregatorByReasonMessageFunc(event)).toBe(
      '(combined from similar events): it was fun',
    );
  });
});

describe('EventCorrelator', () => {
  const ref = makeObjectReference('Pod', 'my-pod', 'my-ns');
  const firstEvent = makeEvent('first', 'i am first', ref);
  const duplicateEvent = makeEvent('duplicate', 'me again', ref);
  const uniqueEvent = makeEvent('unique', 'snowflake', ref);
  const similarEvent = makeEvent('similar', 'similar message', {
    ...ref,
    fieldPath: 'spec.containers{container1}',
  });
  const aggregateEvent = makeEvent(
    similarEvent.reason!,
    eventAggregatorByReasonMessageFunc(similarEvent),
    similarEvent.involvedObject,
  );
  const similarButDifferentContainerEvent = {
    ...similarEvent,
    involvedObject: { ...similarEvent.involvedObject, fieldPath: 'spec.containers{container2}' },
  };

  const scenarios: {
    name: string;
    previousEvents: Event[];
    newEvent: Event;
    expectedEvent?: Event;
    expectedCount?: number;
    intervalSeconds: number;
    expectedSkip?: boolean;
  }[] = [
    {
      name: 'create-a-single-event',
      previousEvents: [],
      newEvent: firstEvent,
      expectedEvent: firstEvent,
      expectedCount: 1,
      intervalSeconds: 5,
    },
    {
      name: 'the-same-event-should-just-count',
      previousEvents: makeEvents(1, duplicateEvent),
      newEvent: duplicateEvent,
      expectedEvent: duplicateEvent,
      expectedCount: 2,
      intervalSeconds: 5,
    },
    {
      name: 'the-same-event-should-just-count-even-if-more-than-aggregate',
      previousEvents: makeEvents(10, duplicateEvent),
      newEvent: duplicateEvent,
      expectedEvent: duplicateEvent,
      expectedCount: 11,
      intervalSeconds: 30,
    },
    {
      name: 'the-same-event-is-spam-if-happens-too-frequently',
      previousEvents: makeEvents(26, duplicateEvent),
      newEvent: duplicateEvent,
      expectedSkip: true,
      intervalSeconds: 1,
    },
    {
      name: 'create-many-unique-events',
      previousEvents: makeUniqueEvents(30),
      newEvent: uniqueEvent,
      expectedEvent: uniqueEvent,
      expectedCount: 1,
      intervalSeconds: 5,
    },
    {
      name: 'similar-events-should-aggregate-event',
      previousEvents: makeSimilarEvents(9, similarEvent, similarEvent.message!),
      newEvent: similarEvent,
      expectedEvent: aggregateEvent,
      expectedCount: 1,
      intervalSeconds: 5,
    },
    {
      name: 'similar-events-many-times-should-count-the-aggregate',
      previousEvents: makeSimilarEvents(10, similarEvent, similarEvent.message!),
      newEvent: similarEvent,
      expectedEvent: aggregateEvent,
      expectedCount: 2,
      intervalSeconds: 5,
    },
    {
      name: 'events-from-different-containers-do-not-aggregate',
      previousEvents: makeEvents(1, similarButDifferentContainerEvent),
      newEvent: similarEvent,
      expectedEvent: similarEvent,
      expectedCount: 1,
      intervalSeconds: 5,
    },
    {
      name: 'similar-events-whose-interval-is-greater-than-aggregate-interval-do-not-aggregate',
      previousEvents: makeSimilarEvents(9, similarEvent, similarEvent.message!),
      newEvent: similarEvent,
      expectedEvent: similarEvent,
      expectedCount: 1,
      intervalSeconds: 601,
    },
  ];

  for (const s of scenarios) {
    it(s.name, () => {
      const clock = new FakeClock();
      const correlator = new EventCorrelator({ clock });
      playBack(correlator, clock, s.previousEvents, s.intervalSeconds);
      clock.step(s.intervalSeconds * 1000);
      const result = correlate(correlator, clock, s.newEvent);
      expect(result.skip).toBe(s.expectedSkip ?? false);
      if (s.expectedSkip) {
        expect(result.event).toBeUndefined();
        return;
      }
      expectEvent(result.event, s.expectedEvent!, s.expectedCount!);
    });
  }

  it('does not aggregate at the 600 s boundary, only beyond it', () => {
    // Aggregation starts afresh only when the gap is strictly more than 600 s.
    const clock = new FakeClock();
    const correlator = new EventCorrelator({ clock });
    playBack(correlator, clock, makeSimilarEvents(9, similarEvent, 'm'), 600);
    clock.step(600_000);
    const result = correlate(correlator, clock, similarEvent);
    expect(result.event?.message).toBe('(combined from similar events): similar message');
  });

  it('turns a repeat into a patch of count, lastTimestamp and message on the first Event', () => {
    const clock = new FakeClock();
    const correlator = new EventCorrelator({ clock });
    const first = correlate(correlator, clock, duplicateEvent);
    expect(first.patch).toBeUndefined();
    // The server stored it under its name with a resourceVersion.
    const stored: Event = {
      ...first.event!,
      metadata: { ...first.event!.metadata, name: 'my-pod.abc', resourceVersion: '7' },
    };
    correlator.updateState(stored);

    clock.step(5_000);
    const repeat = correlate(correlator, clock, {
      ...duplicateEvent,
      metadata: { name: 'my-pod.def', namespace: 'my-ns' },
    });
    expect(repeat.skip).toBe(false);
    expect(repeat.event?.metadata.name).toBe('my-pod.abc');
    expect(repeat.event?.metadata.resourceVersion).toBe('7');
    expect(repeat.event?.firstTimestamp).toBe(formatTime(clock.now() - 5_000));
    expect(repeat.event?.count).toBe(2);
    // Keys in the order Go marshals a map: sorted.
    expect(JSON.stringify(repeat.patch)).toBe(
      JSON.stringify({ count: 2, lastTimestamp: formatTime(clock.now()), message: 'me again' }),
    );
  });

  it('does not modify the event it is given', () => {
    const clock = new FakeClock();
    const correlator = new EventCorrelator({ clock });
    correlate(correlator, clock, duplicateEvent);
    const input = structuredClone(duplicateEvent);
    correlator.eventCorrelate(input);
    expect(input).toEqual(duplicateEvent);
  });

  it('names the aggregate after the object and the time in nanoseconds, in hex', () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const correlator = new EventCorrelator({ clock });
    let last: EventCorrelateResult | undefined;
    for (let i = 0; i < 10; i++)
      last = correlate(correlator, clock, { ...similarEvent, message: `m${i}` });
    const nanos = BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n;
    expect(last?.event?.metadata).toEqual({
      name: `my-pod.${nanos.toString(16)}`,
      namespace: 'my-ns',
    });
    expect(last?.event?.message).toBe('(combined from similar events): m9');
    expect(last?.patch).toBeUndefined();
  });

  it('forgets the oldest of 4096 events', () => {
    const clock = new FakeClock();
    const correlator = new EventCorrelator({ clock });
    const probe = makeEvent('probe', 'watch me', makeObjectReference('Pod', 'probe', 'ns'));
    const fill = (n: number) => {
      for (const e of makeUniqueEvents(n))
        correlator.updateState(correlate(correlator, clock, e).event!);
    };
    correlator.updateState(correlate(correlator, clock, probe).event!);
    fill(4095);
    // Still among the 4096 newest: a repeat.
    expect(correlate(correlator, clock, probe).event?.count).toBe(2);

    const other = new EventCorrelator({ clock });
    other.updateState(correlate(other, clock, probe).event!);
    for (const e of makeUniqueEvents(4096)) other.updateState(correlate(other, clock, e).event!);
    // Pushed out: a new Event.
    expect(correlate(other, clock, probe).event?.count).toBe(1);
  });
});

describe('the spam filter', () => {
  it('lets a source send 25 events about an object, then one per 5 minutes', () => {
    const clock = new FakeClock();
    const correlator = new EventCorrelator({ clock });
    const ref = makeObjectReference('Pod', 'noisy', 'ns');
    const skips: boolean[] = [];
    for (let i = 0; i < 26; i++) {
      skips.push(correlate(correlator, clock, makeEvent(`reason-${i}`, `message-${i}`, ref)).skip);
    }
    expect(skips.slice(0, 25).every((s) => !s)).toBe(true);
    expect(skips[25]).toBe(true);

    clock.step(299_000);
    expect(correlate(correlator, clock, makeEvent('late', 'too early', ref)).skip).toBe(true);
    clock.step(1_000);
    expect(correlate(correlator, clock, makeEvent('later', 'on time', ref)).skip).toBe(false);
    expect(correlate(correlator, clock, makeEvent('again', 'too soon', ref)).skip).toBe(true);

    // Another object of the same source has its own bucket.
    const other = makeObjectReference('Pod', 'quiet', 'ns');
    expect(correlate(correlator, clock, makeEvent('x', 'y', other)).skip).toBe(false);
  });

  it('counts by type: Warnings have their own bucket', () => {
    const clock = new FakeClock();
    const correlator = new EventCorrelator({ clock, burstSize: 1 });
    const ref = makeObjectReference('Pod', 'p', 'ns');
    expect(correlate(correlator, clock, makeEvent('a', 'a', ref)).skip).toBe(false);
    expect(correlate(correlator, clock, makeEvent('b', 'b', ref)).skip).toBe(true);
    expect(
      correlate(correlator, clock, { ...makeEvent('c', 'c', ref), type: 'Warning' }).skip,
    ).toBe(false);
  });

  // TestEventSpamFilter
  const spamKeyFuncBasedOnObjectsAndReason = (e: Event) =>
    [
      e.source?.component,
      e.source?.host,
      e.involvedObject.kind,
      e.involvedObject.namespace,
      e.involvedObject.name,
      e.involvedObject.uid,
      e.involvedObject.apiVersion,
      e.reason,
    ].join('');
  const ref = makeObjectReference('Pod', 'my-pod', 'my-ns');
  const originalEvent = makeEvent('original', 'i am first', ref);
  const differentReasonEvent = makeEvent('duplicate', 'me again', ref);
  const spamEvent = makeEvent('original', 'me again', ref);
  const cases = [
    {
      name: 'is spam if the object is the same, with the default spam filter',
      newEvent: differentReasonEvent,
      expectedSkip: true,
    },
    {
      name: 'is not spam if the object is the same but the reason differs, with a custom spam filter',
      newEvent: differentReasonEvent,
      expectedSkip: false,
      spamKeyFunc: spamKeyFuncBasedOnObjectsAndReason,
    },
    {
      name: 'is spam if object and reason are the same but the message differs, with a custom spam filter',
      newEvent: spamEvent,
      expectedSkip: true,
      spamKeyFunc: spamKeyFuncBasedOnObjectsAndReason,
    },
  ];
  for (const c of cases) {
    it(`an event ${c.name}`, () => {
      const clock = new FakeClock();
      const correlator = new EventCorrelator({ clock, spamKeyFunc: c.spamKeyFunc, burstSize: 1 });
      clock.step(1_000);
      const first = correlate(correlator, clock, originalEvent);
      expect(first.skip).toBe(false);
      correlator.updateState(first.event!);
      clock.step(1_000);
      const result = correlate(correlator, clock, c.newEvent);
      expect(result.skip).toBe(c.expectedSkip);
      if (!c.expectedSkip) expectEvent(result.event, c.newEvent, 1);
    });
  }
});
