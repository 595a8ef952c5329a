// Expectations: pkg/controller/controller_utils.go (ControllerExpectations,
// ControlleeExpectations, UIDTrackingControllerExpectations,
// ExpectationsTimeout). A controller that has just asked the API server for
// N creations remembers it, and skips further creations until its informer
// has shown it those N pods (or 5 minutes have passed): the informer lags the
// writes, and without this the next sync would count too few pods and create
// them again.
import { noopLogger, realClock, type Logger, type PassiveClock } from '@kcm-ts/apimachinery';

/**
 * How long expectations are trusted, in milliseconds (5 minutes): after that
 * a controller syncs anyway, so that a watch event it never received cannot
 * keep it asleep forever. Go's `ExpectationsTimeout`.
 *
 * @category Expectations
 */
export const expectationsTimeout = 5 * 60 * 1000;

/**
 * The creations and deletions one controller key still waits to see, and
 * when it started waiting: Go's `ControlleeExpectations`. Counts may go
 * negative (more observed than expected), which counts as fulfilled.
 *
 * @category Expectations
 */
export class ControlleeExpectations {
  /** The controller key, such as `default/web`. */
  readonly key: string;
  /** When these expectations were set, in ms since the epoch. */
  readonly timestamp: number;
  #add: number;
  #del: number;

  /**
   * @param key - the controller key
   * @param add - creations expected
   * @param del - deletions expected
   * @param timestamp - when they were set, in ms since the epoch
   */
  constructor(key: string, add: number, del: number, timestamp: number) {
    this.key = key;
    this.#add = add;
    this.#del = del;
    this.timestamp = timestamp;
  }

  /** Adds `add` and `del` to the counts (negative numbers lower them). Go's `Add`. */
  add(add: number, del: number): void {
    this.#add += add;
    this.#del += del;
  }

  /** True once neither creations nor deletions are outstanding. Go's `Fulfilled`. */
  fulfilled(): boolean {
    return this.#add <= 0 && this.#del <= 0;
  }

  /** The outstanding counts, `[add, del]`. Go's `GetExpectations`. */
  getExpectations(): [add: number, del: number] {
    return [this.#add, this.#del];
  }

  /** True when the expectations are older than {@link expectationsTimeout} at `now`. */
  isExpired(now: number): boolean {
    return now - this.timestamp > expectationsTimeout;
  }

  /** The counts (`add`, `del`) and `key`, for log lines (Go's `MarshalLog`). */
  toJSON(): Readonly<Record<'add' | 'del' | 'key', number | string>> {
    return { add: this.#add, del: this.#del, key: this.key };
  }
}

/**
 * What a controller needs from expectations: Go's
 * `ControllerExpectationsInterface`, with the logger given once at
 * construction instead of to every call.
 *
 * @category Expectations
 */
export interface ControllerExpectationsInterface {
  /** The expectations recorded for `controllerKey`, if any. */
  getExpectations(controllerKey: string): ControlleeExpectations | undefined;
  /**
   * True when the controller may create or delete: no expectations are
   * recorded, or they are fulfilled, or they have expired.
   */
  satisfiedExpectations(controllerKey: string): boolean;
  /** Forgets the expectations of `controllerKey`. */
  deleteExpectations(controllerKey: string): void;
  /** Replaces the expectations of `controllerKey` with new counts, stamped now. */
  setExpectations(controllerKey: string, add: number, del: number): void;
  /** Expects `adds` creations (and no deletions), replacing what was expected. */
  expectCreations(controllerKey: string, adds: number): void;
  /** Expects `dels` deletions (and no creations), replacing what was expected. */
  expectDeletions(controllerKey: string, dels: number): void;
  /** One expected creation has been seen (or will never happen). */
  creationObserved(controllerKey: string): void;
  /** One expected deletion has been seen (or will never happen). */
  deletionObserved(controllerKey: string): void;
  /** Raises existing expectations; does nothing when none are recorded. */
  raiseExpectations(controllerKey: string, add: number, del: number): void;
  /** Lowers existing expectations; does nothing when none are recorded. */
  lowerExpectations(controllerKey: string, add: number, del: number): void;
}

/**
 * Options for {@link ControllerExpectations}.
 *
 * @category Expectations
 */
export interface ControllerExpectationsOptions {
  /** Stamps and expires expectations. Default the real clock. */
  clock?: PassiveClock;
  /** Where verbosity-4 traces go. Default none. */
  logger?: Logger;
}

function checkCount(what: string, n: number): void {
  if (!Number.isSafeInteger(n)) {
    throw new RangeError(`${what} must be an integer, got ${String(n)}`);
  }
}

/**
 * The expectations of every key of one controller: Go's
 * `ControllerExpectations` (a store of {@link ControlleeExpectations}). Time
 * comes from the injected clock, so expiry is testable on a `FakeClock`.
 *
 * Keys of different kinds of controller may collide, so give each controller
 * its own instance.
 *
 * @example
 * ```ts
 * const exp = new ControllerExpectations({ clock });
 * exp.expectCreations('default/web', 2);
 * exp.satisfiedExpectations('default/web'); // false: two pods to see first
 * exp.creationObserved('default/web');
 * exp.creationObserved('default/web');
 * exp.satisfiedExpectations('default/web'); // true
 * ```
 *
 * @category Expectations
 */
export class ControllerExpectations implements ControllerExpectationsInterface {
  readonly #store = new Map<string, ControlleeExpectations>();
  readonly #clock: PassiveClock;
  readonly #logger: Logger;

  /** @param options - see {@link ControllerExpectationsOptions} */
  constructor(options: ControllerExpectationsOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
  }

  getExpectations(controllerKey: string): ControlleeExpectations | undefined {
    return this.#store.get(controllerKey);
  }

  deleteExpectations(controllerKey: string): void {
    this.#store.delete(controllerKey);
  }

  satisfiedExpectations(controllerKey: string): boolean {
    // controller_utils.go, SatisfiedExpectations
    const exp = this.#store.get(controllerKey);
    if (exp === undefined) {
      // Never set, or deleted: nothing to wait for.
      this.#logger
        .v(4)
        .info('Controller has no expectations recorded', { controller: controllerKey });
      return true;
    }
    if (exp.fulfilled()) {
      this.#logger.v(4).info('Controller expectations fulfilled', { expectations: exp.toJSON() });
      return true;
    }
    if (exp.isExpired(this.#clock.now())) {
      this.#logger.v(4).info('Controller expectations expired', { expectations: exp.toJSON() });
      return true;
    }
    this.#logger
      .v(4)
      .info('Controller still waiting on expectations', { expectations: exp.toJSON() });
    return false;
  }

  setExpectations(controllerKey: string, add: number, del: number): void {
    checkCount('add', add);
    checkCount('del', del);
    const exp = new ControlleeExpectations(controllerKey, add, del, this.#clock.now());
    this.#logger.v(4).info('Setting expectations', { expectations: exp.toJSON() });
    this.#store.set(controllerKey, exp);
  }

  expectCreations(controllerKey: string, adds: number): void {
    this.setExpectations(controllerKey, adds, 0);
  }

  expectDeletions(controllerKey: string, dels: number): void {
    this.setExpectations(controllerKey, 0, dels);
  }

  lowerExpectations(controllerKey: string, add: number, del: number): void {
    const exp = this.#store.get(controllerKey);
    if (exp === undefined) return;
    exp.add(-add, -del);
    this.#logger.v(4).info('Lowered expectations', { expectations: exp.toJSON() });
  }

  raiseExpectations(controllerKey: string, add: number, del: number): void {
    const exp = this.#store.get(controllerKey);
    if (exp === undefined) return;
    exp.add(add, del);
    this.#logger.v(4).info('Raised expectations', { expectations: exp.toJSON() });
  }

  creationObserved(controllerKey: string): void {
    this.lowerExpectations(controllerKey, 1, 0);
  }

  deletionObserved(controllerKey: string): void {
    this.lowerExpectations(controllerKey, 0, 1);
  }
}

/**
 * Expectations that remember which pods a controller deleted, by pod key
 * (`namespace/name`): Go's `UIDTrackingControllerExpectations`. A pod being
 * deleted gracefully is seen twice, once when its deletionTimestamp is set
 * and once when it is gone; counting by key makes both count as one.
 *
 * It wraps a plain {@link ControllerExpectationsInterface}; creations are
 * still counted, not tracked.
 *
 * @example
 * ```ts
 * const exp = new UIDTrackingControllerExpectations(new ControllerExpectations({ clock }));
 * exp.expectDeletions('default/web', ['default/web-abcde']);
 * exp.deletionObserved('default/web', 'default/web-abcde'); // counted
 * exp.deletionObserved('default/web', 'default/web-abcde'); // already counted: ignored
 * ```
 *
 * @category Expectations
 */
export class UIDTrackingControllerExpectations {
  readonly #inner: ControllerExpectationsInterface;
  readonly #uids = new Map<string, Set<string>>();
  readonly #logger: Logger;

  /**
   * @param inner - the counting expectations to wrap (Go's `ce`)
   * @param logger - where traces go; default none
   */
  constructor(inner: ControllerExpectationsInterface, logger: Logger = noopLogger) {
    this.#inner = inner;
    this.#logger = logger;
  }

  /** The pod keys still expected to be deleted for `controllerKey`. Go's `GetUIDs`. */
  getUIDs(controllerKey: string): ReadonlySet<string> | undefined {
    return this.#uids.get(controllerKey);
  }

  /**
   * Expects the pods named by `deletedKeys` (`namespace/name`) to be
   * deleted, replacing whatever was expected for `controllerKey`.
   */
  expectDeletions(controllerKey: string, deletedKeys: readonly string[]): void {
    const existing = this.#uids.get(controllerKey);
    if (existing !== undefined && existing.size > 0) {
      // Should not happen: a new scale-down starts only once the last one is seen.
      this.#logger.error(undefined, 'Overwriting pod keys still expected to be deleted', {
        controller: controllerKey,
        keys: [...existing],
      });
    }
    const expected = new Set(deletedKeys);
    this.#logger
      .v(4)
      .info('Controller waiting on deletions', { controller: controllerKey, keys: deletedKeys });
    this.#uids.set(controllerKey, expected);
    this.#inner.expectDeletions(controllerKey, expected.size);
  }

  /** Records the deletion of the pod `deleteKey`, if it was expected and not seen yet. */
  deletionObserved(controllerKey: string, deleteKey: string): void {
    const uids = this.#uids.get(controllerKey);
    if (uids === undefined || !uids.has(deleteKey)) return;
    this.#logger
      .v(4)
      .info('Controller received delete for pod', { controller: controllerKey, key: deleteKey });
    this.#inner.deletionObserved(controllerKey);
    uids.delete(deleteKey);
  }

  /** Forgets both the counts and the pod keys of `controllerKey`. */
  deleteExpectations(controllerKey: string): void {
    this.#inner.deleteExpectations(controllerKey);
    this.#uids.delete(controllerKey);
  }

  /** See {@link ControllerExpectationsInterface.getExpectations}. */
  getExpectations(controllerKey: string): ControlleeExpectations | undefined {
    return this.#inner.getExpectations(controllerKey);
  }

  /** See {@link ControllerExpectationsInterface.satisfiedExpectations}. */
  satisfiedExpectations(controllerKey: string): boolean {
    return this.#inner.satisfiedExpectations(controllerKey);
  }

  /** See {@link ControllerExpectationsInterface.setExpectations}. */
  setExpectations(controllerKey: string, add: number, del: number): void {
    this.#inner.setExpectations(controllerKey, add, del);
  }

  /** See {@link ControllerExpectationsInterface.expectCreations}. */
  expectCreations(controllerKey: string, adds: number): void {
    this.#inner.expectCreations(controllerKey, adds);
  }

  /** See {@link ControllerExpectationsInterface.creationObserved}. */
  creationObserved(controllerKey: string): void {
    this.#inner.creationObserved(controllerKey);
  }

  /** See {@link ControllerExpectationsInterface.raiseExpectations}. */
  raiseExpectations(controllerKey: string, add: number, del: number): void {
    this.#inner.raiseExpectations(controllerKey, add, del);
  }

  /** See {@link ControllerExpectationsInterface.lowerExpectations}. */
  lowerExpectations(controllerKey: string, add: number, del: number): void {
    this.#inner.lowerExpectations(controllerKey, add, del);
  }
}
