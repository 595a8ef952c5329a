// Ports of backoff_utils_test.go: TestNewBackoffRecord, TestGetFinishedTime,
// TestGetRemainingBackoffTime and TestGetRemainingBackoffTimePerIndex.
// Times are ms since the epoch; Go's nil time is `undefined`. The Go test
// keeps its pods in memory with sub-second times; these go through the wire
// form, so the finish times that differ by a millisecond are written with
// fractions.
import type { Pod } from 'kubernetes-types/core/v1.js';
import { FakeClock, formatMicroTime, formatTime } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  BackoffStore,
  getFinishedTime,
  getRemainingTime,
  zeroTime,
  type BackoffRecord,
} from '../src/backoff-utils.js';
import { getRemainingTimePerIndex } from '../src/indexed-job-utils.js';
import { buildPod } from './helpers.js';

const t0 = Date.UTC(2009, 10, 10, 23, 0, 0);
const s = 1000;

const finishedPod = (phase: 'Succeeded' | 'Failed', at: number): Pod =>
  ({
    metadata: {},
    status: {
      phase,
      containerStatuses: [
        { state: { terminated: { exitCode: 0, finishedAt: formatMicroTime(at) } } },
      ],
    },
  }) as Pod;

describe('TestNewBackoffRecord', () => {
  const cases: Record<
    string,
    {
      stored?: BackoffRecord;
      succeeded: number[];
      failed: number[];
      want: Omit<BackoffRecord, 'key'>;
    }
  > = {
    'Empty backoff store and one new failure': {
      succeeded: [],
      failed: [t0],
      want: { lastFailureTime: t0, failuresAfterLastSuccess: 1 },
    },
    'Empty backoff store and two new failures': {
      succeeded: [],
      failed: [t0, t0 - 1],
      want: { lastFailureTime: t0, failuresAfterLastSuccess: 2 },
    },
    'Empty backoff store, two failures followed by success': {
      succeeded: [t0],
      failed: [t0 - 2, t0 - 1],
      want: { lastFailureTime: undefined, failuresAfterLastSuccess: 0 },
    },
    'Empty backoff store, two failures, one success and two more failures': {
      succeeded: [t0 - 2],
      failed: [t0, t0 - 4, t0 - 3, t0 - 1],
      want: { lastFailureTime: t0, failuresAfterLastSuccess: 2 },
    },
    'Backoff store having failure count 2 and one new failure': {
      stored: { key: 'key', failuresAfterLastSuccess: 2, lastFailureTime: undefined },
      succeeded: [],
      failed: [t0],
      want: { lastFailureTime: t0, failuresAfterLastSuccess: 3 },
    },
    'Empty backoff store with success and failure at same timestamp': {
      succeeded: [t0],
      failed: [t0],
      want: { lastFailureTime: undefined, failuresAfterLastSuccess: 0 },
    },
    'Empty backoff store with no success/failure': {
      succeeded: [],
      failed: [],
      want: { lastFailureTime: undefined, failuresAfterLastSuccess: 0 },
    },
    'Empty backoff store with one success': {
      succeeded: [t0],
      failed: [],
      want: { lastFailureTime: undefined, failuresAfterLastSuccess: 0 },
    },
  };

  it.each(Object.entries(cases))('%s', (_name, tc) => {
    const store = new BackoffStore();
    if (tc.stored) store.updateBackoffRecord(tc.stored);
    const record = store.newBackoffRecord(
      'key',
      tc.succeeded.map((at) => finishedPod('Succeeded', at)),
      tc.failed.map((at) => finishedPod('Failed', at)),
    );
    expect(record).toEqual({ key: 'key', ...tc.want });
  });

  it('does not store the record it computes, and forgets a removed one', () => {
    const store = new BackoffStore();
    store.newBackoffRecord('key', [], [finishedPod('Failed', t0)]);
    expect(store.getBackoffRecord('key')).toBeUndefined();
    store.updateBackoffRecord({ key: 'key', failuresAfterLastSuccess: 1, lastFailureTime: t0 });
    expect(store.getBackoffRecord('key')?.failuresAfterLastSuccess).toBe(1);
    store.removeBackoffRecord('key');
    expect(store.getBackoffRecord('key')).toBeUndefined();
  });
});

describe('TestGetFinishedTime', () => {
  const term = (at?: number) => ({
    state: { terminated: { exitCode: 0, ...(at !== undefined && { finishedAt: formatTime(at) }) } },
  });
  const running = { state: { running: {} } };
  const cases: Record<string, [pod: Pod, want: number]> = {
    'Pod with multiple containers and all containers terminated': [
      { status: { containerStatuses: [term(t0 - s), term(t0), term(t0 - 2 * s)] } } as Pod,
      t0,
    ],
    'Pod with multiple containers; two containers in terminated state and one in running state; fallback to deletionTimestamp':
      [
        {
          metadata: { deletionTimestamp: formatTime(t0) },
          status: { containerStatuses: [term(t0 - s), running, term(t0 - 2 * s)] },
        } as Pod,
        t0,
      ],
    'fallback to deletionTimestamp': [
      {
        metadata: { deletionTimestamp: formatTime(t0) },
        status: { containerStatuses: [running] },
      } as Pod,
      t0,
    ],
    'fallback to deletionTimestamp, decremented by grace period': [
      {
        metadata: { deletionTimestamp: formatTime(t0), deletionGracePeriodSeconds: 30 },
        status: { containerStatuses: [running] },
      } as Pod,
      t0 - 30 * s,
    ],
    'fallback to PodReady.LastTransitionTime when status of the condition is False': [
      {
        status: {
          containerStatuses: [term()],
          conditions: [
            {
              type: 'Ready',
              status: 'False',
              reason: 'PodFailed',
              lastTransitionTime: formatTime(t0),
            },
          ],
        },
      } as Pod,
      t0,
    ],
    'skip fallback to PodReady.LastTransitionTime when status of the condition is True': [
      {
        metadata: { deletionTimestamp: formatTime(t0) },
        status: {
          containerStatuses: [term()],
          conditions: [
            { type: 'Ready', status: 'True', lastTransitionTime: formatTime(t0 - 30 * s) },
          ],
        },
      } as Pod,
      t0,
    ],
    'fallback to creationTimestamp': [
      {
        metadata: { creationTimestamp: formatTime(t0) },
        status: { containerStatuses: [term()] },
      } as Pod,
      t0,
    ],
    // A sidecar (restartable init container) stops after the app containers.
    'Pod with init container and all containers terminated': [
      { status: { containerStatuses: [term(t0 - s)], initContainerStatuses: [term(t0)] } } as Pod,
      t0,
    ],
    'a pod with no time at all finished at the zero time': [{}, zeroTime],
  };

  it.each(Object.entries(cases))('%s', (_name, [pod, want]) => {
    expect(getFinishedTime(pod)).toBe(want);
  });
});

describe('TestGetRemainingBackoffTime', () => {
  const cases: Record<string, [failures: number, now: number, want: number]> = {
    'no failures': [0, zeroTime, 0],
    'one failure; current time and failure time are same': [1, t0, 5 * s],
    'one failure; current time == 1 second + failure time': [1, t0 + s, 4 * s],
    'one failure; current time == expected backoff time': [1, t0 + 5 * s, 0],
    'one failure; current time == expected backoff time + 1 Second': [1, t0 + 6 * s, 0],
    'three failures; current time and failure time are same': [3, t0, 20 * s],
    'eight failures; current time and failure time are same; backoff not exceeding maxBackoff': [
      8,
      t0,
      640 * s,
    ],
    'nine failures; current time and failure time are same; backoff exceeding maxBackoff': [
      9,
      t0,
      700 * s,
    ],
  };

  it.each(Object.entries(cases))('%s', (_name, [failures, now, want]) => {
    const record: BackoffRecord = {
      key: 'key',
      failuresAfterLastSuccess: failures,
      lastFailureTime: failures === 0 ? undefined : t0,
    };
    expect(getRemainingTime(record, new FakeClock(now), 5 * s, 700 * s)).toBe(want);
  });
});

describe('TestGetRemainingBackoffTimePerIndex', () => {
  const cases: Record<string, [lastFailedPod: Pod | undefined, want: number]> = {
    'no failures': [undefined, 0],
    'two prev failures; current time and failure time are same': [
      buildPod().phase('Failed').indexFailureCount('2').customDeletionTimestamp(t0).pod,
      20 * s,
    ],
    'one prev failure counted and one ignored; current time and failure time are same': [
      buildPod()
        .phase('Failed')
        .indexFailureCount('1')
        .indexIgnoredFailureCount('1')
        .customDeletionTimestamp(t0).pod,
      20 * s,
    ],
  };

  it.each(Object.entries(cases))('%s', (_name, [pod, want]) => {
    expect(getRemainingTimePerIndex(new FakeClock(t0), 5 * s, 700 * s, pod)).toBe(want);
  });
});
