// Ports of staging/src/k8s.io/endpointslice/util/endpointslice_tracker_test.go
// (TestEndpointSliceTrackerUpdate, TestEndpointSliceTrackerStaleSlices,
// TestEndpointSliceTrackerDeletion).
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Service } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { EndpointSliceTracker, deletionExpected, labelServiceName } from '../src/index.js';

const slice = (uid: string, generation: number, service = 'svc1', ns = 'ns1'): EndpointSlice => ({
  addressType: 'IPv4',
  endpoints: [],
  metadata: {
    name: `slice-${uid}`,
    namespace: ns,
    uid,
    generation,
    labels: { [labelServiceName]: service },
  },
});
const service = (name = 'svc1', uid = 'svc-uid-1', ns = 'ns1'): Service => ({
  metadata: { name, namespace: ns, uid },
});

describe('EndpointSliceTracker', () => {
  describe('update, has and shouldSync (TestEndpointSliceTrackerUpdate)', () => {
    it.each([
      { name: 'same generation', tracked: 1, seen: slice('a', 1), has: true, shouldSync: false },
      { name: 'newer generation', tracked: 1, seen: slice('a', 2), has: true, shouldSync: true },
      { name: 'older generation', tracked: 2, seen: slice('a', 1), has: true, shouldSync: false },
      { name: 'another slice', tracked: 1, seen: slice('b', 1), has: false, shouldSync: true },
      {
        name: 'another service',
        tracked: 1,
        seen: slice('a', 1, 'svc2'),
        has: false,
        shouldSync: true,
      },
      {
        name: 'another namespace',
        tracked: 1,
        seen: slice('a', 1, 'svc1', 'ns2'),
        has: false,
        shouldSync: true,
      },
    ])('$name', ({ tracked, seen, has, shouldSync }) => {
      const t = new EndpointSliceTracker();
      t.update(slice('a', tracked));
      expect(t.has(seen)).toBe(has);
      expect(t.shouldSync(seen)).toBe(shouldSync);
    });
  });

  describe('staleSlices (TestEndpointSliceTrackerStaleSlices)', () => {
    it.each([
      { name: 'empty tracker, no slices', tracked: [], given: [], stale: false },
      { name: 'empty tracker, one slice', tracked: [], given: [slice('a', 1)], stale: false },
      { name: 'same generation', tracked: [['a', 1]], given: [slice('a', 1)], stale: false },
      {
        name: 'cache newer than the write',
        tracked: [['a', 1]],
        given: [slice('a', 2)],
        stale: false,
      },
      {
        name: 'cache older than the write',
        tracked: [['a', 2]],
        given: [slice('a', 1)],
        stale: true,
      },
      { name: 'written slice missing from the cache', tracked: [['a', 1]], given: [], stale: true },
      { name: 'deleted slice gone', tracked: [['a', deletionExpected]], given: [], stale: false },
      {
        name: 'deleted slice still cached',
        tracked: [['a', deletionExpected]],
        given: [slice('a', 1)],
        stale: true,
      },
      {
        name: 'one of two stale',
        tracked: [
          ['a', 1],
          ['b', 3],
        ],
        given: [slice('a', 1), slice('b', 2)],
        stale: true,
      },
    ] as { name: string; tracked: [string, number][]; given: EndpointSlice[]; stale: boolean }[])(
      '$name',
      ({ tracked, given, stale }) => {
        const t = new EndpointSliceTracker();
        for (const [uid, g] of tracked) {
          if (g === deletionExpected) t.expectDeletion(slice(uid, 1));
          else t.update(slice(uid, g));
        }
        expect(t.staleSlices(service(), given)).toBe(stale);
      },
    );

    it('forgets the writes for a Service deleted and re-created under the same name', () => {
      const t = new EndpointSliceTracker();
      expect(t.staleSlices(service('svc1', 'old'), [])).toBe(false);
      t.update(slice('a', 3));
      expect(t.staleSlices(service('svc1', 'old'), [])).toBe(true);
      expect(t.staleSlices(service('svc1', 'new'), [])).toBe(false);
      expect(t.has(slice('a', 3))).toBe(false);
    });
  });

  describe('deletions (TestEndpointSliceTrackerDeletion)', () => {
    it('an expected deletion is handled quietly; the slice then looks new', () => {
      const t = new EndpointSliceTracker();
      t.update(slice('a', 1));
      t.expectDeletion(slice('a', 1));
      expect(t.has(slice('a', 1))).toBe(true);
      expect(t.shouldSync(slice('a', 1))).toBe(true);
      expect(t.handleDeletion(slice('a', 1))).toBe(true);
      expect(t.has(slice('a', 1))).toBe(false);
    });

    it('a deletion by someone else asks for a sync', () => {
      const t = new EndpointSliceTracker();
      t.update(slice('a', 1));
      expect(t.handleDeletion(slice('a', 1))).toBe(false);
      expect(t.has(slice('a', 1))).toBe(false);
    });

    it('an untracked slice is fine', () => {
      const t = new EndpointSliceTracker();
      expect(t.handleDeletion(slice('a', 1))).toBe(true);
      t.update(slice('b', 1));
      expect(t.handleDeletion(slice('a', 1))).toBe(true);
    });

    it('deleteService forgets the Service', () => {
      const t = new EndpointSliceTracker();
      t.update(slice('a', 1));
      t.deleteService('ns1', 'svc1');
      expect(t.has(slice('a', 1))).toBe(false);
      expect(t.staleSlices(service(), [])).toBe(false);
    });
  });
});
