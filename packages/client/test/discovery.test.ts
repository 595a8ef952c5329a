// Discovery over HTTPS against a sandbox: the preferred resources of every
// group, a partial failure that still carries what was read, and /healthz.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGroupDiscoveryFailedError, type GroupDiscoveryFailedError } from '@kcm-ts/apimachinery';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { createClient, newDiscoveryClient } from '../src/index.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.stop();
});

describe('newDiscoveryClient', () => {
  it('lists every group at its preferred version, without subresources', async () => {
    const discovery = newDiscoveryClient(sandbox.kubeconfigObject);
    const lists = await discovery.serverPreferredResources();
    const byGv = new Map(lists.map((l) => [l.groupVersion, l.resources.map((r) => r.name)]));
    expect(byGv.get('v1')).toEqual(expect.arrayContaining(['pods', 'namespaces', 'configmaps']));
    expect(byGv.get('apps/v1')).toEqual(expect.arrayContaining(['deployments', 'replicasets']));
    expect(byGv.get('coordination.k8s.io/v1')).toEqual(['leases']);
    for (const names of byGv.values()) expect(names.some((n) => n.includes('/'))).toBe(false);
    const deployments = lists
      .find((l) => l.groupVersion === 'apps/v1')
      ?.resources.find((r) => r.name === 'deployments');
    expect(deployments).toMatchObject({ kind: 'Deployment', namespaced: true });
    expect(deployments?.verbs).toEqual(expect.arrayContaining(['list', 'watch', 'delete']));
    const withStatus = await discovery.serverResourcesForGroupVersion('apps/v1');
    expect(withStatus.resources.map((r) => r.name)).toContain('deployments/status');
  });

  it('shares the kubeconfig of a client, and answers /healthz', async () => {
    const client = createClient(sandbox.kubeconfigObject);
    await expect(newDiscoveryClient(client.kubeconfig).healthz()).resolves.toBeUndefined();
  });

  it('reports the group versions it could not read, with the others', async () => {
    // A server whose metrics group is down, as an aggregated API often is.
    const server = createServer((req, res) => {
      const body = (code: number, obj: unknown) => {
        res.writeHead(code, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(obj));
      };
      if (req.url === '/api') return body(200, { kind: 'APIVersions', versions: ['v1'] });
      if (req.url === '/apis')
        return body(200, {
          kind: 'APIGroupList',
          groups: [
            {
              name: 'apps',
              versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
              preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
            },
            {
              name: 'metrics.k8s.io',
              versions: [{ groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' }],
              preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' },
            },
          ],
        });
      if (req.url === '/api/v1')
        return body(200, {
          groupVersion: 'v1',
          resources: [{ name: 'pods', namespaced: true, kind: 'Pod', verbs: ['list'] }],
        });
      if (req.url === '/apis/apps/v1')
        return body(200, {
          groupVersion: 'apps/v1',
          resources: [
            { name: 'deployments', namespaced: true, kind: 'Deployment', verbs: ['list'] },
          ],
        });
      return body(503, {
        kind: 'Status',
        status: 'Failure',
        code: 503,
        reason: 'ServiceUnavailable',
        message: 'the server is currently unable to handle the request',
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const discovery = newDiscoveryClient({
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
      const err = await discovery.serverPreferredResources().catch((e: unknown) => e);
      expect(isGroupDiscoveryFailedError(err)).toBe(true);
      const failed = err as GroupDiscoveryFailedError;
      expect([...failed.groups.keys()]).toEqual(['metrics.k8s.io/v1beta1']);
      expect(failed.resources.map((l) => l.groupVersion).sort()).toEqual(['apps/v1', 'v1']);
      expect(failed.message).toBe(
        'unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request',
      );
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
