// Authentication and authorization delegated to the API server, as
// kube-controller-manager's secure port does
// (staging/src/k8s.io/apiserver/pkg/authentication/authenticatorfactory/
// delegating.go with webhook token review, pkg/authorization/
// authorizerfactory/delegating.go with SubjectAccessReviews, and
// controller-manager/app/serve.go BuildHandlerChain): a bearer token is
// checked with a TokenReview, a request without one is `system:anonymous`,
// and every path outside `--authorization-always-allow-paths` needs a
// SubjectAccessReview for `get` on that path. Answers are cached for 10 s.
import type { TokenReview } from 'kubernetes-types/authentication/v1.js';
import type { SubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
import {
  newForbidden,
  newUnauthorized,
  type Clock,
  type Logger,
  type ResourceClient,
  type StatusError,
} from '@kcm-ts/apimachinery';

/**
 * Who made a request, as the API server's TokenReview says.
 *
 * @category Endpoints
 */
export interface UserInfo {
  /** The user name, such as `system:anonymous`. */
  username: string;
  /** The user's uid, if any. */
  uid?: string;
  /** The user's groups. */
  groups: string[];
}

/** The anonymous user of a request without credentials. */
export const anonymousUser: UserInfo = {
  username: 'system:anonymous',
  groups: ['system:unauthenticated'],
};

/**
 * Options for {@link DelegatingAuth}.
 *
 * @category Endpoints
 */
export interface DelegatingAuthOptions {
  /** `authentication.k8s.io/v1` tokenreviews. */
  tokenReviews: ResourceClient<TokenReview>;
  /** `authorization.k8s.io/v1` subjectaccessreviews. */
  subjectAccessReviews: ResourceClient<SubjectAccessReview>;
  /** Paths served without authorization (`--authorization-always-allow-paths`). */
  alwaysAllowPaths: readonly string[];
  /** For the caches' expiry. */
  clock: Clock;
  /** Where review failures are logged. */
  logger: Logger;
}

const cacheTTL = 10_000;

/**
 * Decides whether a request to the manager's endpoints may proceed.
 *
 * @category Endpoints
 */
export class DelegatingAuth {
  readonly #opts: DelegatingAuthOptions;
  readonly #tokens = new Map<string, { at: number; user: UserInfo | undefined }>();
  readonly #decisions = new Map<string, { at: number; allowed: boolean; reason: string }>();

  /** @param opts - the review clients, the allowed paths, a clock and a logger */
  constructor(opts: DelegatingAuthOptions) {
    this.#opts = opts;
  }

  /**
   * Resolves with the user when the request may proceed; rejects with a 401
   * or 403 {@link StatusError} otherwise.
   */
  async check(authorization: string | undefined, path: string): Promise<UserInfo> {
    const user = await this.#authenticate(authorization);
    if (this.#alwaysAllowed(path)) return user;
    const { allowed, reason } = await this.#authorize(user, path);
    if (!allowed) {
      throw newForbiddenPath(user.username, path, reason);
    }
    return user;
  }

  #alwaysAllowed(path: string): boolean {
    return this.#opts.alwaysAllowPaths.some((p) =>
      p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : p === path,
    );
  }

  async #authenticate(authorization: string | undefined): Promise<UserInfo> {
    const m = /^bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!authorization) return anonymousUser;
    if (!m?.[1]) throw newUnauthorized('Unauthorized');
    const token = m[1];
    const now = this.#opts.clock.now();
    const cached = this.#tokens.get(token);
    let user: UserInfo | undefined;
    if (cached && now - cached.at < cacheTTL) user = cached.user;
    else {
      try {
        const review = await this.#opts.tokenReviews.create({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token },
        });
        const u = review.status?.user;
        user =
          review.status?.authenticated && u?.username
            ? { username: u.username, groups: u.groups ?? [], ...(u.uid ? { uid: u.uid } : {}) }
            : undefined;
        this.#tokens.set(token, { at: now, user });
      } catch (err) {
        this.#opts.logger.error(err, 'Unable to authenticate the request');
        throw newUnauthorized('Unauthorized');
      }
    }
    if (!user) throw newUnauthorized('Unauthorized');
    return user;
  }

  async #authorize(user: UserInfo, path: string): Promise<{ allowed: boolean; reason: string }> {
    const key = JSON.stringify([user.username, user.groups, path]);
    const now = this.#opts.clock.now();
    const cached = this.#decisions.get(key);
    if (cached && now - cached.at < cacheTTL) return cached;
    try {
      const review = await this.#opts.subjectAccessReviews.create({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: user.username,
          groups: user.groups,
          ...(user.uid ? { uid: user.uid } : {}),
          nonResourceAttributes: { path, verb: 'get' },
        },
      });
      const decision = {
        at: now,
        allowed: review.status?.allowed === true && review.status.denied !== true,
        reason: review.status?.reason ?? '',
      };
      this.#decisions.set(key, decision);
      return decision;
    } catch (err) {
      this.#opts.logger.error(err, 'Unable to authorize the request', { path });
      return { allowed: false, reason: 'the authorization check failed' };
    }
  }
}

/** The 403 of the authorization filter for a non-resource path. */
function newForbiddenPath(username: string, path: string, reason: string): StatusError {
  const err = newForbidden(
    { group: '', resource: '' },
    '',
    new Error(
      `User ${JSON.stringify(username)} cannot get path ${JSON.stringify(path)}${reason ? `: ${reason}` : ''}`,
    ),
  );
  return err;
}
