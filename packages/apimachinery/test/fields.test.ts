// Cases from apimachinery pkg/fields/selector_test.go (TestSplitTerms, TestSplitTerm,
// TestEscapeValue, TestSelectorParse, TestDeterministicParse, TestSelectorMatches,
// TestOneTermEqualSelector, TestSetMatches, TestSetIsEmpty, TestRequiresExactMatch).
// splitTerms and splitTerm are internal, so their cases are checked through the parser.
import { describe, expect, it } from 'vitest';
import {
  escapeFieldValue,
  fieldSelectorFromSet,
  oneTermEqualSelector,
  parseFieldSelector,
  unescapeFieldValue,
  type FieldRequirement,
  type Fields,
} from '../src/index.js';

const eq = (field: string, value: string): FieldRequirement => ({ field, operator: '=', value });
const ne = (field: string, value: string): FieldRequirement => ({ field, operator: '!=', value });

describe('splitting into terms (TestSplitTerms)', () => {
  const cases: [string, FieldRequirement[]][] = [
    ['a=avalue', [eq('a', 'avalue')]],
    ['a=avalue,b=bvalue', [eq('a', 'avalue'), eq('b', 'bvalue')]],
    ['a=avalue,b==bvalue,c!=cvalue', [eq('a', 'avalue'), eq('b', 'bvalue'), ne('c', 'cvalue')]],
    // Empty terms are skipped.
    ['', []],
    ['a=a,', [eq('a', 'a')]],
    [',a=a', [eq('a', 'a')]],
    [',,', []],
    // Escaped commas are data, not separators. (`k2=…` sorts before `k=…`.)
    ['k=\\,,k2=v2', [eq('k2', 'v2'), eq('k', ',')]],
    ['k=\\\\,k2=v2', [eq('k2', 'v2'), eq('k', '\\')]],
    ['k=\\\\\\,,k2=v2', [eq('k2', 'v2'), eq('k', '\\,')]],
    // Multi-byte characters.
    ['함=수,목=록', [eq('목', '록'), eq('함', '수')]],
  ];

  it.each(cases)('%j', (input, expected) => {
    expect(parseFieldSelector(input).requirements()).toEqual(expected);
  });

  it('passes backslashes that are not escapes on to the value check', () => {
    expect(() => parseFieldSelector('k=\\a\\b\\')).toThrow('invalid escape sequence: \\a');
    expect(() => parseFieldSelector('k=\\')).toThrow(/ends with a lone backslash/);
  });
});

describe('splitting a term (TestSplitTerm)', () => {
  const cases: [string, FieldRequirement[]][] = [
    ['a=value', [eq('a', 'value')]],
    ['b==value', [eq('b', 'value')]],
    ['c!=value', [ne('c', 'value')]],
    ['k=\\,', [eq('k', ',')]],
    ['k=\\=', [eq('k', '=')]],
    ['함=수', [eq('함', '수')]],
    // The first operator wins; the field part cannot be escaped.
    ['a!=b\\=c', [ne('a', 'b=c')]],
    ['a=!b', [eq('a', '!b')]],
    ['a==\\=b', [eq('a', '=b')]],
    ['=v', [eq('', 'v')]],
    ['f=', [eq('f', '')]],
  ];

  it.each(cases)('%j', (input, expected) => {
    expect(parseFieldSelector(input).requirements()).toEqual(expected);
  });

  it('rejects a term without an operator, naming it', () => {
    expect(() => parseFieldSelector('a')).toThrow(
      `invalid field selector: "a"; can't understand "a": expected field=value, field==value or field!=value`,
    );
    expect(() => parseFieldSelector('x=a,b')).toThrow(`can't understand "b"`);
  });

  it('rejects unrecognised escapes in a value', () => {
    expect(() => parseFieldSelector('k=\\\\\\a\\b\\=\\,\\')).toThrow(
      'invalid escape sequence: \\a',
    );
  });
});

describe('escapeFieldValue and unescapeFieldValue (TestEscapeValue)', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['a', 'a'],
    ['=', '\\='],
    [',', '\\,'],
    ['\\', '\\\\'],
    ['\\=\\,\\', '\\\\\\=\\\\\\,\\\\'],
  ];

  it.each(cases)('%j escapes to %j and back', (raw, escaped) => {
    expect(escapeFieldValue(raw)).toBe(escaped);
    expect(unescapeFieldValue(escaped)).toBe(raw);
  });

  it.each(['\\', '\\\\\\', '\\a'])('rejects the invalid escape in %j', (value) => {
    expect(() => unescapeFieldValue(value)).toThrow(
      /^invalid field selector: invalid escape sequence/,
    );
  });

  it('rejects an unescaped = or , in a value', () => {
    expect(() => unescapeFieldValue('a=b')).toThrow(
      `invalid field selector: unescaped character in value: '=' in "a=b" (write it as \\=)`,
    );
    expect(() => unescapeFieldValue('a,b')).toThrow(/unescaped character in value: ','/);
  });

  it('names a multi-byte character after a backslash whole', () => {
    expect(() => unescapeFieldValue('\\😀')).toThrow('invalid escape sequence: \\😀');
  });
});

describe('parseFieldSelector (TestSelectorParse)', () => {
  it.each(['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=a||y\\=b', 'x=a\\=\\=b'])(
    'reads %j and prints it back',
    (s) => {
      expect(parseFieldSelector(s).string()).toBe(s);
      expect(String(parseFieldSelector(s))).toBe(s);
    },
  );

  it.each(['x=a||y=b', 'x==a==b', 'x=a,b', 'x in (a)', 'x in (a,b,c)', 'x'])('rejects %j', (s) => {
    expect(() => parseFieldSelector(s)).toThrow(/^invalid field selector: /);
  });

  it('sorts the terms by their text, as Go does (TestDeterministicParse)', () => {
    expect(parseFieldSelector('x=a,a=x').string()).toBe(parseFieldSelector('a=x,x=a').string());
    expect(parseFieldSelector('x=a,a=x').string()).toBe('a=x,x=a');
    // The raw text is sorted, escapes and all: `a==x` comes before `a=w`.
    expect(parseFieldSelector('a=w,a==x').string()).toBe('a=x,a=w');
  });

  it('prints == as =', () => {
    expect(parseFieldSelector('b==value').string()).toBe('b=value');
  });
});

describe('matching (TestSelectorMatches)', () => {
  const match = (selector: string, fields: Fields) => parseFieldSelector(selector).matches(fields);

  it('follows the Go cases', () => {
    expect(match('', { x: 'y' })).toBe(true);
    expect(match('x=y', { x: 'y' })).toBe(true);
    expect(match('x=y,z=w', { x: 'y', z: 'w' })).toBe(true);
    expect(match('x!=y,z!=w', { x: 'z', z: 'a' })).toBe(true);
    expect(match('notin=in', { notin: 'in' })).toBe(true);
    expect(match('x=y', { x: 'z' })).toBe(false);
    expect(match('x=y,z=w', { x: 'w', z: 'w' })).toBe(false);
    expect(match('x!=y,z!=w', { x: 'z', z: 'w' })).toBe(false);

    const fieldset = { foo: 'bar', baz: 'blah', complex: '=value\\,\\' };
    expect(match('foo=bar', fieldset)).toBe(true);
    expect(match('baz=blah', fieldset)).toBe(true);
    expect(match('foo=bar,baz=blah', fieldset)).toBe(true);
    expect(match('foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\', fieldset)).toBe(true);
    expect(match('foo=blah', fieldset)).toBe(false);
    expect(match('baz=bar', fieldset)).toBe(false);
    expect(match('foo=bar,foobar=bar,baz=blah', fieldset)).toBe(false);
  });

  it('reads a missing field as the empty string', () => {
    expect(match('x=', {})).toBe(true);
    expect(match('x!=', {})).toBe(false);
    expect(match('x!=a', {})).toBe(true);
    expect(match('constructor=', {})).toBe(true);
  });
});

describe('other constructors', () => {
  it('oneTermEqualSelector matches one field (TestOneTermEqualSelector)', () => {
    expect(oneTermEqualSelector('x', 'y').matches({ x: 'y' })).toBe(true);
    expect(oneTermEqualSelector('x', 'y').matches({ x: 'z' })).toBe(false);
    expect(oneTermEqualSelector('metadata.name', 'a,b').string()).toBe('metadata.name=a\\,b');
  });

  it('fieldSelectorFromSet matches the set (TestSetMatches)', () => {
    const fields = { foo: 'bar', baz: 'blah' };
    expect(fieldSelectorFromSet({}).matches(fields)).toBe(true);
    expect(fieldSelectorFromSet({ foo: 'bar' }).matches(fields)).toBe(true);
    expect(fieldSelectorFromSet({ baz: 'blah' }).matches(fields)).toBe(true);
    expect(fieldSelectorFromSet({ foo: 'bar', baz: 'blah' }).matches(fields)).toBe(true);
    expect(fieldSelectorFromSet({ foo: '=blah' }).matches(fields)).toBe(false);
    expect(fieldSelectorFromSet({ baz: '=bar' }).matches(fields)).toBe(false);
    expect(fieldSelectorFromSet({ foo: '=bar', foobar: 'bar', baz: 'blah' }).matches(fields)).toBe(
      false,
    );
    expect(fieldSelectorFromSet({ b: '1', a: '=' }).string()).toBe('a=\\=,b=1');
  });

  it('is empty only without terms (TestNilMapIsValid, TestSetIsEmpty)', () => {
    expect(fieldSelectorFromSet(undefined).empty()).toBe(true);
    expect(fieldSelectorFromSet({}).empty()).toBe(true);
    expect(parseFieldSelector('').empty()).toBe(true);
    expect(parseFieldSelector('a=b').empty()).toBe(false);
    expect(oneTermEqualSelector('', '').empty()).toBe(false);
  });

  it('requiresExactMatch finds = terms only (TestRequiresExactMatch)', () => {
    expect(fieldSelectorFromSet({}).requiresExactMatch('test')).toBeUndefined();
    expect(oneTermEqualSelector('a', 'b').requiresExactMatch('test')).toBeUndefined();
    expect(oneTermEqualSelector('test', 'b').requiresExactMatch('test')).toBe('b');
    expect(oneTermEqualSelector('test', '').requiresExactMatch('test')).toBe('');
    expect(parseFieldSelector('test!=b').requiresExactMatch('test')).toBeUndefined();
    expect(parseFieldSelector('a=x,test=b').requiresExactMatch('test')).toBe('b');
  });
});
