// Chapter 2: the path of one event, from the API server through the
// reflector, the DeltaFIFO, the indexer and the handlers to a workqueue,
// against the sandbox API server.
// Run: npm start -w tutorials/02-informer
import {
  isDeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  type ListOptions,
  type ListerWatcher,
  type ObjectList,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import { createClient } from '@kcm-ts/client';
import { SharedIndexInformer, metaNamespaceIndexFunc, namespaceIndex } from '@kcm-ts/informer';
import { startSandbox } from '@kcm-ts/sandbox';
import { newQueue } from '@kcm-ts/workqueue';
import type { Pod } from 'kubernetes-types/core/v1.js';

//#region logging-lister-watcher
/**
 * Wraps a ListerWatcher so that every list the reflector makes, and every
 * watch event it reads, is logged before the reflector sees it.
 */
export function loggingListerWatcher<T extends Pod>(
  inner: ListerWatcher<T>,
  log: (line: string) => void,
): ListerWatcher<T> {
  return {
    async list(opts?: ListOptions): Promise<ObjectList<T>> {
      const list = await inner.list(opts);
      const names = list.items.map((p) => p.metadata?.name).join(', ');
      log(`api server → reflector: LIST at rv ${list.metadata.resourceVersion}: [${names}]`);
      return list;
    },
    async watch(opts?: ListOptions): Promise<AsyncIterable<WatchEvent<T>>> {
      const events = await inner.watch(opts);
      log(`api server → reflector: WATCH from rv ${opts?.resourceVersion}`);
      return (async function* () {
        for await (const event of events) {
          if (event.type !== 'BOOKMARK' && event.type !== 'ERROR') {
            const pod = event.object;
            log(
              `api server → reflector: ${event.type} ${pod.metadata?.name} rv ${pod.metadata?.resourceVersion}`,
            );
          }
          yield event;
        }
      })();
    },
  };
}
//#endregion logging-lister-watcher

/** Creates, changes and deletes pods in a fresh sandbox while an informer watches them. */
export async function run(print: (line: string) => void = console.log): Promise<void> {
  let watching = false;
  const log = (line: string): void => {
    if (line.includes('WATCH from')) watching = true;
    print(line);
  };
  const sandbox = await startSandbox();
  const controller = new AbortController();
  const signal = controller.signal;
  try {
    const client = createClient(sandbox.kubeconfig);
    const pods = client.pods.inNamespace('default');
    const pod = (name: string): Pod => ({
      metadata: { name, labels: { app: 'web' } },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
    });
    await pods.create(pod('web-1'));

    //#region informer
    const informer = new SharedIndexInformer<Pod>(loggingListerWatcher(client.pods, log), {
      indexers: { [namespaceIndex]: metaNamespaceIndexFunc },
      objectDescription: 'pods',
    });
    const queue = newQueue<string>();

    // Handlers run after the indexer has the change; they only queue keys.
    informer.addEventHandler({
      onAdd(pod, isInInitialList) {
        const key = metaNamespaceKeyFunc(pod);
        log(`indexer → handler: add ${key}${isInInitialList ? ' (initial list)' : ''}`);
        queue.add(key);
      },
      onUpdate(oldPod, newPod) {
        const key = metaNamespaceKeyFunc(newPod);
        const from = oldPod.metadata?.resourceVersion;
        log(`indexer → handler: update ${key} rv ${from} → ${newPod.metadata?.resourceVersion}`);
        queue.add(key);
      },
      onDelete(pod) {
        // A tombstone when the informer missed the deletion itself.
        const key = isDeletedFinalStateUnknown(pod) ? pod.key : metaNamespaceKeyFunc(pod);
        log(`indexer → handler: delete ${key}`);
        queue.add(key);
      },
    });
    void informer.run(signal);
    //#endregion informer

    let worked = 0; // so the walkthrough below can wait for the worker
    //#region worker
    // A worker reads the current state from the cache, never from the event.
    const worker = async (): Promise<void> => {
      for (;;) {
        const [key, shutdown] = await queue.get();
        if (shutdown) return;
        const cached = informer.getIndexer().getByKey(key);
        log(
          `workqueue → worker: ${key} ${cached ? `labels ${JSON.stringify(cached.metadata?.labels)}` : 'is gone'}`,
        );
        queue.done(key);
        worked++;
      }
    };
    const working = worker();
    //#endregion worker

    const seen = (count: number): Promise<void> => waitFor(() => worked >= count);

    await informer.whenSynced();
    await seen(1);
    await waitFor(() => watching);
    log('-- create web-2');
    await pods.create(pod('web-2'));
    await seen(2);
    log('-- label web-1 tier=front');
    await pods.patch('web-1', { type: 'merge', body: { metadata: { labels: { tier: 'front' } } } });
    await seen(3);
    log('-- delete web-2');
    await pods.delete('web-2', { gracePeriodSeconds: 0 });
    await seen(4);
    const cachedKeys = informer.getIndexer().indexKeys(namespaceIndex, 'default');
    log(`cache, namespace index "default": [${cachedKeys.join(', ')}]`);
    queue.shutDown();
    await working;
  } finally {
    controller.abort();
    await sandbox.stop();
  }
}

async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error('timed out waiting for the informer');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
