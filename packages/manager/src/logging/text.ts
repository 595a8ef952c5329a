// klog's text format (k8s.io/klog/v2: klog.go formatHeader, and
// internal/serialize KVListFormat for structured key/value pairs):
//   I1123 23:45:01.123456   12345 controller-manager.ts:88] "Starting" version="v1.32.0"
import type { LogRecord } from './log-record.js';

const pad = (n: number, width: number, fill = '0'): string => String(n).padStart(width, fill);

/** Go's %q for a string, as klog quotes messages and string values. */
export function quote(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** One value as klog's KVListFormat writes it. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') {
    // Multi-line strings get klog's indented block form.
    if (value.includes('\n')) {
      return `<\n${value
        .split('\n')
        .map((l) => `\t${l}`)
        .join('\n')}\n >`;
    }
    return quote(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  if (value instanceof Error) return quote(value.message);
  if (Array.isArray(value)) return `[${value.map((v) => formatValue(v)).join(' ')}]`;
  try {
    return quote(JSON.stringify(value) ?? typeof value);
  } catch {
    // A cycle or a BigInt inside: say what it was rather than fail the log line.
    return quote(`<unprintable ${typeof value}>`);
  }
}

/** The `key=value` pairs of a line, each preceded by a space. */
export function formatValues(values: Readonly<Record<string, unknown>>): string {
  let out = '';
  for (const [key, value] of Object.entries(values)) out += ` ${key}=${formatValue(value)}`;
  return out;
}

/**
 * A record as one line of klog's text format, with its newline.
 *
 * @category Logging
 */
export function formatTextLine(record: LogRecord, pid: number): string {
  const d = new Date(record.time);
  const micros = Math.floor((record.time % 1000) * 1000);
  const header =
    `${record.severity === 'error' ? 'E' : 'I'}` +
    `${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)} ` +
    `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(micros, 6)} ` +
    `${pad(pid, 7, ' ')} ${record.caller || '???:1'}] `;
  let line = header + quote(record.msg);
  if (record.name) line += ` logger=${quote(record.name)}`;
  if (record.severity === 'error' && record.err !== undefined && record.err !== null) {
    line += ` err=${formatValue(record.err instanceof Error ? record.err.message : record.err)}`;
  }
  return `${line}${formatValues(record.values)}\n`;
}
