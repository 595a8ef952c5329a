// The secure port's delegated authentication and authorization under load
// a hostile client can make: answers cached in bounded LRU caches with
// expiry (webhook.go's NewLRUExpireCache(8192), 10 s TTLs), concurrent asks
// sharing one review, oversized attributes not cached, and a cap on the
// reviews one address (tokens) or one user (paths) may have in flight, so
// a flood of bogus tokens or anonymous paths cannot hold up an authorised
// scrape.
import type { TokenReview } from 'kubernetes-types/authentication/v1.js';
import type { SubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
import { describe, expect, it } from 'vitest';
import {
  FakeClock,
  isTooManyRequests,
  noopLogger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { DelegatingAuth } from '../src/server/delegated-auth.js';
import { LRUExpireCache } from '../src/server/lru-expire-cache.js';

/** Review clients whose answers the test releases by hand. */
function reviewers() {
  const pending: (() => void)[] = [];
  const counts = { token: 0, sar: 0 };
  let hold = false;
  const answer = <T>(value: T): Promise<T> =>
    hold ? new Promise((resolve) => pending.push(() => resolve(value))) : Promise.resolve(value);
  const tokenReviews = {
    create: (r: TokenReview) => {
      counts.token++;
      const good = r.spec.token === 'good';
      return answer<TokenReview>({
        ...r,
        status: good
          ? { authenticated: true, user: { username: 'scraper', groups: ['system:authenticated'] } }
          : { authenticated: false },
      });
    },
  } as unknown as ResourceClient<TokenReview>;
  const subjectAccessReviews = {
    create: (r: SubjectAccessReview) => {
      counts.sar++;
      return answer<SubjectAccessReview>({
        ...r,
        status: { allowed: r.spec.user === 'scraper' },
      });
    },
  } as unknown as ResourceClient<SubjectAccessReview>;
  return {
    counts,
    hold: (on: boolean) => (hold = on),
    release: () => pending.splice(0).forEach((f) => f()),
    pendingCount: () => pending.length,
    tokenReviews,
    subjectAccessReviews,
  };
}

function auth(r: ReturnType<typeof reviewers>, clock = new FakeClock(0)) {
  return new DelegatingAuth({
    tokenReviews: r.tokenReviews,
    subjectAccessReviews: r.subjectAccessReviews,
    alwaysAllowPaths: ['/healthz'],
    clock,
    logger: noopLogger,
    maxReviewsPerSource: 4,
  });
}

describe('LRUExpireCache', () => {
  it('evicts the least recently used entry when full and drops expired ones on read', () => {
    const clock = new FakeClock(0);
    const cache = new LRUExpireCache<string, number>(2, clock);
    cache.add('a', 1, 1000);
    cache.add('b', 2, 1000);
    expect(cache.get('a')).toBe(1);
    cache.add('c', 3, 1000);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.length).toBe(2);
    clock.setTime(1000);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.length).toBe(1);
    expect(() => new LRUExpireCache(0, clock)).toThrow('positive integer');
  });
});

describe('DelegatingAuth', () => {
  it('reviews a token and a path once per 10 s, and again after', async () => {
    const r = reviewers();
    const clock = new FakeClock(0);
    const a = auth(r, clock);
    for (let i = 0; i < 3; i++) await a.check('Bearer good', '/metrics', '10.0.0.1');
    expect(r.counts).toEqual({ token: 1, sar: 1 });
    clock.setTime(10_000);
    await a.check('Bearer good', '/metrics', '10.0.0.1');
    expect(r.counts).toEqual({ token: 2, sar: 2 });
  });

  it('shares one review among concurrent asks for the same answer', async () => {
    const r = reviewers();
    const a = auth(r);
    r.hold(true);
    const asks = Array.from({ length: 10 }, () => a.check('Bearer good', '/metrics', '10.0.0.1'));
    await Promise.resolve();
    r.release();
    await new Promise((resolve) => setImmediate(resolve));
    r.release();
    await Promise.all(asks);
    expect(r.counts).toEqual({ token: 1, sar: 1 });
  });

  it('answers 429 to an address with too many token reviews in flight, and serves another address', async () => {
    const r = reviewers();
    const a = auth(r);
    r.hold(true);
    const flood = Array.from({ length: 4 }, (_, i) =>
      a.check(`Bearer bogus-${i}`, '/metrics', '10.0.0.9').catch((e: unknown) => e),
    );
    const refused = await a
      .check('Bearer bogus-x', '/metrics', '10.0.0.9')
      .catch((e: unknown) => e);
    expect(isTooManyRequests(refused)).toBe(true);
    const scrape = a.check('Bearer good', '/metrics', '10.0.0.1');
    await new Promise((resolve) => setImmediate(resolve));
    r.hold(false);
    r.release();
    await expect(scrape).resolves.toMatchObject({ username: 'scraper' });
    const answers = await Promise.all(flood);
    expect(answers.every((e) => (e as { code?: number }).code === 401)).toBe(true);
    expect(r.counts.token).toBe(5);
  });

  it('caps one user’s access reviews in flight, so an anonymous flood of paths does not hold up another user', async () => {
    const r = reviewers();
    const a = auth(r);
    await a.check('Bearer good', '/metrics', '10.0.0.1');
    r.hold(true);
    const flood = Array.from({ length: 4 }, (_, i) =>
      a.check(undefined, `/debug/${i}`, '10.0.0.1').catch((e: unknown) => e),
    );
    expect(
      isTooManyRequests(await a.check(undefined, '/debug/x', '10.0.0.1').catch((e: unknown) => e)),
    ).toBe(true);
    const scrape = a.check('Bearer good', '/configz', '10.0.0.1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.pendingCount()).toBe(5);
    r.hold(false);
    r.release();
    await expect(scrape).resolves.toMatchObject({ username: 'scraper' });
    expect((await Promise.all(flood)).every((e) => (e as { code?: number }).code === 403)).toBe(
      true,
    );
  });

  it('keeps at most 8,192 answers, and does not cache an oversized path', async () => {
    const r = reviewers();
    const a = auth(r);
    for (let i = 0; i < 8200; i++)
      await a.check(undefined, `/p/${i}`, `10.0.${i % 200}.1`).catch(() => undefined);
    expect(r.counts.sar).toBe(8200);
    await a.check(undefined, '/p/8199', '10.0.0.1').catch(() => undefined);
    expect(r.counts.sar).toBe(8200);
    await a.check(undefined, '/p/0', '10.0.0.1').catch(() => undefined);
    expect(r.counts.sar).toBe(8201);
    const long = `/${'x'.repeat(10_001)}`;
    await a.check(undefined, long, '10.0.0.1').catch(() => undefined);
    await a.check(undefined, long, '10.0.0.1').catch(() => undefined);
    expect(r.counts.sar).toBe(8203);
  });
});
