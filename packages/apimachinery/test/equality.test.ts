// semanticDeepEqual: the cases of pkg/api/equality's Semantic.DeepEqual
// that survive the trip through JSON.
import { describe, expect, it } from 'vitest';
import { semanticDeepEqual } from '../src/index.js';

describe('semanticDeepEqual', () => {
  it.each<[string, unknown, unknown]>([
    ['keys in another order', { a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }],
    ['an empty map and none', { metadata: { labels: {} } }, { metadata: {} }],
    ['an empty list and none', { finalizers: [] }, {}],
    ['null and absent', { a: null }, {}],
    ['undefined members', { a: undefined, b: 1 }, { b: 1 }],
  ])('counts %s as equal', (_what, a, b) => {
    expect(semanticDeepEqual(a, b)).toBe(true);
    expect(semanticDeepEqual(b, a)).toBe(true);
  });

  it.each<[string, unknown, unknown]>([
    ['lists in another order', { a: [1, 2] }, { a: [2, 1] }],
    ['a changed leaf', { a: { b: '1' } }, { a: { b: '2' } }],
    ['a number and its string', { a: 1 }, { a: '1' }],
    ['false and absent', { a: false }, {}],
    ['0 and absent', { a: 0 }, {}],
    ['an empty string and absent', { a: '' }, {}],
    ['a list and a map', { a: [] as unknown[] }, { a: { x: 1 } }],
    ['an extra member', { a: 1 }, { a: 1, b: 2 }],
    // A set pointer in Go, however empty what it points to.
    ['a selector of empty maps and none', { selector: { matchLabels: {} } }, {}],
  ])('tells %s apart', (_what, a, b) => {
    expect(semanticDeepEqual(a, b)).toBe(false);
    expect(semanticDeepEqual(b, a)).toBe(false);
  });
});
