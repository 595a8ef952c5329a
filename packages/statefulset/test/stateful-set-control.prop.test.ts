// Properties of the reconciliation over a fake cluster whose cache lags
// behind the API server (it catches up only when a step says so) and whose
// writes fail at random: random passes, cache catch-ups, pods moving on
// (Pending, Running, Ready, gone once deleted), crashes, user deletions,
// scaling, template changes and `ordinals.start` moves. Whatever happens:
// - the API server never holds two pods of one identity (one pod per
//   ordinal, named `web-<ordinal>`, labelled with that ordinal);
// - with OrderedReady, ordinal n is created only when the pass saw n-1
//   Running and Ready (and not terminating), and n-1 has been Running and
//   Ready at some moment before;
// - with OrderedReady, a pod outside the wanted range is deleted only when
//   the pass saw no other such pod with a higher ordinal;
// - once faults stop and pods are let run, the set converges: exactly the
//   wanted ordinals, all Ready, all at the update revision.
import type { Pod } from 'kubernetes-types/core/v1.js';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  getEndOrdinal,
  getOrdinal,
  getStartOrdinal,
  isRunningAndReady,
  isTerminating,
  podIndexLabel,
  statefulSetRevisionLabel,
} from '../src/stateful-set-utils.js';
import { mut, newStatefulSet, setupControl, type Setup } from './helpers.js';

type Op =
  | { kind: 'sync' }
  | { kind: 'catchUp' }
  | { kind: 'progress'; pick: number }
  | { kind: 'crash'; pick: number }
  | { kind: 'userDelete'; pick: number }
  | { kind: 'scale'; replicas: number }
  | { kind: 'image'; n: number }
  | { kind: 'start'; start: number }
  | { kind: 'faults'; rate: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ kind: 'sync' as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'catchUp' as const }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('progress' as const), pick: fc.nat(9) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), pick: fc.nat(9) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('userDelete' as const), pick: fc.nat(9) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('scale' as const),
      replicas: fc.integer({ min: 0, max: 5 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('image' as const), n: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('start' as const), start: fc.nat(2) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('faults' as const),
      rate: fc.constantFrom(0, 0.3, 0.7),
    }),
  },
);

/** A small deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const nameOf = (o: number) => `web-${o}`;
const sortedPods = (s: Setup): Pod[] =>
  [...s.cluster.pods.values()].sort((a, b) => getOrdinal(a) - getOrdinal(b));

function checkIdentities(s: Setup): void {
  const seen = new Set<string>();
  for (const pod of s.cluster.pods.values()) {
    const index = pod.metadata?.labels?.[podIndexLabel];
    expect(index).toBeDefined();
    expect(pod.metadata?.name).toBe(nameOf(Number(index)));
    expect(seen.has(index!)).toBe(false);
    seen.add(index!);
  }
}

async function run(ops: Op[], parallel: boolean, lag: boolean, seed: number): Promise<void> {
  const s = setupControl(
    newStatefulSet('web', 3, parallel ? { podManagementPolicy: 'Parallel' } : {}),
    { lag },
  );
  const random = prng(seed);
  let rate = 0;
  s.cluster.fail = () => random() < rate;
  const everReady = new Set<number>();
  const violations: string[] = [];
  // The pods the current pass was given (the cache may move on during it).
  let seen = new Map<string, Pod>();
  const sync = async () => {
    seen = new Map(s.cluster.podCache);
    await s.sync();
  };

  s.cluster.onCreatePod = (pod) => {
    if (parallel) return;
    const n = getOrdinal(pod);
    const set = s.target.set;
    if (n <= getStartOrdinal(set)) return;
    const prev = seen.get(nameOf(n - 1));
    if (prev === undefined || !isRunningAndReady(prev) || isTerminating(prev)) {
      violations.push(
        `created ${nameOf(n)} while the pass saw ${nameOf(n - 1)} not Running and Ready`,
      );
    }
    if (!everReady.has(n - 1)) {
      violations.push(`created ${nameOf(n)} before ${nameOf(n - 1)} was ever Running and Ready`);
    }
  };
  s.cluster.onDeletePod = (pod) => {
    if (parallel) return;
    const set = s.target.set;
    const k = getOrdinal(pod);
    const outside = (o: number) => o < getStartOrdinal(set) || o > getEndOrdinal(set);
    if (!outside(k)) return;
    for (const other of seen.values()) {
      const o = getOrdinal(other);
      if (o > k && outside(o)) {
        violations.push(`scaled down ${nameOf(k)} while the pass saw ${nameOf(o)}`);
      }
    }
  };
  const progress = (pod: Pod) => {
    const name = pod.metadata!.name!;
    if (isTerminating(pod)) s.cluster.remove(name);
    else if (pod.status?.phase === 'Pending') s.cluster.setPhase(name, 'Running');
    else if (pod.status?.phase === 'Running' && !isRunningAndReady(pod)) {
      s.cluster.setReady(name);
      everReady.add(getOrdinal(pod));
    }
  };

  for (const op of ops) {
    const pods = sortedPods(s);
    const picked = pods.length > 0 ? pods[('pick' in op ? op.pick : 0) % pods.length] : undefined;
    switch (op.kind) {
      case 'sync':
        await sync();
        break;
      case 'catchUp':
        s.cluster.syncCache();
        break;
      case 'progress':
        if (picked) progress(picked);
        break;
      case 'crash':
        if (picked && picked.status?.phase === 'Running') {
          s.cluster.setPhase(picked.metadata!.name!, 'Failed');
        }
        break;
      case 'userDelete':
        if (picked && !isTerminating(picked)) {
          mut(picked.metadata!).deletionTimestamp = '2026-01-01T00:00:00Z';
        }
        break;
      case 'scale':
        s.setSpec({ replicas: op.replicas });
        break;
      case 'image': {
        const tpl = s.target.set.spec!.template;
        s.setSpec({
          template: {
            ...tpl,
            spec: {
              ...tpl.spec!,
              containers: [{ ...tpl.spec!.containers[0]!, image: `nginx:${op.n}` }],
            },
          },
        });
        break;
      }
      case 'start':
        s.setSpec({ ordinals: { start: op.start } });
        break;
      case 'faults':
        rate = op.rate;
        break;
    }
    checkIdentities(s);
  }
  expect(violations).toEqual([]);

  // Heal: no faults, the cache keeps up, pods run, and Failed pods are
  // removed (by the pod garbage collector or a user: as upstream, Failed
  // pods outside the range above another unhealthy one block an
  // OrderedReady scale-down). The set converges.
  rate = 0;
  const set = () => s.target.set;
  const wanted = () => {
    const names = [];
    for (let o = getStartOrdinal(set()); o <= getEndOrdinal(set()); o++) names.push(nameOf(o));
    return names;
  };
  const converged = () =>
    set().status?.observedGeneration === set().metadata?.generation &&
    JSON.stringify(s.cluster.livePodNames()) === JSON.stringify(wanted()) &&
    [...s.cluster.pods.values()].every(
      (p) =>
        isRunningAndReady(p) &&
        !isTerminating(p) &&
        p.metadata?.labels?.[statefulSetRevisionLabel] === set().status?.updateRevision,
    ) &&
    set().status?.currentRevision === set().status?.updateRevision &&
    set().status?.readyReplicas === wanted().length;
  for (let round = 0; round < 200 && !converged(); round++) {
    s.cluster.syncCache();
    await sync();
    s.cluster.syncCache();
    for (const pod of sortedPods(s)) {
      if (pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded') {
        s.cluster.remove(pod.metadata!.name!);
      } else progress(pod);
    }
    checkIdentities(s);
  }
  s.cluster.syncCache();
  await sync();
  expect(violations).toEqual([]);
  expect(s.cluster.livePodNames()).toEqual(wanted());
  const update = set().status?.updateRevision;
  for (const pod of s.cluster.pods.values()) {
    expect(isRunningAndReady(pod)).toBe(true);
    expect(pod.metadata?.labels?.[statefulSetRevisionLabel]).toBe(update);
  }
  expect(set().status).toMatchObject({
    replicas: wanted().length,
    readyReplicas: wanted().length,
    updatedReplicas: wanted().length,
    currentRevision: update,
  });
}

describe('the StatefulSet guarantees under a lagging cache and failing writes', () => {
  it('holds for OrderedReady and Parallel sets', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 60 }),
        fc.boolean(),
        fc.boolean(),
        fc.integer(),
        async (ops, parallel, lag, seed) => {
          await run(ops, parallel, lag, seed);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('holds for OrderedReady sets with a lagging cache', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 10, maxLength: 80 }),
        fc.integer(),
        async (ops, seed) => {
          await run(ops, false, true, seed);
        },
      ),
      { numRuns: 200 },
    );
  });
});
