// The controller manager as a whole, against the sandbox over HTTPS (the
// manager talks to it exactly as to a real API server):
//
//   1. Start → every informer of the shared factory synced, with 10,000 pods
//      in the cluster, as a ratio to the bare limit: one list of the same
//      pods over the same HTTPS connection, JSON.parse and a Map.set each.
//      Also the heap per cached pod, as a ratio to the bare parsed objects
//      (the manager's informers drop managedFields, as kube-controller-
//      manager's do).
//   2. Scale a Deployment 0 → 1,000 pods, with kube-controller-manager's
//      client limits (--kube-api-qps 20, --kube-api-burst 30) and without:
//      the time until 1,000 pods are Ready as a ratio to its bound:
//        limited:   the ReplicaSet controller's 1,000 creates through its own
//                   token bucket, (1,000 − 30) / 20 s, plus one pod's start
//                   and ready delay;
//        unlimited: 1,000 creates at the sandbox's own create rate (measured
//                   in the same run), plus one pod's start and ready delay.
//
// Run: npm run bench:manager -w bench   (about two minutes)
import { createClient, newDiscoveryClient } from '@kcm-ts/client';
import { defaultConfiguration, run } from '@kcm-ts/manager';
import { startSandbox } from '@kcm-ts/sandbox';
import type { Pod } from 'kubernetes-types/core/v1.js';

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const secs = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

function pod(i: number): Pod {
  return {
    metadata: {
      name: `pod-${i}`,
      namespace: 'bench',
      labels: { app: 'bench', tier: 'web', shard: String(i % 16) },
      annotations: { 'kcm-ts.io/bench': 'true', 'sandbox.kcm-ts.io/start-delay': '100' },
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          ports: [{ containerPort: 80 }],
          env: [{ name: 'MODE', value: 'bench' }],
          resources: { requests: { cpu: '10m', memory: '16Mi' } },
        },
      ],
    },
  };
}

async function syncTime(): Promise<void> {
  const sandbox = await startSandbox({ nodes: 0 });
  try {
    await sandbox.client('', 'namespaces').create({ metadata: { name: 'bench' } });
    const pods = sandbox.client<Pod>('', 'pods').inNamespace('bench');
    for (let i = 0; i < 10_000; i++) await pods.create(pod(i));
    const client = createClient(sandbox.kubeconfigObject);
    const discovery = newDiscoveryClient(client.kubeconfig);

    // The bare limit: one list, parsed, each item put in a map.
    const podsClient = client.pods;
    await podsClient.list({ limit: 1 }); // warm the connection
    const before = heap();
    const t0 = performance.now();
    const list = await podsClient.list({ resourceVersion: '0' });
    const bare = new Map<string, Pod>();
    for (const p of list.items) bare.set(`${p.metadata?.namespace}/${p.metadata?.name}`, p);
    const bareTime = performance.now() - t0;
    const bareHeap = (heap() - before) / bare.size;
    bare.clear();
    list.items.length = 0;

    const config = defaultConfiguration();
    config.secureServing.securePort = 0;
    config.generic.leaderElection.leaderElect = false;
    config.generic.controllers = ['replicaset-controller', 'deployment-controller'];
    const abort = new AbortController();
    const heapBefore = heap();
    const start = performance.now();
    let synced = 0;
    const manager = run(
      {
        config,
        apiServer: { source: client, discovery },
        onInformersSynced: () => (synced = performance.now()),
      },
      abort.signal,
    );
    while (synced === 0) await new Promise((r) => setTimeout(r, 10));
    const managerTime = synced - start;
    const managerHeap = (heap() - heapBefore) / 10_000;
    abort.abort();
    await manager;
    console.log('\n### Start to synced caches, 10,000 pods\n');
    console.log('| | time | heap per pod |');
    console.log('|---|---|---|');
    console.log(
      `| bare: list + JSON.parse + Map.set | ${secs(bareTime)} | ${(bareHeap / 1024).toFixed(2)} KiB |`,
    );
    console.log(
      `| manager: start → informers synced | ${secs(managerTime)} | ${(managerHeap / 1024).toFixed(2)} KiB |`,
    );
    console.log(
      `| ratio | ${(managerTime / bareTime).toFixed(2)} | ${(managerHeap / bareHeap).toFixed(2)} |`,
    );
  } finally {
    await sandbox.stop();
  }
}

async function scaleUp(limited: boolean): Promise<{ time: number; bound: number }> {
  const startDelay = 200;
  const readyDelay = 200;
  const sandbox = await startSandbox({
    nodes: 4,
    podStartDelay: startDelay,
    podReadyDelay: readyDelay,
  });
  try {
    const client = createClient(sandbox.kubeconfigObject);
    const discovery = newDiscoveryClient(client.kubeconfig);
    // The sandbox's own create rate, over the same HTTPS path: 200 pods one
    // after another from 10 concurrent writers.
    await client.namespaces.create({ metadata: { name: 'rate' } });
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, async (_, w) => {
        for (let i = 0; i < 20; i++)
          await client.pods.create({
            ...pod(w * 20 + i),
            metadata: { name: `r-${w}-${i}`, namespace: 'rate' },
          });
      }),
    );
    const perCreate = (performance.now() - t0) / 200;
    await client.namespaces.delete('rate');

    const config = defaultConfiguration();
    config.secureServing.securePort = 0;
    config.generic.leaderElection.leaderElect = false;
    config.generic.controllers = ['replicaset-controller', 'deployment-controller'];
    if (!limited) config.generic.clientConnection = { qps: -1, burst: 0 };
    const abort = new AbortController();
    let started = false;
    const manager = run(
      {
        config,
        apiServer: { source: client, discovery },
        onInformersSynced: () => (started = true),
      },
      abort.signal,
    );
    while (!started) await new Promise((r) => setTimeout(r, 10));
    const deployments = client.deployments.inNamespace('default');
    const begin = performance.now();
    await deployments.create({
      metadata: { name: 'big' },
      spec: {
        replicas: 1000,
        selector: { matchLabels: { app: 'big' } },
        template: {
          metadata: { labels: { app: 'big' } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    });
    for (;;) {
      const d = await deployments.get('big');
      if ((d.status?.readyReplicas ?? 0) >= 1000) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const time = performance.now() - begin;
    abort.abort();
    await manager;
    const podDelay = startDelay + readyDelay;
    const bound = limited ? ((1000 - 30) / 20) * 1000 + podDelay : 1000 * perCreate + podDelay;
    return { time, bound };
  } finally {
    await sandbox.stop();
  }
}

await syncTime();
console.log('\n### Scale a Deployment 0 → 1,000 Ready pods\n');
console.log('| client limits | time | bound | ratio |');
console.log('|---|---|---|---|');
for (const limited of [true, false]) {
  const { time, bound } = await scaleUp(limited);
  console.log(
    `| ${limited ? '20 qps / 30 burst (kube-controller-manager)' : 'none'} | ${secs(time)} | ${secs(bound)} | ${(time / bound).toFixed(2)} |`,
  );
}
