// The README's quick start: the controller manager against a sandbox, in
// process, on a fake clock.
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { describe, expect, it } from 'vitest';
import { FakeClock, type GroupVersionResource, type KubeObject } from '@kcm-ts/apimachinery';
import { startSandbox } from '@kcm-ts/sandbox';
import { defaultConfiguration, run } from '../src/index.js';
import { TestDiscovery } from './garbagecollector/helpers.js';

describe('quick start', () => {
  it('runs the controllers against a sandbox', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true, nodes: 1 });
    const discovery = new TestDiscovery();
    //#region run-manager
    const config = defaultConfiguration();
    config.secureServing.securePort = 0; // no HTTPS endpoints in this example
    config.generic.leaderElection.leaderElect = false;

    const stop = new AbortController();
    const manager = run(
      {
        config,
        apiServer: {
          // Any source of ResourceClients: @kcm-ts/client's createClient() for a real cluster.
          source: {
            resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
              sandbox.client<T>(gvr.group, gvr.resource),
          },
          discovery, // what the server serves: @kcm-ts/client's newDiscoveryClient() for a real one
        },
        clock,
      },
      stop.signal,
    );
    //#endregion run-manager
    const deployments = sandbox.client<Deployment>('apps', 'deployments').inNamespace('default');
    await deployments.create({
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx' }] },
        },
      },
    });
    let available = 0;
    for (let i = 0; i < 40 && available < 2; i++) {
      await clock.advance(500);
      available = (await deployments.get('web')).status?.availableReplicas ?? 0;
    }
    expect(available).toBe(2);
    //#region stop-manager
    stop.abort();
    await manager; // resolves once controllers, informers and endpoints have stopped
    //#endregion stop-manager
    await sandbox.stop();
  });
});
