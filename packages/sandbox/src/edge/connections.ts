// The connection limits of kube-apiserver's HTTP server
// (staging/src/k8s.io/apiserver/pkg/server/secure_serving.go: MaxHeaderBytes
// 1 MiB, ReadHeaderTimeout 32 s, IdleTimeout 90 s) and what Go's net/http
// writes when a request cannot even be read (server.go, conn.serve; and
// request.go, readRequest): 431 for a head over the limit, 400 for one it
// cannot parse or with more than one Host, nothing for a client that went
// quiet. Go counts a head's bytes, never its headers: Node's cap of 2,000
// headers, past which it drops the rest (Authorization among them) without
// a word, is lifted, and the 1 MiB bound is the only one.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
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

/**
 * Answers a request whose head Go's `readRequest` refuses though Node read
 * it: more than one `Host` header (whatever their letter case, as Go
 * merges them under one key) is a 400 and the connection closes. Returns
 * true when it answered.
 */
export function refuseMalformedHead(req: IncomingMessage, res: ServerResponse): boolean {
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === 'host') hosts++;
  }
  if (hosts <= 1) return false;
  // Written on the socket as conn.serve writes it: no Date, no framing.
  reply(req.socket, '400 Bad Request: too many Host headers');
  res.destroy();
  return true;
}

/** Answers requests that fail before a handler sees them, as Go's server does. */
export function serveConnectionErrors(server: Server): void {
  // 0 lifts Node's default of 2,000 headers a request (see above).
  server.maxHeadersCount = 0;
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
