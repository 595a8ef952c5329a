// Connections as kube-apiserver's Go server handles them: a client too slow
// to send its request head is dropped, an idle kept-alive connection is
// closed, heads up to 1 MiB are read whatever their number of headers, two
// Host headers are a 400, `bearer` counts in any case, discovery answers
// only GET, and plain HTTP sent to the TLS port gets a 400 that says so.
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { call } from './http-helpers.js';

const CMS = '/api/v1/namespaces/default/configmaps';

let sandbox: Sandbox | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await sandbox?.stop();
  sandbox = undefined;
});

/** A raw connection, and everything it receives until it closes. */
function rawConnection(port: number): {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
} {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

describe('timeouts', () => {
  it('drops a client that does not finish its request head in time, without an answer', async () => {
    sandbox = await startSandbox({ insecureHttp: true, requestHeaderTimeout: 300 });
    const { socket, received, closed } = rawConnection(sandbox.port);
    socket.write(`GET ${CMS} HTTP/1.1\r\nHost: x\r\n`); // and never the blank line
    await closed;
    expect(received()).toBe('');
  });

  it('closes a kept-alive connection left idle', async () => {
    sandbox = await startSandbox({ insecureHttp: true, idleTimeout: 300 });
    const { socket, received, closed } = rawConnection(sandbox.port);
    socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
    await closed;
    expect(received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\bok\b/);
  });

  it('keeps kube-apiserver’s limits by default', async () => {
    sandbox = await startSandbox({ insecureHttp: true });
    const { socket, received, closed } = rawConnection(sandbox.port);
    socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
    await new Promise((r) => setTimeout(r, 500));
    // Still open half a second later: the idle timeout is 90 s, not Node's 5 s.
    expect(received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\bok\b/);
    expect(socket.destroyed).toBe(false);
    socket.end();
    await closed;
  });
});

describe('request heads and credentials', () => {
  it('reads a request head of up to 1 MiB, and answers 431 beyond', async () => {
    sandbox = await startSandbox({ insecureHttp: true });
    const values = Array.from({ length: 60_000 }, (_, i) => `v${i}`).join(',');
    const long = await call(
      sandbox,
      'GET',
      `${CMS}?labelSelector=${encodeURIComponent(`app in (${values})`)}`,
    );
    expect(long.status).toBe(200);
    const { socket, received, closed } = rawConnection(sandbox.port);
    socket.write(`GET ${CMS} HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(1_100_000)}\r\n\r\n`);
    await closed;
    expect(received()).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(received()).toMatch(/\r\n\r\n431 Request Header Fields Too Large$/);
  });

  it('refuses a request with two Host headers, in any letter case, as Go’s readRequest does', async () => {
    sandbox = await startSandbox({ insecureHttp: true });
    for (const second of ['Host: y', 'host: x']) {
      const { socket, received, closed } = rawConnection(sandbox.port);
      socket.write(
        `GET ${CMS} HTTP/1.1\r\nHost: x\r\n${second}\r\nAuthorization: Bearer ${sandbox.token}\r\n\r\n`,
      );
      await closed;
      expect(received()).toBe(
        'HTTP/1.1 400 Bad Request: too many Host headers\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request: too many Host headers',
      );
    }
  });

  it('reads every header of a head under 1 MiB, however many: Authorization after 2,500 others still counts', async () => {
    sandbox = await startSandbox({ insecureHttp: true });
    const many = Array.from({ length: 2_500 }, (_, i) => `X-Filler-${i}: v\r\n`).join('');
    const { socket, received, closed } = rawConnection(sandbox.port);
    socket.write(
      `GET ${CMS} HTTP/1.1\r\nHost: x\r\n${many}Authorization: Bearer ${sandbox.token}\r\nConnection: close\r\n\r\n`,
    );
    await closed;
    expect(received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*"kind":"ConfigMapList"/);
    // Past 1 MiB of them, the whole request is refused with 431, never cut short.
    const tooMany = Array.from({ length: 80_000 }, (_, i) => `X-Filler-${i}: v\r\n`).join('');
    const big = rawConnection(sandbox.port);
    big.socket.write(
      `GET ${CMS} HTTP/1.1\r\nHost: x\r\n${tooMany}Authorization: Bearer ${sandbox.token}\r\n\r\n`,
    );
    await big.closed;
    expect(big.received()).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  });

  it('takes the bearer scheme in any letter case, and nothing else', async () => {
    sandbox = await startSandbox({ insecureHttp: true });
    const t = sandbox.token;
    for (const header of [
      `Bearer ${t}`,
      `bearer ${t}`,
      `BEARER ${t}`,
      `  Bearer ${t}  `,
      `Bearer ${t} extra`,
    ]) {
      const res = await call(sandbox, 'GET', CMS, {
        token: null,
        headers: { authorization: header },
      });
      expect(res.status, header).toBe(200);
    }
    for (const header of [`Bearer  ${t}`, `Basic ${t}`, `Bearer`, `Bearer${t}`, `Bearer ${t}x`]) {
      const res = await call(sandbox, 'GET', CMS, {
        token: null,
        headers: { authorization: header },
      });
      expect(res.status, header).toBe(401);
    }
  });
});

describe('discovery', () => {
  it('answers methods other than GET with go-restful’s 405 and Allow: GET', async () => {
    sandbox = await startSandbox({ insecureHttp: true });
    for (const [method, path] of [
      ['POST', '/api'],
      ['DELETE', '/apis'],
      ['PUT', '/api/v1'],
      ['PATCH', '/apis/apps'],
      ['POST', '/apis/apps/v1'],
      ['DELETE', '/version'],
    ] as const) {
      const res = await call(sandbox, method, path, method === 'DELETE' ? {} : { body: '{}' });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.allow).toBe('GET');
      expect(res.json()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server does not allow this method on the requested resource',
        reason: 'MethodNotAllowed',
        details: {},
        code: 405,
      });
    }
    expect((await call(sandbox, 'GET', '/apis/apps/v1')).status).toBe(200);
  });
});

describe('plain HTTP on the TLS port', () => {
  it('gets a 400 that says so, and TLS clients still connect', async () => {
    sandbox = await startSandbox();
    for (const verb of ['GET /', 'POST /api', 'HEAD /']) {
      const { socket, received, closed } = rawConnection(sandbox.port);
      socket.write(`${verb} HTTP/1.1\r\nHost: x\r\n\r\n`);
      await closed;
      expect(received()).toBe(
        'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n',
      );
    }
    expect((await call(sandbox, 'GET', '/version')).status).toBe(200);
  });
});
