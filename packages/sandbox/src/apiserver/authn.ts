// Who a request is: the sandbox's bearer tokens, read as kube-apiserver's
// bearer token authenticator reads the Authorization header
// (staging/src/k8s.io/apiserver/pkg/authentication/request/bearertoken/
// bearertoken.go, AuthenticateRequest) and checked as a static token file
// would check them (.../authentication/token/tokenfile). The main token's
// user is the cluster admin as kind's kubeconfig has it since kubeadm 1.29:
// `kubernetes-admin` in `kubeadm:cluster-admins`; the controller manager
// has a token of its own, as kubeadm's controller-manager.conf gives it. The
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
  /** The user's UID, when the authenticator knows one (a service account's). */
  uid?: string;
  /** Further facts about the user, such as a token's credential ID. */
  extra?: Record<string, string[]>;
}

/** The user the sandbox's token authenticates as: kind's admin. */
export const sandboxAdmin: Readonly<UserInfo> = Object.freeze({
  username: 'kubernetes-admin',
  groups: Object.freeze(['kubeadm:cluster-admins', 'system:authenticated']) as string[],
});

/** The user of the controller manager's token, as in kubeadm's controller-manager.conf. */
export const controllerManagerUser: Readonly<UserInfo> = Object.freeze({
  username: 'system:kube-controller-manager',
  groups: Object.freeze(['system:authenticated']) as string[],
});

/** The groups a SubjectAccessReview allows everything: kubeadm's admins and the privileged group. */
export const adminGroups: readonly string[] = ['system:masters', 'kubeadm:cluster-admins'];

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

/** A token and the user it authenticates as: one line of a static token file. */
export interface StaticToken {
  token: string;
  user: UserInfo;
}

/**
 * Checks tokens against the sandbox's tokens, each in constant time: the
 * main one (the admin's) and any others. With no main token configured
 * every request is the admin, as the sandbox has always allowed.
 */
export class TokenAuthenticator {
  readonly #tokens: { token: Uint8Array; user: UserInfo }[];
  readonly #open: boolean;

  constructor(token: string | undefined, others: readonly StaticToken[] = []) {
    this.#open = !token;
    this.#tokens = [
      ...(token ? [{ token: utf8.encode(token), user: sandboxAdmin }] : []),
      ...others.map((o) => ({ token: utf8.encode(o.token), user: o.user })),
    ];
  }

  /** The user of `token`, or `undefined` if it is none of the sandbox's. */
  authenticateToken(token: string | undefined): UserInfo | undefined {
    if (this.#open) return sandboxAdmin;
    if (token === undefined) return undefined;
    const bytes = utf8.encode(token);
    let found: UserInfo | undefined;
    // Every token is compared, so the time taken says nothing about which matched.
    for (const t of this.#tokens) if (constantTimeEqual(bytes, t.token)) found ??= t.user;
    return found;
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
