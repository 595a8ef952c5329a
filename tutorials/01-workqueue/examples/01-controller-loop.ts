// A tiny controller loop on a rate-limiting workqueue: events arrive as keys,
// two workers reconcile them, failures come back with backoff. The shape is
// the one every controller in kube-controller-manager has (see, for example,
// `worker` and `processNextWorkItem` in pkg/controller/replicaset/replica_set.go).
import { pathToFileURL } from 'node:url';
import { realClock, type Clock } from '@kcm-ts/apimachinery';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';

/** What every example in the course takes: the time source, a place to write, and a stop signal. */
export interface ExampleOptions {
  clock: Clock;
  log: (line: string) => void;
  signal?: AbortSignal;
}

/** Reconciles one key; throws to ask for a retry. */
type Reconcile = (key: string) => Promise<void>;

//#region process-next-work-item
async function processNextWorkItem(
  queue: RateLimitingQueue<string>,
  reconcile: Reconcile,
  log: (message: string) => void,
): Promise<boolean> {
  const [key, shutdown] = await queue.get();
  if (shutdown) return false;
  try {
    await reconcile(key);
    // Success: wipe the key's failure history so its next failure starts at 5ms again.
    queue.forget(key);
  } catch (error) {
    queue.addRateLimited(key);
    log(`${key} failed (${(error as Error).message}), retry #${queue.numRequeues(key)}`);
  } finally {
    // Always: lets a copy of the key that arrived meanwhile go back in line.
    queue.done(key);
  }
  return true;
}

async function worker(
  queue: RateLimitingQueue<string>,
  reconcile: Reconcile,
  log: (m: string) => void,
) {
  while (await processNextWorkItem(queue, reconcile, log)) {
    // keep going until the queue shuts down
  }
}
//#endregion process-next-work-item

/**
 * Runs the scenario to the end: five change events for three objects, one a
 * duplicate of a waiting key and one arriving while its object is being reconciled, and a database that
 * refuses connections three times before it works.
 */
export async function run({ clock, log, signal }: ExampleOptions): Promise<void> {
  const start = clock.now();
  const say = (who: string, message: string) =>
    log(`${String(Math.round(clock.since(start))).padStart(4)}ms  ${who.padEnd(8)}  ${message}`);

  //#region setup
  const queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(clock), {
    name: 'example',
    clock,
  });
  const failuresLeft = new Map([['default/db', 3]]);
  const unreconciled = new Set(['default/web', 'default/db', 'default/cache']);

  const reconcile =
    (who: string): Reconcile =>
    async (key) => {
      say(who, `reconciling ${key}`);
      await clock.sleep(2); // talking to the API server takes a moment
      const left = failuresLeft.get(key) ?? 0;
      if (left > 0) {
        failuresLeft.set(key, left - 1);
        throw new Error('connection refused');
      }
      say(who, `${key} is in sync`);
      unreconciled.delete(key);
      if (unreconciled.size === 0) void queue.shutDownWithDrain();
    };
  //#endregion setup

  //#region events
  // What an informer would deliver: keys, not objects; duplicates are normal.
  const events: [at: number, key: string][] = [
    [0, 'default/web'],
    [0, 'default/db'],
    [0, 'default/cache'], // both workers are busy: cache waits in the queue
    [1, 'default/cache'], // a duplicate of a waiting key: collapsed into it
    [1, 'default/web'], // arrives while web is being reconciled: handled again after
  ];
  for (const [at, key] of events) {
    clock.afterFunc(at, () => {
      say('informer', `event for ${key}`);
      queue.add(key);
    });
  }
  //#endregion events

  signal?.addEventListener('abort', () => queue.shutDown(), { once: true });
  await Promise.all([
    worker(queue, reconcile('worker-1'), (m) => say('worker-1', m)),
    worker(queue, reconcile('worker-2'), (m) => say('worker-2', m)),
  ]);
  say('main', 'all objects in sync; queue drained and shut down');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run({ clock: realClock, log: (line) => console.log(line) });
}
