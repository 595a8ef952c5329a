// Property tests of the sync loop on a simulated world: the pod cache is the
// cluster (created pods are bound to the node they are pinned to and start
// not ready; deletions take effect at once), and between syncs a random
// choice of the new pods turns ready. Random clusters (nodes, some tainted
// so the DaemonSet must stay off them) and random strategies (maxUnavailable
// without surge, or maxSurge with maxUnavailable 0, as validation requires).
// - During a rolling update, a node never holds more than one pod without
//   surge, two with it, and no more nodes hold two pods than maxSurge.
// - Once pods keep turning ready, the update converges: every eligible node
//   ends with exactly one pod, of the current revision; the others with none;
//   the status says so.
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { controllerRevisionHashLabelKey } from '../src/index.js';
import {
  fixture,
  newDaemonSet,
  newNode,
  noScheduleTaints,
  setNodeTaint,
  type Fixture,
} from './helpers.js';

interface Scenario {
  tainted: boolean[];
  maxSurge: number;
  maxUnavailable: number;
  readiness: boolean[];
  midSteps: number;
}

const scenario: fc.Arbitrary<Scenario> = fc
  .record({
    tainted: fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }),
    surge: fc.boolean(),
    amount: fc.integer({ min: 1, max: 3 }),
    readiness: fc.array(fc.boolean(), { minLength: 1, maxLength: 64 }),
    midSteps: fc.integer({ min: 0, max: 12 }),
  })
  .map(({ tainted, surge, amount, readiness, midSteps }) => ({
    tainted,
    maxSurge: surge ? amount : 0,
    maxUnavailable: surge ? 0 : amount,
    readiness,
    midSteps,
  }));

const key = 'default/ds';

async function sync(f: Fixture): Promise<{ created: number; deleted: number }> {
  f.world.created = 0;
  f.world.deleted = 0;
  await f.sync(f.dsIndexer.getByKey(key)!);
  return { created: f.world.created, deleted: f.world.deleted };
}

function podsPerNode(f: Fixture): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of f.podIndexer.list()) {
    if (p.metadata?.deletionTimestamp) continue;
    const node = p.spec?.nodeName ?? '';
    counts.set(node, (counts.get(node) ?? 0) + 1);
  }
  return counts;
}

function start(s: Scenario): Fixture {
  const f = fixture({ world: true });
  s.tainted.forEach((t, i) => {
    const node = newNode(`node-${i}`);
    if (t) setNodeTaint(node, noScheduleTaints);
    f.nodeIndexer.add(node);
  });
  const ds = newDaemonSet('ds');
  ds.spec!.updateStrategy = {
    type: 'RollingUpdate',
    rollingUpdate: {
      maxUnavailable: s.maxUnavailable,
      ...(s.maxSurge > 0 && { maxSurge: s.maxSurge }),
    },
  };
  f.dsIndexer.add(ds);
  return f;
}

/** Makes every pod ready, then syncs, until a sync changes nothing. */
async function converge(f: Fixture, check: () => void): Promise<void> {
  for (let i = 0; i < 60; i++) {
    f.world.markReady();
    const { created, deleted } = await sync(f);
    check();
    if (created === 0 && deleted === 0) return;
  }
  throw new Error('did not converge in 60 syncs');
}

function changeImage(f: Fixture, image: string): DaemonSet {
  const next = structuredClone(f.dsIndexer.getByKey(key)!);
  next.spec!.template.spec!.containers[0]!.image = image;
  f.dsIndexer.update(next);
  return next;
}

describe('the DaemonSet sync loop (properties)', () => {
  it('never puts more pods on a node, or surges on more nodes, than maxSurge allows', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const f = start(s);
        const limit = s.maxSurge > 0 ? 2 : 1;
        const check = () => {
          const counts = podsPerNode(f);
          for (const [node, n] of counts) {
            expect(n, `pods on ${node}`).toBeLessThanOrEqual(limit);
            expect(s.tainted[Number(node.slice(5))], `pod on tainted ${node}`).toBe(false);
          }
          const doubled = [...counts.values()].filter((n) => n === 2).length;
          expect(doubled).toBeLessThanOrEqual(s.maxSurge);
        };
        await converge(f, check);
        changeImage(f, 'foo/bar:2');
        let r = 0;
        for (let i = 0; i < s.midSteps; i++) {
          await sync(f);
          check();
          f.world.markReady(() => s.readiness[r++ % s.readiness.length]!);
        }
        await converge(f, check);
      }),
      { numRuns: 200 },
    );
  });

  it('ends a rolling update with exactly one updated pod on every eligible node', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, fc.integer({ min: 1, max: 3 }), async (s, updates) => {
        const f = start(s);
        await converge(f, () => {});
        let r = 0;
        for (let u = 0; u < updates; u++) {
          // A new template, possibly while the last update is still rolling out.
          changeImage(f, `foo/bar:${u + 2}`);
          for (let i = 0; i < s.midSteps; i++) {
            await sync(f);
            f.world.markReady(() => s.readiness[r++ % s.readiness.length]!);
          }
        }
        await converge(f, () => {});
        const revisions = f.historyIndexer.list().sort((a, b) => b.revision - a.revision);
        const hash = revisions[0]!.metadata!.labels![controllerRevisionHashLabelKey];
        const eligible = s.tainted.flatMap((t, i) => (t ? [] : [`node-${i}`]));
        const pods = f.podIndexer.list();
        expect(pods.map((p) => p.spec?.nodeName).sort()).toEqual([...eligible].sort());
        for (const p of pods) {
          expect(p.metadata?.labels?.[controllerRevisionHashLabelKey]).toBe(hash);
        }
        expect(f.dsIndexer.getByKey(key)!.status).toMatchObject({
          desiredNumberScheduled: eligible.length,
          currentNumberScheduled: eligible.length,
          updatedNumberScheduled: eligible.length,
          numberAvailable: eligible.length,
          numberMisscheduled: 0,
        });
      }),
      { numRuns: 200 },
    );
  });
});
