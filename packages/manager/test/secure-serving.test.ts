// The manager's secure port with a certificate it makes itself: named as
// kube-controller-manager names its self-signed pair
// (GenerateSelfSignedCertKey: `localhost-ca@<unix time>` signing
// `localhost@<unix time>`), so a client never takes its CA for the
// cluster's, and a 429 carries Retry-After.
import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { connect } from 'node:tls';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { newTooManyRequests } from '@kcm-ts/apimachinery';
import { MutableHealthChecks, serveSecurely, type DelegatingAuth } from '../src/index.js';

function get(
  url: string,
  ca: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The certificate a TLS server at `url` presents. */
function serving(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const socket = connect(
      { host: hostname, port: Number(port), rejectUnauthorized: false },
      () => {
        const raw = socket.getPeerX509Certificate()?.toString() ?? '';
        socket.end();
        resolve(raw);
      },
    );
    socket.on('error', reject);
  });
}

describe('serveSecurely', () => {
  it('makes a pair named localhost-ca@<time> and localhost@<time> that verifies against its CA', async () => {
    const before = Math.floor(Date.now() / 1000);
    const server = await serveSecurely({
      bindAddress: '127.0.0.1',
      port: 0,
      health: new MutableHealthChecks([]),
      metrics: new Registry(),
      configz: () => ({}),
      debugHandlers: new Map(),
    });
    try {
      const ca = new X509Certificate(server.caCert ?? '');
      const match = /^CN=localhost-ca@(\d+)$/.exec(ca.subject);
      expect(match).not.toBeNull();
      expect(Number(match?.[1])).toBeGreaterThanOrEqual(before);
      expect(ca.issuer).toBe(ca.subject);
      // The common names are UTF8Strings (tag 0x0c after the commonName OID
      // 2.5.4.3): Go refuses an `@` in the PrintableString node-forge would write.
      for (const pem of [server.caCert ?? '', serving(server.url)]) {
        const der = new X509Certificate(await pem).raw.toString('hex');
        expect(der).toMatch(/0603550403(0c)/);
        expect(der).not.toMatch(/0603550403(13)/);
      }
      const answer = await get(`${server.url}/healthz`, server.caCert ?? '');
      expect(answer).toMatchObject({ status: 200, body: 'ok' });
    } finally {
      await server.close();
    }
  });

  it('sends Retry-After with a 429 from the authorization check', async () => {
    const auth = {
      check: () =>
        Promise.reject(newTooManyRequests('Too many requests, please try again later.', 1)),
    } as unknown as DelegatingAuth;
    const server = await serveSecurely({
      bindAddress: '127.0.0.1',
      port: 0,
      health: new MutableHealthChecks([]),
      metrics: new Registry(),
      configz: () => ({}),
      debugHandlers: new Map(),
      auth,
    });
    try {
      const answer = await get(`${server.url}/metrics`, server.caCert ?? '');
      expect(answer.status).toBe(429);
      expect(answer.headers['retry-after']).toBe('1');
      expect(JSON.parse(answer.body)).toMatchObject({ reason: 'TooManyRequests', code: 429 });
    } finally {
      await server.close();
    }
  });
});
