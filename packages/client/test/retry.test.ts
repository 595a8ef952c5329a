// Retries as client-go's REST client makes them (rest/with_retry.go and the
// loops of rest/request.go, with the cases of with_retry_test.go and
// request_test.go's TestRequestWithRetry / TestRequestDoWithRetry): a 429, or
// a 5xx with Retry-After, is sent again after the seconds it names, up to 10
// times, for every method; a GET whose connection broke is sent again after a
// second, a write is not. Then the sandbox's priority and fairness, whose
// 429s with Retry-After a client answers the same way.
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  isInternalError,
  isTooManyRequests,
  type ResourceClient,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createClient,
  defaultMaxRetries,
  loadKubeConfig,
  newResourceClient,
} from '../src/index.js';
import { checkWait } from '../src/with-retry.js';
import { TestServer, kubeconfigFor, sendJson, statusBody, tick, until } from './helpers.js';

const podsGvr = { group: '', version: 'v1', resource: 'pods' };

const pod = (name: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', resourceVersion: '5' },
});

describe('retries against a counting server', () => {
  let server: TestServer;
  let clock: FakeClock;

  beforeEach(async () => {
    server = await new TestServer().start();
    clock = new FakeClock();
  });

  afterEach(async () => {
    await server.close();
  });

  function pods(maxRetries?: number): ResourceClient<Pod> {
    return newResourceClient<Pod>(loadKubeConfig(kubeconfigFor(server.url)), podsGvr, {
      namespaced: true,
      namespace: 'default',
      kind: 'Pod',
      clock,
      ...(maxRetries === undefined ? {} : { maxRetries }),
    });
  }

  /** Answers the first `n` requests with `code` and `headers`, then serves `pod`. */
  function failFirst(n: number, code: number, headers: Record<string, string>): void {
    server.handler = (req, res) => {
      if (server.requests.length <= n) {
        sendJson(res, code, statusBody(code, 'TooManyRequests', 'slow down'), headers);
      } else {
        sendJson(res, req.method === 'POST' ? 201 : 200, pod('web'));
      }
    };
  }

  it('waits the seconds of Retry-After on the clock, then sends the request again', async () => {
    failFirst(2, 429, { 'Retry-After': '2' });
    const got = pods().get('web');
    await until(() => server.requests.length === 1, 'the first attempt');
    await clock.advance(1999);
    await tick();
    expect(server.requests).toHaveLength(1);
    await clock.advance(1);
    await until(() => server.requests.length === 2, 'the second attempt');
    await clock.advance(2000);
    expect((await got).metadata?.name).toBe('web');
    expect(server.requests).toHaveLength(3);
    // The refused answers were read to the end: one connection served all three.
    expect(server.connections).toBe(1);
  });

  it('retries a create the server refused with 429: it was never applied', async () => {
    failFirst(1, 429, { 'Retry-After': '1' });
    const created = pods().create(pod('web'));
    await until(() => server.requests.length === 1, 'the first attempt');
    await clock.advance(1000);
    expect((await created).metadata?.name).toBe('web');
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(server.requests[1]?.body).toBe(server.requests[0]?.body);
  });

  it('retries a 5xx only when it carries Retry-After', async () => {
    failFirst(1, 503, { 'Retry-After': '1' });
    const got = pods().get('web');
    await until(() => server.requests.length === 1, 'the first attempt');
    await clock.advance(1000);
    await expect(got).resolves.toMatchObject({ metadata: { name: 'web' } });

    server.requests.length = 0;
    server.handler = (_req, res) => sendJson(res, 500, statusBody(500, 'InternalError', 'boom'));
    const err = await pods()
      .get('web')
      .catch((e: unknown) => e);
    expect(isInternalError(err)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry other codes, Retry-After or not', async () => {
    server.handler = (_req, res) =>
      sendJson(res, 409, statusBody(409, 'Conflict', 'stale'), { 'Retry-After': '1' });
    await expect(pods().update(pod('web'))).rejects.toMatchObject({ code: 409 });
    expect(server.requests).toHaveLength(1);
  });

  it('gives up after 10 retries with the last answer', async () => {
    expect(defaultMaxRetries).toBe(10);
    server.handler = (_req, res) =>
      sendJson(res, 429, statusBody(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '1' });
    const got = pods()
      .list()
      .catch((e: unknown) => e);
    for (let i = 1; i <= 10; i++) {
      await until(() => server.requests.length === i, `attempt ${i}`);
      await clock.advance(1000);
    }
    const err = await got;
    expect(isTooManyRequests(err)).toBe(true);
    expect(server.requests).toHaveLength(11);
  });

  it('retries as often as maxRetries says; 0 sends once', async () => {
    server.handler = (_req, res) =>
      sendJson(res, 429, statusBody(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '1' });
    await expect(pods(0).get('web')).rejects.toMatchObject({ code: 429 });
    expect(server.requests).toHaveLength(1);

    server.requests.length = 0;
    const got = pods(2)
      .get('web')
      .catch((e: unknown) => e);
    for (let i = 1; i <= 2; i++) {
      await until(() => server.requests.length === i, `attempt ${i}`);
      await clock.advance(1000);
    }
    expect(isTooManyRequests(await got)).toBe(true);
    expect(server.requests).toHaveLength(3);
    expect(() =>
      newResourceClient(loadKubeConfig(kubeconfigFor(server.url)), podsGvr, {
        namespaced: true,
        maxRetries: -1,
      }),
    ).toThrow(RangeError);
  });

  it('sends a GET again after a second when its connection breaks, never a write', async () => {
    let broken = 1;
    server.handler = (req, res) => {
      if (broken > 0) {
        broken--;
        res.socket?.destroy();
        return;
      }
      sendJson(res, 200, pod('web'));
    };
    const got = pods().get('web');
    await until(() => server.requests.length === 1, 'the first attempt');
    await tick();
    await clock.advance(1000);
    await expect(got).resolves.toMatchObject({ metadata: { name: 'web' } });
    expect(server.requests).toHaveLength(2);

    server.requests.length = 0;
    broken = 1;
    await expect(pods().create(pod('web'))).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(server.requests).toHaveLength(1);
  });

  it('sends a GET again at once when a kept-alive connection turns out closed, as net/http does', async () => {
    let served = 0;
    server.handler = (_req, res) => {
      served++;
      // The second request arrives on the first one's connection: close it unanswered.
      if (served === 2) {
        res.socket?.destroy();
        return;
      }
      sendJson(res, 200, pod('web'));
    };
    const client = pods();
    await client.get('web');
    // No clock step: this retry does not wait.
    await expect(client.get('web')).resolves.toMatchObject({ metadata: { name: 'web' } });
    expect(server.requests).toHaveLength(3);
    expect(server.connections).toBe(2);
  });

  it('stops waiting when the signal aborts, with its reason, and leaves no timer', async () => {
    failFirst(5, 429, { 'Retry-After': '30' });
    const abort = new AbortController();
    const got = pods()
      .get('web', { signal: abort.signal })
      .catch((e: unknown) => e);
    await until(() => server.requests.length === 1, 'the first attempt');
    await until(() => clock.hasWaiters(), 'the wait');
    const reason = new Error('stopped');
    abort.abort(reason);
    expect(await got).toBe(reason);
    expect(clock.hasWaiters()).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a watch the server refused, then streams it', async () => {
    server.handler = (_req, res) => {
      if (server.requests.length === 1) {
        sendJson(res, 429, statusBody(429, 'TooManyRequests', 'slow down'), {
          'Retry-After': '1',
        });
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(`${JSON.stringify({ type: 'ADDED', object: pod('web') })}\n`);
    };
    const watching = pods().watch({ resourceVersion: '1' });
    await until(() => server.requests.length === 1, 'the first attempt');
    await clock.advance(1000);
    const events: WatchEvent<Pod>[] = [];
    for await (const e of await watching) events.push(e);
    expect(events.map((e) => e.type)).toEqual(['ADDED']);
    expect(server.requests).toHaveLength(2);
  });

  it('reads Retry-After as client-go does: 429 or 5xx, whole seconds', () => {
    expect(checkWait(429, '3')).toBe(3);
    expect(checkWait(500, '0')).toBe(0);
    expect(checkWait(503, '2')).toBe(2);
    expect(checkWait(503, undefined)).toBeUndefined();
    expect(checkWait(429, 'Wed, 21 Oct 2015 07:28:00 GMT')).toBeUndefined();
    expect(checkWait(409, '1')).toBeUndefined();
    expect(checkWait(200, '1')).toBeUndefined();
  });
});

describe("the sandbox's priority and fairness", () => {
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await sandbox?.stop();
    sandbox = undefined;
  });

  it('creates all of a batch of 360 pods: the 11 its level can neither run nor queue are refused with 429 and sent again', async () => {
    const clock = new FakeClock();
    const answers: number[] = [];
    sandbox = await startSandbox({
      clock,
      insecureHttp: true,
      onRequest: (method, url, code) => {
        if (method === 'POST' && url.includes('/pods')) answers.push(code);
      },
    });
    // Each create is held 100 ms (fake): the admin's 49 seats of global-default
    // fill, 300 wait in the six queues of its flow, and the rest are refused.
    sandbox.faults.latency(100, { verbs: ['create'], resource: 'pods' });
    const client = createClient(sandbox.kubeconfigObject, { clock });
    const pods = client.pods.inNamespace('default');
    const results = Promise.allSettled(
      Array.from({ length: 360 }, (_, i) =>
        pods.create({
          metadata: { name: `p-${i}` },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        }),
      ),
    );
    const s = sandbox;
    await until(
      () => (s.faults.counts()['create pods'] ?? 0) === 49 && answers.length === 11,
      '49 creates admitted and 11 refused',
    );
    expect(answers.every((code) => code === 429)).toBe(true);
    for (let t = 0; t < 3000; t += 100) await clock.advance(100);
    const settled = await results;
    expect(settled.filter((r) => r.status === 'rejected')).toEqual([]);
    expect((await pods.list()).items).toHaveLength(360);
    expect(answers.filter((code) => code === 429)).toHaveLength(11);
    expect(answers.filter((code) => code === 201)).toHaveLength(360);
  });
});
