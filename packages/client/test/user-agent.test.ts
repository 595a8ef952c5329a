// Each client sends its own User-Agent, as client-go's rest.Config.UserAgent:
// kube-controller-manager names every controller's requests this way.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClient } from '../src/index.js';

describe('userAgent', () => {
  it('is sent with every request of a client made with it, and a default otherwise', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const client = createClient({
        clusters: [
          {
            name: 'c',
            cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true },
          },
        ],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      });
      const gvr = { group: '', version: 'v1', resource: 'pods' };
      const named = client.resource(gvr, {
        namespaced: true,
        kind: 'Pod',
        userAgent: 'kube-controller-manager/v0.1.0 kcm-ts/replicaset-controller',
      });
      await named.list();
      await named.inNamespace('default').list();
      await client.pods.list();
      expect(seen.map((h) => h['user-agent'])).toEqual([
        'kube-controller-manager/v0.1.0 kcm-ts/replicaset-controller',
        'kube-controller-manager/v0.1.0 kcm-ts/replicaset-controller',
        expect.stringMatching(/^kcm-ts-client /),
      ]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
