// Plain HTTP sent to the TLS port: Go's net/http recognises the first bytes
// of a request where a TLS record should be (crypto/tls RecordHeaderError,
// net/http server.go tlsRecordHeaderLooksLikeHTTP) and answers 400 with a
// sentence, instead of a handshake error nobody can read.
import type { Socket } from 'node:net';

// The five-byte beginnings Go treats as HTTP.
const httpStarts = new Set(['GET /', 'HEAD ', 'POST ', 'PUT /', 'OPTIO']);

/**
 * Reads the first five bytes of `socket`: if they begin an HTTP request,
 * answers it and closes; otherwise puts them back and calls `tls`, which
 * hands the socket to the TLS server. A socket that sends less within
 * `timeoutMs` is closed.
 */
export function guardAgainstPlainHttp(socket: Socket, tls: () => void, timeoutMs: number): void {
  let head = Buffer.alloc(0);
  // A client that never sends five bytes is dropped as a slow head would be.
  const timer = setTimeout(() => socket.destroy(), timeoutMs);
  timer.unref();
  const onData = (chunk: Buffer): void => {
    head = Buffer.concat([head, chunk]);
    if (head.length < 5) return;
    clearTimeout(timer);
    socket.off('data', onData);
    socket.pause();
    if (httpStarts.has(head.subarray(0, 5).toString('latin1'))) {
      socket.end(
        'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n',
      );
      return;
    }
    // The TLS socket takes over the connection and first reads what is
    // buffered; resuming this one would steal the bytes that follow.
    socket.unshift(head);
    tls();
  };
  socket.on('data', onData);
  socket.on('close', () => clearTimeout(timer));
  socket.on('error', () => socket.destroy());
}
