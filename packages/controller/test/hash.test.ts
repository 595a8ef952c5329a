// Port of controller_utils_test.go's TestComputeHash, plus what a hash must
// keep: determinism, Go's output alphabet and length, and FNV-1a checked
// against an independent reference implementation.
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeHash, defaultDeploymentUniqueLabelKey } from '../src/index.js';

/** FNV-1a 32 with BigInt arithmetic, written independently of the source. */
function referenceFnv1a(bytes: number[]): bigint {
  let h = 2166136261n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 16777619n) % 2n ** 32n;
  return h;
}

/** Go's SafeEncodeString of the decimal form. */
function referenceEncode(n: bigint): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return [...n.toString()].map((c) => alphabet[c.charCodeAt(0) % 27]).join('');
}

const template: PodTemplateSpec = {
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
};

describe('computeHash', () => {
  it('names the label pod-template-hash', () => {
    expect(defaultDeploymentUniqueLabelKey).toBe('pod-template-hash');
  });

  it('is FNV-1a over the canonical JSON, then the collision count, encoded as Go encodes it', () => {
    const json =
      '{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx:1.27","name":"web"}]}}';
    const bytes = [...new TextEncoder().encode(json)];
    expect(computeHash(template)).toBe(referenceEncode(referenceFnv1a(bytes)));
    // collisionCount 258 = 0x0102: little-endian uint32, then four zero bytes.
    expect(computeHash(template, 258)).toBe(
      referenceEncode(referenceFnv1a([...bytes, 2, 1, 0, 0, 0, 0, 0, 0])),
    );
    expect(computeHash(template, null)).toBe(computeHash(template));
  });

  it.each([
    ['simple', 1, 2],
    ['no collision count vs the largest int32', undefined, 2147483647],
    ['0 vs no collision count', 0, undefined],
  ])('changes with the collision count (%s)', (_name, a, b) => {
    expect(computeHash({}, a)).not.toBe(computeHash({}, b));
  });

  it('does not depend on the order fields were written in', () => {
    const reordered: PodTemplateSpec = {
      spec: { containers: [{ image: 'nginx:1.27', name: 'web' }] },
      metadata: { labels: { app: 'web' } },
    };
    expect(computeHash(reordered, 3)).toBe(computeHash(template, 3));
    expect(computeHash({ ...template, metadata: { labels: { app: 'db' } } })).not.toBe(
      computeHash(template),
    );
  });

  it('gives 1 to 10 characters of bcdfghjklmnpqrstvwxz2456789', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })),
        fc.option(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { nil: undefined }),
        (labels, collisionCount) => {
          const h = computeHash({ metadata: { labels } }, collisionCount);
          expect(h).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
          expect(computeHash({ metadata: { labels: { ...labels } } }, collisionCount)).toBe(h);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a collision count that is not an integer, and values JSON cannot hold', () => {
    expect(() => computeHash(template, 1.5)).toThrow(/collisionCount must be an integer/);
    expect(() =>
      computeHash({ metadata: { labels: { a: (() => 1) as unknown as string } } }),
    ).toThrow(/cannot hash a function/);
  });
});
