// Watch events as the API server sends them (spec/apiserver.md §8).
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Status } from 'kubernetes-types/meta/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  StatusError,
  initialEventsEndAnnotation,
  isResourceExpired,
  isWatchEventType,
  watchEventTypes,
  type WatchEvent,
} from '../src/index.js';

/** Reads one line of a watch stream, as a client would. */
function parseLine(line: string): WatchEvent<Pod> {
  const event = JSON.parse(line) as { type?: unknown; object?: unknown };
  if (!isWatchEventType(event.type) || typeof event.object !== 'object') {
    throw new Error(`not a watch event: ${line}`);
  }
  return event as WatchEvent<Pod>;
}

describe('watch events', () => {
  it('lists the five event types', () => {
    expect(watchEventTypes).toEqual(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);
    expect(Object.isFrozen(watchEventTypes)).toBe(true);
    for (const type of watchEventTypes) expect(isWatchEventType(type)).toBe(true);
    for (const other of ['added', 'SYNC', '', 1, undefined]) {
      expect(isWatchEventType(other)).toBe(false);
    }
  });

  it('narrow on type: ERROR carries a Status, the others the object', () => {
    const lines = [
      '{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","resourceVersion":"5"}}}',
      '{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"7"}}}',
      '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (1234)","reason":"Expired","code":410}}',
    ];
    const seen: string[] = [];
    for (const event of lines.map(parseLine)) {
      if (event.type === 'ERROR') {
        expectTypeOf(event.object).toEqualTypeOf<Status>();
        const err = StatusError.fromStatus(event.object);
        expect(isResourceExpired(err)).toBe(true);
        seen.push(`ERROR ${err.code}`);
      } else {
        expectTypeOf(event.object).toEqualTypeOf<Pod>();
        seen.push(`${event.type} ${event.object.metadata?.resourceVersion}`);
      }
    }
    expect(seen).toEqual(['ADDED 5', 'BOOKMARK 7', 'ERROR 410']);
  });

  it('names the annotation that ends the initial events', () => {
    expect(initialEventsEndAnnotation).toBe('k8s.io/initial-events-end');
  });
});
