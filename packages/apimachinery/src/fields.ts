// Field selectors: k8s.io/apimachinery/pkg/fields (selector.go, fields.go,
// requirements.go). Simpler than label selectors: only `=`, `==` and `!=`, and
// values may hold any character, with `\`, `,` and `=` escaped by a backslash.
import { compareGoStrings, goQuote } from './strconv.js';

/**
 * Field paths to values, such as `{ 'metadata.name': 'web-0', 'status.phase':
 * 'Running' }`. A missing field reads as `''`. Go's `fields.Set`.
 *
 * @category Fields
 */
export type Fields = Readonly<Record<string, string>>;

/**
 * One term of a field selector. `==` is read as `=`. Go's `fields.Requirement`.
 *
 * @category Fields
 */
export interface FieldRequirement {
  /** The field path, such as `metadata.name`. */
  readonly field: string;
  /** `=` (equal) or `!=` (not equal). */
  readonly operator: '=' | '!=';
  /** The value, unescaped. */
  readonly value: string;
}

/**
 * A field selector: a conjunction of field equalities and inequalities. Go's
 * `fields.Selector`. Get one from {@link parseFieldSelector},
 * {@link fieldSelectorFromSet} or {@link oneTermEqualSelector}.
 *
 * @category Fields
 */
export interface FieldSelector {
  /** True when every term holds for `fields` (a missing field reads as `''`). */
  matches(fields: Fields): boolean;
  /** True when the selector has no terms and so matches everything. */
  empty(): boolean;
  /** The text form, values escaped (`metadata.name=a\,b`); `''` when empty. */
  string(): string;
  /** The same as {@link FieldSelector.string}, so selectors print in template strings. */
  toString(): string;
  /** The terms, in the order {@link FieldSelector.string} prints them. */
  requirements(): readonly FieldRequirement[];
  /**
   * The value the selector requires `field` to equal, if it has an `=` term on
   * that field; otherwise `undefined`.
   */
  requiresExactMatch(field: string): string | undefined;
}

function lookup(fields: Fields, field: string): string {
  return Object.hasOwn(fields, field) ? (fields[field] ?? '') : '';
}

/**
 * Escapes a literal value for use in a field selector: `\` becomes `\\`, `,`
 * becomes `\,` and `=` becomes `\=`. Go's `fields.EscapeValue`.
 *
 * @category Fields
 */
export function escapeFieldValue(value: string): string {
  // selector.go, EscapeValue
  return value.replace(/[\\,=]/g, (ch) => `\\${ch}`);
}

/**
 * Undoes {@link escapeFieldValue}. Throws on a backslash followed by anything
 * but `\`, `,` or `=`, on a trailing backslash, and on an unescaped `,` or `=`.
 * Go's `fields.UnescapeValue`.
 *
 * @category Fields
 */
export function unescapeFieldValue(value: string): string {
  // selector.go, UnescapeValue
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let inSlash = false;
  for (const ch of value) {
    if (inSlash) {
      if (ch !== '\\' && ch !== ',' && ch !== '=') {
        throw new Error(
          `invalid field selector: invalid escape sequence: \\${ch} in value ${goQuote(value)} (only \\\\, \\, and \\= are allowed)`,
        );
      }
      out += ch;
      inSlash = false;
    } else if (ch === '\\') {
      inSlash = true;
    } else if (ch === ',' || ch === '=') {
      throw new Error(
        `invalid field selector: unescaped character in value: '${ch}' in ${goQuote(value)} (write it as \\${ch})`,
      );
    } else {
      out += ch;
    }
  }
  if (inSlash) {
    throw new Error(
      `invalid field selector: invalid escape sequence: value ${goQuote(value)} ends with a lone backslash`,
    );
  }
  return out;
}

// Splits on commas that are not escaped; escapes stay in the terms.
function splitTerms(selector: string): string[] {
  // selector.go, splitTerms
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const ch = selector[i];
    if (inSlash) {
      inSlash = false;
    } else if (ch === '\\') {
      inSlash = true;
    } else if (ch === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

// `==` is tried before `=` so that it does not leave a `=` at the start of the value.
const termOperators = ['!=', '==', '='] as const;

// Splits a term at the first operator; the field part cannot be escaped.
function splitTerm(term: string): [field: string, op: string, value: string] | undefined {
  // selector.go, splitTerm
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

class TermsSelector implements FieldSelector {
  readonly #terms: readonly FieldRequirement[];

  constructor(terms: readonly FieldRequirement[]) {
    this.#terms = terms;
  }

  matches(fields: Fields): boolean {
    return this.#terms.every((t) =>
      t.operator === '='
        ? lookup(fields, t.field) === t.value
        : lookup(fields, t.field) !== t.value,
    );
  }

  empty(): boolean {
    return this.#terms.length === 0;
  }

  string(): string {
    return this.#terms.map((t) => `${t.field}${t.operator}${escapeFieldValue(t.value)}`).join(',');
  }

  toString(): string {
    return this.string();
  }

  requirements(): readonly FieldRequirement[] {
    return this.#terms;
  }

  requiresExactMatch(field: string): string | undefined {
    return this.#terms.find((t) => t.operator === '=' && t.field === field)?.value;
  }
}

/**
 * Parses a field selector such as `metadata.name=web-0,status.phase!=Running`,
 * as in `kubectl get --field-selector` and the `fieldSelector` list option.
 * Terms are `field=value`, `field==value` or `field!=value`, joined by commas;
 * empty terms are skipped, so `''` selects everything. In values, `\,`, `\=`
 * and `\\` stand for `,`, `=` and `\`. Like Go, the terms come out sorted by
 * their text.
 *
 * Throws an Error naming the term it cannot read (one without an operator) or
 * the bad escape. Go's `fields.ParseSelector`.
 *
 * @category Fields
 */
export function parseFieldSelector(selector: string): FieldSelector {
  // selector.go, parseSelector
  const parts = splitTerms(selector).sort(compareGoStrings);
  const terms: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (split === undefined) {
      throw new Error(
        `invalid field selector: ${goQuote(selector)}; can't understand ${goQuote(part)}: expected field=value, field==value or field!=value`,
      );
    }
    const [field, op, rhs] = split;
    const value = unescapeFieldValue(rhs);
    terms.push(Object.freeze({ field, operator: op === '!=' ? '!=' : '=', value }));
  }
  return new TermsSelector(Object.freeze(terms));
}

/**
 * The terms of a field selector one at a time, in the order they are
 * written, for a caller that must not spend long on one selector at a
 * stretch. What it yields is what {@link parseFieldSelector} holds, in
 * another order; when a term is malformed it throws, after the last term,
 * the error `parseFieldSelector` gives (which names the first malformed
 * term in sorted order, as Go sorts the terms before reading them).
 *
 * @category Fields
 */
export function* fieldSelectorRequirements(
  selector: string,
): Generator<FieldRequirement, void, undefined> {
  let firstBad: { term: string; error: Error } | undefined;
  let start = 0;
  let inSlash = false;
  for (let i = 0; i <= selector.length; i++) {
    const ch = selector[i];
    if (i < selector.length) {
      if (inSlash) {
        inSlash = false;
        continue;
      }
      if (ch === '\\') {
        inSlash = true;
        continue;
      }
      if (ch !== ',') continue;
    }
    const part = selector.slice(start, i);
    start = i + 1;
    if (part === '') continue;
    let requirement: FieldRequirement | undefined;
    let error: Error | undefined;
    const split = splitTerm(part);
    if (split === undefined) {
      error = new Error(
        `invalid field selector: ${goQuote(selector)}; can't understand ${goQuote(part)}: expected field=value, field==value or field!=value`,
      );
    } else {
      const [field, op, rhs] = split;
      try {
        requirement = Object.freeze({
          field,
          operator: op === '!=' ? '!=' : '=',
          value: unescapeFieldValue(rhs),
        });
      } catch (err) {
        error = err as Error;
      }
    }
    if (error) {
      if (!firstBad || compareGoStrings(part, firstBad.term) < 0) firstBad = { term: part, error };
    } else if (requirement && !firstBad) {
      yield requirement;
    }
  }
  if (firstBad) throw firstBad.error;
}

/**
 * A selector requiring each field in `set` to equal its value; an empty or
 * missing set selects everything. Go's `fields.SelectorFromSet`.
 *
 * @category Fields
 */
export function fieldSelectorFromSet(set: Fields | undefined): FieldSelector {
  // selector.go, SelectorFromSet. Go leaves the order to map iteration; we sort.
  const entries = Object.entries(set ?? {}).sort(([a], [b]) => compareGoStrings(a, b));
  return new TermsSelector(
    Object.freeze(
      entries.map(([field, value]): FieldRequirement =>
        Object.freeze({ field, operator: '=', value }),
      ),
    ),
  );
}

/**
 * A selector for one field equal to one value, such as
 * `oneTermEqualSelector('metadata.name', name)` to list or watch a single
 * object. Go's `fields.OneTermEqualSelector`.
 *
 * @category Fields
 */
export function oneTermEqualSelector(field: string, value: string): FieldSelector {
  return new TermsSelector(Object.freeze([Object.freeze({ field, operator: '=', value })]));
}
