// A caller's signal shared by many requests, as a controller passes its run
// signal to every call: the client keeps one 'abort' listener on it, not one
// per request, so Node never warns (MaxListenersExceededWarning) and a
// long-lived signal holds nothing once the requests are done; aborting it
// still stops every request and watch.
import { getEventListeners } from 'node:events';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ResourceClient } from '@kcm-ts/apimachinery';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { onAbort } from '../src/abort-listeners.js';
import { loadKubeConfig, newResourceClient } from '../src/index.js';
import { TestServer, kubeconfigFor, sendJson, tick, until } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await new TestServer().start();
});

afterEach(async () => {
  await server.close();
});

function pods(): ResourceClient<Pod> {
  return newResourceClient<Pod>(
    loadKubeConfig(kubeconfigFor(server.url)),
    { group: '', version: 'v1', resource: 'pods' },
    { namespaced: true, namespace: 'default' },
  );
}

/** Collects the process warnings emitted while `fn` runs (and one turn after). */
async function warningsDuring(fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (w: Error) => seen.push(`${w.name}: ${w.message}`);
  process.on('warning', listener);
  try {
    await fn();
    await tick();
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

const abortListeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('one signal, many requests', () => {
  it('100 concurrent requests on one signal add one listener and print no warning', async () => {
    const held: (() => void)[] = [];
    server.handler = (req, res) => {
      held.push(() =>
        sendJson(res, 200, { kind: 'Pod', apiVersion: 'v1', metadata: { name: req.path } }),
      );
    };
    const signal = new AbortController().signal;
    let during = -1;
    const warnings = await warningsDuring(async () => {
      const client = pods();
      const all = Promise.all(
        Array.from({ length: 100 }, (_, i) => client.get(`p-${i}`, { signal })),
      );
      await until(() => held.length === 100, 'all 100 requests to arrive');
      during = abortListeners(signal);
      for (const answer of held) answer();
      expect(await all).toHaveLength(100);
    });
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    expect(during).toBe(1);
    expect(abortListeners(signal)).toBe(0);
  });

  it('still stops every request in flight when that signal aborts', async () => {
    server.handler = () => {
      // never answers
    };
    const abort = new AbortController();
    const client = pods();
    const all = Array.from({ length: 30 }, (_, i) =>
      client.get(`p-${i}`, { signal: abort.signal }).catch((e: unknown) => e),
    );
    await until(() => server.requests.length === 30, 'all 30 requests to arrive');
    const reason = new Error('shutting down');
    abort.abort(reason);
    expect(await Promise.all(all)).toEqual(Array.from({ length: 30 }, () => reason));
    await until(() => server.openResponses === 0, 'the server to see every request closed');
  });

  it('holds one listener for many watches on one signal, and ends them all on abort', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('');
    };
    const abort = new AbortController();
    const client = pods();
    const warnings = await warningsDuring(async () => {
      const watches = await Promise.all(
        Array.from({ length: 20 }, () => client.watch({ signal: abort.signal })),
      );
      const drained = watches.map(async (w) => {
        let n = 0;
        for await (const _ of w) n++;
        return n;
      });
      expect(abortListeners(abort.signal)).toBe(1);
      abort.abort();
      expect(await Promise.all(drained)).toEqual(Array.from({ length: 20 }, () => 0));
    });
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    await until(() => server.openResponses === 0, 'the server to see every watch closed');
  });
});

describe('onAbort', () => {
  it('shares one listener, removes it with the last subscriber, and calls each once', () => {
    const abort = new AbortController();
    const calls: string[] = [];
    const offA = onAbort(abort.signal, () => calls.push('a'));
    const offB = onAbort(abort.signal, () => calls.push('b'));
    expect(abortListeners(abort.signal)).toBe(1);
    offA();
    expect(abortListeners(abort.signal)).toBe(1);
    offB();
    expect(abortListeners(abort.signal)).toBe(0);
    onAbort(abort.signal, () => calls.push('c'));
    onAbort(abort.signal, () => {
      throw new Error('a bad subscriber');
    });
    onAbort(abort.signal, () => calls.push('d'));
    abort.abort();
    expect(calls).toEqual(['c', 'd']);
    expect(abortListeners(abort.signal)).toBe(0);
    // Already aborted: called at once.
    onAbort(abort.signal, () => calls.push('e'));
    expect(calls).toEqual(['c', 'd', 'e']);
  });
});
