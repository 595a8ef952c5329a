// A property of the whole controller: random pod churn behind one Service
// (creations, readiness flips, deletions, deletions that leave the pod
// terminating, relabels in and out of the selector) with a small
// maxEndpointsPerSlice. After each change settles, that change wrote at
// most one slice; at the end the slices hold exactly the selected pods'
// addresses with the right conditions, no endpoint twice and no slice over
// the cap. A second property holds the controller's own writes back from
// its cache (a lagging watch) so that syncs meet a stale cache: the tracker
// makes them wait, and the end state is the same with no extra writes.
import type { Pod } from 'kubernetes-types/core/v1.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  controllerQualifiedName,
  isStaleInformerCacheError,
  labelManagedBy,
  labelServiceName,
} from '../src/index.js';
import { fixture, newPod, newService, podIP, mut } from './helpers.js';

type Op =
  | { kind: 'create'; i: number; ready: boolean; selected: boolean }
  | { kind: 'flip'; i: number }
  | { kind: 'delete'; i: number }
  | { kind: 'terminate'; i: number }
  | { kind: 'relabel'; i: number };

const N = 10;
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    i: fc.nat(N - 1),
    ready: fc.boolean(),
    selected: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('flip' as const), i: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('delete' as const), i: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('terminate' as const), i: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('relabel' as const), i: fc.nat(N - 1) }),
);

const isReady = (p: Pod) =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

type Fx = ReturnType<typeof fixture>;

/** Applies one change to the pods; false when it does not apply. */
function apply(fx: Fx, live: Map<number, Pod>, op: Op): boolean {
  const pod = live.get(op.i);
  if (op.kind === 'create') {
    if (pod) return false;
    const p = newPod(op.i, 'test', op.ready);
    if (!op.selected) p.metadata!.labels = { foo: 'other' };
    live.set(op.i, p);
    fx.addPod(p);
    return true;
  }
  if (!pod) return false;
  if (op.kind === 'delete') {
    live.delete(op.i);
    fx.deletePod(pod);
    return true;
  }
  const p = structuredClone(pod);
  if (op.kind === 'flip') {
    p.status!.conditions = [{ type: 'Ready', status: isReady(pod) ? 'False' : 'True' }];
  } else if (op.kind === 'terminate') {
    if (pod.metadata!.deletionTimestamp) return false;
    mut(p.metadata!).deletionTimestamp = '2026-01-01T00:00:30Z';
  } else {
    p.metadata!.labels = { foo: pod.metadata!.labels!.foo === 'bar' ? 'other' : 'bar' };
  }
  live.set(op.i, p);
  fx.updatePod(p);
  return true;
}

/** The slices hold exactly the selected pods, with the right conditions, within the cap. */
function checkConverged(fx: Fx, live: Map<number, Pod>, max: number): void {
  const slices = fx.api.list();
  const selected = [...live.values()].filter((p) => p.metadata!.labels!.foo === 'bar');
  const endpoints = slices.flatMap((s) => s.endpoints);
  const names = endpoints.map((e) => e.targetRef!.name!);
  expect(new Set(names).size).toBe(names.length);
  expect(names.sort()).toEqual(selected.map((p) => p.metadata!.name!).sort());
  for (const p of selected) {
    const n = Number(p.metadata!.name!.slice(3));
    const e = endpoints.find((x) => x.targetRef!.name === p.metadata!.name)!;
    const terminating = p.metadata!.deletionTimestamp !== undefined;
    expect(e.addresses).toEqual([podIP(n)]);
    expect(e.conditions).toEqual({
      ready: isReady(p) && !terminating,
      serving: isReady(p),
      terminating,
    });
  }
  for (const s of slices) {
    expect(s.endpoints.length).toBeLessThanOrEqual(max);
    expect(s.metadata!.labels![labelServiceName]).toBe('foo');
    expect(s.metadata!.labels![labelManagedBy]).toBe(controllerQualifiedName);
    expect(s.metadata!.ownerReferences![0]!.uid).toBe('svc-uid-foo');
  }
  if (selected.length === 0) {
    expect(slices).toHaveLength(1);
    expect(slices[0]!.endpoints).toEqual([]);
  } else {
    expect(slices.every((s) => s.endpoints.length > 0)).toBe(true);
  }
}

describe('EndpointSliceController under pod churn (property)', () => {
  it('converges to the selected pods, one slice write per pod change, within the cap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(opArb, { maxLength: 30 }),
        async (max, ops) => {
          const fx = fixture({ maxEndpointsPerSlice: max });
          fx.addService(newService());
          await fx.quiesce();
          const live = new Map<number, Pod>();
          for (const op of ops) {
            const before = fx.api.actions.length;
            if (!apply(fx, live, op)) continue;
            await fx.quiesce();
            expect(fx.api.actions.length - before).toBeLessThanOrEqual(1);
          }
          checkConverged(fx, live, max);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('waits out a cache that lags behind its own writes, and still writes no more than the changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.tuple(opArb, fc.boolean()), { maxLength: 30 }),
        async (max, steps) => {
          const fx = fixture({ maxEndpointsPerSlice: max, watch: 'lag' });
          const stale: unknown[] = [];
          fx.addService(newService());
          await fx.quiesce();
          const live = new Map<number, Pod>();
          let changes = 0;
          const before = fx.api.actions.length;
          for (const [op, deliver] of steps) {
            if (apply(fx, live, op)) changes++;
            try {
              // One pass over what is queued now; the watch may still hold earlier writes back.
              for (let n = fx.controller.serviceQueue.len(); n > 0; n--) {
                const [key] = await fx.controller.serviceQueue.get();
                try {
                  await fx.controller.syncService(key!);
                  fx.controller.serviceQueue.forget(key!);
                } catch (err) {
                  stale.push(err);
                  fx.controller.serviceQueue.addRateLimited(key!);
                } finally {
                  fx.controller.serviceQueue.done(key!);
                }
              }
            } finally {
              if (deliver) fx.deliver();
            }
          }
          await fx.quiesce();
          for (const err of stale) expect(isStaleInformerCacheError(err)).toBe(true);
          expect(fx.api.actions.length - before).toBeLessThanOrEqual(changes);
          checkConverged(fx, live, max);
          expect(fx.controller.endpointSliceTracker.staleSlices(newService(), fx.api.list())).toBe(
            false,
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
