// The connection limits of kube-apiserver's HTTP server
// (staging/src/k8s.io/apiserver/pkg/server/secure_serving.go: MaxHeaderBytes
// 1 MiB, ReadHeaderTimeout 32 s, IdleTimeout 90 s) and what Go's net/http
// writes when a request cannot even be read (server.go, conn.serve): 431 for
// a head over the limit, 400 for one it cannot parse, nothing for a client
// that went quiet.
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** The longest request head (request line and headers) kube-apiserver reads. */
export const maxHeaderBytes = 1 << 20;

/** The server options that carry those limits. */
export function serverLimits(opts: { requestHeaderTimeout?: number; idleTimeout?: number }): {
  maxHeaderSize: number;
  headersTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
} {
  const headersTimeout = opts.requestHeaderTimeout ?? 32_000;
  return {
    maxHeaderSize: maxHeaderBytes,
    headersTimeout,
    keepAliveTimeout: opts.idleTimeout ?? 90_000,
    // Node checks the header deadline on this beat; keep it well under the deadline.
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeout / 4))),
  };
}

function reply(socket: Duplex, status: string): void {
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`,
    );
  }
  socket.destroy();
}

/** Answers requests that fail before a handler sees them, as Go's server does. */
export function serveConnectionErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    switch (err.code) {
      case 'HPE_HEADER_OVERFLOW':
        reply(socket, '431 Request Header Fields Too Large');
        return;
      case 'ERR_HTTP_REQUEST_TIMEOUT':
      case 'ECONNRESET':
        socket.destroy();
        return;
      default:
        reply(socket, '400 Bad Request');
    }
  });
}
