// A property test of the whole controller on the sandbox: random pod
// successes and failures (random exit codes, with or without a pod failure
// policy), pod deletions, suspends and resumes, controller restarts (some
// with pods finishing while no controller runs) and waits. Whatever happens:
// - a Job never has more active pods (as the API server holds them, seen by
//   an observer informer of its own, in the server's order) than its
//   parallelism;
// - once the test drives every pod to the end, the Job finishes and counts
//   each pod exactly once: succeeded and failed equal the pods whose
//   tracking finalizer went while they had succeeded, and while they had
//   failed or were being deleted (less the failures an Ignore rule
//   matched). Pods the controller itself removed while active (excess or
//   suspension) lose the finalizer first and are never counted.
import type { Job, PodFailurePolicy } from 'kubernetes-types/batch/v1.js';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasJobTrackingFinalizer } from '../src/tracking-utils.js';
import { jobTrackingFinalizer, matchPodFailurePolicy } from '../src/index.js';
import { creatableJob, isActive, settle, startHarness, type Harness } from './helpers.js';

type Op =
  | { kind: 'succeed'; pick: number }
  | { kind: 'fail'; pick: number; exitCode: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'suspend' }
  | { kind: 'resume' }
  | { kind: 'restart' }
  | { kind: 'finishWhileDown'; pick: number; ok: boolean }
  | { kind: 'wait'; ms: number };

const exitCodes = [1, 2, 7, 42, 137];
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('succeed' as const), pick: fc.nat(5) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('fail' as const),
      pick: fc.nat(5),
      exitCode: fc.constantFrom(...exitCodes),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'suspend' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'resume' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('finishWhileDown' as const),
      pick: fc.nat(5),
      ok: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('wait' as const),
      ms: fc.integer({ min: 500, max: 25_000 }),
    }),
  },
);

const policy: PodFailurePolicy = {
  rules: [
    { action: 'Ignore', onExitCodes: { operator: 'In', values: [7] } },
    { action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } },
  ],
};

interface Scenario {
  completions: number;
  parallelism: number;
  backoffLimit: number;
  withPolicy: boolean;
  ops: Op[];
}

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  completions: fc.integer({ min: 1, max: 4 }),
  parallelism: fc.integer({ min: 1, max: 3 }),
  backoffLimit: fc.integer({ min: 1, max: 5 }),
  withPolicy: fc.boolean(),
  ops: fc.array(opArb, { minLength: 1, maxLength: 8 }),
});

const isFinished = (job: Job) =>
  (job.status?.conditions ?? []).some(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );

async function runScenario(sc: Scenario): Promise<void> {
  const h: Harness = await startHarness();
  try {
    const created = await h.jobsIn.create(
      creatableJob('prop', {
        completions: sc.completions,
        parallelism: sc.parallelism,
        backoffLimit: sc.backoffLimit,
        ...(sc.withPolicy && { podFailurePolicy: policy }),
      }),
    );
    const uid = created.metadata!.uid!;
    const step = (ms: number) => h.step(ms, 250);
    const active = async () => (await h.podsOf('prop')).filter(isActive);
    const pick = async (n: number) => {
      const pods = await active();
      return pods.length === 0 ? undefined : pods[n % pods.length];
    };
    // A kubelet's part: a deleted pod that never ran to the end fails.
    const kubelet = async () => {
      for (const p of await h.podsOf('prop')) {
        if (
          p.metadata?.deletionTimestamp &&
          p.status?.phase !== 'Failed' &&
          p.status?.phase !== 'Succeeded'
        ) {
          await h.finish(p, 'Failed', 137).catch(() => undefined);
        }
      }
    };
    const setSuspend = async (suspend: boolean) => {
      for (;;) {
        const job = await h.jobsIn.get('prop');
        if (isFinished(job) || (job.spec?.suspend ?? false) === suspend) return;
        job.spec!.suspend = suspend;
        try {
          await h.jobsIn.update(job);
          return;
        } catch {
          // a conflict: read again
        }
      }
    };

    await step(1_000);
    for (const op of sc.ops) {
      await settle(20);
      switch (op.kind) {
        case 'succeed': {
          const p = await pick(op.pick);
          if (p) await h.finish(p, 'Succeeded');
          break;
        }
        case 'fail': {
          const p = await pick(op.pick);
          if (p) await h.finish(p, 'Failed', op.exitCode);
          break;
        }
        case 'delete': {
          const p = await pick(op.pick);
          if (p) await h.podsIn.delete(p.metadata!.name!).catch(() => undefined);
          if (sc.withPolicy) await kubelet();
          break;
        }
        case 'suspend':
          await setSuspend(true);
          break;
        case 'resume':
          await setSuspend(false);
          break;
        case 'restart':
          await h.restart();
          break;
        case 'finishWhileDown': {
          await h.pause();
          const p = await pick(op.pick);
          if (p) await h.finish(p, op.ok ? 'Succeeded' : 'Failed', op.ok ? 0 : 1);
          await h.resume();
          break;
        }
        case 'wait':
          await step(op.ms);
          break;
      }
      await step(1_200);
    }

    // Drain: resume, and let every pod succeed, until the Job is finished
    // and no pod of it keeps the finalizer.
    await setSuspend(false);
    let done = false;
    for (let t = 0; t < 1_500_000 && !done; t += 1_000) {
      const job = await h.jobsIn.get('prop');
      const pods = await h.podsOf('prop');
      done = isFinished(job) && pods.every((p) => !hasJobTrackingFinalizer(p));
      if (done) break;
      await kubelet();
      for (const p of pods.filter(isActive)) await h.finish(p, 'Succeeded');
      await step(1_000);
    }
    expect(done).toBe(true);

    // The ledger: what each pod was when its finalizer went.
    const counted = { succeeded: 0, failed: 0 };
    const seen = new Set<string>();
    for (const before of h.ledger.finalizerRemoved) {
      const id = before.metadata!.uid!;
      if (seen.has(id)) continue;
      seen.add(id);
      const phase = before.status?.phase;
      if (phase === 'Succeeded') counted.succeeded++;
      else if (phase === 'Failed') {
        const [, countFailed] = matchPodFailurePolicy(sc.withPolicy ? policy : undefined, before);
        if (countFailed) counted.failed++;
      } else if (before.metadata?.deletionTimestamp) counted.failed++;
    }

    const job = await h.jobsIn.get('prop');
    expect(h.ledger.maxActive.get(uid) ?? 0).toBeLessThanOrEqual(sc.parallelism);
    expect(job.status?.uncountedTerminatedPods?.succeeded ?? []).toEqual([]);
    expect(job.status?.uncountedTerminatedPods?.failed ?? []).toEqual([]);
    expect({ succeeded: job.status?.succeeded ?? 0, failed: job.status?.failed ?? 0 }).toEqual(
      counted,
    );
    // No pod ever counted is still around with the finalizer, and none was lost.
    expect(
      [...h.ledger.last.values()].filter(
        (p) =>
          p.metadata?.finalizers?.includes(jobTrackingFinalizer) &&
          !h.ledger.gone.has(p.metadata.uid!),
      ),
    ).toEqual([]);
    if ((job.status?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True')) {
      expect(job.status?.succeeded).toBe(sc.completions);
    }
  } finally {
    await h.stop();
  }
}

describe('the Job controller under random pod outcomes, suspends and restarts', () => {
  it('never runs more pods than parallelism, and counts every finished pod exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, (sc) => runScenario(sc)),
      { numRuns: 200 },
    );
  }, 240_000);
});
