// One log line before a format (text.ts, json.ts) writes it: what klog's
// sinks receive.
import type { LogValues } from '@kcm-ts/apimachinery';

/**
 * One log line before formatting: what klog's sinks receive.
 *
 * @category Logging
 */
export interface LogRecord {
  /** `info` or `error`. */
  severity: 'info' | 'error';
  /** The verbosity of an info line (0 for errors). */
  verbosity: number;
  /** Milliseconds since the epoch. */
  time: number;
  /** `file.ts:line` of the caller, or `''` when unknown. */
  caller: string;
  /** The logger's name (`a/b` after `withName('a').withName('b')`), or `''`. */
  name: string;
  /** The message. */
  msg: string;
  /** The error of an error line. */
  err?: unknown;
  /** Key/value pairs, the logger's own first. */
  values: LogValues;
}
