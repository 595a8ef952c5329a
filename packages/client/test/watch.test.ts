// Watches over a real HTTP connection: the query a watch sends, events
// decoded from a newline-delimited stream however it is cut into chunks, and
// every way a watch ends (abort, leaving the loop, ERROR, the server closing).
import type http from 'node:http';
import { promiseHooks } from 'node:v8';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import {
  StatusError,
  isResourceExpired,
  type ListOptions,
  type ResourceClient,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadKubeConfig, newResourceClient, type DecodeHints } from '../src/index.js';
import { decodeWatchLine } from '../src/watch-stream.js';
import { TestServer, kubeconfigFor, sendJson, statusBody, tick, until } from './helpers.js';

let server: TestServer;
/** The response of the watch in progress, to write events to. */
let stream: http.ServerResponse | undefined;

beforeEach(async () => {
  server = await new TestServer().start();
  stream = undefined;
  server.handler = (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
    stream = res;
  };
});

afterEach(async () => {
  await server.close(); // fails the test if a watch was left open
});

function configMaps(): ResourceClient<ConfigMap> {
  return newResourceClient<ConfigMap>(
    loadKubeConfig(kubeconfigFor(server.url)),
    { group: '', version: 'v1', resource: 'configmaps' },
    { namespaced: true, namespace: 'default', kind: 'ConfigMap' },
  );
}

const cm = (name: string, rv: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', resourceVersion: rv },
  data: { note: 'naïve café ☕' },
});

const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;

const expired = statusBody(410, 'Expired', 'too old resource version: 5 (1234)');

/** The response the watch is writing to, once the server has it. */
async function serverSide(): Promise<http.ServerResponse> {
  await until(() => stream !== undefined, 'the watch request arrives');
  return stream as http.ServerResponse;
}

/** Reads every event until the iterable ends. */
async function drain<T>(events: AsyncIterable<WatchEvent<T>>): Promise<WatchEvent<T>[]> {
  const seen: WatchEvent<T>[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('watch requests', () => {
  it('send watch=true with the list options, keeping set zero values of pointer fields', async () => {
    const controller = new AbortController();
    await configMaps().watch({
      labelSelector: 'app=web',
      fieldSelector: 'metadata.name=a',
      resourceVersion: '10',
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: true,
      timeoutSeconds: 0,
      sendInitialEvents: false,
      signal: controller.signal,
    });
    expect(server.last.path).toBe('/api/v1/namespaces/default/configmaps');
    expect(Object.fromEntries(server.last.query)).toEqual({
      watch: 'true',
      labelSelector: 'app=web',
      fieldSelector: 'metadata.name=a',
      resourceVersion: '10',
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: 'true',
      timeoutSeconds: '0',
      sendInitialEvents: 'false',
    });
    expect(server.last.headers.authorization).toBe('Bearer test-token');
    controller.abort();
  });

  it('watch all namespaces from an unscoped client', async () => {
    const controller = new AbortController();
    await configMaps().inNamespace('').watch({ signal: controller.signal });
    expect(server.last.path).toBe('/api/v1/configmaps');
    expect(server.last.search).toBe('?watch=true');
    controller.abort();
  });
});

describe('watch streams', () => {
  it('yield each event as it arrives, before the stream ends', async () => {
    const controller = new AbortController();
    const events = await configMaps().watch({ signal: controller.signal });
    const it = events[Symbol.asyncIterator]();
    const res = await serverSide();

    res.write(line('ADDED', cm('a', '11')));
    expect(await it.next()).toEqual({
      done: false,
      value: { type: 'ADDED', object: cm('a', '11') },
    });
    res.write(line('MODIFIED', cm('a', '12')));
    expect(await it.next()).toEqual({
      done: false,
      value: { type: 'MODIFIED', object: cm('a', '12') },
    });
    controller.abort();
    expect(await it.next()).toEqual({ done: true, value: undefined });
  });

  it('decode events cut anywhere: mid-object, mid-character, several to a chunk', async () => {
    const events = await configMaps().watch();
    const res = await serverSide();
    const wire = Buffer.from(
      [
        line('ADDED', cm('a', '11')),
        '\n', // blank lines are skipped
        line('MODIFIED', cm('a', '12')),
        line('BOOKMARK', {
          kind: 'ConfigMap',
          apiVersion: 'v1',
          metadata: { resourceVersion: '13' },
        }),
        line('DELETED', cm('a', '14')),
      ].join(''),
      'utf8',
    );
    // Cut into 7-byte pieces: every boundary, including inside the multi-byte
    // characters of the data, falls somewhere mid-chunk.
    const done = drain(events);
    for (let at = 0; at < wire.length; at += 7) {
      res.write(wire.subarray(at, at + 7));
      await tick();
    }
    res.end();
    expect(await done).toEqual([
      { type: 'ADDED', object: cm('a', '11') },
      { type: 'MODIFIED', object: cm('a', '12') },
      {
        type: 'BOOKMARK',
        object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '13' } },
      },
      { type: 'DELETED', object: cm('a', '14') },
    ]);
  });

  it('decode many events written at once, and a large object in many pieces', async () => {
    const events = await configMaps().watch();
    const res = await serverSide();
    const big = { ...cm('big', '99'), data: { blob: 'x'.repeat(300_000) } };
    const many = Array.from({ length: 50 }, (_, i) => line('ADDED', cm(`c${i}`, `${i + 1}`)));
    const done = drain(events);
    res.write(many.join(''));
    const bigLine = Buffer.from(line('MODIFIED', big));
    for (let at = 0; at < bigLine.length; at += 16_384) {
      res.write(bigLine.subarray(at, at + 16_384));
    }
    res.end();
    const seen = await done;
    expect(seen).toHaveLength(51);
    expect(seen.at(-1)).toEqual({ type: 'MODIFIED', object: big });
  });

  it('end when the server closes the stream, counting a last event without its newline', async () => {
    const events = await configMaps().watch();
    const res = await serverSide();
    res.write(line('ADDED', cm('a', '11')));
    res.end(JSON.stringify({ type: 'DELETED', object: cm('a', '12') }));
    expect(await drain(events)).toEqual([
      { type: 'ADDED', object: cm('a', '11') },
      { type: 'DELETED', object: cm('a', '12') },
    ]);
  });

  it('end quietly when the stream stops mid-event or the connection breaks', async () => {
    let events = await configMaps().watch();
    let res = await serverSide();
    res.write(line('ADDED', cm('a', '11')));
    res.end('{"type":"MODIFIED","object":{"metadata":');
    expect(await drain(events)).toEqual([{ type: 'ADDED', object: cm('a', '11') }]);

    stream = undefined;
    events = await configMaps().watch();
    res = await serverSide();
    res.write(line('ADDED', cm('b', '21')));
    const done = drain(events);
    await tick();
    res.socket?.destroy();
    expect(await done).toEqual([{ type: 'ADDED', object: cm('b', '21') }]);
  });
});

describe('watch stream costs', () => {
  it('delivers thousands of events in order through the read pause, about 2 promises each', async () => {
    const events = await configMaps().watch();
    const res = await serverSide();
    const n = 3000;
    let body = '';
    for (let i = 0; i < n; i++) body += line('ADDED', cm(`c${i}`, String(i + 1)));
    res.end(body);
    const iterator = events[Symbol.asyncIterator]();
    // Wait until everything is read or the reader has paused: the events are at hand.
    await tick();
    let promises = 0;
    const stop = promiseHooks.onInit(() => void promises++);
    const names: string[] = [];
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) break;
        names.push((next.value.object as ConfigMap).metadata?.name ?? '');
      }
    } finally {
      stop();
    }
    expect(names).toHaveLength(n);
    expect(names.slice(0, 3)).toEqual(['c0', 'c1', 'c2']);
    expect(names.at(-1)).toBe(`c${n - 1}`);
    // One settled promise per next(), one for the await of it; a few for the waits.
    expect(promises / n).toBeLessThan(2.1);
  });
});

describe('ERROR events', () => {
  it('are yielded with their Status, end the stream, and become a StatusError', async () => {
    const events = await configMaps().watch({ resourceVersion: '5' });
    const res = await serverSide();
    res.write(line('ADDED', cm('a', '11')));
    res.write(line('ERROR', expired));
    // The server leaves the stream open: the client ends it anyway.
    const seen = await drain(events);
    expect(seen).toEqual([
      { type: 'ADDED', object: cm('a', '11') },
      { type: 'ERROR', object: expired },
    ]);
    const last = seen[1];
    if (last?.type !== 'ERROR') throw new Error('expected an ERROR event');
    const err = StatusError.fromStatus(last.object);
    expect(isResourceExpired(err)).toBe(true);
    expect(err.message).toBe('too old resource version: 5 (1234)');
    await until(() => server.openResponses === 0, 'the client closes the connection');
  });

  it('stand in for an undecodable line, as client-go reports it', async () => {
    const events = await configMaps().watch();
    const res = await serverSide();
    res.write(line('ADDED', cm('a', '11')));
    res.write('this is not json\n');
    res.write(line('ADDED', cm('b', '12'))); // never read
    const seen = await drain(events);
    expect(seen).toHaveLength(2);
    const error = seen[1];
    expect(error?.type).toBe('ERROR');
    const err = StatusError.fromStatus(error?.object as never);
    expect(err.code).toBe(500);
    expect(err.reason).toBe('InternalError');
    expect(err.message).toMatch(
      /^an error on the server \("unable to decode an event from the watch stream: .* in line \\"this is not json\\""\) has prevented the request from succeeding$/,
    );
    expect(err.details?.causes?.map((c) => c.reason)).toEqual([
      'UnexpectedServerResponse',
      'ClientWatchDecoding',
    ]);
  });

  it.each([
    ['an unknown type', '{"type":"CHANGED","object":{}}', 'got invalid watch event type: CHANGED'],
    ['no object', '{"type":"ADDED"}', 'the ADDED event has no object'],
    ['an array', '[1,2]', 'expected a JSON object'],
    [
      'an ERROR without a Status',
      '{"type":"ERROR","object":{"kind":"Pod"}}',
      'does not carry a Status',
    ],
  ])('describe a line with %s', (_what, text, problem) => {
    const decoded = decodeWatchLine(text);
    expect('problem' in decoded && decoded.problem).toContain(problem);
  });
});

describe('stopping a watch', () => {
  it('ends the iteration when the signal aborts mid-stream, closing the connection', async () => {
    const controller = new AbortController();
    const events = await configMaps().watch({ signal: controller.signal });
    const res = await serverSide();
    const closed = new Promise<void>((resolve) => res.on('close', resolve));
    res.write(line('ADDED', cm('a', '11')));
    const seen: string[] = [];
    for await (const event of events) {
      seen.push(event.type);
      controller.abort(); // a waiting next() resolves as done, and does not throw
    }
    expect(seen).toEqual(['ADDED']);
    await closed;
  });

  it('closes the connection when aborted before iterating', async () => {
    const controller = new AbortController();
    const events = await configMaps().watch({ signal: controller.signal });
    const res = await serverSide();
    const closed = new Promise<void>((resolve) => res.on('close', resolve));
    controller.abort();
    await closed;
    expect(await drain(events)).toEqual([]);
  });

  it('closes the connection when the loop is left early', async () => {
    const events = await configMaps().watch();
    const res = await serverSide();
    const closed = new Promise<void>((resolve) => res.on('close', resolve));
    res.write(line('ADDED', cm('a', '11')));
    res.write(line('ADDED', cm('b', '12')));
    for await (const event of events) {
      expect(event.type).toBe('ADDED');
      break;
    }
    await closed;
  });

  it('rejects when aborted before the server answers', async () => {
    const controller = new AbortController();
    let arrived = false;
    server.handler = () => {
      arrived = true; // and no answer
    };
    const pending = configMaps().watch({ signal: controller.signal });
    await until(() => arrived, 'the request arrives');
    controller.abort(new Error('shutting down'));
    await expect(pending).rejects.toThrow('shutting down');
  });

  it('can be iterated once only', async () => {
    const controller = new AbortController();
    const events = await configMaps().watch({ signal: controller.signal });
    events[Symbol.asyncIterator]();
    expect(() => events[Symbol.asyncIterator]()).toThrow('a watch can be iterated only once');
    controller.abort();
  });
});

describe('a refused watch', () => {
  it('rejects with the StatusError of the response', async () => {
    server.handler = (_req, res) => sendJson(res, 410, expired);
    const err = await configMaps()
      .watch({ resourceVersion: '5' })
      .catch((e: unknown) => e);
    expect(isResourceExpired(err)).toBe(true);
    expect((err as StatusError).toStatus()).toEqual(expired);

    server.handler = (_req, res) => {
      res.writeHead(403, { 'Content-Type': 'text/plain' });
      res.end('configmaps is forbidden: User "x" cannot watch resource "configmaps"');
    };
    await expect(configMaps().watch()).rejects.toMatchObject({
      name: 'StatusError',
      code: 403,
      reason: 'Forbidden',
      message:
        'configmaps is forbidden: User "x" cannot watch resource "configmaps" (get configmaps)',
    });
  });

  it('rejects any success code but 200, as client-go does', async () => {
    server.handler = (_req, res) => sendJson(res, 201, {});
    await expect(configMaps().watch()).rejects.toThrow(
      /^for request http:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/default\/configmaps\?watch=true, got status: 201$/,
    );
  });
});

describe('watch decode hints', () => {
  it('leave managedFields out of the objects when asked, and send nothing for it', async () => {
    const withFields = (name: string, rv: string): ConfigMap => ({
      ...cm(name, rv),
      metadata: {
        ...cm(name, rv).metadata,
        managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:data': { 'f:"]}': {} } } }],
      },
    });
    for (const dropManagedFields of [true, false]) {
      stream = undefined;
      const hinted: ListOptions & DecodeHints = { dropManagedFields };
      const events = await configMaps().watch(hinted);
      expect(server.last.search).toBe('?watch=true');
      const res = await serverSide();
      res.write(line('ADDED', withFields('a', '1')));
      res.end(line('MODIFIED', withFields('a', '2')));
      const seen = (await drain(events)) as { object: ConfigMap }[];
      expect(seen.map((e) => e.object.metadata?.managedFields)).toEqual(
        dropManagedFields ? [undefined, undefined] : [expect.any(Array), expect.any(Array)],
      );
      expect(seen.map((e) => 'managedFields' in (e.object.metadata ?? {}))).toEqual([
        !dropManagedFields,
        !dropManagedFields,
      ]);
      expect(seen[1]?.object.data).toEqual({ note: 'naïve café ☕' });
    }
  });
});
