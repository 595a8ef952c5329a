// Content negotiation for Tables: the apiserver's NegotiateMediaTypeOptions
// (endpoints/handlers/negotiation) reading an Accept header parsed the way
// goautoneg's ParseAccept does.

interface AcceptClause {
  type: string;
  subtype: string;
  q: number;
  params: Map<string, string>;
}

function unquote(value: string): string {
  const v = value.trim();
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"')
    ? v.slice(1, -1).replace(/\\(.)/g, '$1')
    : v;
}

// Media types and parameter names are case-insensitive (RFC 9110 §8.3.1);
// they are lower-cased here, values are kept as sent.
function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...rawParams] = part.split(';');
    const [type = '', subtype, ...extra] = range
      .toLowerCase()
      .split('/')
      .map((s) => s.trim());
    if (extra.length > 0 || (subtype === undefined && type !== '*')) continue;
    const clause: AcceptClause = { type, subtype: subtype ?? '*', q: 1, params: new Map() };
    for (const raw of rawParams) {
      const eq = raw.indexOf('=');
      if (eq < 0) continue;
      const name = raw.slice(0, eq).trim().toLowerCase();
      const value = unquote(raw.slice(eq + 1));
      if (name === 'q') {
        const q = Number(value);
        clause.q = Number.isFinite(q) ? q : 0;
      } else {
        clause.params.set(name, value);
      }
    }
    clauses.push(clause);
  }
  // Most preferred first: higher q, then concrete types before wildcards.
  const rank = (c: AcceptClause): number => (c.type === '*' ? 2 : c.subtype === '*' ? 1 : 0);
  return clauses.sort((a, b) => b.q - a.q || rank(a) - rank(b));
}

const servesJson = (c: AcceptClause): boolean =>
  (c.type === 'application' && (c.subtype === 'json' || c.subtype === '*')) ||
  (c.type === '*' && c.subtype === '*');

const same = (value: string | undefined, expected: string): boolean =>
  value !== undefined && value.toLowerCase() === expected.toLowerCase();

/**
 * True when the Accept header's most preferred clause that the sandbox can
 * serve is a `meta.k8s.io/v1` Table in JSON
 * (`application/json;as=Table;v=v1;g=meta.k8s.io`), as kubectl sends for
 * human-readable output. A clause asking for a transformation the sandbox
 * does not offer (another `as`, a `v1beta1` Table, protobuf) is skipped, as
 * kube-apiserver skips clauses it cannot honour; a plain `application/json`
 * before any Table clause means no Table.
 *
 * @param accept - the request's Accept header, if any.
 * @category Tables
 */
export function wantsTable(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return false;
  for (const clause of parseAccept(accept)) {
    if (!servesJson(clause)) continue;
    const as = clause.params.get('as');
    if (as === undefined) return false;
    if (
      same(as, 'Table') &&
      same(clause.params.get('g'), 'meta.k8s.io') &&
      same(clause.params.get('v'), 'v1')
    ) {
      return true;
    }
  }
  return false;
}
