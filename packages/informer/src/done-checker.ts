// A one-shot "it has happened" signal, such as "synced": client-go
// tools/cache shared_informer.go (DoneChecker, IsDone), the `synced` channel
// a queue, an informer and synctrack close once, here in one place.

/**
 * Something that happens once and stays done, such as a cache having
 * synced: Go's `cache.DoneChecker`, whose `Done()` channel is closed once.
 *
 * @category Waiting for sync
 */
export interface DoneChecker {
  /** What is waited for, for messages. */
  readonly name: string;
  /** Resolves once done; at once if it is already. */
  done(): Promise<void>;
  /** True once done. Go's `IsDone(checker)`. */
  isDone(): boolean;
}

/**
 * A {@link DoneChecker} that its owner closes: the equivalent of a Go
 * channel that is closed once to tell every waiter. Closing again does
 * nothing. No promise is made until someone waits.
 *
 * @category Waiting for sync
 */
export class DoneSignal implements DoneChecker {
  readonly name: string;
  #closed = false;
  #promise: Promise<void> | undefined;
  #resolve: (() => void) | undefined;

  /** @param name - what it signals, for messages */
  constructor(name: string) {
    this.name = name;
  }

  /** Marks it done and wakes every waiter; later calls do nothing. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#resolve?.();
  }

  done(): Promise<void> {
    if (this.#promise === undefined) {
      if (this.#closed) this.#promise = Promise.resolve();
      else this.#promise = new Promise<void>((resolve) => (this.#resolve = resolve));
    }
    return this.#promise;
  }

  isDone(): boolean {
    return this.#closed;
  }
}
