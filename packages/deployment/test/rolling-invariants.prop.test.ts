// The RollingUpdate promise, checked on every state the API server holds
// while random rollouts run against the sandbox with both controllers:
//
//   available ≥ replicas − maxUnavailable   and   total ≤ replicas + maxSurge
//
// with the transient allowances upstream makes (it bounds what it asks for,
// from what its caches show, and cannot undo what happens to pods):
//
// A1  The controller acts on the Deployment as its cache shows it, which may
//     be an older version than the server's, and a change of spec.replicas
//     takes effect when it acts. So each bound is checked against every
//     replica count since the last version whose bound was met once the
//     controller had observed it (status.observedGeneration): the ceiling
//     against the largest of them, the floor against the smallest. Before
//     the floor has been met for the first time, there is none.
// A2  Lowering spec.replicas mid-rollout is a scaling event: upstream's
//     scale() shrinks every active ReplicaSet in proportion to its size,
//     available pods or not. After a decrease the floor is suspended until it
//     has been met again at the new size.
// A3  maxSurge bounds the ReplicaSets' spec.replicas, which is checked
//     exactly. Pods above their ReplicaSet's spec.replicas (asked to go, not
//     yet deleted by the ReplicaSet controller) are left out of the pod total.
// A4  Pods are available when Ready and not terminating (minReadySeconds 0).
//     Of a ReplicaSet with more pods than its spec.replicas, only as many as
//     it keeps count: the ReplicaSet controller deletes not-ready pods first,
//     and a decision to scale down shows the moment it is taken rather than
//     when the pods go. The "pod failures" generated are pods that never
//     become ready (an image that cannot be pulled, or a container that
//     crashes before it is ready); pods that were available are never
//     disrupted, since no controller promises anything against involuntary
//     disruptions.
//
// Every run ends with a healthy template and must converge to it: replicas
// available pods, all of the last template, no old ReplicaSet with replicas.
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { podAnnotations } from '@kcm-ts/sandbox';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resolveFenceposts } from '../src/index.js';
import { isReady, settle, startHarness, type Harness, type World } from './helpers/harness.js';

type IntOrPercent = number | string;

interface Template {
  tag: number;
  readyDelayMs: number;
  /** Never becomes ready: `bad` cannot be pulled, `crash` dies before it is ready. */
  failure?: 'bad' | 'crash';
}

type Op =
  | { kind: 'template'; template: Template; waitMs: number }
  | { kind: 'scale'; replicas: number; waitMs: number };

interface Scenario {
  replicas: number;
  maxSurge: IntOrPercent;
  maxUnavailable: IntOrPercent;
  first: Template;
  ops: Op[];
}

const bound: fc.Arbitrary<IntOrPercent> = fc.constantFrom(0, 1, 2, '25%', '50%');
const template = (failing: boolean): fc.Arbitrary<Template> =>
  fc.record({
    tag: fc.integer({ min: 1, max: 9 }),
    readyDelayMs: fc.integer({ min: 0, max: 20 }).map((n) => n * 100),
    ...(failing
      ? {
          failure: fc.constantFrom<'bad' | 'crash' | undefined>(
            undefined,
            undefined,
            'bad',
            'crash',
          ),
        }
      : {}),
  });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('template' as const),
    template: template(true),
    waitMs: fc.integer({ min: 0, max: 6000 }),
  }),
  fc.record({
    kind: fc.constant('scale' as const),
    replicas: fc.integer({ min: 0, max: 6 }),
    waitMs: fc.integer({ min: 0, max: 6000 }),
  }),
);
const scenario: fc.Arbitrary<Scenario> = fc
  .record({
    replicas: fc.integer({ min: 1, max: 5 }),
    maxSurge: bound,
    maxUnavailable: bound,
    first: template(false),
    ops: fc.array(op, { minLength: 1, maxLength: 4 }),
  })
  // Validation forbids both at 0 (as numbers or percentages).
  .filter((s) => !(parseInt(String(s.maxSurge)) === 0 && parseInt(String(s.maxUnavailable)) === 0));

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ podStartDelay: 200, podReadyDelay: 300, stepMs: 250 });
});
afterAll(async () => {
  const clock = h.clock;
  await h.stop();
  expect(clock.hasWaiters()).toBe(false);
});

function podTemplate(name: string, t: Template): NonNullable<Deployment['spec']>['template'] {
  const image = t.failure === 'bad' ? 'nginx:bad' : `nginx:1.${20 + t.tag}`;
  const annotations: Record<string, string> = {
    [podAnnotations.readyDelay]: `${t.readyDelayMs + (t.failure === 'crash' ? 1000 : 0)}ms`,
    // A distinct template even for equal tags and delays, so every change rolls.
    'test/variant': `${t.tag}-${t.readyDelayMs}-${t.failure ?? 'ok'}`,
  };
  if (t.failure === 'crash') annotations[podAnnotations.crashAfter] = `${t.readyDelayMs + 500}ms`;
  return {
    metadata: { labels: { app: name }, annotations },
    spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'nginx', image }] },
  };
}

let run = 0;

it(
  'keeps a RollingUpdate within maxSurge and maxUnavailable, and converges',
  { timeout: 240_000 },
  async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const name = `p${++run}`;
        const key = `default/${name}`;
        const violations: string[] = [];
        // A1: spec.replicas by generation, and the last generation at which
        // each bound was met after the controller had observed it.
        const replicasAt = new Map<number, number>();
        let ceilingMetAt = 0;
        let floorMetAt = -1;

        const check = (world: World): void => {
          const d = world.deployments.get(key);
          if (d === undefined || violations.length > 0) return;
          const generation = d.metadata?.generation ?? 0;
          const observed = d.status?.observedGeneration ?? 0;
          const replicas = d.spec?.replicas ?? 1;
          if (!replicasAt.has(generation)) {
            const previous = replicasAt.get(Math.max(...replicasAt.keys()));
            if (previous !== undefined && replicas < previous) floorMetAt = -1; // A2
            replicasAt.set(generation, replicas);
          }
          const ru = d.spec?.strategy?.rollingUpdate;
          const fence = (n: number) => resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, n);
          const ceiling = (n: number) => n + fence(n)[0];
          const floor = (n: number) => n - Math.min(fence(n)[1], n);
          const sets = [...world.replicaSets.values()].filter((rs) =>
            rs.metadata?.ownerReferences?.some((r) => r.uid === d.metadata?.uid),
          );
          const podsOf = (rs: ReplicaSet): Pod[] =>
            [...world.pods.values()].filter(
              (p) =>
                !p.metadata?.deletionTimestamp &&
                p.status?.phase !== 'Succeeded' &&
                p.status?.phase !== 'Failed' &&
                p.metadata?.ownerReferences?.some(
                  (r) => r.controller && r.uid === rs.metadata?.uid,
                ),
            );
          let specTotal = 0;
          let podTotal = 0;
          let available = 0;
          for (const rs of sets) {
            const spec = rs.spec?.replicas ?? 1;
            const pods = podsOf(rs);
            specTotal += spec;
            podTotal += Math.min(pods.length, spec); // A3
            available += Math.min(pods.filter(isReady).length, spec); // A4
          }
          if (observed >= generation && specTotal <= ceiling(replicas)) ceilingMetAt = generation;
          if (observed >= generation && available >= floor(replicas)) floorMetAt = generation;
          const since = (g: number) =>
            [...replicasAt].filter(([gen]) => gen >= g).map(([, n]) => n);
          const maxAllowed = ceiling(Math.max(...since(ceilingMetAt)));
          const minRequired = floorMetAt < 0 ? 0 : floor(Math.min(...since(floorMetAt)));
          const at = `${(h.clock.now() - start) / 1000}s, generation ${generation} (observed ${observed}), replicas ${replicas}`;
          if (specTotal > maxAllowed)
            violations.push(`${at}: spec total ${specTotal} > ${maxAllowed}`);
          if (podTotal > maxAllowed)
            violations.push(`${at}: pod total ${podTotal} > ${maxAllowed}`);
          if (available < minRequired)
            violations.push(`${at}: available ${available} < ${minRequired}`);
        };

        const start = h.clock.now();
        const unsubscribe = h.observe(check);
        let last = s.first;
        try {
          await h.deployments.create({
            metadata: { name },
            spec: {
              replicas: s.replicas,
              selector: { matchLabels: { app: name } },
              strategy: {
                type: 'RollingUpdate',
                rollingUpdate: { maxSurge: s.maxSurge, maxUnavailable: s.maxUnavailable },
              },
              progressDeadlineSeconds: 600,
              template: podTemplate(name, s.first),
            },
          });
          for (const o of s.ops) {
            if (o.kind === 'template') {
              last = o.template;
              await setTemplate(name, o.template);
            } else {
              await h.deployments.patch(name, {
                type: 'merge',
                body: { spec: { replicas: o.replicas } },
              });
            }
            await h.step(o.waitMs);
          }
          // End on a healthy template.
          if (last.failure !== undefined) {
            last = { tag: 0, readyDelayMs: 200 };
            await setTemplate(name, last);
          }
          const image = `nginx:1.${20 + last.tag}`;
          await h.until(async () => {
            const d = await h.deployments.get(name);
            const replicas = d.spec?.replicas ?? 1;
            const st = d.status ?? {};
            const pods = (await h.pods.list({ labelSelector: `app=${name}` })).items.filter(
              (p) => !p.metadata?.deletionTimestamp,
            );
            return (
              (st.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
              (st.updatedReplicas ?? 0) === replicas &&
              (st.replicas ?? 0) === replicas &&
              (st.availableReplicas ?? 0) === replicas &&
              pods.length === replicas &&
              pods.every((p) => isReady(p) && p.spec?.containers[0]?.image === image)
            );
          }, 300_000);
          const sets = (await h.replicaSets.list({ labelSelector: `app=${name}` })).items;
          const withReplicas = sets.filter((rs) => (rs.spec?.replicas ?? 0) > 0);
          expect(withReplicas.length).toBeLessThanOrEqual(1);
          expect(withReplicas[0]?.spec?.template?.spec?.containers[0]?.image ?? image).toBe(image);
        } finally {
          unsubscribe();
          await cleanUp(name);
        }
        expect(violations.join('\n')).toBe('');
      }),
      { numRuns: 100 },
    );
  },
);

/** Replaces the template whole (a merge patch would keep old annotations). */
function setTemplate(name: string, t: Template): Promise<Deployment> {
  return h.deployments.patch(name, {
    type: 'json',
    ops: [{ op: 'replace', path: '/spec/template', value: podTemplate(name, t) }],
  });
}

/** Removes the run's objects so the next run starts on an empty namespace. */
async function cleanUp(name: string): Promise<void> {
  await h.deployments.delete(name).catch(() => undefined);
  for (const rs of (await h.replicaSets.list({ labelSelector: `app=${name}` })).items) {
    await h.replicaSets.delete(rs.metadata!.name!).catch(() => undefined);
  }
  await settle();
  for (const p of (await h.pods.list({ labelSelector: `app=${name}` })).items) {
    await h.pods.delete(p.metadata!.name!, { gracePeriodSeconds: 0 }).catch(() => undefined);
  }
  await h.step(500);
}
