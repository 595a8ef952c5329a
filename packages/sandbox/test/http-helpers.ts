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
