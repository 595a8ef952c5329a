// Property tests for strategic merge patch: without a schema or directives it
// is RFC 7386 JSON merge patch; merging by key is idempotent and honours
// $setElementOrder; primitive lists become unions; and no patch, however
// odd, changes its inputs or leaves a `$` key in the result.
import fc from 'fast-check';
import type { EnvVar, Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { StrategicMergePatchError, patchMetaForKind, strategicMergePatch } from '../src/index.js';
import type { PatchMeta } from '../src/index.js';

const podMeta = patchMetaForKind('v1', 'Pod') as PatchMeta;
const KEYS = ['a', 'b', 'c', 'd'];

// JSON objects a few levels deep; lists hold primitives (RFC 7386 keeps nulls
// inside list items, where kube-apiserver's struct decoding would not).
const { object: jsonObject } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ maxLength: 3 }),
    fc.integer(),
    fc.boolean(),
    fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), { maxLength: 3 }),
    tie('object'),
  ),
  object: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
}));
const { object: mergePatch } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.string({ maxLength: 3 }),
    fc.integer(),
    fc.array(fc.integer(), { maxLength: 3 }),
    tie('object'),
  ),
  object: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
}));

// RFC 7386, section 2, as the reference.
function jsonMergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = jsonMergePatch(out[k], v);
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]);
}

const NAMES = ['A', 'B', 'C', 'D', 'E'];
const envList = fc.uniqueArray(
  fc.record({ name: fc.constantFrom(...NAMES), value: fc.string({ maxLength: 2 }) }),
  { selector: (e) => e.name, maxLength: 5 },
);
// A patch item sets a variable or deletes it.
const envPatch = fc.uniqueArray(
  fc.oneof(
    fc.record({ name: fc.constantFrom(...NAMES), value: fc.string({ maxLength: 2 }) }),
    fc.record({ name: fc.constantFrom(...NAMES), $patch: fc.constant('delete') }),
  ),
  { selector: (e) => e.name, maxLength: 5 },
);
const podWithEnv = (env: unknown[]) => ({ spec: { containers: [{ name: 'c', env }] } });
const envOf = (pod: Record<string, unknown>): EnvVar[] =>
  (pod as Pod).spec?.containers[0]?.env ?? [];

describe('strategicMergePatch: properties', () => {
  it('is RFC 7386 JSON merge patch where no schema or directive says otherwise', () => {
    fc.assert(
      fc.property(jsonObject, mergePatch, (original, patch) => {
        expect(strategicMergePatch(original, patch, {})).toEqual(jsonMergePatch(original, patch));
      }),
    );
  });

  it('merges by key idempotently: sets what the patch sets, removes what it deletes', () => {
    fc.assert(
      fc.property(envList, envPatch, (have, change) => {
        const p = podWithEnv(change);
        const once = strategicMergePatch(podWithEnv(have), p, podMeta);
        expect(strategicMergePatch(once, p, podMeta)).toEqual(once);

        const env = envOf(once);
        const byName = new Map(env.map((e) => [e.name, e]));
        expect(byName.size).toBe(env.length);
        for (const item of change) {
          if ('$patch' in item) expect(byName.has(item.name)).toBe(false);
          else expect(byName.get(item.name)).toEqual(item);
        }
        for (const item of have) {
          if (!change.some((c) => c.name === item.name))
            expect(byName.get(item.name)).toEqual(item);
        }
      }),
    );
  });

  it('lists the names $setElementOrder gives in its order', () => {
    const orderAndPatch = fc
      .uniqueArray(fc.constantFrom(...NAMES), { maxLength: 5 })
      .chain((order) =>
        fc.record({
          order: fc.constant(order),
          // The patch's items follow the order, as kubectl sends them.
          items: fc.subarray(order).map((names) => names.map((name) => ({ name, value: 'p' }))),
        }),
      );
    fc.assert(
      fc.property(envList, orderAndPatch, (have, { order, items }) => {
        const patch = {
          spec: {
            containers: [
              { name: 'c', '$setElementOrder/env': order.map((name) => ({ name })), env: items },
            ],
          },
        };
        const names = envOf(strategicMergePatch(podWithEnv(have), patch, podMeta)).map(
          (e) => e.name,
        );
        const listed = names.filter((n) => order.includes(n));
        expect(listed).toEqual(order.filter((n) => listed.includes(n)));
        // Nothing is lost or invented.
        const expected = new Set([...have.map((e) => e.name), ...items.map((e) => e.name)]);
        expect(new Set(names)).toEqual(expected);
      }),
    );
  });

  it('merges a list of primitives into a union without duplicates', () => {
    const values = fc.array(fc.constantFrom<string>('a', 'b', 'c', 'd', 'e'), { maxLength: 6 });
    const unique = fc.uniqueArray(fc.constantFrom<string>('a', 'b', 'c', 'd'));
    fc.assert(
      fc.property(unique, values, (have, add) => {
        const out = strategicMergePatch(
          { metadata: { finalizers: have } },
          { metadata: { finalizers: add } },
          podMeta,
        ) as Pod;
        const finalizers = out.metadata?.finalizers ?? [];
        expect(new Set(finalizers).size).toBe(finalizers.length);
        expect(new Set(finalizers)).toEqual(new Set([...have, ...add]));
        // Values only the object has keep their order.
        const kept = finalizers.filter((f) => !add.includes(f));
        expect(kept).toEqual(have.filter((f) => !add.includes(f)));
      }),
    );
  });

  it('never changes its inputs, and leaves no directive in the result or fails cleanly', () => {
    const key = fc.constantFrom(
      'spec',
      'containers',
      'name',
      'env',
      'value',
      'metadata',
      'finalizers',
      'image',
      '$patch',
      '$retainKeys',
      '$setElementOrder/containers',
      '$setElementOrder/finalizers',
      '$deleteFromPrimitiveList/finalizers',
      '$other',
    );
    const { object: wildPatch } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('replace', 'delete', 'merge', 'web', 'a', null, 1),
        fc.array(fc.constantFrom('a', 'b', 'name', 'image'), { maxLength: 3 }),
        fc.array(tie('object'), { maxLength: 3 }),
        tie('object'),
      ),
      object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    }));
    const pod = deepFreeze({
      metadata: { name: 'p', finalizers: ['a', 'b'] },
      spec: {
        containers: [
          { name: 'web', image: 'nginx', env: [{ name: 'A', value: '1' }] },
          { name: 'a', image: 'busybox' },
        ],
      },
    });
    const before = JSON.stringify(pod);
    fc.assert(
      fc.property(wildPatch, (patch) => {
        const frozen = deepFreeze(structuredClone(patch));
        try {
          const out = strategicMergePatch(pod, frozen, podMeta);
          expect(keysOf(out).filter((k) => k.startsWith('$'))).toEqual([]);
        } catch (err) {
          expect(err).toBeInstanceOf(StrategicMergePatchError);
          expect([400, 422]).toContain((err as StrategicMergePatchError).code);
        }
        expect(frozen).toEqual(patch);
        expect(JSON.stringify(pod)).toBe(before);
      }),
    );
  });
});
