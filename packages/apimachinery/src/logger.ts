// The structured logger every package writes through: the shape of
// go-logr/logr's Logger as klog/v2 uses it (logger.Info, logger.Error,
// logger.V(n), WithValues, WithName). Packages take a Logger in their
// options and default to the no-op one; the manager supplies klog's text or
// JSON format.

/**
 * Key/value pairs attached to a log line, such as `{ replicaSet: 'default/web' }`.
 *
 * @category Logging
 */
export type LogValues = Readonly<Record<string, unknown>>;

/**
 * A structured logger: Go's `logr.Logger`. Verbosity works as in klog:
 * `logger.v(4).info(...)` is written only when the sink's verbosity is 4 or
 * more; errors are always written.
 *
 * @example
 * ```ts
 * const log = logger.withName('replicaset').withValues({ replicaSet: key });
 * log.v(4).info('Finished syncing', { duration: '12ms' });
 * log.error(err, 'Unable to update status');
 * ```
 *
 * @category Logging
 */
export interface Logger {
  /** Writes an informational line with optional key/value pairs. */
  info(msg: string, values?: LogValues): void;
  /** Writes an error line: the error, a message and optional key/value pairs. */
  error(err: unknown, msg: string, values?: LogValues): void;
  /** A logger whose `info` lines are written only at verbosity `level` or above. */
  v(level: number): Logger;
  /** True when `info` on this logger would write anything. */
  enabled(): boolean;
  /** A logger that adds `values` to every line. */
  withValues(values: LogValues): Logger;
  /** A logger whose name gains `/name` (shown as `logger="a/b"`). */
  withName(name: string): Logger;
}

const noop: Logger = Object.freeze({
  info() {},
  error() {},
  v: () => noop,
  enabled: () => false,
  withValues: () => noop,
  withName: () => noop,
});

/**
 * A logger that writes nothing: the default of every package.
 *
 * @category Logging
 */
export const noopLogger: Logger = noop;
