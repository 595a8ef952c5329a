// Label selectors: k8s.io/apimachinery/pkg/labels (selector.go, labels.go), the
// operators of pkg/selection (operator.go), and LabelSelectorAsSelector from
// pkg/apis/meta/v1 (helpers.go).
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { compareGoStrings, goQuote } from './strconv.js';
import { isQualifiedName, isValidLabelValue } from './validation.js';

/**
 * A label set: label keys to values, as in `metadata.labels`. Go's `labels.Set`.
 *
 * @category Labels
 */
export type Labels = Readonly<Record<string, string>>;

/**
 * The operators a requirement can use, spelled as Go's `selection.Operator`
 * values: `=` and `==` (equal), `!=`, `in`, `notin`, `exists`, `!` (does not
 * exist), `gt` and `lt` (integer comparison, written `>` and `<` in a selector).
 *
 * @category Labels
 */
export type SelectionOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

const validOperators: readonly SelectionOperator[] = [
  'in',
  'notin',
  '=',
  '==',
  '!=',
  'gt',
  'lt',
  'exists',
  '!',
];

/**
 * One condition of a selector: a key, an operator and its values. Build one
 * with {@link newRequirement}, which validates it. Go's `labels.Requirement`.
 *
 * @category Labels
 */
export interface Requirement {
  /** The label key, a qualified name. */
  readonly key: string;
  /** How the label's value is compared with `values`. */
  readonly operator: SelectionOperator;
  /**
   * The values: one for `=`, `==`, `!=`, `gt` and `lt`, at least one for `in`
   * and `notin`, none for `exists` and `!`. Parsed selectors hold them sorted
   * and without duplicates.
   */
  readonly values: readonly string[];
}

/**
 * A label selector: a conjunction of requirements, matched against label sets.
 * Go's `labels.Selector`. Get one from {@link parseSelector},
 * {@link selectorFromSet}, {@link labelSelectorAsSelector}, {@link everything}
 * or {@link nothing}. Selectors are immutable.
 *
 * @category Labels
 */
export interface Selector {
  /**
   * True when every requirement holds for `labels`. `undefined` (an object with
   * no labels) is treated as the empty set.
   */
  matches(labels: Labels | undefined): boolean;
  /** True when the selector does not restrict anything ({@link everything}). */
  empty(): boolean;
  /**
   * The canonical text form, which {@link parseSelector} reads back: requirements
   * sorted by key and joined with `,`, the values of each sorted
   * (`app=web,tier in (a,b),!canary`). `''` for {@link everything} and {@link nothing}.
   */
  string(): string;
  /** The same as {@link Selector.string}, so selectors print in template strings. */
  toString(): string;
  /** The requirements, sorted by key; empty for {@link everything} and {@link nothing}. */
  requirements(): readonly Requirement[];
  /** A new selector with `requirements` added (the {@link nothing} selector stays as it is). */
  add(...requirements: Requirement[]): Selector;
  /**
   * The value the selector requires `key` to have, when its requirement on that
   * key is `=`, `==` or an `in` with a single value; otherwise `undefined`.
   */
  requiresExactMatch(key: string): string | undefined;
  /** True only for the {@link nothing} selector. */
  matchesNothing(): boolean;
}

// strconv.ParseInt(s, 10, 64): an optional sign, decimal digits, int64 range.
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= int64Min && n <= int64Max ? n : undefined;
}

/**
 * Builds a validated requirement. Throws an Error listing every problem: a key
 * that is not a qualified name, a value that is not a valid label value, or the
 * wrong number of values for the operator (exactly one for `=`, `==`, `!=`,
 * `gt`, `lt`, and it must be an integer for the last two; at least one for `in`
 * and `notin`; none for `exists` and `!`).
 *
 * @category Labels
 */
export function newRequirement(
  key: string,
  operator: SelectionOperator,
  values: readonly string[] = [],
): Requirement {
  // selector.go, NewRequirement
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(`invalid label key ${goQuote(key)}: ${keyErrs.join('; ')}`);
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push("for 'in', 'notin' operators, values set can't be empty");
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) {
        errs.push(
          `exact-match compatibility requires one single value, got ${values.length} for key ${goQuote(key)}`,
        );
      }
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) {
        errs.push('values set must be empty for exists and does not exist');
      }
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) {
        errs.push("for 'Gt', 'Lt' operators, exactly one value is required");
      }
      for (const v of values) {
        if (parseInt64(v) === undefined) {
          errs.push(`for 'Gt', 'Lt' operators, the value must be an integer, got ${goQuote(v)}`);
        }
      }
      break;
    default:
      errs.push(
        `unsupported operator ${goQuote(String(operator))}, expected one of: ${validOperators.join(', ')}`,
      );
  }
  for (const v of values) {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length > 0) {
      errs.push(
        `invalid label value ${goQuote(v)} for key ${goQuote(key)}: ${valueErrs.join('; ')}`,
      );
    }
  }
  if (errs.length > 0) throw new Error(errs.join('; '));
  return Object.freeze({ key, operator, values: Object.freeze([...values]) });
}

// Own properties only: a label called `constructor` must not be found on every set.
function lookup(labels: Labels | undefined, key: string): string | undefined {
  return labels !== undefined && Object.hasOwn(labels, key) ? labels[key] : undefined;
}

function requirementMatches(r: Requirement, labels: Labels | undefined): boolean {
  // selector.go, Requirement.Matches
  const value = lookup(labels, r.key);
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return value !== undefined && r.values.includes(value);
    case 'notin':
    case '!=':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return value !== undefined;
    case '!':
      return value === undefined;
    case 'gt':
    case 'lt': {
      if (value === undefined || r.values.length !== 1) return false;
      const actual = parseInt64(value);
      const bound = parseInt64(r.values[0] ?? '');
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
    default:
      return false;
  }
}

function sortedValues(values: readonly string[]): string[] {
  return [...values].sort(compareGoStrings);
}

function requirementString(r: Requirement): string {
  // selector.go, Requirement.String
  const values = r.values.length === 1 ? (r.values[0] ?? '') : sortedValues(r.values).join(',');
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
      return `${r.key} in (${values})`;
    case 'notin':
      return `${r.key} notin (${values})`;
    case 'gt':
      return `${r.key}>${values}`;
    case 'lt':
      return `${r.key}<${values}`;
    default:
      return `${r.key}${r.operator}${values}`;
  }
}

function byKey(a: Requirement, b: Requirement): number {
  return compareGoStrings(a.key, b.key);
}

class InternalSelector implements Selector {
  readonly #requirements: readonly Requirement[];

  constructor(requirements: readonly Requirement[]) {
    this.#requirements = requirements;
  }

  matches(labels: Labels | undefined): boolean {
    return this.#requirements.every((r) => requirementMatches(r, labels));
  }

  empty(): boolean {
    return this.#requirements.length === 0;
  }

  string(): string {
    return this.#requirements.map(requirementString).join(',');
  }

  toString(): string {
    return this.string();
  }

  requirements(): readonly Requirement[] {
    return this.#requirements;
  }

  add(...requirements: Requirement[]): Selector {
    // Array.prototype.sort is stable, so requirements on one key keep their order.
    return new InternalSelector(
      Object.freeze([...this.#requirements, ...requirements].sort(byKey)),
    );
  }

  requiresExactMatch(key: string): string | undefined {
    const r = this.#requirements.find((req) => req.key === key);
    if (r === undefined || r.values.length !== 1) return undefined;
    return r.operator === '=' || r.operator === '==' || r.operator === 'in'
      ? r.values[0]
      : undefined;
  }

  matchesNothing(): boolean {
    return false;
  }
}

class NothingSelector implements Selector {
  matches(): boolean {
    return false;
  }
  empty(): boolean {
    return false;
  }
  string(): string {
    return '';
  }
  toString(): string {
    return '';
  }
  requirements(): readonly Requirement[] {
    return [];
  }
  add(): Selector {
    return this;
  }
  requiresExactMatch(): string | undefined {
    return undefined;
  }
  matchesNothing(): boolean {
    return true;
  }
}

const everythingSelector: Selector = new InternalSelector(Object.freeze([]));
const nothingSelector: Selector = new NothingSelector();

/**
 * The selector that matches every label set, even an empty one. Go's `labels.Everything`.
 *
 * @category Labels
 */
export function everything(): Selector {
  return everythingSelector;
}

/**
 * The selector that matches nothing at all: what a missing (`null`)
 * `LabelSelector` means. Go's `labels.Nothing`.
 *
 * @category Labels
 */
export function nothing(): Selector {
  return nothingSelector;
}

/**
 * A selector requiring every label in `set` with its value (`a=1,b=2`); an
 * empty or missing set gives {@link everything}. Like Go's `SelectorFromSet`,
 * it does not validate keys or values.
 *
 * @category Labels
 */
export function selectorFromSet(set: Labels | undefined): Selector {
  // selector.go, SelectorFromValidatedSet
  if (set === undefined) return everythingSelector;
  const keys = Object.keys(set);
  if (keys.length === 0) return everythingSelector;
  const requirements = keys.map((key): Requirement =>
    Object.freeze({ key, operator: '=', values: Object.freeze([set[key]!]) }),
  );
  return new InternalSelector(Object.freeze(requirements.sort(byKey)));
}

/**
 * Converts the structured `LabelSelector` found in API objects (`spec.selector`
 * of a Deployment or ReplicaSet) into a {@link Selector}: `matchLabels` become
 * `=` requirements and `matchExpressions` use `In`, `NotIn`, `Exists` and
 * `DoesNotExist`. A missing selector (`null` or `undefined`) matches nothing;
 * an empty one matches everything. Throws on an unknown operator or an invalid
 * key or value.
 *
 * @category Labels
 */
export function labelSelectorAsSelector(ls: LabelSelector | null | undefined): Selector {
  // apis/meta/v1/helpers.go, LabelSelectorAsSelector
  if (ls === null || ls === undefined) return nothingSelector;
  const matchLabels = ls.matchLabels ?? {};
  const matchExpressions = ls.matchExpressions ?? [];
  const labelKeys = Object.keys(matchLabels).sort(compareGoStrings);
  if (labelKeys.length + matchExpressions.length === 0) return everythingSelector;
  const requirements = labelKeys.map((key) => newRequirement(key, '=', [matchLabels[key]!]));
  for (const expr of matchExpressions) {
    let op: SelectionOperator;
    switch (expr.operator) {
      case 'In':
        op = 'in';
        break;
      case 'NotIn':
        op = 'notin';
        break;
      case 'Exists':
        op = 'exists';
        break;
      case 'DoesNotExist':
        op = '!';
        break;
      default:
        throw new Error(
          `${goQuote(String(expr.operator))} is not a valid label selector operator (key ${goQuote(String(expr.key))}): expected In, NotIn, Exists or DoesNotExist`,
        );
    }
    requirements.push(newRequirement(expr.key, op, expr.values ?? []));
  }
  return new InternalSelector(Object.freeze(requirements.sort(byKey)));
}

//#region lexer

/**
 * The kinds of token the label selector lexer produces. Go's `labels.Token`.
 *
 * @category Labels
 */
export type SelectorTokenKind =
  | 'endOfString'
  | 'closedPar'
  | 'comma'
  | 'doesNotExist'
  | 'doubleEquals'
  | 'equals'
  | 'greaterThan'
  | 'identifier'
  | 'in'
  | 'lessThan'
  | 'notEquals'
  | 'notIn'
  | 'openPar';

/**
 * A token of a label selector and where it starts. Go's `labels.ScannedItem`.
 *
 * @category Labels
 */
export interface SelectorToken {
  /** What the token is. */
  readonly kind: SelectorTokenKind;
  /** Its text; `''` for the end of the string. */
  readonly literal: string;
  /** The index in the selector string where it starts. */
  readonly position: number;
}

const symbolTokens: Readonly<Record<string, SelectorTokenKind>> = {
  ')': 'closedPar',
  ',': 'comma',
  '!': 'doesNotExist',
  '==': 'doubleEquals',
  '=': 'equals',
  '>': 'greaterThan',
  '<': 'lessThan',
  '!=': 'notEquals',
  '(': 'openPar',
};

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isSpecialSymbol(ch: string): boolean {
  return '=!(),><'.includes(ch);
}

/**
 * Splits a label selector into tokens, ending with an `endOfString` token.
 * Whitespace (space, tab, CR, LF) separates tokens; `=`, `!`, `(`, `)`, `,`, `>`
 * and `<` are operators (the longest match wins, so `!=` is one token); every
 * other run of characters is an identifier, or the keyword `in` or `notin`.
 * Go's `labels.Lexer`.
 *
 * @category Labels
 */
export function lexSelector(selector: string): SelectorToken[] {
  const lexer = new Lexer(selector);
  const tokens: SelectorToken[] = [];
  for (;;) {
    const tok = lexer.next();
    tokens.push(tok);
    if (tok.kind === 'endOfString') return tokens;
  }
}

// selector.go, Lexer.Lex, one token at a time, so that a parser reading a
// long selector lexes only as far as it has read. Unlike Go, a NUL character
// is an ordinary character here: Go's lexer takes it for the end of the
// input and ignores the rest.
class Lexer {
  #i = 0;

  constructor(private readonly selector: string) {}

  next(): SelectorToken {
    const selector = this.selector;
    let i = this.#i;
    while (i < selector.length && isWhitespace(selector[i]!)) i++;
    if (i >= selector.length) {
      this.#i = i;
      return { kind: 'endOfString', literal: '', position: i };
    }
    const start = i;
    let tok: SelectorToken;
    if (isSpecialSymbol(selector[i]!)) {
      const two = selector.slice(i, i + 2);
      const literal = two === '==' || two === '!=' ? two : selector[i]!;
      tok = { kind: symbolTokens[literal]!, literal, position: start };
      i += literal.length;
    } else {
      while (i < selector.length && !isSpecialSymbol(selector[i]!) && !isWhitespace(selector[i]!)) {
        i++;
      }
      const literal = selector.slice(start, i);
      const kind = literal === 'in' ? 'in' : literal === 'notin' ? 'notIn' : 'identifier';
      tok = { kind, literal, position: start };
    }
    this.#i = i;
    return tok;
  }
}

//#endregion lexer

//#region parser

// `in` and `notin` are keywords only where an operator is expected; as keys and
// values they are plain identifiers (`in in (in, notin)` is a valid selector).
type ParserContext = 'keyAndOperator' | 'values';

function found(tok: SelectorToken): string {
  return tok.kind === 'endOfString'
    ? `found end of string at position ${tok.position}`
    : `found '${tok.literal}' at position ${tok.position}`;
}

// A syntax error inside a requirement: Go prefixes these the same way.
function requirementError(tok: SelectorToken, expected: string): Error {
  return new Error(`unable to parse requirement: ${found(tok)}, expected: ${expected}`);
}

class Parser {
  readonly #lexer: Lexer;
  /** The next token, read but not consumed. */
  #next: SelectorToken;

  constructor(selector: string) {
    this.#lexer = new Lexer(selector);
    this.#next = this.#lexer.next();
  }

  #lookahead(context: ParserContext): SelectorToken {
    const tok = this.#next;
    return context === 'values' && (tok.kind === 'in' || tok.kind === 'notIn')
      ? { ...tok, kind: 'identifier' }
      : tok;
  }

  #consume(context: ParserContext): SelectorToken {
    const tok = this.#lookahead(context);
    // Nothing consumes past the end: it stays the next token.
    if (this.#next.kind !== 'endOfString') this.#next = this.#lexer.next();
    return tok;
  }

  /** selector.go, Parser.parse: the requirements one at a time, in the order written. */
  *requirements(): Generator<Requirement, void, undefined> {
    for (;;) {
      const tok = this.#lookahead('values');
      if (tok.kind === 'endOfString') return;
      if (tok.kind !== 'identifier' && tok.kind !== 'doesNotExist') {
        throw new Error(`${found(tok)}, expected: !, identifier, or end of string`);
      }
      yield this.#parseRequirement();
      const next = this.#consume('values');
      if (next.kind === 'endOfString') return;
      if (next.kind !== 'comma') {
        throw new Error(`${found(next)}, expected: ',' or end of string`);
      }
      const after = this.#lookahead('values');
      if (after.kind !== 'identifier' && after.kind !== 'doesNotExist') {
        throw new Error(`${found(after)}, expected: identifier after ','`);
      }
    }
  }

  #parseRequirement(): Requirement {
    const start = this.#lookahead('values').position;
    const { key, operator: inferred } = this.#parseKeyAndInferOperator();
    let operator = inferred;
    let values: string[] = [];
    if (operator === undefined) {
      operator = this.#parseOperator();
      values =
        operator === 'in' || operator === 'notin' ? this.#parseValues() : this.#parseExactValue();
    }
    try {
      return newRequirement(key, operator, values);
    } catch (err) {
      throw new Error(
        `unable to parse requirement at position ${start}: ${(err as Error).message}`,
      );
    }
  }

  #parseKeyAndInferOperator(): { key: string; operator: SelectionOperator | undefined } {
    let operator: SelectionOperator | undefined;
    let tok = this.#consume('values');
    if (tok.kind === 'doesNotExist') {
      operator = '!';
      tok = this.#consume('values');
    }
    if (tok.kind !== 'identifier') throw requirementError(tok, 'identifier');
    const keyErrs = isQualifiedName(tok.literal);
    if (keyErrs.length > 0) {
      throw new Error(
        `unable to parse requirement at position ${tok.position}: invalid label key ${goQuote(tok.literal)}: ${keyErrs.join('; ')}`,
      );
    }
    const next = this.#lookahead('values').kind;
    if (operator === undefined && (next === 'endOfString' || next === 'comma')) {
      operator = 'exists';
    }
    return { key: tok.literal, operator };
  }

  #parseOperator(): SelectionOperator {
    const tok = this.#consume('keyAndOperator');
    switch (tok.kind) {
      case 'in':
        return 'in';
      case 'notIn':
        return 'notin';
      case 'equals':
        return '=';
      case 'doubleEquals':
        return '==';
      case 'notEquals':
        return '!=';
      case 'greaterThan':
        return 'gt';
      case 'lessThan':
        return 'lt';
      default:
        throw requirementError(tok, 'one of in, notin, =, ==, !=, >, <');
    }
  }

  // The values of `in (...)` and `notin (...)`: a set, so sorted and deduplicated.
  #parseValues(): string[] {
    const open = this.#consume('values');
    if (open.kind !== 'openPar') throw requirementError(open, "'('");
    const tok = this.#lookahead('values');
    if (tok.kind === 'closedPar') {
      this.#consume('values');
      return ['']; // `()` holds the empty value
    }
    if (tok.kind !== 'identifier' && tok.kind !== 'comma') {
      throw requirementError(tok, "',', ')' or identifier");
    }
    const values = this.#parseIdentifiersList();
    const close = this.#consume('values');
    if (close.kind !== 'closedPar') throw requirementError(close, "')'");
    return [...values].sort(compareGoStrings);
  }

  // A comma-separated list in which any value may be empty: `(a,,b)`, `(,a)`, `(a,)`.
  #parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const tok = this.#consume('values');
      if (tok.kind === 'identifier') {
        values.add(tok.literal);
        const next = this.#lookahead('values');
        if (next.kind === 'closedPar') return values;
        if (next.kind !== 'comma') throw requirementError(next, "',' or ')'");
      } else if (tok.kind === 'comma') {
        if (values.size === 0) values.add(''); // a leading comma: `(,a)`
        const next = this.#lookahead('values');
        if (next.kind === 'closedPar') {
          values.add(''); // a trailing comma: `(a,)`
          return values;
        }
        if (next.kind === 'comma') values.add(''); // two commas: `(a,,b)`
      } else {
        throw requirementError(tok, "',' or identifier");
      }
    }
  }

  // The value after `=`, `==`, `!=`, `>` or `<`; missing means the empty value (`x=`).
  #parseExactValue(): string[] {
    const next = this.#lookahead('values').kind;
    if (next === 'endOfString' || next === 'comma') return [''];
    const tok = this.#consume('values');
    if (tok.kind !== 'identifier') throw requirementError(tok, 'identifier');
    return [tok.literal];
  }
}

/**
 * Parses a label selector string, as in `kubectl get -l` and the
 * `labelSelector` list option:
 *
 * ```text
 * selector    := requirement ( ',' requirement )*
 * requirement := KEY | '!' KEY
 *              | KEY ( '=' | '==' | '!=' | '>' | '<' ) VALUE?
 *              | KEY ( 'in' | 'notin' ) '(' VALUE? ( ',' VALUE? )* ')'
 * ```
 *
 * Keys must be qualified names and values valid label values (either may be
 * checked with the functions in `validation`); `>` and `<` need integers. The
 * empty string selects everything. Whitespace (space, tab, CR, LF) may stand
 * between tokens. The requirements come out sorted by key.
 *
 * Throws an Error naming the offending token and its position, such as
 * `unable to parse requirement: found ')' at position 5, expected: '('`.
 * Go's `labels.Parse`.
 *
 * @example
 * ```ts
 * const sel = parseSelector('app=web, tier in (frontend, cache), !canary');
 * sel.matches({ app: 'web', tier: 'cache' }); // true
 * sel.string(); // 'app=web,!canary,tier in (cache,frontend)'
 * ```
 *
 * @category Labels
 */
export function parseSelector(selector: string): Selector {
  // selector.go, Parse
  const requirements = [...new Parser(selector).requirements()];
  return new InternalSelector(Object.freeze(requirements.sort(byKey)));
}

/**
 * The requirements of a label selector one at a time, in the order they are
 * written, each validated as {@link parseSelector} validates it; reading
 * throws the error `parseSelector` would, once it reaches the fault. For a
 * caller that must not spend long on one selector at a stretch (a server
 * reading one of many thousand terms), or that needs only some of them.
 *
 * @category Labels
 */
export function selectorRequirements(selector: string): Generator<Requirement, void, undefined> {
  return new Parser(selector).requirements();
}

//#endregion parser
