// Chapter 2: the same changes through the two queues an informer can run on,
// client-go's DeltaFIFO (before 1.33) and RealFIFO (since), to see what a
// handler is told, and in which order.
// Run: npm run start:in-order -w tutorials/02-informer
import {
  deletionHandlingMetaNamespaceKeyFunc,
  isDeletedFinalStateUnknown,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import {
  newDeltaFIFO,
  newIndexer,
  newRealFIFO,
  processDeltas,
  type Indexer,
  type Queue,
  type ResourceEventHandler,
} from '@kcm-ts/informer';

const pod = (name: string, rv: string): KubeObject => ({
  metadata: { namespace: 'default', name, resourceVersion: rv },
});

/** A handler that writes what it is told, one line per call. */
function telling(log: (line: string) => void): ResourceEventHandler<KubeObject> {
  const name = (o: KubeObject) => o.metadata?.name ?? '';
  return {
    onAdd: (o, initial) => log(`  add ${name(o)}${initial ? ' (initial list)' : ''}`),
    onUpdate: (old, o) =>
      log(
        `  update ${name(o)} rv ${old.metadata?.resourceVersion} → ${o.metadata?.resourceVersion}`,
      ),
    onDelete: (o) =>
      log(`  delete ${isDeletedFinalStateUnknown(o) ? `${o.key} (tombstone)` : name(o)}`),
  };
}

/** Pops everything queued into `store`, as an informer's process loop does. */
async function drain(
  queue: Queue<KubeObject>,
  pending: () => number,
  store: Indexer<KubeObject>,
  handler: ResourceEventHandler<KubeObject>,
): Promise<void> {
  while (pending() > 0) {
    await queue.pop((deltas, initial) => processDeltas(handler, store, deltas, initial));
  }
}

/** Feeds both queues the same two stories and logs what a handler hears from each. */
export async function run(log: (line: string) => void = console.log): Promise<void> {
  for (const kind of ['DeltaFIFO', 'RealFIFO'] as const) {
    const store = newIndexer<KubeObject>(deletionHandlingMetaNamespaceKeyFunc, {});
    const handler = telling(log);
    // As an informer makes them; the default RealFIFO is atomic (client-go 1.36).
    let queue: Queue<KubeObject>;
    let pending: () => number;
    if (kind === 'DeltaFIFO') {
      const fifo = newDeltaFIFO({ knownObjects: store, emitDeltaTypeReplaced: true });
      [queue, pending] = [fifo, () => fifo.listKeys().length];
    } else {
      const fifo = newRealFIFO<KubeObject>({ atomicEvents: true, emitDeltaTypeBookmark: true });
      [queue, pending] = [fifo, () => fifo.queued().length];
    }

    //#region watch-story
    log(`${kind}, a list then three watch events:`);
    queue.replace([pod('web', '1')], '1'); // LIST: web
    queue.add(pod('db', '2')); // ADDED db
    queue.update(pod('web', '3')); // MODIFIED web
    queue.delete(pod('cache', '4')); // DELETED cache, which this informer never had
    //#endregion watch-story
    await drain(queue, pending, store, handler);

    //#region relist-story
    log(`${kind}, a relist (the watch fell behind) that finds web changed, db gone, api new:`);
    queue.replace([pod('web', '7'), pod('api', '8')], '8');
    //#endregion relist-story
    await drain(queue, pending, store, handler);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
