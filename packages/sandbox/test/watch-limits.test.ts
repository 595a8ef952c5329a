// Reads from a resourceVersion the server has not reached (an informer that
// outlived a restart) get kube-apiserver's "Too large resource version"
// answer, so client-go's reflector lists afresh; and a watcher that stops
// reading is cut off instead of growing the server's memory.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { maxQueuedEvents } from '../src/apiserver/storage/watch.js';
import { startSandbox } from '../src/index.js';
import { configMap, drain, newRegistry } from './helpers.js';
import { call, watchLines } from './http-helpers.js';

const CMS = '/api/v1/namespaces/default/configmaps';

describe('a resourceVersion beyond the current one', () => {
  it('lists with 504 Timeout, a ResourceVersionTooLarge cause and Retry-After from the cache', async () => {
    const sandbox = await startSandbox({ insecureHttp: true });
    try {
      const current = sandbox.registry.storage.currentRevision();
      const res = await call(sandbox, 'GET', `${CMS}?resourceVersion=${current + 50}`);
      expect(res.status).toBe(504);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `Timeout: Too large resource version: ${current + 50}, current: ${current}`,
        reason: 'Timeout',
        details: {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
          retryAfterSeconds: 1,
        },
        code: 504,
      });
      // A page is read from etcd, which names no retry delay.
      const page = await call(sandbox, 'GET', `${CMS}?limit=5&resourceVersion=${current + 50}`);
      expect(page.status).toBe(504);
      expect(page.headers['retry-after']).toBeUndefined();
      expect(page.json().details).toEqual({
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      });
      // An exact read of the future is etcd's error.
      const exact = await call(
        sandbox,
        'GET',
        `${CMS}?resourceVersion=${current + 50}&resourceVersionMatch=Exact`,
      );
      expect(exact.status).toBe(500);
      expect(exact.json().message).toBe('etcdserver: mvcc: required revision is a future revision');
    } finally {
      await sandbox.stop();
    }
  });

  it('watches with one ERROR event carrying the same Status', async () => {
    const sandbox = await startSandbox({ insecureHttp: true });
    try {
      const current = sandbox.registry.storage.currentRevision();
      for (const query of [
        `watch=true&resourceVersion=${current + 7}`,
        `watch=true&resourceVersion=${current + 7}&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
      ]) {
        const { status, lines } = await watchLines(sandbox, `${CMS}?${query}`, 2);
        expect(status).toBe(200);
        expect(lines).toEqual([
          {
            type: 'ERROR',
            object: {
              kind: 'Status',
              apiVersion: 'v1',
              metadata: {},
              status: 'Failure',
              message: `Timeout: Too large resource version: ${current + 7}, current: ${current}`,
              reason: 'Timeout',
              details: {
                causes: [
                  { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
                ],
                retryAfterSeconds: 1,
              },
              code: 504,
            },
          },
        ]);
      }
    } finally {
      await sandbox.stop();
    }
  });

  it('does the same in process', async () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    const rv = String(registry.storage.currentRevision() + 1);
    const [event] = await drain(registry.watch(cms, 'default', { resourceVersion: rv }), 2);
    expect(event?.type).toBe('ERROR');
    expect(event?.object).toMatchObject({ code: 504, reason: 'Timeout' });
  });
});

describe('a watcher that stops reading', () => {
  it('is closed once the data waiting for it passes the bound', async () => {
    const sandbox = await startSandbox({ insecureHttp: true });
    try {
      // A raw client that sends the watch and then reads nothing for a while.
      const socket = connect(sandbox.port, '127.0.0.1');
      socket.pause();
      socket.on('error', () => {});
      socket.write(
        `GET ${CMS}?watch=true HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sandbox.token}\r\n\r\n`,
      );
      await new Promise((r) => setTimeout(r, 100));
      const cms = sandbox.client('', 'configmaps').inNamespace('default');
      const filler = 'f'.repeat(900_000);
      await cms.create({ metadata: { name: 'big' }, data: { v: filler } } as never);
      // 40 events of ~900 KB: 36 MB, far past the 8 MiB bound and the socket buffers.
      for (let i = 0; i < 40; i++) {
        await cms.update({ metadata: { name: 'big' }, data: { v: `${filler}${i}` } } as never);
        await new Promise((r) => setImmediate(r));
      }
      // Now it reads: it gets what was buffered before the cut, then the end.
      let received = 0;
      socket.on('data', (d: Buffer) => (received += d.length));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.resume();
      await closed;
      expect(received).toBeGreaterThan(0);
      expect(received).toBeLessThan(30 * 900_000);
      // The server goes on serving others.
      expect((await call(sandbox, 'GET', `${CMS}/big`)).status).toBe(200);
    } finally {
      await sandbox.stop();
    }
  });

  it('ends an in-process watch whose consumer falls too far behind', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    registry.create(cms, 'default', configMap('c', { n: '0' }));
    const watch = registry.watch(cms, 'default', {
      resourceVersion: String(registry.storage.currentRevision()),
    });
    for (let i = 1; i <= maxQueuedEvents; i++) {
      registry.patch(cms, 'default', 'c', { type: 'merge', body: { data: { n: String(i) } } });
    }
    expect(watch.stopped).toBe(false);
    registry.patch(cms, 'default', 'c', { type: 'merge', body: { data: { n: 'last' } } });
    expect(watch.stopped).toBe(true);
  });
});
