// Property tests for the label selector parser: selectors built from random parts,
// with random whitespace, parse to the parts, print canonically, read back the same,
// and match exactly when the parts say they should; and no input makes the parser
// do anything but return a selector or throw an Error.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseSelector,
  selectorRequirements,
  type Labels,
  type SelectionOperator,
} from '../src/index.js';

const KEYS = ['app', 'tier', 'x', 'in', 'notin', 'example.com/team', 'a.b_c-D9'];
const VALUES = ['', 'web', 'db', 'in', 'notin', 'v1.2', 'A_b', '0', '7', '42'];
const INTS = ['0', '1', '7', '42', '100', '9223372036854775807'];
const LABEL_VALUES = [...VALUES, '100', '-3', 'abc', '99999999999999999999', '9223372036854775807'];

interface Part {
  key: string;
  op: SelectionOperator;
  values: string[];
}

const keyArb = fc.constantFrom(...KEYS);
const valueArb = fc.constantFrom(...VALUES);
const partArb: fc.Arbitrary<Part> = fc.oneof(
  fc.record({
    key: keyArb,
    op: fc.constantFrom<SelectionOperator>('=', '==', '!='),
    values: fc.tuple(valueArb).map((v) => [...v]),
  }),
  fc.record({
    key: keyArb,
    op: fc.constantFrom<SelectionOperator>('in', 'notin'),
    values: fc.array(valueArb, { minLength: 1, maxLength: 4 }),
  }),
  fc.record({
    key: keyArb,
    op: fc.constantFrom<SelectionOperator>('exists', '!'),
    values: fc.constant<string[]>([]),
  }),
  fc.record({
    key: keyArb,
    op: fc.constantFrom<SelectionOperator>('gt', 'lt'),
    values: fc.tuple(fc.constantFrom(...INTS)).map((v) => [...v]),
  }),
);

// Optional and mandatory whitespace, of the four kinds the lexer skips.
const space = fc.string({ unit: fc.constantFrom(' ', '\t', '\r', '\n'), maxLength: 2 });
const someSpace = fc.string({
  unit: fc.constantFrom(' ', '\t', '\r', '\n'),
  minLength: 1,
  maxLength: 2,
});

/** Renders a part as selector text, with whitespace from `ws` between tokens. */
function render(part: Part, ws: () => string, sep: () => string): string {
  const { key, op, values } = part;
  switch (op) {
    case 'exists':
      return `${ws()}${key}${ws()}`;
    case '!':
      return `${ws()}!${ws()}${key}${ws()}`;
    case 'in':
    case 'notin':
      return `${ws()}${key}${sep()}${op}${ws()}(${ws()}${values.join(`${ws()},${ws()}`)}${ws()})${ws()}`;
    case 'gt':
      return `${ws()}${key}${ws()}>${ws()}${values[0]}${ws()}`;
    case 'lt':
      return `${ws()}${key}${ws()}<${ws()}${values[0]}${ws()}`;
    default:
      return `${ws()}${key}${ws()}${op}${ws()}${values[0]}${ws()}`;
  }
}

function int64(s: string | undefined): bigint | undefined {
  if (s === undefined || !/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** What a part means, evaluated directly on a label set. */
function holds(part: Part, labels: Labels): boolean {
  const has = Object.hasOwn(labels, part.key);
  const value = labels[part.key];
  switch (part.op) {
    case '=':
    case '==':
    case 'in':
      return has && part.values.includes(value!);
    case '!=':
    case 'notin':
      return !has || !part.values.includes(value!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      const a = int64(value);
      const b = int64(part.values[0]);
      if (!has || a === undefined || b === undefined) return false;
      return part.op === 'gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** The parts as the parser should report them: sorted by key, set values sorted and unique. */
function normalized(parts: Part[]) {
  return [...parts]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ key, op, values }) => ({
      key,
      operator: op,
      values: op === 'in' || op === 'notin' ? [...new Set(values)].sort() : values,
    }));
}

const labelsArb = fc.dictionary(keyArb, fc.constantFrom(...LABEL_VALUES), { maxKeys: 5 });

describe('parseSelector properties', () => {
  it('parses random valid selectors to their parts and round-trips them', () => {
    fc.assert(
      fc.property(
        fc.array(partArb, { maxLength: 5 }),
        fc.infiniteStream(space),
        fc.infiniteStream(someSpace),
        (parts, spaces, separators) => {
          const ws = () => spaces.next().value as string;
          const sep = () => separators.next().value as string;
          const text = parts.map((p) => render(p, ws, sep)).join(',');

          const selector = parseSelector(text);
          expect(selector.requirements()).toEqual(normalized(parts));
          expect(selector.empty()).toBe(parts.length === 0);

          const canonical = selector.string();
          const again = parseSelector(canonical);
          expect(again.requirements()).toEqual(selector.requirements());
          expect(again.string()).toBe(canonical);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('matches exactly when every part holds', () => {
    fc.assert(
      fc.property(
        fc.array(partArb, { maxLength: 5 }),
        fc.array(labelsArb, { minLength: 1, maxLength: 8 }),
        (parts, labelSets) => {
          const selector = parseSelector(
            parts
              .map((p) =>
                render(
                  p,
                  () => ' ',
                  () => ' ',
                ),
              )
              .join(','),
          );
          const reparsed = parseSelector(selector.string());
          for (const labels of labelSets) {
            const want = parts.every((p) => holds(p, labels));
            expect(selector.matches(labels)).toBe(want);
            expect(reparsed.matches(labels)).toBe(want);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('returns a selector or throws an Error that says something, for any string', () => {
    const selectorish = fc.string({
      unit: fc.constantFrom(...'ab=!(),<> \t\n\rinotx-._/09\u0000\u00e9'),
      maxLength: 30,
    });
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), selectorish), (input) => {
        let selector;
        try {
          selector = parseSelector(input);
        } catch (err) {
          expect(err).toBeInstanceOf(Error);
          expect((err as Error).message).toMatch(/found|invalid|must|integer|values|exact/);
          return;
        }
        // Whatever parses prints to something that reads back the same.
        const again = parseSelector(selector.string());
        expect(again.requirements()).toEqual(selector.requirements());
      }),
      { numRuns: 2000 },
    );
  });
});

describe('selectorRequirements', () => {
  const fragment = fc.constantFrom(
    'a',
    'b',
    '!',
    '=',
    '!=',
    ',',
    ' ',
    '(',
    ')',
    'in',
    'notin',
    '>',
    '1',
    'x',
  );

  it('reads as parseSelector does, one requirement at a time, for any input', () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 14 }), (parts) => {
        const selector = parts.join('');
        const run = (f: () => unknown[]) => {
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
        expect(run(() => [...selectorRequirements(selector)])).toEqual(
          run(() => [...parseSelector(selector).requirements()]),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('yields the requirements in the order they are written, lexing no further than it has read', () => {
    const reqs = selectorRequirements('b=1,a,!c,d');
    expect(reqs.next().value).toEqual({ key: 'b', operator: '=', values: ['1'] });
    expect(reqs.next().value).toEqual({ key: 'a', operator: 'exists', values: [] });
    // A fault further on is met only when reading reaches it.
    const faulty = selectorRequirements('a,b,==');
    expect(faulty.next().value).toMatchObject({ key: 'a' });
    expect(() => [...faulty]).toThrow(/found '==' at position 4/);
  });
});
