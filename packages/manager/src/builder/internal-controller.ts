// The loop under every built controller: controller-runtime's
// pkg/internal/controller/controller.go (Controller.Start, WaitForSync,
// processNextWorkItem, reconcileHandler). The same shape as the
// kube-controller-manager controllers of chapters 5–7: wait for the caches,
// run N workers over one rate-limited queue (which never hands one key to two
// workers), forget a key's failures when it succeeds, and retry with backoff
// when it fails, unless the failure is terminal. Every reconcile is counted
// and timed in controller-runtime's metrics (metrics.ts).
import type { Clock, Logger } from '@kcm-ts/apimachinery';
import type { RateLimitingQueue } from '@kcm-ts/workqueue';
import type {
  ControllerMetrics,
  ControllerMetricsRecorder,
  ReconcileOutcome,
} from '../metrics/controller-runtime.js';
import { isTerminalError, requestOf, type Reconciler } from './reconcile.js';

/** The inputs of {@link runController}. */
export interface ControllerLoop {
  /** Names the controller in logs and errors. */
  name: string;
  /** The queue of `namespace/name` keys. */
  queue: RateLimitingQueue<string>;
  /** Called with each key, by one worker at a time. */
  reconciler: Reconciler;
  /** How many keys are reconciled at once. */
  workers: number;
  /** The caches' sync states; the workers start once all are true. */
  whenSynced: readonly (() => Promise<void>)[];
  /** Gives up waiting for the caches after this long (Go's `CacheSyncTimeout`, 2 min). */
  cacheSyncTimeout: number;
  clock: Clock;
  logger: Logger;
  /** Where the reconciles are counted and timed. */
  metrics: ControllerMetrics;
}

/** A controller loop once started, with its metrics recorder. */
interface Running extends ControllerLoop {
  recorder: ControllerMetricsRecorder;
}

/**
 * Waits for the caches, then runs the workers until `signal` aborts: Go's
 * `Controller.Start`. Resolves once every worker has returned; rejects when
 * the caches did not sync in time.
 */
export async function runController(c: ControllerLoop, signal: AbortSignal): Promise<void> {
  const { queue, logger } = c;
  // Shutting the queue down wakes every worker blocked in get().
  const stop = () => queue.shutDown();
  signal.addEventListener('abort', stop, { once: true });
  try {
    logger.info('Starting Controller');
    const running: Running = { ...c, recorder: c.metrics.forController(c.name, c.workers) };
    if (!(await waitForSync(c, signal))) return;
    logger.info('Starting workers', { 'worker count': c.workers });
    const workers: Promise<void>[] = [];
    for (let i = 0; i < c.workers; i++) {
      workers.push(
        (async () => {
          while (await processNextWorkItem(running, signal));
        })(),
      );
    }
    await Promise.all(workers);
    logger.info('All workers finished');
  } finally {
    signal.removeEventListener('abort', stop);
    queue.shutDown();
    logger.info('Shutdown signal received, waiting for all workers to finish');
  }
}

/** False when `signal` aborted first; throws when the timeout passed first. */
async function waitForSync(c: ControllerLoop, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  const timeout = new AbortController();
  const onAbort = () => timeout.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = c.clock.afterFunc(c.cacheSyncTimeout, () => {
    timedOut = true;
    timeout.abort();
  });
  try {
    await Promise.race([
      Promise.all(c.whenSynced.map((w) => w())),
      new Promise<void>((resolve) =>
        timeout.signal.addEventListener('abort', () => resolve(), { once: true }),
      ),
    ]);
  } finally {
    timer.stop();
    signal.removeEventListener('abort', onAbort);
  }
  if (timedOut && !signal.aborted) {
    const err = new Error(
      `failed to wait for ${c.name} caches to sync: timed out waiting for cache to be synced`,
    );
    c.logger.error(err, 'Could not wait for Cache to sync');
    throw err;
  }
  return !signal.aborted;
}

//#region process-next-work-item
/**
 * Takes one key, reconciles it and marks it done; false once the queue has
 * shut down. Go's `processNextWorkItem`.
 */
async function processNextWorkItem(c: Running, signal: AbortSignal): Promise<boolean> {
  const [key, shutdown] = await c.queue.get();
  if (shutdown) return false;
  c.recorder.addActiveWorkers(1);
  try {
    await reconcileHandler(c, key, signal);
  } finally {
    c.recorder.addActiveWorkers(-1);
    c.queue.done(key);
  }
  return true;
}

/** Runs the reconciler and files the key by its answer. Go's `reconcileHandler`. */
async function reconcileHandler(c: Running, key: string, signal: AbortSignal): Promise<void> {
  const { queue } = c;
  const req = requestOf(key);
  const log = c.logger.withValues({ namespace: req.namespace, name: req.name });
  const start = c.clock.now();
  const count = (outcome: ReconcileOutcome) =>
    c.recorder.reconciled(outcome, (c.clock.now() - start) / 1000);
  let result;
  try {
    result = await c.reconciler(req, signal);
  } catch (err) {
    // A stopping controller's aborted work is not a failure to retry.
    if (signal.aborted) return;
    const terminal = isTerminalError(err);
    // Retrying cannot fix a terminal error: the key waits for its next event.
    if (terminal) queue.forget(key);
    else queue.addRateLimited(key);
    count({ result: 'error', terminal, panic: isProgrammingError(err) });
    log.error(err, 'Reconciler error');
    return;
  }
  if (result?.requeueAfter !== undefined && result.requeueAfter > 0) {
    // A planned return is not a failure: the backoff starts afresh.
    queue.forget(key);
    queue.addAfter(key, result.requeueAfter);
    count({ result: 'requeue_after' });
  } else if (result?.requeue) {
    queue.addRateLimited(key);
    count({ result: 'requeue' });
  } else {
    queue.forget(key);
    count({ result: 'success' });
  }
}
//#endregion process-next-work-item

/**
 * A bug in the reconciler rather than a failure it reports, which is what a
 * panic is in Go: the errors the JavaScript engine throws on a bad access
 * or argument. They are retried like any error (Go recovers a panic into
 * one), and also counted as panics.
 */
function isProgrammingError(err: unknown): boolean {
  return (
    err instanceof TypeError ||
    err instanceof ReferenceError ||
    err instanceof RangeError ||
    err instanceof SyntaxError
  );
}
