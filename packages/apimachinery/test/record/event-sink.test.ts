// EventSinkImpl: client-go's EventSinkImpl over CoreV1().Events(""), which
// sends each request to the event's own namespace (event_expansion.go).
import { describe, expect, it } from 'vitest';
import type { Event } from 'kubernetes-types/core/v1.js';
import { EventSinkImpl, isNotFound } from '../../src/index.js';
import { EventStore } from './fakes.js';

function event(namespace: string, name: string): Event {
  return {
    kind: 'Event',
    apiVersion: 'v1',
    metadata: { name, namespace },
    involvedObject: { kind: 'Pod', name: 'p', namespace },
    reason: 'Started',
    message: 'm',
    count: 1,
    type: 'Normal',
  };
}

describe('EventSinkImpl', () => {
  it("creates and patches in the event's namespace with a strategic merge patch", async () => {
    const store = new EventStore();
    const sink = new EventSinkImpl(store.client());
    const created = await sink.create(event('team-a', 'p.1'));
    expect(created.metadata.resourceVersion).toBe('1');
    const patched = await sink.patch(event('team-a', 'p.1'), { count: 2, message: 'again' });
    expect(patched.count).toBe(2);
    expect(patched.message).toBe('again');
    expect(store.requests).toEqual([
      'create team-a/p.1',
      'patch team-a/p.1 {"count":2,"message":"again"}',
    ]);
  });

  it('passes the 404 of a patch on an Event that is gone', async () => {
    const sink = new EventSinkImpl(new EventStore().client());
    const err: unknown = await sink
      .patch(event('ns', 'gone.1'), { count: 2 })
      .catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
  });

  it('refuses, without a request, an event of another namespace than a scoped client', async () => {
    const store = new EventStore();
    const sink = new EventSinkImpl(store.client('team-a'));
    await expect(sink.create(event('team-b', 'p.1'))).rejects.toThrow(
      "can't create an event with namespace 'team-b' in namespace 'team-a'",
    );
    await expect(sink.patch(event('team-b', 'p.1'), {})).rejects.toThrow(
      "can't patch an event with namespace 'team-b' in namespace 'team-a'",
    );
    expect(store.requests).toEqual([]);
    await sink.create(event('team-a', 'p.1'));
    expect(store.requests).toEqual(['create team-a/p.1']);
  });

  it('passes the abort signal on', async () => {
    const store = new EventStore();
    const sink = new EventSinkImpl(store.client());
    const reason = new Error('stop');
    await expect(sink.create(event('ns', 'p.1'), AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});
