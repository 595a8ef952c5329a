// Properties of the whole controller under random pod churn behind one
// Service (creations, readiness flips, deletions, deletions that leave the
// pod terminating, relabels in and out of the selector), with a small
// maxEndpointsPerSlice (1 to 5) so that slices fill up and several exist,
// and publishNotReadyAddresses on or off. The slices are written through
// an in-memory client whose writes reach the controller's cache at once
// (test/helpers.ts), on the fake clock, so 200 runs take seconds.
//
// The first property settles after every change and asserts:
// - the slices hold exactly the selected pods, each once, with its address
//   and the conditions podToEndpoint gives (serving = Ready; terminating =
//   deletionTimestamp set; ready = publishNotReadyAddresses, or serving and
//   not terminating); no slice is over the cap, every slice carries the
//   Service's labels and owner reference, none is empty unless it is the
//   one placeholder of a Service with no endpoints;
// - writes per pod change: a change that alters no endpoint writes nothing,
//   one that alters one writes exactly one slice. That write is
//   - an update of the slice that held the pod's endpoint, when the pod was
//     listed before (its conditions changed, or it left and others remain
//     in that slice, or it was the last endpoint of all and its slice
//     becomes the placeholder);
//   - a delete of that slice, when the pod was its only endpoint and other
//     slices still hold endpoints;
//   - when the pod is new to the Service, an update of the fullest slice
//     that had room (the placeholder included), or a create, only when
//     every slice was full: the one case where a change forces a new slice;
//   and every other slice is left exactly as it was.
// A single change never adds to a slice that is being updated anyway
// (step 2 of reconcileByPortMapping); batched changes in the second
// property do.
// The second property holds the controller's own writes back from its
// cache (a lagging watch) so that syncs meet a stale cache: the tracker
// makes them wait, and the end state is the same with no more writes than
// changes.
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  controllerQualifiedName,
  isStaleInformerCacheError,
  labelManagedBy,
  labelServiceName,
} from '../src/index.js';
import { fixture, newPod, newService, podIP, mut, type Action } from './helpers.js';

type Op =
  | { kind: 'create'; i: number; ready: boolean; selected: boolean }
  | { kind: 'flip'; i: number }
  | { kind: 'delete'; i: number }
  | { kind: 'terminate'; i: number }
  | { kind: 'relabel'; i: number };

const N = 12;
const opArb: fc.Arbitrary<Op> = fc.oneof(
  // Creations weigh more, so that most other changes find a pod to act on.
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      i: fc.nat(N - 1),
      ready: fc.boolean(),
      selected: fc.boolean(),
    }),
  },
  fc.record({ kind: fc.constant('flip' as const), i: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('delete' as const), i: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('terminate' as const), i: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('relabel' as const), i: fc.nat(N - 1) }),
);

const isReady = (p: Pod) =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

type Fx = ReturnType<typeof fixture>;

/**
 * Applies one change to the pods and returns the name of the pod it
 * changed, or undefined when it does not apply. A creation takes the first
 * free index from `i` on; any other change acts on the `i`-th live pod
 * (modulo their number).
 */
function apply(fx: Fx, live: Map<number, Pod>, op: Op): string | undefined {
  if (op.kind === 'create') {
    let i = op.i;
    while (live.has(i % N) && i < op.i + N) i++;
    if (live.has(i % N)) return undefined;
    const p = newPod(i % N, 'test', op.ready);
    if (!op.selected) p.metadata!.labels = { foo: 'other' };
    live.set(i % N, p);
    fx.addPod(p);
    return p.metadata!.name!;
  }
  const keys = [...live.keys()];
  if (keys.length === 0) return undefined;
  const i = keys[op.i % keys.length]!;
  const pod = live.get(i)!;
  if (op.kind === 'delete') {
    live.delete(i);
    fx.deletePod(pod);
    return pod.metadata!.name!;
  }
  const p = structuredClone(pod);
  if (op.kind === 'flip') {
    p.status!.conditions = [{ type: 'Ready', status: isReady(pod) ? 'False' : 'True' }];
  } else if (op.kind === 'terminate') {
    if (pod.metadata!.deletionTimestamp) return undefined;
    mut(p.metadata!).deletionTimestamp = '2026-01-01T00:00:30Z';
  } else {
    p.metadata!.labels = { foo: pod.metadata!.labels!.foo === 'bar' ? 'other' : 'bar' };
  }
  live.set(i, p);
  fx.updatePod(p);
  return pod.metadata!.name!;
}

/** The conditions the pod's endpoint must carry (Go's `podToEndpoint`). */
function conditionsOf(p: Pod, publishNotReady: boolean) {
  const terminating = p.metadata!.deletionTimestamp !== undefined;
  const serving = isReady(p);
  return { ready: publishNotReady || (serving && !terminating), serving, terminating };
}

/** What the slices must show: each selected pod's name and conditions. */
function shown(live: Map<number, Pod>, publishNotReady: boolean): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of live.values()) {
    if (p.metadata!.labels!.foo !== 'bar') continue;
    out.set(p.metadata!.name!, JSON.stringify(conditionsOf(p, publishNotReady)));
  }
  return out;
}

const sameShown = (a: Map<string, string>, b: Map<string, string>) =>
  a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);

/**
 * The slices hold exactly the selected pods, each once, with the right
 * address and conditions; every slice within the cap and labelled and
 * owned as the Service's. Compared as two summaries, which is much faster
 * than an expect per field over thousands of steps.
 */
function checkConverged(fx: Fx, live: Map<number, Pod>, max: number, publishNotReady = false) {
  const slices = fx.api.list();
  const selected = [...live.values()].filter((p) => p.metadata!.labels!.foo === 'bar');
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  // An endpoint listed twice shows up as an extra entry.
  const listed = slices
    .flatMap((s) => s.endpoints)
    .map((e) => ({
      name: e.targetRef!.name!,
      uid: e.targetRef!.uid,
      addresses: e.addresses,
      conditions: e.conditions,
    }))
    .sort(byName);
  const wanted = selected
    .map((p) => ({
      name: p.metadata!.name!,
      uid: p.metadata!.uid,
      addresses: [podIP(Number(p.metadata!.name!.slice(3)))],
      conditions: conditionsOf(p, publishNotReady),
    }))
    .sort(byName);
  expect(listed).toEqual(wanted);
  const offending = slices
    .filter(
      (s) =>
        s.endpoints.length > max ||
        (s.endpoints.length === 0 && (selected.length > 0 || slices.length > 1)) ||
        s.addressType !== 'IPv4' ||
        s.metadata!.labels![labelServiceName] !== 'foo' ||
        s.metadata!.labels![labelManagedBy] !== controllerQualifiedName ||
        s.metadata!.ownerReferences?.[0]?.uid !== 'svc-uid-foo',
    )
    .map((s) => ({ name: s.metadata!.name, endpoints: s.endpoints.length, slices: slices.length }));
  expect(offending).toEqual([]);
  // A Service with no endpoints keeps one empty placeholder slice.
  expect(slices.length).toBeGreaterThan(0);
}

/** The slice (by name) holding the pod's endpoint, if any. */
const holderOf = (slices: EndpointSlice[], pod: string) =>
  slices.find((s) => s.endpoints.some((e) => e.targetRef!.name === pod))?.metadata!.name;

/**
 * The writes one settled change of pod `pod` made, checked against the
 * slices before and after it (see the header).
 */
function checkWrites(
  fx: Fx,
  pod: string,
  max: number,
  before: { slices: EndpointSlice[]; shown: Map<string, string> },
  after: { shown: Map<string, string> },
  actions: Action[],
): void {
  if (sameShown(before.shown, after.shown)) {
    expect(actions).toEqual([]);
    return;
  }
  expect(actions).toHaveLength(1);
  const [{ verb, name }] = actions as [Action];
  const wasListed = before.shown.has(pod);
  const oldHolder = holderOf(before.slices, pod);
  expect(oldHolder !== undefined).toBe(wasListed);
  if (verb === 'create') {
    // Only a pod new to the Service, and only when no slice had room.
    expect(wasListed).toBe(false);
    expect(before.slices.every((s) => s.endpoints.length >= max)).toBe(true);
  } else if (verb === 'delete') {
    // The pod left the slice it alone filled, and other endpoints remain elsewhere.
    expect(after.shown.has(pod)).toBe(false);
    expect(name).toBe(oldHolder);
    expect(before.slices.find((s) => s.metadata!.name === name)!.endpoints).toHaveLength(1);
    expect(after.shown.size).toBeGreaterThan(0);
  } else if (wasListed) {
    expect(name).toBe(oldHolder);
  } else {
    // Into the fullest slice that had room (Go's getSliceToFill).
    const withRoom = before.slices.filter((s) => s.endpoints.length < max);
    const target = before.slices.find((s) => s.metadata!.name === name)!;
    expect(withRoom).toContain(target);
    expect(target.endpoints.length).toBe(Math.max(...withRoom.map((s) => s.endpoints.length)));
  }
  // Every other slice is untouched.
  const others = (slices: EndpointSlice[]) => slices.filter((s) => s.metadata!.name !== name);
  expect(others(fx.api.list())).toEqual(others(before.slices));
}

describe('EndpointSliceController under pod churn (property)', () => {
  it('converges to the selected pods after every change, writing at most one slice per change, within the cap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.boolean(),
        fc.array(opArb, { minLength: 1, maxLength: 40, size: 'max' }),
        async (max, publishNotReady, ops) => {
          const fx = fixture({ maxEndpointsPerSlice: max });
          const svc = newService();
          svc.spec!.publishNotReadyAddresses = publishNotReady;
          fx.addService(svc);
          await fx.quiesce();
          checkConverged(fx, new Map(), max, publishNotReady);
          const live = new Map<number, Pod>();
          for (const op of ops) {
            const before = {
              slices: structuredClone(fx.api.list()),
              shown: shown(live, publishNotReady),
            };
            const actionsBefore = fx.api.actions.length;
            const pod = apply(fx, live, op);
            if (pod === undefined) continue;
            await fx.quiesce();
            checkConverged(fx, live, max, publishNotReady);
            checkWrites(
              fx,
              pod,
              max,
              before,
              { shown: shown(live, publishNotReady) },
              fx.api.actions.slice(actionsBefore),
            );
          }
          expect(fx.controller.endpointSliceTracker.staleSlices(svc, fx.api.list())).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('waits out a cache that lags behind its own writes, and still writes no more than the changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.tuple(opArb, fc.boolean()), { maxLength: 30, size: 'max' }),
        async (max, steps) => {
          const fx = fixture({ maxEndpointsPerSlice: max, watch: 'lag' });
          const stale: unknown[] = [];
          fx.addService(newService());
          await fx.quiesce();
          const live = new Map<number, Pod>();
          let changes = 0;
          const before = fx.api.actions.length;
          for (const [op, deliver] of steps) {
            if (apply(fx, live, op) !== undefined) changes++;
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
