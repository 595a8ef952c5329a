// The fault lab, seen from a real HTTP client.
import { FakeClock, newTooManyRequests } from '@kcm-ts/apimachinery';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/index.js';
import { call } from './http-helpers.js';

const running: Sandbox[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

async function sandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const s = await startSandbox({ insecureHttp: true, ...opts });
  running.push(s);
  return s;
}

const cm = (name: string): string => JSON.stringify({ metadata: { name }, data: { k: 'v' } });
const cms = '/api/v1/namespaces/default/configmaps';

interface OpenWatch {
  /** The event lines received so far. */
  lines: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens a watch over plain HTTP and collects its lines as they arrive. */
function openWatch(s: Sandbox, query: string): Promise<OpenWatch> {
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    let buffered = '';
    const req = request(`${s.url}${cms}?watch=true&${query}`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    req.on('response', (res) => {
      res.setEncoding('utf8');
      const ended = new Promise<void>((done) => res.on('end', done).on('close', done));
      res.on('data', (chunk: string) => {
        buffered += chunk;
        const parts = buffered.split('\n');
        buffered = parts.pop() ?? '';
        lines.push(...parts.filter((l) => l !== ''));
      });
      resolve({ lines, ended, close: () => req.destroy() });
    });
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end();
  });
}

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 20));

describe('failNext', () => {
  it('answers the next matching requests with 503, then serves normally', async () => {
    const s = await sandbox();
    s.faults.failNext(2, { code: 503 }, { verbs: ['list'], resource: 'configmaps' });
    expect((await call(s, 'GET', '/api/v1/namespaces/default/pods')).status).toBe(200);
    const first = await call(s, 'GET', cms);
    expect(first.status).toBe(503);
    expect(first.json()).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
    expect((await call(s, 'GET', cms)).status).toBe(503);
    expect((await call(s, 'GET', cms)).status).toBe(200);
  });

  it('answers 429 with Retry-After and details.retryAfterSeconds, as kube-apiserver does', async () => {
    const s = await sandbox();
    s.faults.failNext(1, { code: 429, retryAfterSeconds: 3 });
    const res = await call(s, 'POST', cms, { body: cm('a') });
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('3');
    expect(res.json()).toMatchObject({
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 3 },
    });
    expect(res.json()).toEqual(newTooManyRequests(res.json().message, 3).toStatus());
    // Nothing was written.
    expect((await call(s, 'GET', `${cms}/a`)).status).toBe(404);
  });

  it('answers 500 InternalError, and fails a watch before its stream starts', async () => {
    const s = await sandbox();
    s.faults.failNext(1, { code: 500 }, { verbs: ['watch'] });
    const res = await call(s, 'GET', `${cms}?watch=true`);
    expect(res.status).toBe(500);
    expect(res.json()).toMatchObject({ reason: 'InternalError', code: 500 });
  });
});

describe('conflictNext', () => {
  it('answers the next writes with 409 Conflict naming the object', async () => {
    const s = await sandbox();
    expect((await call(s, 'POST', cms, { body: cm('a') })).status).toBe(201);
    s.faults.conflictNext(1, { resource: 'configmaps' });
    expect((await call(s, 'GET', `${cms}/a`)).status).toBe(200); // reads are not writes
    const res = await call(s, 'PUT', `${cms}/a`, { body: cm('a') });
    expect(res.status).toBe(409);
    expect(res.json()).toMatchObject({
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
    });
    expect((await call(s, 'PUT', `${cms}/a`, { body: cm('a') })).status).toBe(200);
  });
});

describe('latency', () => {
  it('holds matching requests until the sandbox clock has moved on', async () => {
    const clock = new FakeClock();
    const s = await sandbox({ clock });
    s.faults.latency(5000, { verbs: ['get'] });
    let answered = false;
    const pending = call(s, 'GET', '/api/v1/namespaces/default').then((r) => {
      answered = true;
      return r;
    });
    expect((await call(s, 'GET', cms)).status).toBe(200); // a list is not delayed
    await settle();
    expect(answered).toBe(false);
    clock.step(5000);
    expect((await pending).status).toBe(200);
    s.faults.latency(0);
    expect((await call(s, 'GET', '/api/v1/namespaces/default')).status).toBe(200);
  });
});

describe('watches', () => {
  it('drops open watches of one resource, ending their streams cleanly', async () => {
    const s = await sandbox();
    const w = await openWatch(s, 'resourceVersion=0');
    await call(s, 'POST', cms, { body: cm('a') });
    await settle();
    expect(w.lines).toHaveLength(1);
    expect(s.faults.openWatches()).toBe(1);
    expect(s.faults.dropWatches('pods')).toBe(0);
    expect(s.faults.dropWatches('configmaps')).toBe(1);
    await w.ended;
    expect(s.faults.openWatches()).toBe(0);
    expect(s.faults.dropWatches()).toBe(0);
  });

  it('hangs watches: open, silent past their timeout, until released and dropped', async () => {
    const clock = new FakeClock();
    const s = await sandbox({ clock, bookmarkInterval: 1000 });
    s.faults.hangWatches('configmaps');
    const w = await openWatch(s, 'resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=5');
    await call(s, 'POST', cms, { body: cm('a') });
    clock.step(10_000); // bookmarks due, and the timeout passed
    await settle();
    expect(w.lines).toEqual([]);
    let ended = false;
    void w.ended.then(() => (ended = true));
    await settle();
    expect(ended).toBe(false);
    s.faults.releaseWatches();
    await w.ended;
    // New watches are served normally again.
    const next = await openWatch(s, 'resourceVersion=0');
    await settle();
    expect(next.lines.map((l) => JSON.parse(l).type)).toEqual(['ADDED']);
    next.close();
  });

  it('compacts the history, so a resuming watch gets 410 Expired', async () => {
    const s = await sandbox();
    const list = (await call(s, 'GET', cms)).json();
    await call(s, 'POST', cms, { body: cm('a') });
    s.faults.compact();
    const res = await call(
      s,
      'GET',
      `${cms}?watch=true&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=1`,
    );
    const event = JSON.parse(res.text.trim().split('\n')[0] ?? '{}');
    expect(event).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
  });
});

describe('restart', () => {
  it('cuts every connection, refuses new ones while down, and comes back on the same port with the data', async () => {
    const s = await sandbox();
    await call(s, 'POST', cms, { body: cm('a') });
    const w = await openWatch(s, 'resourceVersion=0');
    let refused: unknown;
    await s.restart(async () => {
      refused = await call(s, 'GET', cms).catch((err: unknown) => err);
    });
    await w.ended;
    expect((refused as { code?: string }).code).toBe('ECONNREFUSED');
    const res = await call(s, 'GET', `${cms}/a`);
    expect(res.status).toBe(200);
    expect(new URL(s.url).port).toBe(String(s.port));
  });
});

describe('request counts', () => {
  it('counts requests by verb and resource, and starts afresh on reset', async () => {
    const s = await sandbox();
    await call(s, 'GET', cms);
    await call(s, 'GET', cms);
    await call(s, 'POST', cms, { body: cm('a') });
    await call(s, 'PATCH', `${cms}/a`, {
      body: '{"data":{"k":"w"}}',
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    await call(s, 'DELETE', `${cms}/a`);
    expect(s.faults.counts()).toEqual({
      'list configmaps': 2,
      'create configmaps': 1,
      'patch configmaps': 1,
      'delete configmaps': 1,
    });
    s.faults.resetCounts();
    expect(s.faults.counts()).toEqual({});
  });

  it('clear disarms planned failures and latency', async () => {
    const s = await sandbox();
    s.faults.failNext(5, { code: 500 });
    s.faults.clear();
    expect((await call(s, 'GET', cms)).status).toBe(200);
  });
});
