// A property of the Endpoints controller: random pod churn behind one
// Service (creations, readiness flips, deletions, deletions that leave the
// pod terminating, relabels in and out of the selector), each change
// synced as it comes. After every change the Service's Endpoints hold
// exactly the selected pods that are not terminating, ready ones among the
// addresses and the others among the not-ready addresses, no address
// twice, repacked into one subset whose addresses are each pod's and carry
// its reference; and a sync with nothing new to show writes nothing.
import type { Pod } from 'kubernetes-types/core/v1.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { endpointsFixture, testPod, type EndpointsFixture } from './endpoints-helpers.js';
import { mut } from './helpers.js';

type Op =
  | { kind: 'create'; i: number; ready: boolean; selected: boolean }
  | { kind: 'flip' | 'delete' | 'terminate' | 'relabel'; i: number };

const N = 8;
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    i: fc.nat(N - 1),
    ready: fc.boolean(),
    selected: fc.boolean(),
  }),
  fc.record({
    kind: fc.constantFrom(
      'flip' as const,
      'delete' as const,
      'terminate' as const,
      'relabel' as const,
    ),
    i: fc.nat(N - 1),
  }),
);

const isReady = (p: Pod) =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/**
 * Applies one change to the cache and tells the controller; false when it
 * does not apply. A creation takes the first free index from `i` on; any
 * other change acts on the `i`-th live pod (modulo their number).
 */
function apply(fx: EndpointsFixture, live: Map<number, Pod>, op: Op, rv: number): boolean {
  if (op.kind === 'create') {
    let i = op.i;
    while (live.has(i % N) && i < op.i + N) i++;
    if (live.has(i % N)) return false;
    const p = testPod('default', i % N, 1, op.ready);
    if (!op.selected) p.metadata!.labels = { foo: 'other' };
    live.set(i % N, p);
    fx.podIndexer.add(p);
    fx.controller.addPod(p);
    return true;
  }
  const keys = [...live.keys()];
  if (keys.length === 0) return false;
  const i = keys[op.i % keys.length]!;
  const pod = live.get(i)!;
  if (op.kind === 'delete') {
    live.delete(i);
    fx.podIndexer.delete(pod);
    fx.controller.deletePod(pod);
    return true;
  }
  const p = structuredClone(pod);
  mut(p.metadata!).resourceVersion = String(rv);
  if (op.kind === 'flip') {
    p.status!.conditions = [{ type: 'Ready', status: isReady(pod) ? 'False' : 'True' }];
  } else if (op.kind === 'terminate') {
    if (pod.metadata!.deletionTimestamp) return false;
    mut(p.metadata!).deletionTimestamp = '2026-01-01T00:00:30Z';
  } else {
    p.metadata!.labels = { foo: pod.metadata!.labels!.foo === 'bar' ? 'other' : 'bar' };
  }
  live.set(i, p);
  fx.podIndexer.update(p);
  fx.controller.updatePod(pod, p);
  return true;
}

async function check(fx: EndpointsFixture, live: Map<number, Pod>): Promise<void> {
  const ep = await fx.get('default', 'foo');
  const ready = (ep.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
  const notReady = (ep.subsets ?? []).flatMap((s) => (s.notReadyAddresses ?? []).map((a) => a.ip));
  const all = [...ready, ...notReady];
  expect(new Set(all).size).toBe(all.length); // no address twice
  const shown = [...live.values()].filter(
    (p) => p.metadata!.labels!.foo === 'bar' && p.metadata!.deletionTimestamp === undefined,
  );
  const ip = (p: Pod) => p.status!.podIP!;
  // Repacked as upstream's RepackSubsets leaves them: the pods share one
  // port, so one subset (none when nothing is shown), addresses in order.
  expect(ep.subsets ?? []).toHaveLength(shown.length > 0 ? 1 : 0);
  expect(ready).toEqual([...ready].sort());
  expect(notReady).toEqual([...notReady].sort());
  expect(ready.sort()).toEqual(shown.filter(isReady).map(ip).sort());
  expect(notReady.sort()).toEqual(
    shown
      .filter((p) => !isReady(p))
      .map(ip)
      .sort(),
  );
  // Every address carries its pod, and the Service's one port is resolved.
  for (const s of ep.subsets ?? []) {
    expect(s.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    for (const a of [...(s.addresses ?? []), ...(s.notReadyAddresses ?? [])]) {
      const pod = shown.find((p) => ip(p) === a.ip)!;
      expect(a.targetRef).toMatchObject({ kind: 'Pod', name: pod.metadata!.name });
    }
  }
}

describe('the Endpoints controller under pod churn (property)', () => {
  it('publishes exactly the selected, non-terminating pods, each once, in the right list', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 25, size: 'max' }),
        async (ops) => {
          const fx = endpointsFixture();
          const svc = {
            metadata: { name: 'foo', namespace: 'default' },
            spec: {
              selector: { foo: 'bar' },
              ports: [{ name: 'http', port: 80, targetPort: 'port0', protocol: 'TCP' }],
            },
          };
          fx.serviceIndexer.add(svc);
          fx.controller.onServiceUpdate(svc);
          await fx.quiesce();
          const live = new Map<number, Pod>();
          let rv = 1000;
          for (const op of ops) {
            if (!apply(fx, live, op, ++rv)) continue;
            await fx.quiesce();
            await check(fx, live);
          }
          // Nothing new to show: a resync writes nothing.
          const before = fx.writes().length;
          fx.controller.onServiceUpdate(svc);
          await fx.quiesce();
          expect(fx.writes()).toHaveLength(before);
        },
      ),
      { numRuns: 200 },
    );
  });
});
