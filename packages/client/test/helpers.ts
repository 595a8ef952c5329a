// A local HTTP(S) server that records every request and answers with whatever
// the test's handler says, plus kubeconfigs pointing at it.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { KubeConfigObject } from '../src/index.js';

/** A request as the server received it. */
export interface Recorded {
  method: string;
  /** The path, without the query. */
  path: string;
  /** The query parameters. */
  query: URLSearchParams;
  /** The raw query string, to check encoding and order. */
  search: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The common name of the client certificate, if one was presented over TLS. */
  clientCN: string | undefined;
}

export type Handler = (req: Recorded, res: http.ServerResponse) => void;

/** Answers with `body` as JSON. */
export function sendJson(
  res: http.ServerResponse,
  code: number,
  body: unknown,
  headers: http.OutgoingHttpHeaders = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', ...headers });
  res.end(text);
}

/** A Status body like kube-apiserver's. */
export function statusBody(
  code: number,
  reason: string,
  message: string,
  details?: Record<string, unknown>,
): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details === undefined ? {} : { details }),
    code,
  };
}

export class TestServer {
  readonly requests: Recorded[] = [];
  /** Connections accepted so far, counting closed ones. */
  connections = 0;
  /** What the server answers; by default echoes the request as JSON. */
  handler: Handler = (req, res) =>
    sendJson(res, 200, { kind: 'Echo', apiVersion: 'v1', metadata: {}, seen: req.path });
  readonly #server: http.Server;
  readonly #sockets = new Set<Socket>();
  readonly #open = new Set<http.ServerResponse>();
  #url = '';

  constructor(tls?: https.ServerOptions) {
    const listener: http.RequestListener = (req, res) => {
      this.#open.add(res);
      res.on('close', () => this.#open.delete(res));
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const socket = req.socket as Partial<TLSSocket>;
        const cn = socket.getPeerCertificate?.().subject?.CN;
        const recorded: Recorded = {
          method: req.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          search: url.search,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          clientCN: typeof cn === 'string' ? cn : undefined,
        };
        this.requests.push(recorded);
        this.handler(recorded, res);
      });
    };
    this.#server =
      tls === undefined ? http.createServer(listener) : https.createServer(tls, listener);
    const track = (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    };
    this.#server.on(tls === undefined ? 'connection' : 'secureConnection', (socket: Socket) => {
      this.connections++;
      track(socket);
    });
  }

  /** Starts listening on 127.0.0.1 on a free port. */
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const { port } = this.#server.address() as AddressInfo;
    const scheme = this.#server instanceof https.Server ? 'https' : 'http';
    this.#url = `${scheme}://127.0.0.1:${port}`;
    return this;
  }

  get url(): string {
    return this.#url;
  }

  /** The last request received. */
  get last(): Recorded {
    const last = this.requests.at(-1);
    if (last === undefined) throw new Error('no request received');
    return last;
  }

  /** Open connections (including idle keep-alive ones). */
  get openSockets(): number {
    return this.#sockets.size;
  }

  /** Responses neither finished nor cut off by the client. */
  get openResponses(): number {
    return this.#open.size;
  }

  /**
   * Stops the server, closing idle keep-alive connections. A response still
   * open then, such as a watch the client never stopped, is a leak: it is cut
   * off, and `close` rejects saying so.
   */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeIdleConnections();
    let leaked = 0;
    try {
      await until(() => this.#open.size === 0, 'the client closes every response');
    } catch {
      leaked = this.#open.size;
      this.#server.closeAllConnections();
    }
    await closed;
    if (leaked > 0) throw new Error(`${leaked} response(s) still open when the server closed`);
  }
}

/** A kubeconfig object for `server`, with a bearer token and plain-HTTP permission. */
export function kubeconfigFor(
  server: string,
  extra: { namespace?: string; token?: string; cluster?: Record<string, unknown> } = {},
): KubeConfigObject {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'test',
        cluster: {
          server,
          ...(server.startsWith('http:') ? { 'insecure-skip-tls-verify': true } : {}),
          ...extra.cluster,
        },
      },
    ],
    users: [{ name: 'tester', user: { token: extra.token ?? 'test-token' } }],
    contexts: [
      {
        name: 'test',
        context: {
          cluster: 'test',
          user: 'tester',
          ...(extra.namespace === undefined ? {} : { namespace: extra.namespace }),
        },
      },
    ],
    'current-context': 'test',
  };
}

/** Resolves after pending I/O callbacks and promise jobs have run once. */
export const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Resolves when `cond()` holds, checking after each turn of the event loop. */
export async function until(cond: () => boolean, what: string, turns = 10_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (cond()) return;
    await tick();
  }
  throw new Error(`timed out waiting until ${what}`);
}
