// Continue tokens of paginated lists: staging/src/k8s.io/apiserver/pkg/
// storage/continue.go (EncodeContinue, DecodeContinue): base64 of a small
// JSON object naming the snapshot's resourceVersion and the next key.
import { newBadRequest } from '@kcm-ts/apimachinery';

const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Where a paginated list resumes: the snapshot's revision and the first key not yet listed. */
export interface ContinueToken {
  rv: number;
  start: string;
}

// Base64 of UTF-8 text with the web platform's functions: the registry uses
// no `node:` module and no Buffer, so it can run in a browser page.
const toBase64 = (text: string): string =>
  btoa(Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join(''));
const fromBase64 = (b64: string): string =>
  new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));

/** The token a list page hands out for the next one. */
export function encodeContinue(token: ContinueToken): string {
  return toBase64(JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.rv, start: token.start }));
}

/** The token a client sent back, or 400 with kube-apiserver's messages. */
export function decodeContinue(value: string): ContinueToken {
  // staging/src/k8s.io/apiserver/pkg/storage/continue.go, DecodeContinue
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64(value));
  } catch {
    throw newBadRequest(
      `continue key is not valid: ${JSON.stringify(value)} is not a valid continue token`,
    );
  }
  const p = obj(parsed);
  // The token's rv is a Go int64: a number that is not one (1.5, 1e+300)
  // fails to decode, in encoding/json's words. 2^63-1 itself reads back
  // as 2^63 through JSON.parse, so that bound is let in.
  if (typeof p.rv === 'number' && !(Number.isInteger(p.rv) && Math.abs(p.rv) <= 2 ** 63)) {
    throw newBadRequest(
      `continue key is not valid: json: cannot unmarshal number ${numberText(value, p.rv)} into Go struct field continueToken.rv of type int64`,
    );
  }
  if (p.v !== 'meta.k8s.io/v1') {
    throw newBadRequest(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  }
  if (typeof p.rv !== 'number' || !Number.isInteger(p.rv) || p.rv <= 0) {
    throw newBadRequest(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  }
  if (typeof p.start !== 'string' || p.start === '') {
    throw newBadRequest('continue key is not valid: encoded start key empty');
  }
  return { rv: p.rv, start: p.start };
}

/** The rv number as the token spells it (Go quotes the literal), else as JavaScript prints it. */
function numberText(token: string, rv: number): string {
  const literal = /"rv"\s*:\s*(-?[0-9][0-9.eE+-]*)/.exec(fromBase64(token))?.[1];
  return literal ?? String(rv);
}
