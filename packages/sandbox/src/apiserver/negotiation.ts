// Output content negotiation: which media type answers a request and which
// transformation of the object it asks for (`as=Table`,
// `as=PartialObjectMetadata`, `as=PartialObjectMetadataList`), as
// staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/negotiate.go
// (NegotiateMediaTypeOptions, acceptMediaTypeOptions,
// NegotiateOutputMediaTypeStream) decides with handlers/rest.go's
// RequestScope.AllowsMediaTypeTransform, and errors.go's 406 NotAcceptable.
import { StatusError } from '@kcm-ts/apimachinery';

/** One clause of an Accept header: a media range, its weight and parameters. */
export interface AcceptClause {
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

/**
 * The clauses of an Accept header, most preferred first (goautoneg's
 * ParseAccept order: higher q, then concrete types before wildcards). Media
 * types and parameter names are case-insensitive (RFC 9110 §8.3.1), so they
 * are lower-cased; values are kept as sent, without their quotes.
 */
export function parseAccept(header: string): AcceptClause[] {
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
  const rank = (c: AcceptClause): number => (c.type === '*' ? 2 : c.subtype === '*' ? 1 : 0);
  return clauses.sort((a, b) => b.q - a.q || rank(a) - rank(b));
}

/** The media types the sandbox writes; protobuf is not among them, as for a CRD. */
export type OutputMediaType = 'application/json' | 'application/yaml';

const served: readonly { type: string; subtype: string; mediaType: OutputMediaType }[] = [
  { type: 'application', subtype: 'json', mediaType: 'application/json' },
  { type: 'application', subtype: 'yaml', mediaType: 'application/yaml' },
];

/** The transformations kube-apiserver offers, in `meta.k8s.io` v1 and v1beta1. */
export type ConvertKind = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

/**
 * What a request's Accept header settled on.
 *
 * @category Server
 */
export interface NegotiatedOutput {
  /** The media type to write. */
  mediaType: OutputMediaType;
  /** The transformation asked for, if any. */
  convert?: { kind: ConvertKind; version: 'v1' | 'v1beta1' };
  /** `pretty=1` in the clause. */
  pretty: boolean;
}

/** 406 NotAcceptable naming the media types that would have been served. */
export function notAcceptable(accepted: readonly string[]): StatusError {
  return new StatusError({
    code: 406,
    reason: 'NotAcceptable',
    message: `only the following media types are accepted: ${accepted.join(', ')}`,
  });
}

/** 406 NotAcceptable with a message of its own, as handlers/response.go's errNotAcceptable. */
export function notAcceptableMessage(message: string): StatusError {
  return new StatusError({ code: 406, reason: 'NotAcceptable', message });
}

// acceptMediaTypeOptions with the endpoint's restrictions: undefined when the
// clause asks for something this endpoint cannot give, so the next is tried.
function clauseOptions(
  clause: AcceptClause,
  mediaType: OutputMediaType,
  allowConversion: boolean,
): NegotiatedOutput | undefined {
  let kind: string | undefined;
  let group: string | undefined;
  let version: string | undefined;
  let converts = false;
  let pretty = false;
  for (const [key, value] of clause.params) {
    switch (key) {
      case 'as':
        kind = value;
        converts = true;
        break;
      case 'g':
        group = value;
        converts = true;
        break;
      case 'v':
        version = value;
        converts = true;
        break;
      case 'stream':
        if (value !== '' && (mediaType !== 'application/json' || value !== 'watch'))
          return undefined;
        break;
      case 'sv':
        if (value !== '' && value !== 'v1') return undefined;
        break;
      case 'pretty':
        pretty = value === '1';
        break;
      default:
        // Unrecognised parameters (charset, ...) do not matter.
        break;
    }
  }
  if (!converts) return { mediaType, pretty };
  if (!allowConversion) return undefined;
  if (group !== 'meta.k8s.io' || (version !== 'v1' && version !== 'v1beta1')) return undefined;
  if (kind === 'Table') {
    return { mediaType, pretty, convert: { kind, version } };
  }
  if (kind === 'PartialObjectMetadata' || kind === 'PartialObjectMetadataList') {
    return { mediaType, pretty, convert: { kind, version } };
  }
  return undefined;
}

/**
 * Picks the media type and transformation for a response from the request's
 * Accept header: no header means JSON; otherwise the first clause (in
 * preference order) that names a served media type and a transformation the
 * endpoint offers wins. Throws 406 NotAcceptable, naming the served media
 * types, when no clause can be honoured.
 *
 * @param accept - the Accept header.
 * @param opts - `stream` for a watch (only JSON streams, as `;stream=watch`);
 *   `allowConversion` false for answers that are never transformed, such as
 *   error Statuses (responsewriters.ErrorNegotiated).
 * @category Server
 */
export function negotiateOutput(
  accept: string | undefined,
  opts: { stream?: boolean; allowConversion?: boolean } = {},
): NegotiatedOutput {
  const allowConversion = opts.allowConversion ?? true;
  let chosen: NegotiatedOutput | undefined;
  if (accept === undefined || accept.trim() === '') {
    chosen = { mediaType: 'application/json', pretty: false };
  } else {
    search: for (const clause of parseAccept(accept)) {
      for (const s of served) {
        const matches =
          (clause.type === s.type && (clause.subtype === s.subtype || clause.subtype === '*')) ||
          (clause.type === '*' && clause.subtype === '*');
        if (!matches) continue;
        const options = clauseOptions(clause, s.mediaType, allowConversion);
        if (options) {
          chosen = options;
          break search;
        }
      }
    }
  }
  if (chosen === undefined) throw notAcceptable(served.map((s) => s.mediaType));
  // A watch negotiates twice (handlers/get.go, then watch.go's
  // serveWatchHandler): YAML has no stream serializer.
  if (opts.stream && chosen.mediaType !== 'application/json') {
    throw notAcceptable(['application/json;stream=watch']);
  }
  return chosen;
}
