// The tables of apimachinery pkg/util/validation/validation_test.go
// (TestIsDNS1123Label, TestIsDNS1123Subdomain, TestIsQualifiedName, TestIsValidLabelValue).
import { describe, expect, it } from 'vitest';
import {
  dns1123LabelMaxLength,
  dns1123SubdomainMaxLength,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  labelValueMaxLength,
} from '../src/index.js';

const a = (n: number) => 'a'.repeat(n);
const b = (n: number) => 'b'.repeat(n);

describe('isDNS1123Label', () => {
  const good = [
    'a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b',
    '0', '01', '012', '1a', '1-a', '1--a--b--2',
    a(63),
  ]; // prettier-ignore
  const bad = [
    '', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A',
    '-', 'a-', '-a', '1-', '-1',
    '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2',
    '.', 'a.', '.a', 'a.b', '1.', '.1', '1.2',
    ' ', 'a ', ' a', 'a b', '1 ', ' 1', '1 2',
    a(64),
  ]; // prettier-ignore

  it.each(good)('accepts %j', (v) => expect(isDNS1123Label(v)).toEqual([]));
  it.each(bad)('rejects %j', (v) => expect(isDNS1123Label(v)).not.toEqual([]));

  it('explains the problem in the API server words', () => {
    expect(isDNS1123Label(a(64))).toEqual(['must be no more than 63 characters']);
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
    expect(isDNS1123Label('A')).toEqual([
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(dns1123LabelMaxLength).toBe(63);
  });

  it('counts length in UTF-8 bytes, as Go does', () => {
    // 62 ASCII letters and one two-byte letter: 64 bytes, and not a label anyway.
    expect(isDNS1123Label(`${a(62)}é`)[0]).toBe('must be no more than 63 characters');
  });
});

describe('isDNS1123Subdomain', () => {
  const good = [
    'a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b',
    '0', '01', '012', '1a', '1-a', '1--a--b--2',
    'a.a', 'ab.a', 'abc.a', 'a1.a', 'a-1.a', 'a--1--2--b.a',
    'a.1', 'ab.1', 'abc.1', 'a1.1', 'a-1.1', 'a--1--2--b.1',
    '0.a', '01.a', '012.a', '1a.a', '1-a.a', '1--a--b--2',
    '0.1', '01.1', '012.1', '1a.1', '1-a.1', '1--a--b--2.1',
    'a.b.c.d.e', 'aa.bb.cc.dd.ee', '1.2.3.4.5', '11.22.33.44.55',
    a(253),
  ]; // prettier-ignore
  const bad = [
    '', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A',
    '-', 'a-', '-a', '1-', '-1',
    '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2',
    '.', 'a.', '.a', 'a..b', '1.', '.1', '1..2',
    ' ', 'a ', ' a', 'a b', '1 ', ' 1', '1 2',
    'A.a', 'aB.a', 'ab.A', 'A1.a', 'a1.A',
    'A.1', 'aB.1', 'A1.1', '1A.1',
    '0.A', '01.A', '012.A', '1A.a', '1a.A',
    'A.B.C.D.E', 'AA.BB.CC.DD.EE', 'a.B.c.d.e', 'aa.bB.cc.dd.ee',
    'a@b', 'a,b', 'a_b', 'a;b',
    'a:b', 'a%b', 'a?b', 'a$b',
    a(254),
  ]; // prettier-ignore

  it.each(good)('accepts %j', (v) => expect(isDNS1123Subdomain(v)).toEqual([]));
  it.each(bad)('rejects %j', (v) => expect(isDNS1123Subdomain(v)).not.toEqual([]));

  it('reports length and format separately', () => {
    expect(isDNS1123Subdomain(`${a(253)}.`)).toHaveLength(2);
    expect(isDNS1123Subdomain(a(254))).toEqual(['must be no more than 253 characters']);
    expect(isDNS1123Subdomain('a_b')[0]).toMatch(/^a lowercase RFC 1123 subdomain must consist/);
    expect(dns1123SubdomainMaxLength).toBe(253);
  });

  it('does not let a trailing newline slip past the anchors', () => {
    expect(isDNS1123Subdomain('abc\n')).not.toEqual([]);
    expect(isDNS1123Label('abc\n')).not.toEqual([]);
  });
});

describe('isQualifiedName', () => {
  const good = [
    'simple',
    'now-with-dashes',
    '1-starts-with-num',
    '1234',
    'simple/simple',
    'now-with-dashes/simple',
    'now-with-dashes/now-with-dashes',
    'now.with.dots/simple',
    'now-with.dashes-and.dots/simple',
    '1-num.2-num/3-num',
    '1234/5678',
    '1.2.3.4/5678',
    'Uppercase_Is_OK_123',
    'example.com/Uppercase_Is_OK_123',
    'requests.storage-foo',
    a(63),
    `${a(253)}/${b(63)}`,
  ];
  const bad = [
    'nospecialchars%^=@',
    'cantendwithadash-',
    '-cantstartwithadash-',
    'only/one/slash',
    'Example.com/abc',
    'example_com/abc',
    'example.com/',
    '/simple',
    a(64),
    `${a(254)}/abc`,
  ];

  it.each(good)('accepts %j', (v) => expect(isQualifiedName(v)).toEqual([]));
  it.each(bad)('rejects %j', (v) => expect(isQualifiedName(v)).not.toEqual([]));

  it('says which part is wrong', () => {
    expect(isQualifiedName('/simple')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('example.com/')).toEqual([
      'name part must be non-empty',
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    expect(isQualifiedName(`${a(254)}/abc`)).toEqual([
      'prefix part must be no more than 253 characters',
    ]);
    expect(isQualifiedName(a(64))).toEqual(['name part must be no more than 63 characters']);
    expect(isQualifiedName('Example.com/abc')[0]).toMatch(
      /^prefix part a lowercase RFC 1123 subdomain/,
    );
    expect(isQualifiedName('only/one/slash')).toHaveLength(1);
    expect(isQualifiedName('only/one/slash')[0]).toMatch(
      /^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/'/,
    );
  });
});

describe('isValidLabelValue', () => {
  const good = [
    'simple',
    'now-with-dashes',
    '1-starts-with-num',
    'end-with-num-1',
    '1234',
    a(63),
    '',
  ];
  const bad = [
    'nospecialchars%^=@',
    'Tama-nui-te-rā.is.Māori.sun',
    '\\backslashes\\are\\bad',
    '-starts-with-dash',
    'ends-with-dash-',
    '.starts.with.dot',
    'ends.with.dot.',
    a(64),
  ];

  it.each(good)('accepts %j', (v) => expect(isValidLabelValue(v)).toEqual([]));
  it.each(bad)('rejects %j', (v) => expect(isValidLabelValue(v)).not.toEqual([]));

  it('reports the length limit', () => {
    expect(isValidLabelValue(a(64))).toEqual(['must be no more than 63 characters']);
    expect(labelValueMaxLength).toBe(63);
  });
});
