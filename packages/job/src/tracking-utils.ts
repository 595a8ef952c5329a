// Tracking finished pods through a finalizer:
// pkg/controller/job/tracking_utils.go (uidTrackingExpectations with
// getExpectedUIDs, expectFinalizersRemoved, finalizerRemovalObserved and
// deleteExpectations; hasJobTrackingFinalizer,
// recordFinishedPodWithTrackingFinalizer, isFinishedPodWithTrackingFinalizer).
//
// Every pod the Job controller creates carries the finalizer
// `batch.kubernetes.io/job-tracking`, so it cannot vanish before the
// controller has counted it. The controller removes the finalizer once the
// pod is counted (or listed in status.uncountedTerminatedPods), and remembers
// which removals it still waits to see: a pod whose removal is under way must
// not be counted again by a sync that runs before the informer shows it.
import type { Pod } from 'kubernetes-types/core/v1.js';
import { noopLogger, type Logger } from '@kcm-ts/apimachinery';
import { metricAdd, metricDelete, type JobControllerMetrics } from './metrics.js';
import { jobTrackingFinalizer } from './types.js';

/**
 * The pod uids whose tracking finalizer each Job (by key) has asked to
 * remove and has not yet seen removed: Go's `uidTrackingExpectations`.
 * Unlike the pod creation expectations, these never expire.
 *
 * @category Tracking
 */
export class UIDTrackingExpectations {
  readonly #store = new Map<string, Set<string>>();
  readonly #logger: Logger;

  /** @param logger - where verbosity-4 traces go; default none */
  constructor(logger: Logger = noopLogger) {
    this.#logger = logger;
  }

  /**
   * A copy of the uids still expected for `jobKey`, or `undefined` when
   * none were ever expected (or they were deleted). Go's `getExpectedUIDs`.
   */
  getExpectedUIDs(jobKey: string): Set<string> | undefined {
    const uids = this.#store.get(jobKey);
    return uids === undefined ? undefined : new Set(uids);
  }

  /**
   * Adds `uids` to the removals `jobKey` waits to see. Go's
   * `expectFinalizersRemoved`.
   */
  expectFinalizersRemoved(jobKey: string, uids: readonly string[]): void {
    this.#logger
      .v(4)
      .info('Expecting tracking finalizers removed', { key: jobKey, podUIDs: [...uids] });
    let set = this.#store.get(jobKey);
    if (set === undefined) {
      set = new Set();
      this.#store.set(jobKey, set);
    }
    for (const uid of uids) set.add(uid);
  }

  /**
   * The removal of the finalizer of pod `uid` has been seen (or will never
   * happen): stop waiting for it. Go's `finalizerRemovalObserved`.
   */
  finalizerRemovalObserved(jobKey: string, uid: string): void {
    const set = this.#store.get(jobKey);
    if (set?.delete(uid)) {
      this.#logger.v(4).info('Observed tracking finalizer removed', { key: jobKey, podUID: uid });
    }
  }

  /** Forgets everything expected for `jobKey`. Go's `deleteExpectations`. */
  deleteExpectations(jobKey: string): void {
    this.#store.delete(jobKey);
  }
}

/**
 * True when the pod carries {@link jobTrackingFinalizer}. Go's
 * `hasJobTrackingFinalizer`.
 *
 * @category Tracking
 */
export function hasJobTrackingFinalizer(pod: Pod): boolean {
  return (pod.metadata?.finalizers ?? []).includes(jobTrackingFinalizer);
}

/**
 * True for a pod in a terminal phase that still carries the tracking
 * finalizer. Go's `isFinishedPodWithTrackingFinalizer`.
 *
 * @category Tracking
 */
export function isFinishedPodWithTrackingFinalizer(pod: Pod | undefined): boolean {
  if (pod === undefined) return false;
  const phase = pod.status?.phase;
  return (phase === 'Failed' || phase === 'Succeeded') && hasJobTrackingFinalizer(pod);
}

/**
 * Counts, in `job_controller_terminated_pods_tracking_finalizer_total`, a
 * pod that became (`add`) or stopped being (`delete`) a finished pod with the
 * tracking finalizer, whoever owns it; `undefined` stands for a pod not yet
 * created or gone. Go's `recordFinishedPodWithTrackingFinalizer`.
 *
 * @category Tracking
 */
export function recordFinishedPodWithTrackingFinalizer(
  metrics: Pick<JobControllerMetrics, 'terminatedPodsTrackingFinalizerTotal'>,
  oldPod: Pod | undefined,
  newPod: Pod | undefined,
): void {
  const was = isFinishedPodWithTrackingFinalizer(oldPod);
  const is = isFinishedPodWithTrackingFinalizer(newPod);
  if (was === is) return;
  metrics.terminatedPodsTrackingFinalizerTotal.withLabelValues(is ? metricAdd : metricDelete).inc();
}
