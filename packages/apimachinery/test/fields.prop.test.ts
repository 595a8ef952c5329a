// Property tests for the field selector parser: selectors built from random terms
// (values full of characters that need escaping) parse to the terms, read back the
// same, and match like the terms; any input gives a selector or an Error.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  escapeFieldValue,
  fieldSelectorRequirements,
  parseFieldSelector,
  unescapeFieldValue,
  type FieldRequirement,
  type Fields,
} from '../src/index.js';

const FIELDS = ['metadata.name', 'metadata.namespace', 'status.phase', 'spec.nodeName', 'a'];
const valueArb = fc.string({
  unit: fc.constantFrom('a', 'b', '\\', ',', '=', '!', ' ', 'é', '😀', '\uffff'),
  maxLength: 6,
});

interface Term {
  field: string;
  op: '=' | '==' | '!=';
  value: string;
}

const termArb: fc.Arbitrary<Term> = fc.record({
  field: fc.constantFrom(...FIELDS),
  op: fc.constantFrom<Term['op']>('=', '==', '!='),
  value: valueArb,
});

// Go compares strings byte by byte in UTF-8, which is code point order.
function byCodePoint(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i]! - y[i]!;
  }
  return x.length - y.length;
}

const asRequirement = (t: Term): FieldRequirement => ({
  field: t.field,
  operator: t.op === '!=' ? '!=' : '=',
  value: t.value,
});
const sortedJson = (reqs: readonly FieldRequirement[]) => reqs.map((r) => JSON.stringify(r)).sort();

describe('parseFieldSelector properties', () => {
  it('parses random selectors to their terms, in Go order, and round-trips them', () => {
    fc.assert(
      fc.property(fc.array(termArb, { maxLength: 5 }), (terms) => {
        const texts = terms.map((t) => `${t.field}${t.op}${escapeFieldValue(t.value)}`);
        const selector = parseFieldSelector(texts.join(','));
        const order = texts
          .map((text, i) => ({ text, i }))
          .sort((a, b) => byCodePoint(a.text, b.text));
        expect(selector.requirements()).toEqual(order.map(({ i }) => asRequirement(terms[i]!)));

        const again = parseFieldSelector(selector.string());
        expect(sortedJson(again.requirements())).toEqual(sortedJson(selector.requirements()));
        expect(parseFieldSelector(again.string()).string()).toBe(again.string());
      }),
      { numRuns: 300 },
    );
  });

  it('matches exactly when every term holds', () => {
    const fieldsArb = fc.dictionary(fc.constantFrom(...FIELDS), valueArb, { maxKeys: 5 });
    fc.assert(
      fc.property(
        fc.array(termArb, { maxLength: 5 }),
        fc.array(fieldsArb, { minLength: 1, maxLength: 8 }),
        (terms, fieldSets) => {
          const selector = parseFieldSelector(
            terms.map((t) => `${t.field}${t.op}${escapeFieldValue(t.value)}`).join(','),
          );
          for (const fields of fieldSets as Fields[]) {
            const get = (f: string) => (Object.hasOwn(fields, f) ? fields[f] : '');
            const want = terms.every((t) =>
              t.op === '!=' ? get(t.field) !== t.value : get(t.field) === t.value,
            );
            expect(selector.matches(fields)).toBe(want);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('escapes and unescapes any string back to itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        expect(unescapeFieldValue(escapeFieldValue(value))).toBe(value);
      }),
      { numRuns: 300 },
    );
  });

  it('returns a selector or throws an Error that says something, for any string', () => {
    const selectorish = fc.string({ unit: fc.constantFrom(...'ab=!,\\ .é'), maxLength: 20 });
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), selectorish), (input) => {
        let selector;
        try {
          selector = parseFieldSelector(input);
        } catch (err) {
          expect(err).toBeInstanceOf(Error);
          expect((err as Error).message).toMatch(/^invalid field selector: /);
          return;
        }
        const again = parseFieldSelector(selector.string());
        expect(sortedJson(again.requirements())).toEqual(sortedJson(selector.requirements()));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('fieldSelectorRequirements', () => {
  const fragment = fc.constantFrom(
    'a',
    'b',
    'x',
    '=',
    '!=',
    '==',
    ',',
    '\\',
    '\\,',
    '\\=',
    '\\\\',
    '',
  );

  it('yields what parseFieldSelector holds, and throws its error, for any input', () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 14 }), (parts) => {
        const selector = parts.join('');
        const run = (f: () => FieldRequirement[]) => {
          try {
            return {
              terms: f()
                .map((t) => JSON.stringify(t))
                .sort(),
            };
          } catch (err) {
            return { error: (err as Error).message };
          }
        };
        const whole = run(() => [...parseFieldSelector(selector).requirements()]);
        const stream = run(() => [...fieldSelectorRequirements(selector)]);
        expect(stream).toEqual(whole);
      }),
      { numRuns: 2000 },
    );
  });

  it('yields the terms in the order they are written', () => {
    expect([...fieldSelectorRequirements('b=1,a!=2,,c==3')]).toEqual([
      { field: 'b', operator: '=', value: '1' },
      { field: 'a', operator: '!=', value: '2' },
      { field: 'c', operator: '=', value: '3' },
    ]);
  });
});
