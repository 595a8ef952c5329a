// The conditions the namespace controller keeps on a terminating namespace:
// Go's pkg/controller/namespace/deletion/status_condition_utils.go
// (namespaceConditionUpdater, updateConditions).
import type { Namespace, NamespaceCondition, NamespaceStatus } from 'kubernetes-types/core/v1.js';
import { formatTime, type Clock } from '@kcm-ts/apimachinery';
import { isGroupDiscoveryFailedError } from '@kcm-ts/apimachinery';

/**
 * The condition types of a terminating namespace, in the order they are
 * written: Go's `v1.NamespaceDeletionDiscoveryFailure` and friends.
 *
 * @category Namespace controller
 */
export const namespaceConditionTypes = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

/**
 * One of {@link namespaceConditionTypes}.
 *
 * @category Namespace controller
 */
export type NamespaceConditionType = (typeof namespaceConditionTypes)[number];

// What each condition says when all is well (status False).
const okMessages: Record<NamespaceConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: 'All resources successfully discovered',
  NamespaceDeletionGroupVersionParsingFailure: 'All legacy kube types successfully parsed',
  NamespaceDeletionContentFailure:
    'All content successfully deleted, may be waiting on finalization',
  NamespaceContentRemaining: 'All content successfully removed',
  NamespaceFinalizersRemaining: 'All content-preserving finalizers finished',
};
const okReasons: Record<NamespaceConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: 'ResourcesDiscovered',
  NamespaceDeletionGroupVersionParsingFailure: 'ParsedGroupVersions',
  NamespaceDeletionContentFailure: 'ContentDeleted',
  NamespaceContentRemaining: 'ContentRemoved',
  NamespaceFinalizersRemaining: 'ContentHasNoFinalizers',
};

/** How much of a namespace's content remains, by resource and by finalizer. Go's `allGVRDeletionMetadata`. */
export interface AllGVRDeletionMetadata {
  /** Objects left, keyed `resource.group` (`pods.` for the core group). */
  readonly gvrToNumRemaining: ReadonlyMap<string, number>;
  /** Objects left holding each finalizer. */
  readonly finalizersToNumRemaining: ReadonlyMap<string, number>;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Collects what went wrong while a namespace was emptied and turns it into
 * its status conditions. Go's `namespaceConditionUpdater`.
 */
export class NamespaceConditionUpdater {
  readonly #clock: Clock;
  readonly #newConditions: NamespaceCondition[] = [];
  readonly #deleteContentErrors: unknown[] = [];

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  #condition(type: NamespaceConditionType, reason: string, message: string): NamespaceCondition {
    return {
      type,
      status: 'True',
      lastTransitionTime: formatTime(this.#clock.now()),
      reason,
      message,
    };
  }

  /** Discovery failed, in part or whole. Go's `ProcessDiscoverResourcesErr`. */
  processDiscoverResourcesErr(err: unknown): void {
    const msg = isGroupDiscoveryFailedError(err)
      ? `Discovery failed for some groups, ${err.groups.size} failing: ${err.message}`
      : errorText(err);
    this.#newConditions.push(
      this.#condition('NamespaceDeletionDiscoveryFailure', 'DiscoveryFailed', msg),
    );
  }

  /** A group version did not parse. Go's `ProcessGroupVersionErr`. */
  processGroupVersionErr(err: unknown): void {
    this.#newConditions.push(
      this.#condition(
        'NamespaceDeletionGroupVersionParsingFailure',
        'GroupVersionParsingFailed',
        errorText(err),
      ),
    );
  }

  /** Deleting one resource's content failed. Go's `ProcessDeleteContentErr`. */
  processDeleteContentErr(err: unknown): void {
    this.#deleteContentErrors.push(err);
  }

  /** What remains, by resource and by finalizer. Go's `ProcessContentTotals`. */
  processContentTotals(totals: AllGVRDeletionMetadata): void {
    if (totals.gvrToNumRemaining.size > 0) {
      const remaining = [...totals.gvrToNumRemaining]
        .filter(([, n]) => n !== 0)
        .map(([gr, n]) => `${gr} has ${n} resource instances`)
        .sort();
      this.#newConditions.push(
        this.#condition(
          'NamespaceContentRemaining',
          'SomeResourcesRemain',
          `Some resources are remaining: ${remaining.join(', ')}`,
        ),
      );
    }
    if (totals.finalizersToNumRemaining.size > 0) {
      const byFinalizer = [...totals.finalizersToNumRemaining]
        .filter(([, n]) => n !== 0)
        .map(([f, n]) => `${f} in ${n} resource instances`)
        .sort();
      this.#newConditions.push(
        this.#condition(
          'NamespaceFinalizersRemaining',
          'SomeFinalizersRemain',
          `Some content in the namespace has finalizers remaining: ${byFinalizer.join(', ')}`,
        ),
      );
    }
  }

  /**
   * Writes the conditions into `ns.status` (changing `ns`): the failures
   * seen, and the all-is-well variant of every other type. True when
   * anything changed. Go's `Update`.
   */
  update(ns: Namespace): boolean {
    if (getCondition(this.#newConditions, 'NamespaceDeletionContentFailure') === undefined) {
      const c = this.#deleteContentCondition();
      if (c !== undefined) this.#newConditions.push(c);
    }
    ns.status ??= {};
    return updateConditions(ns.status, this.#newConditions, this.#clock);
  }

  #deleteContentCondition(): NamespaceCondition | undefined {
    const errs = this.#deleteContentErrors;
    if (errs.length === 0) return undefined;
    const msgs = errs.map(errorText).sort();
    return this.#condition(
      'NamespaceDeletionContentFailure',
      'ContentDeletionFailed',
      `Failed to delete all resource types, ${errs.length} remaining: ${msgs.join(', ')}`,
    );
  }
}

function getCondition(
  conditions: readonly NamespaceCondition[] | undefined,
  type: string,
): NamespaceCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Sets each condition type the controller maintains: the new one where
 * there is one, else the all-is-well one; a transition time changes only
 * with the status. Go's `updateConditions`.
 */
export function updateConditions(
  status: NamespaceStatus,
  newConditions: readonly NamespaceCondition[],
  clock: Clock,
): boolean {
  let hasChanged = false;
  for (const type of namespaceConditionTypes) {
    const newCondition = getCondition(newConditions, type) ?? {
      type,
      status: 'False',
      lastTransitionTime: formatTime(clock.now()),
      reason: okReasons[type],
      message: okMessages[type],
    };
    const oldCondition = getCondition(status.conditions, type);
    if (oldCondition === undefined) {
      (status.conditions ??= []).push({ ...newCondition });
      hasChanged = true;
    } else if (
      oldCondition.status !== newCondition.status ||
      oldCondition.message !== newCondition.message ||
      oldCondition.reason !== newCondition.reason
    ) {
      if (oldCondition.status !== newCondition.status) {
        oldCondition.lastTransitionTime = formatTime(clock.now());
      }
      oldCondition.type = newCondition.type;
      oldCondition.status = newCondition.status;
      oldCondition.reason = newCondition.reason;
      oldCondition.message = newCondition.message;
      hasChanged = true;
    }
  }
  return hasChanged;
}
