// A soak run of the controller manager: 30 minutes (SOAK_MINUTES) of random
// churn — Deployments created, scaled, rolled to new images, deleted, pods
// deleted behind the controllers' backs — against the sandbox over HTTPS.
// Prints the heap and the process's handle counts at the start and every
// five minutes; a leak shows as a steady climb. Not run in CI.
//
// Run: npm run soak:manager -w bench
import { createClient, newDiscoveryClient } from '@kcm-ts/client';
import { defaultConfiguration, run } from '@kcm-ts/manager';
import { startSandbox } from '@kcm-ts/sandbox';

const minutes = Number(process.env.SOAK_MINUTES ?? 30);
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

function report(label: string): void {
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles()
    .length;
  const requests = (process as unknown as { _getActiveRequests(): unknown[] })._getActiveRequests()
    .length;
  console.log(
    `${label}: heap ${(heapUsed / 2 ** 20).toFixed(1)} MiB, rss ${(rss / 2 ** 20).toFixed(1)} MiB, handles ${handles}, requests ${requests}`,
  );
}

const sandbox = await startSandbox({ nodes: 2, podStartDelay: 100, podReadyDelay: 100 });
const client = createClient(sandbox.kubeconfigObject);
const config = defaultConfiguration();
config.secureServing.securePort = 0;
const abort = new AbortController();
let ready = false;
const manager = run(
  {
    config,
    apiServer: { source: client, discovery: newDiscoveryClient(client.kubeconfig) },
    onInformersSynced: () => (ready = true),
  },
  abort.signal,
);
while (!ready) await new Promise((r) => setTimeout(r, 50));
report('start');

const deployments = client.deployments.inNamespace('default');
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const end = Date.now() + minutes * 60_000;
let nextReport = Date.now() + 5 * 60_000;
let ops = 0;
while (Date.now() < end) {
  const name = `soak-${Math.floor(Math.random() * 20)}`;
  try {
    switch (pick(['create', 'scale', 'image', 'delete', 'pod'] as const)) {
      case 'create':
        await deployments.create({
          metadata: { name },
          spec: {
            replicas: 1 + Math.floor(Math.random() * 5),
            selector: { matchLabels: { app: name } },
            template: {
              metadata: { labels: { app: name } },
              spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
            },
          },
        });
        break;
      case 'scale':
        await deployments.patch(name, {
          type: 'merge',
          body: { spec: { replicas: Math.floor(Math.random() * 8) } },
        });
        break;
      case 'image':
        await deployments.patch(name, {
          type: 'strategic',
          body: {
            spec: {
              template: {
                spec: {
                  containers: [{ name: 'c', image: `nginx:${Math.floor(Math.random() * 9)}` }],
                },
              },
            },
          },
        });
        break;
      case 'delete':
        await deployments.delete(name);
        break;
      case 'pod': {
        const pods = (await client.pods.inNamespace('default').list()).items;
        if (pods.length > 0)
          await client.pods.inNamespace('default').delete(pick(pods).metadata!.name!);
        break;
      }
    }
  } catch {
    // Not found, already exists, conflicts: churn, not failures.
  }
  ops++;
  await new Promise((r) => setTimeout(r, 50));
  if (Date.now() >= nextReport) {
    report(`after ${ops} operations`);
    nextReport += 5 * 60_000;
  }
}
report(`end, ${ops} operations`);
abort.abort();
await manager;
await sandbox.stop();
report('stopped');
