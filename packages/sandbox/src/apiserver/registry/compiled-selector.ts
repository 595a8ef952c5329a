// Selectors turned into matchers whose cost grows with the object, not with
// the selector: the same answers as labels.Selector.Matches and
// fields.Selector.Matches (apimachinery's pkg/labels/selector.go,
// pkg/fields/selector.go), with every term on one key folded into one rule
// first. A list or watch checks each stored object against its selector;
// with Go's term-by-term loop a selector of thousands of terms costs that
// many checks per object, which kube-apiserver spreads over its goroutines
// and a single-threaded server cannot. Reading a long selector is itself
// work: compileSelectors reads its terms a few milliseconds at a time.
import {
  fieldSelectorRequirements,
  newBadRequest,
  parseFieldSelector,
  parseSelector,
  selectorRequirements,
} from '@kcm-ts/apimachinery';
import type {
  FieldRequirement,
  FieldSelector,
  Fields,
  Labels,
  ListOptions,
  Requirement,
  Selector,
} from '@kcm-ts/apimachinery';

/** Every term of a selector on one label key, folded. */
interface KeyRule {
  /** The key must be present (a term `=`, `in`, `exists`, `gt` or `lt` names it). */
  present: boolean;
  /** The key must be absent (a term `!key`). */
  absent: boolean;
  /** Values the key may have: the intersection of its `=` and `in` terms. */
  allowed?: Set<string>;
  /** Values it may not have: the union of its `!=` and `notin` terms. */
  excluded?: Set<string>;
  /** Its value, as an integer, must be greater than every one of these... */
  above?: bigint;
  /** ...and less than every one of these. */
  below?: bigint;
}

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

// selector.go reads gt/lt values with strconv.ParseInt(v, 10, 64).
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= int64Min && n <= int64Max ? n : undefined;
}

/** A label matcher built a requirement at a time. */
class LabelRules {
  readonly #rules = new Map<string, KeyRule>();
  #never = false;

  add(r: Requirement): void {
    let rule = this.#rules.get(r.key);
    if (!rule) this.#rules.set(r.key, (rule = { present: false, absent: false }));
    switch (r.operator) {
      case '=':
      case '==':
      case 'in': {
        rule.present = true;
        const values = new Set(r.values);
        rule.allowed = rule.allowed
          ? new Set([...rule.allowed].filter((v) => values.has(v)))
          : values;
        break;
      }
      case '!=':
      case 'notin':
        rule.excluded ??= new Set();
        for (const v of r.values) rule.excluded.add(v);
        break;
      case 'exists':
        rule.present = true;
        break;
      case '!':
        rule.absent = true;
        break;
      case 'gt':
      case 'lt': {
        rule.present = true;
        const bound = r.values.length === 1 ? parseInt64(r.values[0] ?? '') : undefined;
        // A term that can match nothing (selector.go refuses such a value at parse time).
        if (bound === undefined) this.#never = true;
        else if (r.operator === 'gt')
          rule.above = rule.above === undefined || bound > rule.above ? bound : rule.above;
        else rule.below = rule.below === undefined || bound < rule.below ? bound : rule.below;
        break;
      }
    }
    if (rule.present && rule.absent) this.#never = true;
  }

  /** The matcher, or undefined when no requirement was added. */
  build(): ((labels: Labels) => boolean) | undefined {
    if (this.#never) return () => false;
    const rules = this.#rules;
    if (rules.size === 0) return undefined;
    let required = 0;
    for (const rule of rules.values()) if (rule.present) required++;
    return (labels) => {
      let seen = 0;
      for (const key in labels) {
        if (!Object.hasOwn(labels, key)) continue;
        const rule = rules.get(key);
        if (rule === undefined) continue;
        if (rule.absent) return false;
        const value = labels[key] ?? '';
        if (rule.allowed && !rule.allowed.has(value)) return false;
        if (rule.excluded?.has(value)) return false;
        if (rule.above !== undefined || rule.below !== undefined) {
          const n = parseInt64(value);
          if (n === undefined) return false;
          if (rule.above !== undefined && !(n > rule.above)) return false;
          if (rule.below !== undefined && !(n < rule.below)) return false;
        }
        if (rule.present) seen++;
      }
      return seen === required;
    };
  }
}

/** A field matcher built a term at a time. */
class FieldRules {
  readonly #equal = new Map<string, string | null>();
  readonly #notEqual = new Map<string, Set<string>>();

  add(t: FieldRequirement): void {
    if (t.operator === '=') {
      const before = this.#equal.get(t.field);
      // Two different required values: nothing can match; null marks it.
      this.#equal.set(t.field, before === undefined || before === t.value ? t.value : null);
    } else {
      let set = this.#notEqual.get(t.field);
      if (!set) this.#notEqual.set(t.field, (set = new Set()));
      set.add(t.value);
    }
  }

  /** The matcher, or undefined when no term was added. */
  build(): ((fields: Fields) => boolean) | undefined {
    if (this.#equal.size === 0 && this.#notEqual.size === 0) return undefined;
    const equalTerms = [...this.#equal];
    const notEqualTerms = [...this.#notEqual];
    if (equalTerms.some(([, v]) => v === null)) return () => false;
    const read = (fields: Fields, field: string): string =>
      Object.hasOwn(fields, field) ? (fields[field] ?? '') : '';
    return (fields) => {
      for (const [field, value] of equalTerms) if (read(fields, field) !== value) return false;
      for (const [field, values] of notEqualTerms)
        if (values.has(read(fields, field))) return false;
      return true;
    };
  }
}

/**
 * A function that answers as `selector.matches(labels)` does, in time
 * proportional to the number of labels rather than the number of terms.
 */
export function compileLabelSelector(selector: Selector): (labels: Labels) => boolean {
  const rules = new LabelRules();
  for (const r of selector.requirements()) rules.add(r);
  // No terms: everything, or nothing for labels.Nothing(); the selector knows which.
  return rules.build() ?? ((labels) => selector.matches(labels));
}

/**
 * A function that answers as `selector.matches(fields)` does, in time
 * proportional to the number of fields the selector names rather than the
 * number of its terms. A field the object lacks reads as `''`.
 */
export function compileFieldSelector(selector: FieldSelector): (fields: Fields) => boolean {
  const rules = new FieldRules();
  for (const t of selector.requirements()) rules.add(t);
  return rules.build() ?? ((fields) => selector.matches(fields));
}

/** The matchers of a list's or watch's selectors; absent ones select everything. */
export interface CompiledSelectors {
  /** Whether an object's labels match the label selector. */
  labels?: (labels: Labels) => boolean;
  /** Whether an object's selectable fields match the field selector. */
  fields?: (fields: Fields) => boolean;
}

/**
 * The field labels a kind's objects may be selected by: `metadata.name`,
 * `metadata.namespace` and what its strategy adds. A selector naming another
 * is refused as the field label conversion functions refuse it.
 */
export type SelectableFields = ReadonlySet<string>;

function unsupported(field: string): Error {
  return newBadRequest(`field label not supported: ${field}`);
}

function badSelector(err: unknown): Error {
  return newBadRequest((err as Error).message);
}

/**
 * Compiles `opts`' selectors at once: 400 BadRequest with the parser's
 * message for a malformed one, or a field the kind does not offer.
 */
export function compileSelectorsNow(
  opts: ListOptions,
  selectable: SelectableFields,
): CompiledSelectors {
  const out: CompiledSelectors = {};
  if (opts.labelSelector) {
    let parsed: Selector;
    try {
      parsed = parseSelector(opts.labelSelector);
    } catch (err) {
      throw badSelector(err);
    }
    out.labels = compileLabelSelector(parsed);
  }
  if (opts.fieldSelector) {
    let parsed: FieldSelector;
    try {
      parsed = parseFieldSelector(opts.fieldSelector);
    } catch (err) {
      throw badSelector(err);
    }
    // In the parser's (sorted) order, so the field named is the one kube names.
    for (const r of parsed.requirements()) if (!selectable.has(r.field)) throw unsupported(r.field);
    out.fields = compileFieldSelector(parsed);
  }
  return out;
}

/**
 * Compiles `opts`' selectors as {@link compileSelectorsNow} does, with the
 * same answers and errors, reading their terms a slice at a time: after
 * each `budgetMs` of work it awaits `pause()` (the server passes a turn of
 * its event loop), so a selector of a hundred thousand terms does not hold
 * the server while it is read.
 */
export async function compileSelectors(
  opts: ListOptions,
  selectable: SelectableFields,
  pause: () => Promise<void>,
  budgetMs = 4,
): Promise<CompiledSelectors> {
  let sliceStart = performance.now();
  let count = 0;
  const maybePause = async () => {
    if ((++count & 255) !== 0 || performance.now() - sliceStart < budgetMs) return;
    await pause();
    sliceStart = performance.now();
  };
  const out: CompiledSelectors = {};
  if (opts.labelSelector) {
    const rules = new LabelRules();
    const reading = selectorRequirements(opts.labelSelector);
    for (;;) {
      let next: IteratorResult<Requirement, void>;
      try {
        next = reading.next();
      } catch (err) {
        throw badSelector(err);
      }
      if (next.done) break;
      rules.add(next.value);
      await maybePause();
    }
    const built = rules.build();
    if (built) out.labels = built;
  }
  if (opts.fieldSelector) {
    const rules = new FieldRules();
    // The first unsupported field in the parser's order: the least term.
    let unsupportedTerm: { key: string; field: string } | undefined;
    const reading = fieldSelectorRequirements(opts.fieldSelector);
    for (;;) {
      let next: IteratorResult<FieldRequirement, void>;
      try {
        next = reading.next();
      } catch (err) {
        throw badSelector(err);
      }
      if (next.done) break;
      const t = next.value;
      if (!selectable.has(t.field)) {
        const key = `${t.field}${t.operator}${t.value}`;
        if (!unsupportedTerm || key < unsupportedTerm.key)
          unsupportedTerm = { key, field: t.field };
      } else {
        rules.add(t);
      }
      await maybePause();
    }
    if (unsupportedTerm) throw unsupported(unsupportedTerm.field);
    const built = rules.build();
    if (built) out.fields = built;
  }
  return out;
}
