// Property: whatever the owner graph (chains, fans, cross-links, dangling
// owners) and whichever of its objects are deleted with whichever policy, the
// garbage collector converges to a state where no dependent of a deleted
// owner survives unless orphaned or still owned, no survivor refers to a
// deleted owner, and nothing outside the deleted objects' dependents changed.
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeClock,
  type KubeObject,
  type PropagationPolicy,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { startGC, type GCHarness } from './helpers.js';

const kinds = [
  { group: '', resource: 'configmaps', apiVersion: 'v1', kind: 'ConfigMap' },
  { group: '', resource: 'secrets', apiVersion: 'v1', kind: 'Secret' },
  {
    group: 'coordination.k8s.io',
    resource: 'leases',
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
  },
] as const;

interface NodeSpec {
  kind: number;
  ownerPicks: { idx: number; block: boolean }[];
  dangling: boolean;
  policy: PropagationPolicy | null;
}

const nodeSpec: fc.Arbitrary<NodeSpec> = fc.record({
  kind: fc.integer({ min: 0, max: kinds.length - 1 }),
  ownerPicks: fc.array(fc.record({ idx: fc.nat(), block: fc.boolean() }), { maxLength: 3 }),
  // One object in four names an owner that never existed.
  dangling: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
  policy: fc.option(fc.constantFrom<PropagationPolicy>('Background', 'Foreground', 'Orphan'), {
    freq: 2,
  }),
});

interface Snapshot {
  uid: string;
  rv: string;
  refs: OwnerReference[];
}

let clock: FakeClock;
let sandbox: Sandbox;
let h: GCHarness;
let run = 0;

beforeAll(async () => {
  clock = new FakeClock();
  sandbox = await startSandbox({ clock, insecureHttp: true });
  h = await startGC({ clock, sandbox, workers: 10 });
});

afterAll(async () => {
  await h?.stop();
  await sandbox?.stop();
});

/** Advances time until the store has not changed for four seconds in a row. */
async function settle(): Promise<void> {
  let quiet = 0;
  let last = sandbox.registry.storage.currentRevision();
  for (let i = 0; i < 200 && quiet < 4; i++) {
    await clock.advance(1_000);
    const now = sandbox.registry.storage.currentRevision();
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
  expect(quiet).toBe(4);
}

function client(kind: number, ns: string): ResourceClient {
  const k = kinds[kind]!;
  return sandbox.client(k.group, k.resource).inNamespace(ns);
}

/** Every object of the three kinds in every namespace, keyed `kind/ns/name`. */
async function everything(): Promise<Map<string, Snapshot>> {
  const out = new Map<string, Snapshot>();
  for (const [i, k] of kinds.entries()) {
    for (const o of (await sandbox.client(k.group, k.resource).list()).items) {
      out.set(`${i}/${o.metadata?.namespace}/${o.metadata?.name}`, {
        uid: o.metadata?.uid ?? '',
        rv: o.metadata?.resourceVersion ?? '',
        refs: o.metadata?.ownerReferences ?? [],
      });
    }
  }
  return out;
}

function object(kind: number, name: string, refs: OwnerReference[]): KubeObject {
  const k = kinds[kind]!;
  return {
    apiVersion: k.apiVersion,
    kind: k.kind,
    metadata: { name, ...(refs.length > 0 ? { ownerReferences: refs } : {}) },
  };
}

describe('GarbageCollector (property)', () => {
  it('converges on random owner graphs deleted with random policies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(nodeSpec, { minLength: 1, maxLength: 7 }), async (specs) => {
        const ns = `p${++run}`;
        await sandbox.client('', 'namespaces').create({ metadata: { name: ns } });
        // Create the graph, owners before dependents, and one object outside it.
        const created: KubeObject[] = [];
        for (const [i, spec] of specs.entries()) {
          const refs: OwnerReference[] = [];
          const seen = new Set<number>();
          for (const pick of i === 0 ? [] : spec.ownerPicks) {
            const j = pick.idx % i;
            if (seen.has(j)) continue;
            seen.add(j);
            const owner = created[j]!;
            const k = kinds[specs[j]!.kind]!;
            refs.push({
              apiVersion: k.apiVersion,
              kind: k.kind,
              name: owner.metadata?.name ?? '',
              uid: owner.metadata?.uid ?? '',
              blockOwnerDeletion: pick.block,
            });
          }
          if (spec.dangling) {
            refs.push({
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: `ghost-${i}`,
              uid: `${ns}-ghost-${i}`,
            });
          }
          created.push(await client(spec.kind, ns).create(object(spec.kind, `n${i}`, refs)));
        }
        await client(0, ns).create(object(0, 'bystander', []));
        await settle();

        // Dangling references are resolved before anything is deleted.
        const before = await everything();
        const uids = new Set([...before.values()].map((s) => s.uid));
        for (const [key, s] of before) {
          for (const r of s.refs)
            expect(uids.has(r.uid), `${key} refers to missing ${r.name}`).toBe(true);
        }

        // Delete some of what is left, each with its policy, all before the collector can act.
        const byUID = new Map([...before].map(([key, s]) => [s.uid, key]));
        const policyOf = new Map<string, PropagationPolicy>();
        for (const [i, spec] of specs.entries()) {
          const key = `${spec.kind}/${ns}/n${i}`;
          if (spec.policy === null || !before.has(key)) continue;
          const k = kinds[spec.kind]!;
          sandbox.registry.delete(sandbox.registry.resource(k.group, k.resource), ns, `n${i}`, {
            propagationPolicy: spec.policy,
          });
          policyOf.set(key, spec.policy);
        }
        await settle();
        const after = await everything();

        // The dependents (transitively) of what was deleted: all that may change.
        const reachable = new Set(policyOf.keys());
        for (let grew = true; grew;) {
          grew = false;
          for (const [key, s] of before) {
            if (reachable.has(key)) continue;
            if (s.refs.some((r) => reachable.has(byUID.get(r.uid) ?? ''))) {
              reachable.add(key);
              grew = true;
            }
          }
        }
        for (const key of policyOf.keys())
          expect(after.has(key), `${key} still exists`).toBe(false);
        const liveUIDs = new Set([...after.values()].map((s) => s.uid));
        for (const [key, s] of after) {
          const old = before.get(key);
          if (old === undefined) continue;
          // No survivor refers to an owner that is gone.
          for (const r of s.refs)
            expect(liveUIDs.has(r.uid), `${key} keeps a reference to ${r.name}`).toBe(true);
          if (!reachable.has(key)) {
            expect(s.rv, `${key} outside the deleted objects' dependents changed`).toBe(old.rv);
            continue;
          }
          // What survives keeps exactly its references to owners that survive.
          const liveRefs = old.refs.filter((r) => liveUIDs.has(r.uid)).map((r) => r.uid);
          expect(
            s.refs.map((r) => r.uid),
            `${key} references`,
          ).toEqual(liveRefs);
        }
        for (const [key, s] of before) {
          if (policyOf.has(key) || s.refs.length === 0) continue;
          const alive = s.refs.filter((r) => liveUIDs.has(r.uid));
          const orphaners = s.refs.filter((r) => policyOf.get(byUID.get(r.uid) ?? '') === 'Orphan');
          if (alive.length > 0) {
            expect(after.has(key), `${key} was deleted though an owner lives`).toBe(true);
          } else if (orphaners.length === s.refs.length) {
            expect(after.has(key), `${key} was deleted though its owners orphaned it`).toBe(true);
          } else if (orphaners.length === 0) {
            expect(after.has(key), `${key} survived its owners`).toBe(false);
          }
          // Owners gone, some orphaning and some not: which finished first decides.
        }
      }),
      { numRuns: 100 },
    );
  });
});
