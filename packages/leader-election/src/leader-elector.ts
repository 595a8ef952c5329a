// The elector: client-go tools/leaderelection/leaderelection.go
// (LeaderElectionConfig, NewLeaderElector, Run, RunOrDie, acquire, renew,
// release, tryAcquireOrRenew, Check). Coordinated election (alpha) is not ported.
import { isConflict, isNotFound, noopLogger, realClock } from '@kcm-ts/apimachinery';
import type { Clock, Logger } from '@kcm-ts/apimachinery';
import type { LeaderMetric } from './metrics.js';
import { newLeaderMetric } from './metrics.js';
import type { LeaderElectionRecord, ResourceLock } from './resource-lock.js';

/**
 * The jitter applied to the retry period while waiting to acquire: waits last
 * between 1 and 2.2 retry periods. Go's `leaderelection.JitterFactor`.
 *
 * @category Leader election
 */
export const jitterFactor = 1.2;

/**
 * kube-controller-manager's lease duration: 15 s.
 *
 * @category Leader election
 */
export const defaultLeaseDuration = 15_000;

/**
 * kube-controller-manager's renew deadline: 10 s.
 *
 * @category Leader election
 */
export const defaultRenewDeadline = 10_000;

/**
 * kube-controller-manager's retry period: 2 s.
 *
 * @category Leader election
 */
export const defaultRetryPeriod = 2_000;

/**
 * What the elector calls as leadership comes and goes: Go's `LeaderCallbacks`.
 *
 * A callback that throws, or whose promise rejects, is not caught: the error
 * becomes an uncaught exception or unhandled rejection, which ends a Node
 * process by default, as client-go's crash handler re-panics.
 *
 * @category Leader election
 */
export interface LeaderCallbacks {
  /**
   * Called when this process becomes the leader; do the leader's work here.
   * `signal` aborts when leadership is lost or the elector is stopped, before
   * the lease is released and before `onStoppedLeading`.
   */
  onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called when `run` ends, whether or not this process ever led. */
  onStoppedLeading: () => void;
  /**
   * Called with the holder's identity whenever the observed holder changes,
   * including the first time. Never called with `''`: a released lease has no
   * leader to report. Optional.
   */
  onNewLeader?: ((identity: string) => void) | undefined;
}

/**
 * Configuration of a {@link LeaderElector}: Go's `LeaderElectionConfig`.
 * Durations are milliseconds; unset durations take kube-controller-manager's
 * defaults (15 s, 10 s, 2 s).
 *
 * @category Leader election
 */
export interface LeaderElectionConfig {
  /** The lock candidates compete for. */
  lock: ResourceLock;
  /**
   * How long others wait, from the last change they observed in the record,
   * before taking the lock over.
   */
  leaseDuration?: number | undefined;
  /** How long the leader keeps retrying a renewal before it gives up leadership. */
  renewDeadline?: number | undefined;
  /** The interval between attempts to acquire or renew. */
  retryPeriod?: number | undefined;
  /** The callbacks. */
  callbacks: LeaderCallbacks;
  /**
   * A health check to attach the elector to (done by {@link runOrDie}): a
   * {@link HealthzAdaptor}. Typed by the one method used, so that the elector
   * does not import the adaptor that imports it.
   */
  watchDog?:
    | {
        /** Attaches the elector whose health is reported. */
        setLeaderElection(elector: LeaderElector): void;
      }
    | undefined;
  /** Write an empty holder into the lock when `run`'s signal aborts, so another candidate can take over at once. */
  releaseOnCancel?: boolean | undefined;
  /** The elector's name: the metrics label and the name in health messages. */
  name?: string | undefined;
  /** The clock everything waits on; defaults to the real clock. */
  clock?: Clock | undefined;
  /** The random source for jitter, returning values in [0, 1); defaults to `Math.random`. */
  random?: (() => number) | undefined;
  /**
   * Where attempts and their failures are logged, with client-go's messages
   * ("error retrieving resource lock ...", "Failed to update lock ..."), so
   * a candidate that cannot reach the API server says so on every retry.
   * Default: no logs.
   */
  logger?: Logger | undefined;
}

/** Checks a config in client-go's order, returning the first error message. */
function validate(
  config: LeaderElectionConfig,
  leaseDuration: number,
  renewDeadline: number,
  retryPeriod: number,
): string | undefined {
  if (leaseDuration <= renewDeadline) return 'leaseDuration must be greater than renewDeadline';
  if (renewDeadline <= jitterFactor * retryPeriod) {
    return 'renewDeadline must be greater than retryPeriod*JitterFactor';
  }
  if (!(leaseDuration > 0)) return 'leaseDuration must be greater than zero';
  if (!(renewDeadline > 0)) return 'renewDeadline must be greater than zero';
  if (!(retryPeriod > 0)) return 'retryPeriod must be greater than zero';
  if (typeof config.callbacks?.onStartedLeading !== 'function') {
    return 'OnStartedLeading callback must not be nil';
  }
  if (typeof config.callbacks?.onStoppedLeading !== 'function') {
    return 'OnStoppedLeading callback must not be nil';
  }
  if (config.lock == null) return 'Lock must not be nil.';
  if (config.lock.identity() === '') return 'Lock identity is empty';
  return undefined;
}

/** An abort signal that fires after `ms` on `clock`, or with `parent`. */
function deadlineSignal(
  clock: Clock,
  ms: number,
  parent?: AbortSignal,
): { signal: AbortSignal; stop: () => void } {
  const ctrl = new AbortController();
  const timer = clock.afterFunc(ms, () => ctrl.abort(new Error('deadline exceeded')));
  const onAbort = () => ctrl.abort(parent?.reason);
  if (parent?.aborted) onAbort();
  else parent?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: ctrl.signal,
    stop: () => {
      timer.stop();
      parent?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * Competes for a lock and keeps it while it can: Go's `leaderelection.LeaderElector`.
 *
 * {@link LeaderElector.run} tries to acquire the lock every retry period
 * (jittered); once it holds it, it calls `onStartedLeading` and renews every
 * retry period. If renewals keep failing for the renew deadline, it gives up:
 * the leader's signal aborts and `run` returns. Others judge expiry by their
 * own clock, from the moment they last saw the record change, plus the lease
 * duration written in it; the holder's timestamps are never compared with a
 * local clock.
 *
 * The constructor validates the config with client-go's checks and messages,
 * and throws an `Error` on the first that fails.
 *
 * @example
 * ```ts
 * const elector = new LeaderElector({ lock, callbacks, clock });
 * await elector.run(signal);
 * ```
 *
 * @category Leader election
 */
export class LeaderElector {
  readonly #lock: ResourceLock;
  readonly #leaseDuration: number;
  readonly #renewDeadline: number;
  readonly #retryPeriod: number;
  readonly #callbacks: LeaderCallbacks;
  readonly #releaseOnCancel: boolean;
  readonly #name: string;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #metrics: LeaderMetric;

  readonly #logger: Logger;
  #observedRecord: LeaderElectionRecord | undefined;
  #observedRawRecord: string | undefined;
  #observedTime = 0;
  #reportedLeader = '';

  /** Validates `config` (throwing the first problem) and sets the leader metric to off. */
  constructor(config: LeaderElectionConfig) {
    const leaseDuration = config.leaseDuration ?? defaultLeaseDuration;
    const renewDeadline = config.renewDeadline ?? defaultRenewDeadline;
    const retryPeriod = config.retryPeriod ?? defaultRetryPeriod;
    const problem = validate(config, leaseDuration, renewDeadline, retryPeriod);
    if (problem !== undefined) throw new Error(problem);
    this.#lock = config.lock;
    this.#leaseDuration = leaseDuration;
    this.#renewDeadline = renewDeadline;
    this.#retryPeriod = retryPeriod;
    this.#callbacks = config.callbacks;
    this.#releaseOnCancel = config.releaseOnCancel ?? false;
    this.#name = config.name ?? '';
    this.#clock = config.clock ?? realClock;
    this.#random = config.random ?? Math.random;
    this.#logger = config.logger ?? noopLogger;
    this.#metrics = newLeaderMetric();
    this.#metrics.off(this.#name);
  }

  /**
   * Acquires the lock, leads until leadership is lost or `signal` aborts, and
   * resolves once everything has stopped (`onStoppedLeading` included). Go's
   * `Run`. An elector runs once; build a new one to compete again.
   */
  //#region run
  async run(signal: AbortSignal): Promise<void> {
    try {
      if (!(await this.#acquire(signal))) return;
      const leading = new AbortController();
      const onAbort = () => leading.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        // Started on its own, like Go's goroutine: run goes on to renew at once.
        const start = this.#callbacks.onStartedLeading;
        void Promise.resolve().then(() => start(leading.signal));
        await this.#renew(signal, leading);
      } finally {
        signal.removeEventListener('abort', onAbort);
        leading.abort(new Error('leadership lost'));
      }
    } finally {
      this.#callbacks.onStoppedLeading();
    }
  }
  //#endregion run

  /** The identity of the last observed holder; `''` if none has been observed. */
  getLeader(): string {
    return this.#observedRecord?.holderIdentity ?? '';
  }

  /** Whether the last observed holder is this candidate. */
  isLeader(): boolean {
    return (
      this.#observedRecord !== undefined &&
      this.#observedRecord.holderIdentity === this.#lock.identity()
    );
  }

  /**
   * The health check behind {@link HealthzAdaptor}: `undefined` unless this
   * process leads and has not renewed for longer than the lease duration plus
   * `maxTolerableExpiredLease` ms, then an error. Go's `Check`.
   */
  check(maxTolerableExpiredLease: number): Error | undefined {
    if (!this.isLeader()) return undefined;
    if (this.#clock.since(this.#observedTime) > this.#leaseDuration + maxTolerableExpiredLease) {
      return new Error(`failed election to renew leadership on lease ${this.#name}`);
    }
    return undefined;
  }

  //#region acquire
  // acquire: try at once, then after jittered waits, until success or abort.
  async #acquire(signal: AbortSignal): Promise<boolean> {
    const desc = this.#lock.describe();
    this.#logger.info(`attempting to acquire leader lease ${desc}...`);
    while (!signal.aborted) {
      const ok = await this.#tryAcquireOrRenew(signal);
      this.#maybeReportTransition();
      if (ok) {
        this.#lock.recordEvent('became leader');
        this.#metrics.on(this.#name);
        this.#logger.info(`successfully acquired lease ${desc}`);
        return true;
      }
      this.#logger.v(4).info(`failed to acquire lease ${desc}`);
      const wait = this.#retryPeriod * (1 + this.#random() * jitterFactor);
      await this.#clock.sleep(wait, signal);
    }
    return false;
  }
  //#endregion acquire

  //#region renew
  // renew: every retry period, poll until a renewal succeeds or the renew
  // deadline passes; give up on the first deadline missed.
  async #renew(signal: AbortSignal, leading: AbortController): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.#pollRenew(signal))) {
        if (!signal.aborted) {
          this.#logger.info(
            `failed to renew lease ${this.#lock.describe()}: context deadline exceeded`,
          );
        }
        this.#metrics.off(this.#name);
        break;
      }
      await this.#clock.sleep(this.#retryPeriod, signal);
    }
    leading.abort(new Error('leadership lost'));
    this.#lock.recordEvent('stopped leading');
    if (this.#releaseOnCancel) await this.#release();
  }
  //#endregion renew

  //#region poll-renew
  async #pollRenew(signal: AbortSignal): Promise<boolean> {
    const deadline = deadlineSignal(this.#clock, this.#renewDeadline, signal);
    try {
      for (;;) {
        if (deadline.signal.aborted) return false;
        const ok = await this.#tryAcquireOrRenew(deadline.signal);
        this.#maybeReportTransition();
        if (ok) return true;
        await this.#clock.sleep(this.#retryPeriod, deadline.signal);
      }
    } finally {
      deadline.stop();
    }
  }
  //#endregion poll-renew

  //#region release
  // release: clear the holder so another candidate may take over at once.
  async #release(): Promise<boolean> {
    const deadline = deadlineSignal(this.#clock, this.#renewDeadline);
    try {
      for (;;) {
        if (deadline.signal.aborted) return false;
        let fetched: LeaderElectionRecord;
        try {
          fetched = (await this.#lock.get(deadline.signal)).record;
        } catch {
          return false;
        }
        // Also require the stored holder to be us, so a lease another
        // candidate has taken over is never cleared.
        if (!this.isLeader() || fetched.holderIdentity !== this.#lock.identity()) return true;
        const now = this.#clock.now();
        const released: LeaderElectionRecord = {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaderTransitions: this.#observedRecord?.leaderTransitions ?? 0,
        };
        try {
          await this.#lock.update(released, deadline.signal);
        } catch (err) {
          if (!isConflict(err)) return false;
          // Go retries at once; a pause of one retry period keeps a run of
          // conflicts from spinning without time passing.
          await this.#clock.sleep(this.#retryPeriod, deadline.signal);
          continue;
        }
        this.#setObservedRecord(released);
        return true;
      }
    } finally {
      deadline.stop();
    }
  }
  //#endregion release

  //#region try-acquire-or-renew
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.#clock.now();
    const desired: LeaderElectionRecord = {
      holderIdentity: this.#lock.identity(),
      leaseDurationSeconds: Math.trunc(this.#leaseDuration / 1000),
      acquireTime: now,
      renewTime: now,
      leaderTransitions: 0,
    };

    // Fast path: we hold a lease that is still valid, so update without a get.
    const observed = this.#observedRecord;
    if (this.isLeader() && observed !== undefined && this.#isLeaseValid(now)) {
      desired.acquireTime = observed.acquireTime;
      desired.leaderTransitions = observed.leaderTransitions;
      try {
        await this.#lock.update(desired, signal);
        this.#setObservedRecord(desired);
        return true;
      } catch (err) {
        // Fall back to the slow path (a conflict, for instance).
        this.#logError(
          signal,
          err,
          'Failed to update lock optimistically, falling back to slow path',
        );
      }
    }

    let fetched: LeaderElectionRecord;
    let raw: string;
    try {
      ({ record: fetched, rawRecord: raw } = await this.#lock.get(signal));
    } catch (err) {
      if (!isNotFound(err)) {
        this.#logError(signal, err, `error retrieving resource lock ${this.#lock.describe()}`);
        return false;
      }
      try {
        await this.#lock.create(desired, signal);
      } catch (createErr) {
        this.#logError(signal, createErr, 'error initially creating leader election record');
        return false;
      }
      this.#setObservedRecord(desired);
      return true;
    }

    if (this.#observedRawRecord !== raw) {
      this.#observedRecord = fetched;
      this.#observedRawRecord = raw;
      this.#observedTime = this.#clock.now();
    }
    if (fetched.holderIdentity !== '' && this.#isLeaseValid(now) && !this.isLeader()) {
      this.#logger.v(4).info(`lock is held by ${fetched.holderIdentity} and has not yet expired`);
      return false;
    }

    if (this.isLeader()) {
      desired.acquireTime = fetched.acquireTime;
      desired.leaderTransitions = fetched.leaderTransitions;
      this.#metrics.slowpathExercised(this.#name);
    } else {
      desired.leaderTransitions = fetched.leaderTransitions + 1;
    }

    try {
      await this.#lock.update(desired, signal);
    } catch (err) {
      this.#logError(signal, err, 'Failed to update lock');
      return false;
    }
    this.#setObservedRecord(desired);
    return true;
  }
  //#endregion try-acquire-or-renew

  //#region lease-valid
  #isLeaseValid(now: number): boolean {
    const seconds = this.#observedRecord?.leaseDurationSeconds ?? 0;
    return this.#observedTime + seconds * 1000 > now;
  }
  //#endregion lease-valid

  /** Logs a failed attempt, unless it failed because the elector is stopping. */
  #logError(signal: AbortSignal, err: unknown, message: string): void {
    if (!signal.aborted) this.#logger.error(err, message);
  }

  #setObservedRecord(record: LeaderElectionRecord): void {
    this.#observedRecord = record;
    this.#observedTime = this.#clock.now();
  }

  #maybeReportTransition(): void {
    const holder = this.getLeader();
    if (holder === this.#reportedLeader) return;
    this.#reportedLeader = holder;
    // An empty holder is a released lease, not a leader: it is remembered, so
    // the next leader is reported, but never passed on.
    if (holder === '') return;
    const onNewLeader = this.#callbacks.onNewLeader;
    if (onNewLeader !== undefined) queueMicrotask(() => onNewLeader(holder));
  }
}

/**
 * The error {@link runOrDie} rejects with when leadership was lost rather
 * than given up on request: the leader failed to renew its lock within the
 * renew deadline, and another candidate may already lead.
 *
 * @category Leader election
 */
export class LeaderElectionLostError extends Error {
  /** Always `'LeaderElectionLostError'`. */
  override readonly name = 'LeaderElectionLostError';
  /** The elector's name from its config (`''` if unset). */
  readonly electionName: string;

  constructor(electionName: string) {
    super(
      `leaderelection lost${electionName === '' ? '' : ` for ${electionName}`}: ` +
        'the lease was not renewed within the renew deadline',
    );
    this.electionName = electionName;
  }
}

/**
 * Builds an elector from `config` and runs it: Go's `RunOrDie`, with the
 * ending kube-controller-manager gives it. It resolves once `signal` aborts
 * and everything has stopped (a requested shutdown), and rejects with a
 * {@link LeaderElectionLostError} when leadership is lost without one, so a
 * process can exit non-zero and let its supervisor restart it as a
 * candidate. An invalid config throws at once (Go panics). A `watchDog` in
 * the config is attached to the elector first.
 *
 * @category Leader election
 */
export async function runOrDie(config: LeaderElectionConfig, signal: AbortSignal): Promise<void> {
  const elector = new LeaderElector(config);
  config.watchDog?.setLeaderElection(elector);
  await elector.run(signal);
  if (!signal.aborted) throw new LeaderElectionLostError(config.name ?? '');
}
