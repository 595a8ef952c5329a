import type { Pod, Secret } from 'kubernetes-types/core/v1.js';
import { expect, it } from 'vitest';
import { newSecretManager } from '../src/index.js';
import { FakeServer } from './fake-client.js';

it('quick start: a pod registers, its Secret is read from a watch', async () => {
  const server = new FakeServer<Secret>('secrets');
  server.set({ metadata: { namespace: 'default', name: 'db-password' }, data: { p: 'czNjcjN0' } });
  const secretsClient = server.client(); // any ResourceClient<Secret>
  const shutdown = new AbortController();
  const pod: Pod = {
    metadata: { namespace: 'default', name: 'web', uid: 'u1' },
    spec: {
      containers: [
        {
          name: 'app',
          env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'db-password', key: 'p' } } }],
        },
      ],
    },
  };
  //#region quick-start
  const secrets = newSecretManager(secretsClient, { strategy: 'Watch', signal: shutdown.signal });
  secrets.registerPod(pod); // cheap: counts references, starts a watch per new Secret
  const secret = await secrets.getObject('default', 'db-password'); // from the watch's cache
  secrets.unregisterPod(pod); // the last reference stops the watch
  //#endregion quick-start
  expect(secret.data).toEqual({ p: 'czNjcjN0' });
  expect(server.count('get')).toBe(0);
  shutdown.abort();
  await secrets.stopped();
  expect(server.openWatches()).toBe(0);
});
