// The manager's HTTPS endpoints (controller-manager/app/serve.go:
// NewBaseHandler, BuildHandlerChain; apiserver/pkg/server/secure_serving.go):
// /healthz, /readyz, /livez, /metrics, /configz and
// /debug/controllers/<name>, behind delegated authentication and
// authorization, on --bind-address:--secure-port with a self-signed
// certificate when none is given.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isStatusError, newInternalError, type StatusError } from '@kcm-ts/apimachinery';
import { makeCertificates, selfSignedNames } from '@kcm-ts/sandbox';
import type { Registry } from 'prom-client';
import type { DelegatingAuth } from './delegated-auth.js';
import type { MutableHealthChecks } from './healthz.js';

/**
 * What a controller's debugging handler answers (Go's
 * `controller.Debuggable`): served under `/debug/controllers/<name>`.
 *
 * @category Endpoints
 */
export type DebuggingHandler = (
  subpath: string,
  query: URLSearchParams,
) => DebuggingResponse | Promise<DebuggingResponse>;

/**
 * A debugging handler's answer.
 *
 * @category Endpoints
 */
export interface DebuggingResponse {
  /** HTTP status code. */
  status: number;
  /** The `Content-Type` header. */
  contentType: string;
  /** The response body. */
  body: string;
}

/**
 * A PEM certificate and its private key.
 *
 * @category Endpoints
 */
export interface ServingCertificate {
  /** The certificate chain, PEM. */
  cert: string;
  /** The private key, PEM. */
  key: string;
}

/**
 * Options for {@link serveSecurely}.
 *
 * @category Endpoints
 */
export interface SecureServingOptions {
  /** The address to listen on (`--bind-address`). */
  bindAddress: string;
  /** The port (`--secure-port`); 0 picks a free one. */
  port: number;
  /** PEM certificate and key; a self-signed pair for 127.0.0.1 and localhost when unset. */
  certificate?: ServingCertificate;
  /** The health checks behind /healthz, /readyz and /livez. */
  health: MutableHealthChecks;
  /** The registry /metrics serves. */
  metrics: Registry;
  /** The body of /configz. */
  configz: () => unknown;
  /** The debugging handlers by controller name. */
  debugHandlers: ReadonlyMap<string, DebuggingHandler>;
  /** Authentication and authorization; every request is allowed when unset. */
  auth?: DelegatingAuth;
}

/**
 * A running HTTPS server.
 *
 * @category Endpoints
 */
export interface SecureServer {
  /** `https://host:port`. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** The CA certificate clients trust (the self-signed certificate's CA), if it made one. */
  readonly caCert: string | undefined;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

function sendText(
  res: ServerResponse,
  status: number,
  body: string,
  type = 'text/plain; charset=utf-8',
): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-cache, private',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(body);
}

function sendStatus(res: ServerResponse, err: StatusError): void {
  const retryAfter = err.toStatus().details?.retryAfterSeconds;
  if (retryAfter) res.setHeader('Retry-After', String(retryAfter));
  sendText(res, err.code || 500, JSON.stringify(err.toStatus()), 'application/json');
}

/**
 * Starts the manager's HTTPS server; resolves once it listens.
 *
 * @category Endpoints
 */
export async function serveSecurely(opts: SecureServingOptions): Promise<SecureServer> {
  // Named as kube-controller-manager names its own self-signed pair.
  const now = new Date();
  const made = opts.certificate ? undefined : makeCertificates(now, 365, selfSignedNames(now));
  const pair = opts.certificate ?? { cert: made!.cert, key: made!.key };
  const server: Server = createServer(pair, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else sendStatus(res, isStatusError(err) ? err : newInternalError(err));
    });
  });
  const sockets = new Set<Socket>();
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const path = (q === -1 ? target : target.slice(0, q)) || '/';
    const query = new URLSearchParams(q === -1 ? '' : target.slice(q + 1));
    if (opts.auth) {
      try {
        await opts.auth.check(req.headers.authorization, path, req.socket.remoteAddress ?? '');
      } catch (err) {
        if (isStatusError(err)) return sendStatus(res, err);
        throw err;
      }
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendText(res, 405, 'Method Not Allowed\n');
    }
    const health = /^\/(healthz|readyz|livez)(?:\/(.*))?$/.exec(path);
    if (health?.[1]) {
      const answer = await opts.health.serve(health[1], health[2] ?? '', query);
      return sendText(res, answer.status, answer.body);
    }
    if (path === '/metrics') {
      return sendText(res, 200, await opts.metrics.metrics(), opts.metrics.contentType);
    }
    if (path === '/configz') {
      return sendText(res, 200, JSON.stringify(opts.configz()), 'application/json');
    }
    const debug = /^\/debug\/controllers\/([^/]+)(\/.*)?$/.exec(path);
    const handler = debug?.[1] ? opts.debugHandlers.get(debug[1]) : undefined;
    if (handler) {
      const answer = await handler(debug?.[2] ?? '', query);
      return sendText(res, answer.status, answer.body, answer.contentType);
    }
    return sendText(res, 404, '404 page not found\n');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closed: Promise<void> | undefined;
  return {
    url: `https://${host}:${address.port}`,
    port: address.port,
    caCert: made?.caCert,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}
