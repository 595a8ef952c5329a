// Where the sandbox meets the network: an HTTP or HTTPS server on
// 127.0.0.1 with kube-apiserver's connection limits, and, over TLS, a front
// listener that answers plain HTTP itself as Go's server does
// (staging/src/k8s.io/apiserver/pkg/server/secure_serving.go, Serve and
// RunServer). Everything Node-specific about serving lives here.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { refuseMalformedHead, serveConnectionErrors, serverLimits } from './connections.js';
import { guardAgainstPlainHttp } from './plain-http.js';

/** A listening socket that can be closed and opened again on the same port. */
export interface Listener {
  /** Listens on 127.0.0.1:`port` (0 for any free port). */
  listen(port: number): Promise<void>;
  /** The port listened on. */
  port(): number;
  /** Stops listening and cuts every open connection. */
  close(): Promise<void>;
}

/** Options of {@link createListener}. */
export interface ListenerOptions {
  /** The serving certificate and key; plain HTTP without. */
  tls?: { cert: string; key: string } | undefined;
  requestHeaderTimeout?: number;
  idleTimeout?: number;
}

/** A listener that hands every request to `handler`. */
export function createListener(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  opts: ListenerOptions,
): Listener {
  const limits = serverLimits(opts);
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    if (!refuseMalformedHead(req, res)) handler(req, res);
  };
  const server: Server = opts.tls
    ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key, ...limits }, serve)
    : createHttpServer(limits, serve);
  serveConnectionErrors(server);
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  server.on('connection', track);
  server.on('secureConnection', track);
  // Over TLS, the front listener hands each connection to the HTTPS server
  // after answering plain HTTP itself.
  const listener = opts.tls
    ? createNetServer((socket) => {
        track(socket);
        guardAgainstPlainHttp(
          socket,
          () => server.emit('connection', socket),
          limits.headersTimeout,
        );
      })
    : server;
  return {
    listen: (port) =>
      new Promise<void>((resolve, reject) => {
        listener.once('error', reject);
        listener.listen(port, '127.0.0.1', () => {
          listener.off('error', reject);
          resolve();
        });
      }),
    port: () => (listener.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        listener.close(() => resolve());
        server.closeIdleConnections();
        for (const socket of sockets) socket.destroy();
      }),
  };
}
