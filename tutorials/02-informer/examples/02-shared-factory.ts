// Chapter 2: two controllers share one informer through the factory, so the
// API server sees one list and one watch for pods, however many handlers.
// Run: npm run start:factory -w tutorials/02-informer
import { metaNamespaceKeyFunc, parseSelector } from '@kcm-ts/apimachinery';
import { createClient } from '@kcm-ts/client';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox } from '@kcm-ts/sandbox';
import type { Pod } from 'kubernetes-types/core/v1.js';

/** Runs two "controllers" on one factory against a fresh sandbox; returns what the server was asked. */
export async function run(log: (line: string) => void = console.log): Promise<string[]> {
  const requests: string[] = [];
  const sandbox = await startSandbox({
    onRequest: (method, url) => {
      if (url.startsWith('/api/v1/pods'))
        requests.push(
          `${method} ${url.split('?')[0]}${url.includes('watch=true') ? ' (watch)' : ''}`,
        );
    },
  });
  const controller = new AbortController();
  const signal = controller.signal;
  try {
    const client = createClient(sandbox.kubeconfig);
    const pods = client.pods.inNamespace('default');
    for (const [name, app] of [
      ['web-1', 'web'],
      ['web-2', 'web'],
      ['db-1', 'db'],
    ] as const) {
      await pods.create({
        metadata: { name, labels: { app } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      });
    }

    //#region two-controllers
    const factory = new SharedInformerFactory(client, 0);

    // "Controller" one counts pods per app label.
    const perApp = new Map<string, number>();
    factory
      .pods()
      .informer()
      .addEventHandler({
        onAdd(pod: Pod) {
          const app = pod.metadata?.labels?.app ?? '';
          perApp.set(app, (perApp.get(app) ?? 0) + 1);
        },
      });

    // "Controller" two reads web pods through a lister, once the cache is full.
    const podLister = factory.pods().lister(); // the same informer as above

    factory.start(signal);
    await factory.waitForCacheSync(signal);
    const web = podLister.byNamespace('default').list(parseSelector('app=web'));
    //#endregion two-controllers

    //#region lister-miss
    const missing = podLister.byNamespace('default').tryGet('web-9'); // undefined
    let notFound = '';
    try {
      podLister.byNamespace('default').get('web-9'); // client-go's shape: throws
    } catch (err) {
      notFound = err instanceof Error ? err.message : String(err); // 'pod "web-9" not found'
    }
    //#endregion lister-miss

    log(
      `web pods from the lister: ${web
        .map((p) => metaNamespaceKeyFunc(p))
        .sort()
        .join(', ')}`,
    );
    await waitFor(() => [...perApp.values()].reduce((a, b) => a + b, 0) === 3);
    log(
      `pods per app from the handler: ${[...perApp]
        .sort()
        .map(([a, n]) => `${a}=${n}`)
        .join(', ')}`,
    );
    log(
      `web-9: tryGet gives ${missing === undefined ? 'undefined' : 'a pod'}; get throws '${notFound}'`,
    );
    log(`requests for pods answered so far: ${requests.join('; ')}`);
    return requests;
  } finally {
    controller.abort();
    await sandbox.stop();
  }
}

async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error('timed out waiting for the handler');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
