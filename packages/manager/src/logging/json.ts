// component-base/logs/json's format, selected by --logging-format=json:
// one JSON object per line with ts (seconds), caller, msg, v (info lines),
// err (error lines), the logger name and the key/value pairs.
import type { LogRecord } from './log-record.js';

function plain(value: unknown): unknown {
  if (value instanceof Error) return value.message;
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * A record as one line of component-base's JSON format, with its newline.
 *
 * @category Logging
 */
export function formatJsonLine(record: LogRecord): string {
  const out: Record<string, unknown> = { ts: record.time / 1000 };
  if (record.caller) out.caller = record.caller;
  if (record.name) out.logger = record.name;
  out.msg = record.msg;
  if (record.severity === 'info') out.v = record.verbosity;
  else if (record.err !== undefined && record.err !== null) out.err = plain(record.err);
  for (const [key, value] of Object.entries(record.values)) {
    if (!(key in out)) out[key] = plain(value);
  }
  try {
    return `${JSON.stringify(out)}\n`;
  } catch {
    return `${JSON.stringify({ ts: out.ts, msg: record.msg, err: 'unserializable log values' })}\n`;
  }
}
