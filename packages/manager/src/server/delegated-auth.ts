// Authentication and authorization delegated to the API server, as
// kube-controller-manager's secure port does
// (staging/src/k8s.io/apiserver/pkg/authentication/authenticatorfactory/
// delegating.go with webhook token review, pkg/authorization/
// authorizerfactory/delegating.go with SubjectAccessReviews, and
// controller-manager/app/serve.go BuildHandlerChain): a bearer token is
// checked with a TokenReview, a request without one is `system:anonymous`,
// and every path outside `--authorization-always-allow-paths` needs a
// SubjectAccessReview for `get` on that path. Answers are cached for 10 s
// in LRU caches of 8,192 entries (webhook.go's `NewLRUExpireCache(8192)`;
// attributes over 10,000 bytes are not cached, as `maxControlledAttrCacheSize`
// says), and concurrent asks for the same answer share one review, as the
// token cache's singleflight does. At most `maxReviewsPerSource` reviews
// may be in flight for one client address (token reviews) or one user
// (access reviews); more answer 429: the manager's stand-in for the
// fairness kube-apiserver's priority and fairness gives, so one client's
// flood of new tokens or paths cannot queue everybody else's reviews.
import type { TokenReview } from 'kubernetes-types/authentication/v1.js';
import type { SubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
import {
  newForbidden,
  newTooManyRequests,
  newUnauthorized,
  type Clock,
  type Logger,
  type ResourceClient,
  type StatusError,
} from '@kcm-ts/apimachinery';
import { LRUExpireCache } from './lru-expire-cache.js';

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
  /** Reviews one client address or user may have in flight; more answer 429. Default {@link maxReviewsPerSource}. */
  maxReviewsPerSource?: number;
}

const cacheTTL = 10_000;
const cacheSize = 8192;
const maxControlledAttrCacheSize = 10_000;

/**
 * Reviews one client address (token reviews) or one user (access reviews)
 * may have waiting on the API server at once: beyond it, the request is
 * answered 429 with `Retry-After: 1`.
 *
 * @category Endpoints
 */
export const maxReviewsPerSource = 16;

interface Decision {
  allowed: boolean;
  reason: string;
}

/**
 * Decides whether a request to the manager's endpoints may proceed.
 *
 * @category Endpoints
 */
export class DelegatingAuth {
  readonly #opts: DelegatingAuthOptions;
  readonly #tokens: LRUExpireCache<string, UserInfo | null>;
  readonly #decisions: LRUExpireCache<string, Decision>;
  readonly #inflight = new Map<string, Promise<unknown>>();
  readonly #perSource = new Map<string, number>();
  readonly #maxPerSource: number;

  /** @param opts - the review clients, the allowed paths, a clock and a logger */
  constructor(opts: DelegatingAuthOptions) {
    this.#opts = opts;
    this.#tokens = new LRUExpireCache(cacheSize, opts.clock);
    this.#decisions = new LRUExpireCache(cacheSize, opts.clock);
    this.#maxPerSource = opts.maxReviewsPerSource ?? maxReviewsPerSource;
  }

  /**
   * Resolves with the user when the request may proceed; rejects with a 401
   * or 403 {@link StatusError} otherwise, or 429 when `source` (the
   * client's address) already has too many token reviews in flight, or the
   * user too many access reviews.
   */
  async check(authorization: string | undefined, path: string, source = ''): Promise<UserInfo> {
    const user = await this.#authenticate(authorization, source);
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

  /**
   * Runs `review` once for all concurrent callers with the same key,
   * counting it against `source`'s reviews in flight.
   */
  async #shared<R>(key: string, source: string, review: () => Promise<R>): Promise<R> {
    const running = this.#inflight.get(key);
    if (running) return running as Promise<R>;
    const count = this.#perSource.get(source) ?? 0;
    if (count >= this.#maxPerSource) {
      throw newTooManyRequests('Too many requests, please try again later.', 1);
    }
    this.#perSource.set(source, count + 1);
    const done = review().finally(() => {
      this.#inflight.delete(key);
      const left = (this.#perSource.get(source) ?? 1) - 1;
      if (left > 0) this.#perSource.set(source, left);
      else this.#perSource.delete(source);
    });
    this.#inflight.set(key, done);
    return done;
  }

  async #authenticate(authorization: string | undefined, source: string): Promise<UserInfo> {
    const m = /^bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!authorization) return anonymousUser;
    if (!m?.[1]) throw newUnauthorized('Unauthorized');
    const token = m[1];
    let user = this.#tokens.get(token);
    if (user === undefined) {
      user = await this.#shared(`token\0${token}`, `addr\0${source}`, async () => {
        try {
          const review = await this.#opts.tokenReviews.create({
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenReview',
            spec: { token },
          });
          const u = review.status?.user;
          const found: UserInfo | null =
            review.status?.authenticated && u?.username
              ? { username: u.username, groups: u.groups ?? [], ...(u.uid ? { uid: u.uid } : {}) }
              : null;
          this.#tokens.add(token, found, cacheTTL);
          return found;
        } catch (err) {
          this.#opts.logger.error(err, 'Unable to authenticate the request');
          throw newUnauthorized('Unauthorized');
        }
      });
    }
    if (!user) throw newUnauthorized('Unauthorized');
    return user;
  }

  async #authorize(user: UserInfo, path: string): Promise<Decision> {
    const key = JSON.stringify([user.username, user.uid ?? '', user.groups, path]);
    const cacheable = key.length <= maxControlledAttrCacheSize;
    const cached = cacheable ? this.#decisions.get(key) : undefined;
    if (cached) return cached;
    return this.#shared(`sar\0${key}`, `user\0${user.username}`, async () => {
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
        const decision: Decision = {
          allowed: review.status?.allowed === true && review.status.denied !== true,
          reason: review.status?.reason ?? '',
        };
        if (cacheable) this.#decisions.add(key, decision, cacheTTL);
        return decision;
      } catch (err) {
        this.#opts.logger.error(err, 'Unable to authorize the request', { path });
        return { allowed: false, reason: 'the authorization check failed' };
      }
    });
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
