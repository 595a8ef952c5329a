// Work that runs once its time has come, unless cancelled first: Go's
// pkg/controller/tainteviction/timed_workers.go (WorkArgs, TimedWorker,
// createWorker, TimedWorkerQueue with AddWork, UpdateWork, CancelWork,
// GetWorkerUnsafe, CancelAndWait), on the injected clock.
import { noopLogger, type Clock, type Logger, type Timer } from '@kcm-ts/apimachinery';

/**
 * What a worker is given: the object it is about. Go's `WorkArgs`.
 *
 * @category Taint eviction controller
 */
export interface WorkArgs {
  /** The object's namespace. */
  namespace: string;
  /** The object's name. */
  name: string;
}

/**
 * The queue key of a work item: `namespace/name`. Go's `KeyFromWorkArgs`.
 *
 * @category Taint eviction controller
 */
export function keyFromWorkArgs(args: WorkArgs): string {
  return `${args.namespace}/${args.name}`;
}

/**
 * The work a {@link TimedWorkerQueue} runs: given when it was due (ms) and
 * what it is about.
 *
 * @category Taint eviction controller
 */
export type WorkFunc = (fireAt: number, args: WorkArgs) => Promise<void>;

/**
 * One piece of work waiting for its time. Go's `TimedWorker`.
 *
 * @category Taint eviction controller
 */
export interface TimedWorker {
  /** What it is about. */
  readonly workItem: WorkArgs;
  /** When it was created, in ms. */
  readonly createdAt: number;
  /** When it runs, in ms. */
  readonly fireAt: number;
  /** Stops it; once this returns, it either runs already or never will. */
  cancel(): void;
}

/**
 * Work items by key, each run by the clock no earlier than its time. An
 * item that is due at once runs at once and is listed without a timer
 * until it finishes. Go's `TimedWorkerQueue`.
 *
 * @category Taint eviction controller
 */
export class TimedWorkerQueue {
  readonly #workers = new Map<string, TimedWorker | null>();
  readonly #running = new Set<Promise<void>>();
  readonly #work: WorkFunc;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /**
   * @param work - what each item runs; a rejection is logged
   * @param clock - the clock items wait on
   * @param logger - where failures go
   */
  constructor(work: WorkFunc, clock: Clock, logger: Logger = noopLogger) {
    this.#work = work;
    this.#clock = clock;
    this.#logger = logger;
  }

  /** Runs the work and then forgets the item. Go's `getWrappedWorkerFunc`. */
  async #runWrapped(key: string, fireAt: number, args: WorkArgs): Promise<void> {
    this.#logger.v(4).info('Firing worker', { item: key, firedTime: fireAt });
    try {
      await this.#work(fireAt, args);
      this.#logger.v(4).info('Worker finished, removing', { item: key });
    } finally {
      this.#workers.delete(key);
    }
  }

  /** Go's `createWorker`: `null` when the work started at once. */
  #createWorker(
    key: string,
    args: WorkArgs,
    createdAt: number,
    fireAt: number,
  ): TimedWorker | null {
    const delay = fireAt - createdAt;
    let cancelled = false;
    const start = () => {
      if (cancelled) return;
      const p = this.#runWrapped(key, fireAt, args).catch((err: unknown) => {
        this.#logger.error(err, 'TaintEvictionController: timed worker failed');
      });
      this.#running.add(p);
      void p.finally(() => this.#running.delete(p));
    };
    if (delay <= 0) {
      start();
      return null;
    }
    const timer: Timer = this.#clock.afterFunc(delay, start);
    return {
      workItem: args,
      createdAt,
      fireAt,
      cancel: () => {
        cancelled = true;
        timer.stop();
      },
    };
  }

  /**
   * Adds work to run no earlier than `fireAt`, unless there is work for
   * the same key already. Go's `AddWork`.
   */
  addWork(args: WorkArgs, createdAt: number, fireAt: number): void {
    const key = keyFromWorkArgs(args);
    if (this.#workers.has(key)) {
      this.#logger.v(4).info('Trying to add already existing work, skipping', {
        item: key,
        createTime: createdAt,
        firedTime: fireAt,
      });
      return;
    }
    this.#logger.v(4).info('Adding TimedWorkerQueue item and to be fired at firedTime', {
      item: key,
      createTime: createdAt,
      firedTime: fireAt,
    });
    // Listed before it may start, so that a run that finishes at once unlists it.
    this.#workers.set(key, null);
    const worker = this.#createWorker(key, args, createdAt, fireAt);
    if (worker !== null || this.#workers.has(key)) this.#workers.set(key, worker);
  }

  /**
   * Adds work, or replaces the waiting work of the same key when its time
   * differs; work already running is kept. Go's `UpdateWork`.
   */
  updateWork(args: WorkArgs, createdAt: number, fireAt: number): void {
    const key = keyFromWorkArgs(args);
    if (this.#workers.has(key)) {
      const worker = this.#workers.get(key);
      if (worker === null || worker === undefined) {
        this.#logger.v(4).info('Keeping existing work, already in progress', { item: key });
        return;
      }
      if (worker.fireAt === fireAt) {
        this.#logger.v(4).info('Keeping existing work, same time', { item: key });
        return;
      }
      worker.cancel();
      this.#workers.delete(key);
    }
    this.addWork(args, createdAt, fireAt);
  }

  /**
   * Cancels the waiting work of `key` and forgets it. Go's `CancelWork`.
   *
   * @returns true when waiting work was cancelled (not when it had started)
   */
  cancelWork(key: string): boolean {
    if (!this.#workers.has(key)) return false;
    const worker = this.#workers.get(key);
    this.#logger.v(4).info('Cancelling TimedWorkerQueue item', { item: key });
    this.#workers.delete(key);
    if (worker === null || worker === undefined) return false;
    worker.cancel();
    return true;
  }

  /** The waiting work of `key`, if any (not work that has started). Go's `GetWorkerUnsafe`. */
  getWorkerUnsafe(key: string): TimedWorker | undefined {
    return this.#workers.get(key) ?? undefined;
  }

  /** Cancels all waiting work and resolves once the work under way has finished. Go's `CancelAndWait`. */
  async cancelAndWait(): Promise<void> {
    for (const worker of this.#workers.values()) worker?.cancel();
    this.#workers.clear();
    await Promise.allSettled([...this.#running]);
  }
}
