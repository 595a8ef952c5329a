// The event filters of the controller builder, on their own.
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  and,
  annotationChangedPredicate,
  generationChangedPredicate,
  labelChangedPredicate,
  labelSelectorPredicate,
  not,
  or,
  resourceVersionChangedPredicate,
} from '../src/index.js';

const obj = (meta: ConfigMap['metadata']): ConfigMap => ({ metadata: { name: 'x', ...meta } });

describe('predicates', () => {
  it('pass updates only when what they watch changed', () => {
    const a = obj({ generation: 1, resourceVersion: '1', labels: { a: '1' }, annotations: {} });
    const same = obj({ ...a.metadata });
    expect(generationChangedPredicate.update!(a, same)).toBe(false);
    expect(generationChangedPredicate.update!(a, obj({ ...a.metadata, generation: 2 }))).toBe(true);
    expect(resourceVersionChangedPredicate.update!(a, same)).toBe(false);
    expect(
      resourceVersionChangedPredicate.update!(a, obj({ ...a.metadata, resourceVersion: '2' })),
    ).toBe(true);
    expect(labelChangedPredicate.update!(a, same)).toBe(false);
    expect(
      labelChangedPredicate.update!(a, obj({ ...a.metadata, labels: { a: '1', b: '2' } })),
    ).toBe(true);
    expect(labelChangedPredicate.update!(a, obj({ ...a.metadata, labels: { a: '2' } }))).toBe(true);
    expect(
      annotationChangedPredicate.update!(a, obj({ ...a.metadata, annotations: { n: 'v' } })),
    ).toBe(true);
    // Creates and deletes pass.
    expect('create' in generationChangedPredicate).toBe(false);
  });

  it('select by labels, and combine with and, or, not', () => {
    const web = obj({ labels: { app: 'web' } });
    const db = obj({ labels: { app: 'db' } });
    const isWeb = labelSelectorPredicate('app=web');
    expect([isWeb.create!(web), isWeb.create!(db), isWeb.delete!(web)]).toEqual([
      true,
      false,
      true,
    ]);
    expect(isWeb.update!(db, web)).toBe(true);
    expect(isWeb.update!(web, db)).toBe(false);
    const isDb = labelSelectorPredicate('app in (db)');
    expect(or(isWeb, isDb).create!(db)).toBe(true);
    expect(and(isWeb, isDb).create!(web)).toBe(false);
    expect(not(isWeb).create!(db)).toBe(true);
    expect(not(isWeb).create!(web)).toBe(false);
    expect(() => labelSelectorPredicate('app in (')).toThrow();
  });
});
