// Sending one HTTP request to the cluster of a kubeconfig: the part of
// client-go's rest client and transport package (rest/request.go, request;
// transport/round_trippers.go) that sets credentials and TLS. The credentials
// come from client-node's KubeConfig.applyToHTTPSOptions, called before every
// request so that exec plugins and the in-cluster token file can refresh them.
// Requests wait on their caller's signal through abort-listeners.ts, so that
// many of them on one signal add one listener to it, not one each.
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { onAbort } from './abort-listeners.js';

/** One request, before credentials are added. */
export interface OutgoingRequest {
  /** The HTTP method, in capitals. */
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path below the server URL, such as `/api/v1/pods`. */
  path: string;
  /** The query string parameters. */
  query?: URLSearchParams;
  /** The request body, already encoded. */
  body?: string;
  /** The body's media type. */
  contentType?: string;
  /** The Accept header; `application/json` when unset. */
  accept?: string;
  /** Aborts the request. */
  signal?: AbortSignal | undefined;
  /** The `User-Agent` header; default kcm-ts's client user agent. */
  userAgent?: string | undefined;
}

/** How one try of a request ended: its answer, or the connection's failure. */
type Attempt =
  | { exchange: Exchange; error?: undefined; reused: boolean }
  | { exchange?: undefined; error: Error; reused: boolean };

function isReset(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === 'ECONNRESET';
}

/** A request whose response headers have arrived. */
export interface Exchange {
  /** The request, to destroy when the caller is done early. */
  req: http.ClientRequest;
  /** The response, its body not yet read. */
  res: http.IncomingMessage;
  /** The full URL requested, for messages. */
  url: string;
}

// Go's http.DefaultTransport closes a connection idle this long (IdleConnTimeout);
// an agent's `timeout` does the same for its idle keep-alive sockets and only
// raises an unheeded 'timeout' event on busy ones, such as a quiet watch.
const idleConnTimeoutMs = 90_000;

const userAgent = `kcm-ts-client (${process.platform}/${process.arch}) node/${process.version}`;

// The TLS inputs client-node fills in; a change (an exec plugin handing out a
// new client certificate) needs a new agent, as connections keep their
// credentials.
const tlsKeys = [
  'ca',
  'cert',
  'key',
  'pfx',
  'passphrase',
  'rejectUnauthorized',
  'servername',
] as const satisfies readonly (keyof https.RequestOptions)[];

type TlsMaterial = Partial<Pick<https.RequestOptions, (typeof tlsKeys)[number]>> & {
  server: string;
  proxy: string;
};

function sameValue(a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  return a === b;
}

function sameMaterial(a: TlsMaterial, b: TlsMaterial): boolean {
  return (
    a.server === b.server && a.proxy === b.proxy && tlsKeys.every((k) => sameValue(a[k], b[k]))
  );
}

/**
 * Sends requests for one KubeConfig, reusing connections: client-node's
 * `applyToHTTPSOptions` makes a fresh agent (so a fresh TLS handshake) per
 * call, so the agent is kept as long as the TLS material stays the same.
 * When it changes (a rotated client certificate), the old agent's connections
 * are closed, watches included, as client-go's certificate rotation does
 * (transport/cert_rotation.go): nothing keeps talking with stale credentials.
 */
export class Transport {
  #agent: http.Agent | undefined;
  #material: TlsMaterial | undefined;

  constructor(readonly kubeconfig: KubeConfig) {}

  /**
   * Sends `r` and resolves once the response headers arrive, whatever the
   * status. Rejects with `signal.reason` if the signal aborts first, and with
   * the original error (such as `ECONNREFUSED`) if the connection fails. A
   * GET sent on a kept-alive connection that turns out to be closed is sent
   * again on another one, as Go's HTTP client does.
   */
  async send(r: OutgoingRequest): Promise<Exchange> {
    r.signal?.throwIfAborted();
    const cluster = this.kubeconfig.getCurrentCluster();
    if (cluster === null) {
      throw new Error(
        `the kubeconfig's current context (${String(this.kubeconfig.getCurrentContext())}) has no cluster`,
      );
    }
    const headers: http.OutgoingHttpHeaders = {
      Accept: r.accept ?? 'application/json',
      'User-Agent': r.userAgent ?? userAgent,
    };
    if (r.body !== undefined) {
      headers['Content-Type'] = r.contentType ?? 'application/json';
      headers['Content-Length'] = Buffer.byteLength(r.body);
    }
    const opts: https.RequestOptions = { method: r.method, headers };
    await this.kubeconfig.applyToHTTPSOptions(opts);
    r.signal?.throwIfAborted();
    const agent = this.#agentFor(cluster.server, cluster.proxyUrl ?? '', opts);
    // Go's url.Values.Encode sorts by key; do the same, so requests read alike.
    const params = new URLSearchParams(r.query);
    params.sort();
    const query = params.toString();
    // The server URL may carry a path prefix (a proxy such as Rancher's) and a
    // trailing slash; client-go joins the two as paths.
    const base = cluster.server.replace(/\/+$/, '');
    const url = new URL(`${base}${r.path}${query === '' ? '' : `?${query}`}`);
    const request = url.protocol === 'http:' ? http.request : https.request;
    for (;;) {
      const { exchange, error, reused } = await new Promise<Attempt>((resolve, reject) => {
        const req = request(url, {
          method: r.method,
          headers: opts.headers,
          agent,
          ...(opts.auth === undefined ? {} : { auth: opts.auth }),
        });
        const unsubscribe = onAbort(r.signal, () => {
          req.destroy();
          reject(r.signal?.reason as Error);
        });
        req.on('error', (err) => {
          unsubscribe();
          resolve({ error: err, reused: req.reusedSocket });
        });
        req.on('response', (res) => {
          unsubscribe();
          // Later failures surface on the response stream; keep them from
          // becoming uncaught 'error' events on either side.
          req.on('error', () => {});
          res.on('error', () => {});
          resolve({ exchange: { req, res, url: url.href }, reused: req.reusedSocket });
        });
        req.end(r.body);
      });
      if (exchange !== undefined) return exchange;
      // A keep-alive connection the server had already closed: Go's
      // net/http sends a replayable request again at once on another
      // connection (persistConn.shouldRetryRequest), so no caller ever
      // sees it. Each try uses up one stale connection, so this ends.
      if (reused && r.method === 'GET' && isReset(error) && !isAborted(r.signal)) continue;
      throw error;
    }
  }

  #agentFor(server: string, proxy: string, opts: https.RequestOptions): http.Agent {
    const material: TlsMaterial = { server, proxy };
    for (const k of tlsKeys) {
      if (opts[k] !== undefined) Object.assign(material, { [k]: opts[k] });
    }
    if (
      this.#agent !== undefined &&
      this.#material !== undefined &&
      sameMaterial(this.#material, material)
    ) {
      return this.#agent;
    }
    let agent: http.Agent;
    if (proxy !== '' && opts.agent instanceof http.Agent) {
      // Proxies need client-node's proxy agents; keep the one it made.
      agent = opts.agent;
    } else if (server.startsWith('http:')) {
      agent = new http.Agent({ keepAlive: true, timeout: idleConnTimeoutMs });
    } else {
      const { server: _s, proxy: _p, ...tls } = material;
      agent = new https.Agent({ keepAlive: true, timeout: idleConnTimeoutMs, ...tls });
    }
    // client-node 2 caches its proxy agents, so the "new" one may be the old.
    if (this.#agent !== agent) this.#agent?.destroy();
    this.#agent = agent;
    this.#material = material;
    return agent;
  }
}

const transports = new WeakMap<KubeConfig, Transport>();

/** The one Transport of `kc`, so that every client made from it shares connections. */
export function transportFor(kc: KubeConfig): Transport {
  let t = transports.get(kc);
  if (t === undefined) {
    t = new Transport(kc);
    transports.set(kc, t);
  }
  return t;
}

/**
 * Reads the whole response body. If `signal` aborts first, the connection is
 * closed and the promise rejects with `signal.reason`.
 */
export async function readBody(
  exchange: Exchange,
  signal: AbortSignal | undefined,
): Promise<Buffer> {
  const { req, res } = exchange;
  const close = () => {
    res.destroy();
    req.destroy();
  };
  if (isAborted(signal)) {
    close();
    throw signal?.reason;
  }
  const unsubscribe = onAbort(signal, close);
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } catch (err) {
    // The abort listener destroyed the stream; report why, not how.
    if (isAborted(signal)) throw signal?.reason;
    throw err;
  } finally {
    unsubscribe();
  }
}

// A function, so that TypeScript does not narrow `signal.aborted` across awaits.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
