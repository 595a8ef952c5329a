// Go's `%q` verb, which Kubernetes uses to quote names and keys in error
// messages (`pods "x" not found`). Internal: not re-exported from the index.
// Go source: strconv/quote.go, Quote.

const namedEscapes: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

// What Go's strconv.IsPrint accepts: letters, marks, numbers, punctuation,
// symbols and the ASCII space.
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Quotes `s` the way Go's `strconv.Quote` (and so `%q`) does. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const named = namedEscapes[ch];
    if (named !== undefined) {
      out += named;
      continue;
    }
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x80) {
      out += cp < 0x20 || cp === 0x7f ? `\\x${hex(cp, 2)}` : ch;
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      // A lone surrogate is not valid UTF-8; Go would print the replacement character.
      out += '\\ufffd';
    } else if (printable.test(ch)) {
      out += ch;
    } else {
      out += cp > 0xffff ? `\\U${hex(cp, 8)}` : `\\u${hex(cp, 4)}`;
    }
  }
  return out + '"';
}

/** The length of `s` in UTF-8 bytes, which is what Go's `len` measures. */
export function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

/**
 * Compares strings the way Go's `<` does: byte by byte in UTF-8, which is the
 * same as by code point (JavaScript's default sort compares UTF-16 units, which
 * differs for characters above U+FFFF).
 */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done) return cb.done ? 0 : -1;
    if (cb.done) return 1;
    const d = (ca.value.codePointAt(0) ?? 0) - (cb.value.codePointAt(0) ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}
