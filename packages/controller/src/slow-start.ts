// Slow start: pkg/controller/replicaset/replica_set.go (slowStartBatch, which
// the Job and DaemonSet controllers write again for themselves) and
// pkg/controller/controller_utils.go (SlowStartInitialBatchSize). Creations go out in batches of 1, 2, 4, ...
// and stop after the first batch with a failure, so a quota that refuses
// every pod costs one doomed request (and one event) per sync, not hundreds.

/**
 * The size of the first batch of {@link slowStartBatch}: 1. Go's
 * `SlowStartInitialBatchSize`.
 *
 * @category Slow start
 */
export const slowStartInitialBatchSize = 1;

/**
 * What {@link slowStartBatch} did: how many calls succeeded, and the error of
 * the batch that stopped it (`undefined` when every call succeeded).
 *
 * @category Slow start
 */
export interface SlowStartResult {
  /** The number of calls that resolved. */
  successes: number;
  /** One error of the first failing batch, or `undefined`. */
  error: Error | undefined;
}

/**
 * Calls `fn` up to `count` times, in batches that start at
 * `initialBatchSize` and double while every call succeeds (never more than
 * what remains). The calls of one batch run concurrently; after a batch with
 * any failure no further batch starts. Go's `slowStartBatch`: the error
 * returned is the first failure to arrive (a rejection with something other
 * than an `Error` is wrapped in one), and calls never made count neither as
 * successes nor as failures.
 *
 * @example
 * ```ts
 * const { successes, error } = await slowStartBatch(10, slowStartInitialBatchSize, () =>
 *   pods.create(podFromTemplate()).then(() => undefined),
 * );
 * ```
 *
 * @throws RangeError if `count` is not an integer ≥ 0 or `initialBatchSize` not one ≥ 1
 *
 * @category Slow start
 */
export async function slowStartBatch(
  count: number,
  initialBatchSize: number,
  fn: () => Promise<void>,
): Promise<SlowStartResult> {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new RangeError(`slowStartBatch: count must be an integer >= 0, got ${String(count)}`);
  }
  if (!Number.isSafeInteger(initialBatchSize) || initialBatchSize < 1) {
    throw new RangeError(
      `slowStartBatch: initialBatchSize must be an integer >= 1, got ${String(initialBatchSize)}`,
    );
  }
  let remaining = count;
  let successes = 0;
  for (
    let batchSize = Math.min(remaining, initialBatchSize);
    batchSize > 0;
    batchSize = Math.min(2 * batchSize, remaining)
  ) {
    const errors: Error[] = [];
    const calls: Promise<void>[] = [];
    for (let i = 0; i < batchSize; i++) {
      calls.push(
        // A synchronous throw counts like a rejection.
        Promise.resolve()
          .then(fn)
          .catch((err: unknown) => {
            // A non-Error rejection is wrapped, so callers can always throw what they get.
            errors.push(
              err instanceof Error
                ? err
                : new Error(`slowStartBatch: a call failed with ${String(err)}`, { cause: err }),
            );
          }),
      );
    }
    await Promise.all(calls);
    successes += batchSize - errors.length;
    if (errors.length > 0) return { successes, error: errors[0] };
    remaining -= batchSize;
  }
  return { successes, error: undefined };
}
