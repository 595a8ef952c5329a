// Cases from apimachinery pkg/labels/selector_test.go (TestSelectorParse, TestLexer,
// TestLexerSequence, TestRequirementConstructor, TestToString, TestSetSelectorParser,
// TestRequirementSelectorMatching, TestAdd, TestRequiresExactMatch ...) and from
// pkg/apis/meta/v1/helpers_test.go (TestLabelSelectorAsSelector).
import { describe, expect, it } from 'vitest';
import {
  everything,
  labelSelectorAsSelector,
  lexSelector,
  newRequirement,
  nothing,
  parseSelector,
  selectorFromSet,
  type Labels,
  type Requirement,
  type SelectionOperator,
  type SelectorTokenKind,
} from '../src/index.js';

const req = (key: string, op: SelectionOperator, values: string[] = []): Requirement =>
  newRequirement(key, op, values);

function expectMatch(selector: string, labels: Labels) {
  expect(parseSelector(selector).matches(labels), `${selector} should match`).toBe(true);
}

function expectNoMatch(selector: string, labels: Labels) {
  expect(parseSelector(selector).matches(labels), `${selector} should not match`).toBe(false);
}

describe('parseSelector', () => {
  it.each([
    'x=a,y=b,z=c',
    '',
    'x!=a,y=b',
    'x=',
    'x= ',
    'x=,z= ',
    'x= ,z= ',
    '!x',
    'x>1',
    'x>1,z<5',
  ])('parses %j and prints it back without spaces (TestSelectorParse)', (s) => {
    expect(parseSelector(s).string()).toBe(s.replaceAll(' ', ''));
  });

  it.each(['x=a||y=b', 'x==a==b', '!x=a', 'x<a'])('rejects %j (TestSelectorParse)', (s) => {
    expect(() => parseSelector(s)).toThrow(Error);
  });

  it('sorts by key, so the text does not depend on input order (TestDeterministicParse)', () => {
    expect(parseSelector('x=a,a=x').string()).toBe(parseSelector('a=x,x=a').string());
    expect(parseSelector('x=a,a=x').string()).toBe('a=x,x=a');
  });

  // TestSetSelectorParser: input, expected requirements (undefined: invalid).
  const setSelectorCases: [string, Requirement[] | undefined][] = [
    ['', []],
    ['\rx', [req('x', 'exists')]],
    [
      'this-is-a-dns.domain.com/key-with-dash',
      [req('this-is-a-dns.domain.com/key-with-dash', 'exists')],
    ],
    [
      'this-is-another-dns.domain.com/key-with-dash in (so,what)',
      [req('this-is-another-dns.domain.com/key-with-dash', 'in', ['so', 'what'])],
    ],
    [
      '0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)',
      [req('0.1.2.domain/99', 'notin', ['10.10.100.1', 'tick.tack.clock'])],
    ],
    ['foo  in\t (abc)', [req('foo', 'in', ['abc'])]],
    ['x notin\n (abc)', [req('x', 'notin', ['abc'])]],
    ['x  notin\t\t\t(abc,def)', [req('x', 'notin', ['abc', 'def'])]],
    ['x in (abc,def)', [req('x', 'in', ['abc', 'def'])]],
    ['x in (abc,)', [req('x', 'in', ['', 'abc'])]],
    ['x in ()', [req('x', 'in', [''])]],
    [
      'x notin (abc,,def),bar,z in (),w',
      [
        req('bar', 'exists'),
        req('w', 'exists'),
        req('x', 'notin', ['', 'abc', 'def']),
        req('z', 'in', ['']),
      ],
    ],
    ['x,y in (a)', [req('x', 'exists'), req('y', 'in', ['a'])]],
    ['x=a', [req('x', '=', ['a'])]],
    ['x>1', [req('x', 'gt', ['1'])]],
    ['x<7', [req('x', 'lt', ['7'])]],
    ['x=a,y!=b', [req('x', '=', ['a']), req('y', '!=', ['b'])]],
    [
      'x=a,y!=b,z in (h,i,j)',
      [req('x', '=', ['a']), req('y', '!=', ['b']), req('z', 'in', ['h', 'i', 'j'])],
    ],
    ['x=a||y=b', undefined],
    ['x,,y', undefined],
    [',x,y', undefined],
    ['x nott in (y)', undefined],
    ['x notin ( )', [req('x', 'notin', [''])]],
    ['x notin (, a)', [req('x', 'notin', ['', 'a'])]],
    ['a in (xyz),', undefined],
    ['a in (xyz)b notin ()', undefined],
    ['a ', [req('a', 'exists')]],
    ['a in (x,y,notin, z,in)', [req('a', 'in', ['in', 'notin', 'x', 'y', 'z'])]],
    ['a in (xyz abc)', undefined],
    ['a notin(', undefined],
    ['a (', undefined],
    ['(', undefined],
  ];

  it.each(setSelectorCases)('reads %j (TestSetSelectorParser)', (input, expected) => {
    if (expected === undefined) {
      expect(() => parseSelector(input)).toThrow(Error);
    } else {
      expect(parseSelector(input).requirements()).toEqual(expected);
    }
  });

  it('treats in and notin as values, and as keys, where an identifier is expected', () => {
    expect(parseSelector('x=in').requirements()).toEqual([req('x', '=', ['in'])]);
    expect(parseSelector('in in (notin)').requirements()).toEqual([req('in', 'in', ['notin'])]);
    expect(parseSelector('notin').requirements()).toEqual([req('notin', 'exists')]);
    expect(parseSelector('!in').requirements()).toEqual([req('in', '!')]);
  });

  it('keeps equal keys in input order and prints both', () => {
    expect(parseSelector('z!=a,z').string()).toBe('z!=a,z');
    expect(parseSelector('z,z!=a').string()).toBe('z,z!=a');
  });

  it('sorts and deduplicates set values', () => {
    expect(parseSelector('x in (c,a,b,a)').requirements()).toEqual([
      req('x', 'in', ['a', 'b', 'c']),
    ]);
    expect(parseSelector('x in (c, a, b)').string()).toBe('x in (a,b,c)');
  });

  it('accepts only space, tab, CR and LF as whitespace', () => {
    expect(parseSelector(' \t\r\nx \t\r\n= \t\r\ny \t\r\n').string()).toBe('x=y');
    expect(() => parseSelector('x=\vy')).toThrow(/invalid label value/);
    expect(() => parseSelector('\u00a0x')).toThrow(/invalid label key/);
  });

  it('treats a NUL character as part of a token, not as the end of the input', () => {
    expect(() => parseSelector('x\u0000,y')).toThrow(/invalid label key "x\\x00"/);
  });

  it('validates keys as qualified names and values as label values', () => {
    expect(() => parseSelector(`${'a'.repeat(254)}/b`)).toThrow(
      /at position 0: invalid label key .*prefix part must be no more than 253 characters/,
    );
    expect(() => parseSelector(`x=${'a'.repeat(64)}`)).toThrow(
      /invalid label value "a{64}" for key "x": must be no more than 63 characters/,
    );
    expect(() => parseSelector('x in (a b)')).toThrow(Error);
    expect(() => parseSelector('x in (-a)')).toThrow(/invalid label value "-a"/);
  });

  it('needs integers for > and <, within int64', () => {
    expect(() => parseSelector('x>a')).toThrow(
      "unable to parse requirement at position 0: for 'Gt', 'Lt' operators, the value must be an integer, got \"a\"",
    );
    expect(parseSelector('x>9223372036854775807').string()).toBe('x>9223372036854775807');
    expect(() => parseSelector('x>9223372036854775808')).toThrow(/must be an integer/);
    // A sign is fine for ParseInt but not for a label value.
    expect(() => parseSelector('x>-1')).toThrow(/invalid label value "-1"/);
    expect(() => parseSelector('x<')).toThrow(/must be an integer, got ""/);
  });

  it('names the bad token and its position', () => {
    const cases: [string, string][] = [
      [
        'x=a||y=b',
        'unable to parse requirement at position 0: invalid label value "a||y" for key "x"',
      ],
      ['x=a=b', "found '=' at position 3, expected: ',' or end of string"],
      ['x==a==b', "found '==' at position 4, expected: ',' or end of string"],
      ['!x=a', "found '=' at position 2, expected: ',' or end of string"],
      ['x,,y', "found ',' at position 2, expected: identifier after ','"],
      [',x', "found ',' at position 0, expected: !, identifier, or end of string"],
      ['a in (xyz),', 'found end of string at position 11, expected: identifier after'],
      [
        'x nott in (y)',
        "unable to parse requirement: found 'nott' at position 2, expected: one of in, notin, =, ==, !=, >, <",
      ],
      ['a notin(', 'unable to parse requirement: found end of string at position 8'],
      ['a in (xyz abc)', "found 'abc' at position 10, expected: ',' or ')'"],
      ['a (', "unable to parse requirement: found '(' at position 2, expected: one of"],
      ['(', "found '(' at position 0, expected: !, identifier, or end of string"],
      ['x in a', "unable to parse requirement: found 'a' at position 5, expected: '('"],
      ['x in (=)', "found '=' at position 6, expected: ',', ')' or identifier"],
      ['x in (a,=)', "found '=' at position 8, expected: ',' or identifier"],
      ['x = (', "unable to parse requirement: found '(' at position 4, expected: identifier"],
      ['!', 'unable to parse requirement: found end of string at position 1, expected: identifier'],
      ['!=a', "found '!=' at position 0, expected: !, identifier, or end of string"],
      ['!!a', "unable to parse requirement: found '!' at position 1, expected: identifier"],
      ['x/ in (a)', 'unable to parse requirement at position 0: invalid label key "x/"'],
      ['a,b=c,x=-', 'unable to parse requirement at position 6: invalid label value "-"'],
    ];
    for (const [input, message] of cases) {
      expect(() => parseSelector(input), input).toThrow(message);
    }
  });
});

describe('lexSelector', () => {
  const single: [string, SelectorTokenKind][] = [
    ['', 'endOfString'],
    [',', 'comma'],
    ['notin', 'notIn'],
    ['in', 'in'],
    ['=', 'equals'],
    ['==', 'doubleEquals'],
    ['>', 'greaterThan'],
    ['<', 'lessThan'],
    // The longest valid token wins.
    ['!', 'doesNotExist'],
    ['!=', 'notEquals'],
    ['(', 'openPar'],
    [')', 'closedPar'],
    // Characters that are not special belong to identifiers.
    ['~', 'identifier'],
    ['||', 'identifier'],
  ];

  it.each(single)('reads %j as one %s token (TestLexer)', (input, kind) => {
    const [first] = lexSelector(input);
    expect(first).toEqual({ kind, literal: input, position: 0 });
  });

  const sequences: [string, SelectorTokenKind[]][] = [
    ['key in ( value )', ['identifier', 'in', 'openPar', 'identifier', 'closedPar']],
    ['key notin ( value )', ['identifier', 'notIn', 'openPar', 'identifier', 'closedPar']],
    [
      'key in ( value1, value2 )',
      ['identifier', 'in', 'openPar', 'identifier', 'comma', 'identifier', 'closedPar'],
    ],
    ['key', ['identifier']],
    ['!key', ['doesNotExist', 'identifier']],
    ['()', ['openPar', 'closedPar']],
    ['x in (),y', ['identifier', 'in', 'openPar', 'closedPar', 'comma', 'identifier']],
    [
      '== != (), = notin',
      ['doubleEquals', 'notEquals', 'openPar', 'closedPar', 'comma', 'equals', 'notIn'],
    ],
    ['key>2', ['identifier', 'greaterThan', 'identifier']],
    ['key<1', ['identifier', 'lessThan', 'identifier']],
    ['!==', ['notEquals', 'equals']],
    ['>=', ['greaterThan', 'equals']],
  ];

  it.each(sequences)('splits %j (TestLexerSequence, TestParserLookahead)', (input, kinds) => {
    const tokens = lexSelector(input);
    expect(tokens.map((t) => t.kind)).toEqual([...kinds, 'endOfString']);
  });

  it('records where each token starts', () => {
    expect(lexSelector(' ab!=c ')).toEqual([
      { kind: 'identifier', literal: 'ab', position: 1 },
      { kind: 'notEquals', literal: '!=', position: 3 },
      { kind: 'identifier', literal: 'c', position: 5 },
      { kind: 'endOfString', literal: '', position: 7 },
    ]);
  });
});

describe('matching', () => {
  it('follows TestSelectorMatches', () => {
    expectMatch('', { x: 'y' });
    expectMatch('x=y', { x: 'y' });
    expectMatch('x=y,z=w', { x: 'y', z: 'w' });
    expectMatch('x!=y,z!=w', { x: 'z', z: 'a' });
    expectMatch('notin=in', { notin: 'in' }); // in and notin in exactMatch
    expectMatch('x', { x: 'z' });
    expectMatch('!x', { y: 'z' });
    expectMatch('x>1', { x: '2' });
    expectMatch('x<1', { x: '0' });
    expectNoMatch('x=z', {});
    expectNoMatch('x=y', { x: 'z' });
    expectNoMatch('x=y,z=w', { x: 'w', z: 'w' });
    expectNoMatch('x!=y,z!=w', { x: 'z', z: 'w' });
    expectNoMatch('x', { y: 'z' });
    expectNoMatch('!x', { x: 'z' });
    expectNoMatch('x>1', { x: '0' });
    expectNoMatch('x<1', { x: '2' });

    const labelset = { foo: 'bar', baz: 'blah' };
    expectMatch('foo=bar', labelset);
    expectMatch('baz=blah', labelset);
    expectMatch('foo=bar,baz=blah', labelset);
    expectNoMatch('foo=blah', labelset);
    expectNoMatch('baz=bar', labelset);
    expectNoMatch('foo=bar,foobar=bar,baz=blah', labelset);
  });

  it('handles every operator, with and without the key', () => {
    const cases: [string, Labels, boolean][] = [
      ['x=a', { x: 'a' }, true],
      ['x==a', { x: 'a' }, true],
      ['x==a', { x: 'b' }, false],
      ['x==a', {}, false],
      ['x!=a', {}, true], // a missing key is "not equal"
      ['x!=a', { x: 'a' }, false],
      ['x in (a,b)', { x: 'b' }, true],
      ['x in (a,b)', { x: 'c' }, false],
      ['x in (a,b)', {}, false],
      ['x notin (a,b)', { x: 'c' }, true],
      ['x notin (a,b)', { x: 'a' }, false],
      ['x notin (a,b)', {}, true], // and "not in"
      ['x in ()', { x: '' }, true],
      ['x=', { x: '' }, true],
      ['x=', {}, false],
      ['x', { x: '' }, true],
      ['!x', { x: '' }, false],
      ['x>5', { x: '10' }, true], // compared as numbers, not strings
      ['x>5', { x: '5' }, false],
      ['x<5', { x: '-3' }, true], // a label value may not be negative, but it parses
      ['x<5', { x: 'abc' }, false],
      ['x<5', {}, false],
      ['x>1', { x: '99999999999999999999' }, false], // beyond int64: not a number
    ];
    for (const [selector, labels, want] of cases) {
      expect(
        parseSelector(selector).matches(labels),
        `${selector} on ${JSON.stringify(labels)}`,
      ).toBe(want);
    }
  });

  it('follows TestRequirementSelectorMatching', () => {
    const cases: [Labels, Requirement[], boolean][] = [
      [{ x: 'foo', y: 'baz' }, [req('x', 'in', ['foo']), req('y', 'notin', ['alpha'])], true],
      [{ x: 'foo', y: 'baz' }, [req('x', 'in', ['foo']), req('y', 'in', ['alpha'])], false],
      [{ y: '' }, [req('x', 'notin', ['']), req('y', 'exists')], true],
      [{ y: '' }, [req('x', '!'), req('y', 'exists')], true],
      [{ y: '' }, [req('x', 'notin', ['']), req('y', '!')], false],
      [{ y: 'baz' }, [req('x', 'in', [''])], false],
      [{ z: '2' }, [req('z', 'gt', ['1'])], true],
      [{ z: 'v2' }, [req('z', 'gt', ['1'])], false],
    ];
    for (const [labels, reqs, want] of cases) {
      expect(
        everything()
          .add(...reqs)
          .matches(labels),
      ).toBe(want);
    }
  });

  it('looks only at own properties of the label set', () => {
    expectNoMatch('constructor', {});
    expectMatch('!toString', {});
    expectNoMatch('hasOwnProperty=x', {});
  });

  it('treats missing labels as the empty set', () => {
    expect(parseSelector('!x').matches(undefined)).toBe(true);
    expect(parseSelector('x').matches(undefined)).toBe(false);
    expect(everything().matches(undefined)).toBe(true);
  });
});

describe('newRequirement (TestRequirementConstructor)', () => {
  const cases: [string, SelectionOperator, string[], boolean][] = [
    ['x', 'in', [], false],
    ['x', 'notin', [], false],
    ['x', 'in', ['foo'], true],
    ['x', 'notin', ['foo'], true],
    ['x', 'exists', [], true],
    ['x', '!', [], true],
    ['1foo', 'in', ['bar'], true],
    ['1234', 'in', ['bar'], true],
    ['y', 'gt', ['1'], true],
    ['z', 'lt', ['6'], true],
    ['foo', 'gt', ['bar'], false],
    ['barz', 'lt', ['blah'], false],
    ['a'.repeat(254), 'exists', [], false], // a key longer than a DNS subdomain
    ['x', '=', ['foo', 'bar'], false],
    ['x', '=', [], false],
    ['x', 'exists', ['foo'], false],
    ['x', 'gt', [], false],
    ['x', 'gt', ['1', '2'], false],
    ['x', '=', ['a'.repeat(64)], false],
    ['x', '=', ['a b'], false],
  ];

  it.each(cases)('key %j, operator %j, values %j: valid=%j', (key, op, values, valid) => {
    if (valid) expect(newRequirement(key, op, values)).toEqual({ key, operator: op, values });
    else expect(() => newRequirement(key, op, values)).toThrow(Error);
  });

  it('rejects an unknown operator, naming the valid ones', () => {
    expect(() => newRequirement('x', 'unsupportedOp' as SelectionOperator)).toThrow(
      'unsupported operator "unsupportedOp", expected one of: in, notin, =, ==, !=, gt, lt, exists, !',
    );
  });

  it('reports every problem at once', () => {
    expect(() => newRequirement('-x', 'in', [])).toThrow(
      /invalid label key "-x": .*; for 'in', 'notin' operators, values set can't be empty/,
    );
  });

  it('copies and freezes its values', () => {
    const values = ['b', 'a'];
    const r = newRequirement('x', 'in', values);
    values.push('c');
    expect(r.values).toEqual(['b', 'a']);
    expect(Object.isFrozen(r) && Object.isFrozen(r.values)).toBe(true);
  });
});

describe('Selector.string (TestToString)', () => {
  const cases: [Requirement[], string][] = [
    [
      [req('x', 'in', ['abc', 'def']), req('y', 'notin', ['jkl']), req('z', 'exists')],
      'x in (abc,def),y notin (jkl),z',
    ],
    [
      [req('x', 'notin', ['abc', 'def']), req('y', '!=', ['jkl']), req('z', '!')],
      'x notin (abc,def),y!=jkl,!z',
    ],
    [
      [req('x', 'notin', ['abc']), req('y', 'in', ['jkl', 'mno']), req('z', 'notin', [''])],
      'x notin (abc),y in (jkl,mno),z notin ()',
    ],
    [
      [req('x', '=', ['abc']), req('y', '==', ['jkl']), req('z', '!=', ['a']), req('z', 'exists')],
      'x=abc,y==jkl,z!=a,z',
    ],
    [[req('x', 'gt', ['2']), req('y', 'lt', ['8']), req('z', 'exists')], 'x>2,y<8,z'],
  ];

  it.each(cases)('prints %j as %j', (reqs, text) => {
    const sel = everything().add(...reqs);
    expect(sel.string()).toBe(text);
    expect(String(sel)).toBe(text);
  });

  it('sorts values for printing without changing the requirement', () => {
    const r = req('x', 'in', ['b', 'a']);
    expect(everything().add(r).string()).toBe('x in (a,b)');
    expect(r.values).toEqual(['b', 'a']);
  });
});

describe('everything, nothing, selectorFromSet', () => {
  it('everything matches all and is empty (TestEverything)', () => {
    expect(everything().matches({ x: 'y' })).toBe(true);
    expect(everything().empty()).toBe(true);
    expect(everything().string()).toBe('');
    expect(everything().matchesNothing()).toBe(false);
  });

  it('nothing matches none, is not empty, and ignores additions', () => {
    expect(nothing().matches({})).toBe(false);
    expect(nothing().matches({ x: 'y' })).toBe(false);
    expect(nothing().empty()).toBe(false);
    expect(nothing().string()).toBe('');
    expect(String(nothing())).toBe('');
    expect(nothing().requirements()).toEqual([]);
    expect(nothing().matchesNothing()).toBe(true);
    expect(nothing().add(req('x', 'exists'))).toBe(nothing());
    expect(nothing().requiresExactMatch('x')).toBeUndefined();
  });

  it('selectorFromSet matches exactly the set (TestSetMatches)', () => {
    const labelset = { foo: 'bar', baz: 'blah' };
    expect(selectorFromSet({}).matches(labelset)).toBe(true);
    expect(selectorFromSet({ foo: 'bar' }).matches(labelset)).toBe(true);
    expect(selectorFromSet({ baz: 'blah' }).matches(labelset)).toBe(true);
    expect(selectorFromSet({ foo: 'bar', baz: 'blah' }).matches(labelset)).toBe(true);
    expect(selectorFromSet({ foo: 'bar', x: 'y' }).matches(labelset)).toBe(false);
    expect(selectorFromSet({ foo: 'bar', baz: 'blah' }).string()).toBe('baz=blah,foo=bar');
  });

  it('selectorFromSet of a missing or empty set is empty (TestNilMapIsValid, TestSetIsEmpty)', () => {
    expect(selectorFromSet(undefined).empty()).toBe(true);
    expect(selectorFromSet({}).empty()).toBe(true);
    expect(parseSelector('').empty()).toBe(true);
    expect(parseSelector('x').empty()).toBe(false);
  });

  it('add returns a new sorted selector (TestAdd)', () => {
    const base = everything().add(req('key', 'in', ['value']));
    const added = base.add(req('key2', '=', ['value2']), req('a', 'exists'));
    expect(added.requirements().map((r) => r.key)).toEqual(['a', 'key', 'key2']);
    expect(base.requirements()).toHaveLength(1);
  });

  it('requiresExactMatch finds =, == and single-valued in (TestRequiresExactMatch)', () => {
    expect(
      everything()
        .add(req('key', 'in', ['value']))
        .requiresExactMatch('key'),
    ).toBe('value');
    expect(
      everything()
        .add(req('key', 'in', ['v', 'w']))
        .requiresExactMatch('key'),
    ).toBeUndefined();
    const two = everything().add(req('key', 'in', ['v', 'w']), req('key2', 'in', ['value2']));
    expect(two.requiresExactMatch('key2')).toBe('value2');
    expect(
      everything()
        .add(req('key', '=', ['value']))
        .requiresExactMatch('key'),
    ).toBe('value');
    expect(
      everything()
        .add(req('key', '==', ['value']))
        .requiresExactMatch('key'),
    ).toBe('value');
    expect(
      everything()
        .add(req('key', '!=', ['value']))
        .requiresExactMatch('key'),
    ).toBeUndefined();
    expect(parseSelector('key=value,key2=value2').requiresExactMatch('key')).toBe('value');
    expect(parseSelector('key=value').requiresExactMatch('other')).toBeUndefined();
  });
});

describe('labelSelectorAsSelector', () => {
  it('maps a missing selector to nothing and an empty one to everything', () => {
    expect(labelSelectorAsSelector(null)).toBe(nothing());
    expect(labelSelectorAsSelector(undefined)).toBe(nothing());
    expect(labelSelectorAsSelector({})).toBe(everything());
    expect(labelSelectorAsSelector({ matchLabels: {}, matchExpressions: [] })).toBe(everything());
  });

  it('combines matchLabels and matchExpressions, sorted by key', () => {
    const sel = labelSelectorAsSelector({
      matchLabels: { tier: 'web', app: 'shop' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'canary'] },
        { key: 'zone', operator: 'NotIn', values: ['us-east-1a'] },
        { key: 'owner', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist', values: [] },
      ],
    });
    expect(sel.string()).toBe(
      'app=shop,env in (canary,prod),!legacy,owner,tier=web,zone notin (us-east-1a)',
    );
    const labels = { app: 'shop', tier: 'web', env: 'prod', owner: 'me' };
    expect(sel.matches(labels)).toBe(true);
    expect(sel.matches({ ...labels, legacy: 'yes' })).toBe(false);
    expect(sel.matches({ ...labels, zone: 'us-east-1a' })).toBe(false);
    expect(sel.matches({ ...labels, env: 'dev' })).toBe(false);
  });

  it('throws on an invalid operator, key or value', () => {
    expect(() =>
      labelSelectorAsSelector({ matchExpressions: [{ key: 'x', operator: 'Gt', values: ['1'] }] }),
    ).toThrow('"Gt" is not a valid label selector operator (key "x")');
    expect(() =>
      labelSelectorAsSelector({ matchExpressions: [{ key: 'x', operator: 'In', values: [] }] }),
    ).toThrow("values set can't be empty");
    expect(() =>
      labelSelectorAsSelector({
        matchExpressions: [{ key: 'x', operator: 'Exists', values: ['a'] }],
      }),
    ).toThrow('values set must be empty');
    expect(() => labelSelectorAsSelector({ matchLabels: { 'a/b/c': 'x' } })).toThrow(
      /invalid label key "a\/b\/c"/,
    );
    expect(() => labelSelectorAsSelector({ matchLabels: { a: 'not valid' } })).toThrow(
      /invalid label value "not valid"/,
    );
  });
});
