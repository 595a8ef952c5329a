// Who a request is: the sandbox's one bearer token, read as kube-apiserver's
// bearer token authenticator reads the Authorization header
// (staging/src/k8s.io/apiserver/pkg/authentication/request/bearertoken/
// bearertoken.go, AuthenticateRequest) and checked as a static token file
// would check it (.../authentication/token/tokenfile). The token's user is
// the cluster admin, in `system:masters` as kubeadm's admin is. The
// comparison is Go's crypto/subtle ConstantTimeCompare, written out so that
// the registry (which authenticates TokenReviews) needs no `node:` module.

/**
 * A user as kube-apiserver's authenticators describe one (authentication/v1
 * UserInfo).
 *
 * @category Server
 */
export interface UserInfo {
  /** The user name. */
  username: string;
  /** The groups, `system:authenticated` last. */
  groups: string[];
}

/** The user the sandbox's token authenticates as. */
export const sandboxAdmin: Readonly<UserInfo> = Object.freeze({
  username: 'kcm-ts-admin',
  groups: Object.freeze(['system:masters', 'system:authenticated']) as string[],
});

/** The audience kube-apiserver's tokens are for when no other is configured. */
export const apiAudiences: readonly string[] = ['https://kubernetes.default.svc.cluster.local'];

/**
 * The token of an Authorization header: `Bearer` in any letter case, one
 * space, then the token; surrounding spaces are trimmed and a further word
 * is ignored. `undefined` when the
 * header is missing, another scheme, or has an empty token.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  // Anything after a second space is ignored, as strings.SplitN(auth, " ", 3) leaves it.
  const parts = header.trim().split(' ');
  if (parts.length < 2 || parts[0]?.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1] ?? '';
  return token === '' ? undefined : token;
}

/**
 * Checks tokens against the sandbox's one token, in constant time. With no
 * token configured every request is the admin, as the sandbox has always
 * allowed.
 */
export class TokenAuthenticator {
  readonly #expected: Uint8Array | undefined;

  constructor(token: string | undefined) {
    this.#expected = token ? utf8.encode(token) : undefined;
  }

  /** The user of `token`, or `undefined` if it is not the sandbox's. */
  authenticateToken(token: string | undefined): UserInfo | undefined {
    if (!this.#expected) return sandboxAdmin;
    if (token === undefined) return undefined;
    return constantTimeEqual(utf8.encode(token), this.#expected) ? sandboxAdmin : undefined;
  }

  /** The user of a request's Authorization header, or `undefined`. */
  authenticateHeader(header: string | undefined): UserInfo | undefined {
    return this.authenticateToken(bearerToken(header));
  }
}

const utf8 = new TextEncoder();

/**
 * Whether two byte strings are equal, taking the same time wherever they
 * differ (crypto/subtle ConstantTimeCompare): the length is not secret.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
