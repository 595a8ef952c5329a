import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Sandbox } from '../src/index.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One HTTP request to the sandbox, trusting its CA and sending its token unless told otherwise. */
export function call(
  sandbox: Sandbox,
  method: string,
  path: string,
  opts: { body?: string | Buffer; headers?: Record<string, string>; token?: string | null } = {},
): Promise<RawResponse> {
  const url = new URL(path, sandbox.url);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const token = opts.token === undefined ? sandbox.token : opts.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (opts.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(opts.body));
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers, ...(sandbox.caCert ? { ca: sandbox.caCert } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: () => JSON.parse(text) as unknown,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/**
 * Opens a watch (or any streaming GET) and resolves with the status, headers
 * and the first `count` newline-delimited JSON lines, then closes it; `act`
 * runs once the headers are in, to cause the events.
 */
export function watchLines(
  sandbox: Sandbox,
  path: string,
  count: number,
  opts: { headers?: Record<string, string>; act?: () => Promise<unknown> } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; headers: RawResponse['headers']; lines: any[] }> {
  const url = new URL(path, sandbox.url);
  const headers: Record<string, string> = {
    authorization: `Bearer ${sandbox.token}`,
    ...(opts.headers ?? {}),
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'GET', headers, ...(sandbox.caCert ? { ca: sandbox.caCert } : {}) },
      (res) => {
        const lines: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
        let pending = '';
        const done = () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, lines });
          req.destroy();
        };
        res.on('data', (c: Buffer) => {
          pending += c.toString('utf8');
          let nl = pending.indexOf('\n');
          while (nl >= 0 && lines.length < count) {
            const line = pending.slice(0, nl);
            pending = pending.slice(nl + 1);
            if (line.trim() !== '') lines.push(JSON.parse(line));
            nl = pending.indexOf('\n');
          }
          if (lines.length >= count) done();
        });
        res.on('end', () => {
          if (pending.trim() !== '' && lines.length < count) {
            try {
              lines.push(JSON.parse(pending));
            } catch {
              lines.push(pending);
            }
          }
          done();
        });
        res.on('error', () => done());
        if ((res.statusCode ?? 0) === 200) opts.act?.().catch(reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
