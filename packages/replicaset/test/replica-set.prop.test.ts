// A property test of the whole controller on the sandbox: random scale
// changes, pod deletions, label edits moving pods between two ReplicaSets,
// informer lag and API failures. Whatever happens:
// - no creation ever takes a ReplicaSet's active pods (as the API server
//   holds them when it stores the new one) beyond spec.replicas as the
//   controller knows it: a lagging informer may show an older spec, and a
//   sync acts on the spec it read when it began (kube-controller-manager
//   does the same), so any spec the cache held during the step counts;
//   pods already terminating do not count, so they are replaced at once;
// - no pod ever has two controllers;
// - once the faults and the lag stop, every ReplicaSet converges: exactly
//   spec.replicas active pods, status and observedGeneration current.
// Pods carry a finalizer from the template, so deleted ones stay
// terminating until the test lets them go.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  newAlreadyExists,
  newConflict,
  newForbidden,
  newInternalError,
  optimisticLockErrorMsg,
} from '@kcm-ts/apimachinery';
import { findResource } from '@kcm-ts/sandbox';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { creatable, newReplicaSet, settle, startHarness, type Harness } from './helpers.js';

const hold = 'test.kcm-ts.io/hold';
const names = ['a', 'b'] as const;
type Name = (typeof names)[number];

type Op =
  | { kind: 'scale'; rs: Name; replicas: number }
  | { kind: 'deletePod'; pick: number }
  | { kind: 'relabel'; pick: number; app: 'a' | 'b' | 'none' }
  | { kind: 'finishTerminating' }
  | { kind: 'lag'; resource: 'pods' | 'replicasets'; on: boolean }
  | {
      kind: 'fail';
      verb: 'create' | 'delete' | 'patch' | 'updateStatus';
      n: number;
      code: 500 | 403 | 409;
    }
  | { kind: 'wait'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('scale' as const),
    rs: fc.constantFrom(...names),
    replicas: fc.integer({ min: 0, max: 6 }),
  }),
  fc.record({ kind: fc.constant('deletePod' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('relabel' as const),
    pick: fc.nat(),
    app: fc.constantFrom('a' as const, 'b' as const, 'none' as const),
  }),
  fc.constant({ kind: 'finishTerminating' as const }),
  fc.record({
    kind: fc.constant('lag' as const),
    resource: fc.constantFrom('pods' as const, 'replicasets' as const),
    on: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('fail' as const),
    verb: fc.constantFrom(
      'create' as const,
      'delete' as const,
      'patch' as const,
      'updateStatus' as const,
    ),
    n: fc.integer({ min: 1, max: 4 }),
    code: fc.constantFrom(500 as const, 403 as const, 409 as const),
  }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 20_000 }) }),
);

function failure(code: 500 | 403 | 409, verb: string): Error {
  if (code === 500) return newInternalError('injected');
  if (code === 403)
    return newForbidden({ group: '', resource: 'pods' }, '', new Error('exceeded quota'));
  if (verb === 'create') return newAlreadyExists({ group: '', resource: 'pods' }, 'x');
  return newConflict({ group: '', resource: 'pods' }, 'x', optimisticLockErrorMsg);
}

const isActive = (p: Pod) =>
  !p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';
const controllersOf = (p: Pod) => (p.metadata?.ownerReferences ?? []).filter((r) => r.controller);

/** Steps the fake clock, letting the in-process API server and the controller run. */
async function pass(h: Harness, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 500) {
    await h.clock.advance(Math.min(500, ms - t));
    await settle(4);
  }
  await settle(6);
}

async function runScenario(ops: Op[]): Promise<void> {
  const h = await startHarness({ workers: 2, burstReplicas: 4 });
  const podsInfo = findResource('', 'v1', 'pods')!;
  const rsInfo = findResource('apps', 'v1', 'replicasets')!;
  const serverPods = () => h.sandbox.registry.list(podsInfo, 'default').items as Pod[];
  const serverRS = (name: Name) => h.sandbox.registry.get(rsInfo, 'default', name) as ReplicaSet;
  const violations: string[] = [];

  // The specs the controller may be acting on: any its cache has held since
  // the current step began (a sync reads the ReplicaSet once, and the cache
  // may move on while it runs).
  const cached = (name: string) =>
    h.factory.replicaSets().lister().byNamespace('default').get(name).spec?.replicas ?? 1;
  const known = new Map<string, number>();
  const resetKnown = () => {
    for (const name of names) {
      try {
        known.set(name, cached(name));
      } catch {
        known.delete(name); // not in the cache yet
      }
    }
  };
  h.factory
    .replicaSets()
    .informer()
    .addEventHandler({
      onAdd: (rs) =>
        known.set(
          rs.metadata!.name!,
          Math.max(known.get(rs.metadata!.name!) ?? 0, rs.spec?.replicas ?? 1),
        ),
      onUpdate: (_, rs) =>
        known.set(
          rs.metadata!.name!,
          Math.max(known.get(rs.metadata!.name!) ?? 0, rs.spec?.replicas ?? 1),
        ),
    });

  // The invariant, checked at the moment the API server stores each new pod.
  const registry = h.sandbox.registry;
  const create = registry.create.bind(registry);
  registry.create = (info, namespace, body, opts) => {
    const pod = body as Pod;
    const owner = info.resource === 'pods' ? controllersOf(pod)[0] : undefined;
    if (owner !== undefined) {
      const bound = Math.max(known.get(owner.name) ?? 0, cached(owner.name));
      const active = serverPods().filter(
        (p) => isActive(p) && controllersOf(p).some((r) => r.uid === owner.uid),
      ).length;
      if (active + 1 > bound) {
        violations.push(`create for ${owner.name}: ${active} active, spec as known ${bound}`);
      }
    }
    return create(info, namespace, body, opts);
  };
  const checkOwners = () => {
    for (const p of serverPods()) {
      if (controllersOf(p).length > 1)
        violations.push(`pod ${p.metadata?.name} has two controllers`);
    }
  };

  let heldSince: Record<'pods' | 'replicasets', number | undefined> = {
    pods: undefined,
    replicasets: undefined,
  };
  const gates = { pods: h.podGate, replicasets: h.rsGate };
  const releaseStaleLag = () => {
    // Lag stays well below the 5-minute expectations timeout, as informers' does.
    for (const r of ['pods', 'replicasets'] as const) {
      const since = heldSince[r];
      if (since !== undefined && h.clock.now() - since > 60_000) {
        gates[r].release();
        heldSince = { ...heldSince, [r]: undefined };
      }
    }
  };

  try {
    for (const name of names) {
      const rs = creatable(newReplicaSet(name, 2));
      const template = rs.spec!.template!;
      template.metadata = { ...template.metadata, finalizers: [hold] };
      await h.rsIn.create(rs);
    }
    await pass(h, 1000);

    for (const op of ops) {
      resetKnown();
      const pods = serverPods();
      const active = pods.filter(isActive);
      switch (op.kind) {
        case 'scale':
          await h.rsIn.patch(op.rs, { type: 'merge', body: { spec: { replicas: op.replicas } } });
          break;
        case 'deletePod': {
          const victim = active[op.pick % Math.max(active.length, 1)];
          if (victim) await h.podsIn.delete(victim.metadata!.name!);
          break;
        }
        case 'relabel': {
          const pod = active[op.pick % Math.max(active.length, 1)];
          if (pod) {
            await h.podsIn.patch(pod.metadata!.name!, {
              type: 'merge',
              body: { metadata: { labels: { app: op.app } } },
            });
          }
          break;
        }
        case 'finishTerminating':
          for (const p of pods.filter((p) => p.metadata?.deletionTimestamp)) {
            await h.podsIn.patch(p.metadata!.name!, {
              type: 'merge',
              body: { metadata: { finalizers: null } },
            });
          }
          break;
        case 'lag':
          if (op.on) {
            gates[op.resource].hold();
            heldSince = { ...heldSince, [op.resource]: heldSince[op.resource] ?? h.clock.now() };
          } else {
            gates[op.resource].release();
            heldSince = { ...heldSince, [op.resource]: undefined };
          }
          break;
        case 'fail': {
          const client = op.verb === 'updateStatus' ? h.replicaSets : h.pods;
          client.failNext(op.verb, op.n, () => failure(op.code, op.verb));
          break;
        }
        case 'wait':
          break;
      }
      await pass(h, op.kind === 'wait' ? op.ms : 300);
      releaseStaleLag();
      checkOwners();
    }

    // The world calms down: everything must converge.
    resetKnown();
    h.podGate.release();
    h.rsGate.release();
    h.pods.clear();
    h.replicaSets.clear();
    let converged = false;
    for (let i = 0; i < 120 && !converged; i++) {
      await pass(h, 1000);
      converged = names.every((name) => {
        const rs = serverRS(name);
        const owned = serverPods().filter(
          (p) => isActive(p) && controllersOf(p).some((r) => r.uid === rs.metadata?.uid),
        );
        const matching = owned.every((p) => p.metadata?.labels?.app === name);
        return (
          matching &&
          owned.length === rs.spec?.replicas &&
          rs.status?.replicas === rs.spec?.replicas &&
          rs.status?.observedGeneration === rs.metadata?.generation &&
          rs.status?.conditions === undefined
        );
      });
    }
    checkOwners();
    expect(violations).toEqual([]);
    expect(converged).toBe(true);
  } finally {
    await h.stop();
  }
}

describe('the ReplicaSet controller under random changes, lag and failures', () => {
  it('never over-creates, never double-owns, and always converges', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 10 }), (ops) => runScenario(ops)),
      { numRuns: 200 },
    );
  }, 240_000);
});
