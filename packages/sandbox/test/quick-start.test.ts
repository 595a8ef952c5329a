// The code of the README's quick start, run as a test so the README cannot rot.
import * as k8s from '@kubernetes/client-node';
import { isConflict } from '@kcm-ts/apimachinery';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { describe, expect, it, vi } from 'vitest';
import { startSandbox } from '../src/index.js';

describe('quick start', () => {
  it('serves an in-process client with the API server semantics', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    //#region in-process
    const sandbox = await startSandbox();
    try {
      const configMaps = sandbox.client<ConfigMap>('', 'configmaps').inNamespace('default');
      const created = await configMaps.create({
        metadata: { name: 'settings' },
        data: { mode: 'fast' },
      });
      await configMaps.update({ ...created, data: { mode: 'safe' } });
      // A second write from the same stale copy loses: 409 Conflict.
      const stale = await configMaps.update({ ...created, data: { mode: 'fast' } }).catch((e) => e);
      console.log(isConflict(stale)); // true
    } finally {
      await sandbox.stop();
    }
    //#endregion in-process
    expect(log.mock.calls).toEqual([[true]]);
  });

  it('serves @kubernetes/client-node over HTTPS', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const sandbox = await startSandbox();
    try {
      //#region client-node
      const kc = new k8s.KubeConfig();
      kc.loadFromString(sandbox.kubeconfig); // the sandbox's URL, CA and token
      const apps = kc.makeApiClient(k8s.AppsV1Api);
      const created = await apps.createNamespacedDeployment({
        namespace: 'default',
        body: {
          metadata: { name: 'web' },
          spec: {
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
            },
          },
        },
      });
      console.log(created.spec?.strategy?.type); // 'RollingUpdate': the server's default
      //#endregion client-node
      expect(log.mock.calls).toEqual([['RollingUpdate']]);
      expect(created.metadata?.generation).toBe(1);
    } finally {
      await sandbox.stop();
    }
  });
});
