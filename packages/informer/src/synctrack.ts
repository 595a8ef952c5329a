// Whether one event handler has caught up with its informer: client-go
// tools/cache/synctrack/synctrack.go (SingleFileTracker).
import { DoneSignal, type DoneChecker } from './done-checker.js';

/**
 * Counts the initial-list notifications a handler has been given but not yet
 * finished, and reports the handler synced once its upstream (the informer)
 * has synced and the count is zero: Go's `synctrack.SingleFileTracker`. Once
 * synced it stays synced.
 *
 * @category Shared informer
 */
export class SingleFileTracker {
  /** What is tracked, for messages. */
  readonly name: string;
  #count = 0;
  #upstreamSynced = false;
  readonly #synced: DoneSignal;
  readonly #onSynced: (() => void) | undefined;

  /**
   * @param name - what is tracked
   * @param onSynced - called once, when the tracker becomes synced
   */
  constructor(name: string, onSynced?: () => void) {
    this.name = name;
    this.#synced = new DoneSignal(name);
    this.#onSynced = onSynced;
  }

  /** An initial-list notification was handed over. */
  start(): void {
    this.#count++;
  }

  /**
   * An initial-list notification was handled. Throws if more were finished
   * than started, which is a bug in the caller.
   */
  finished(): void {
    this.#count--;
    if (this.#count < 0) {
      this.#count = 0;
      throw new Error(
        `synctrack ${this.name}: negative counter: finished() called without start()`,
      );
    }
    this.#check();
  }

  /** The upstream source has synced. */
  upstreamHasSynced(): void {
    this.#upstreamSynced = true;
    this.#check();
  }

  /** True once upstream has synced and every started notification has finished. */
  hasSynced(): boolean {
    return this.#synced.isDone();
  }

  /** Done once {@link SingleFileTracker.hasSynced} turns true. Go's `Done()` channel. */
  hasSyncedChecker(): DoneChecker {
    return this.#synced;
  }

  #check(): void {
    if (this.#synced.isDone() || !this.#upstreamSynced || this.#count !== 0) return;
    this.#synced.close();
    this.#onSynced?.();
  }
}
