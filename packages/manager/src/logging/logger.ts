// The manager's logger: klog/v2 as kube-controller-manager configures it
// through component-base/logs (`-v`, `--logging-format`). Lines are built by
// a format (text.ts: klog's header and key=value pairs; json.ts:
// component-base/logs/json) and handed to one writer.
import type { LogValues, Logger } from '@kcm-ts/apimachinery';
import { formatJsonLine } from './json.js';
import type { LogRecord } from './log-record.js';
import { formatTextLine } from './text.js';

/**
 * The two formats of `--logging-format`.
 *
 * @category Logging
 */
export type LoggingFormat = 'text' | 'json';

/**
 * Options for {@link newLogger}.
 *
 * @category Logging
 */
export interface LoggerOptions {
  /** `text` (klog's format, the default) or `json`. */
  format?: LoggingFormat;
  /** `-v`: info lines with a verbosity above this are dropped. Default 0. */
  verbosity?: number;
  /** Where each formatted line goes (with its newline). Default: standard error, as klog writes. */
  write?: (line: string) => void;
  /** The time of a line, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
  /** The process id printed in klog's header. Default `process.pid`. */
  pid?: number;
  /** Look up the caller's file and line (costs a stack trace per written line). Default true. */
  caller?: boolean;
}

interface Sink {
  readonly verbosity: number;
  emit(record: LogRecord): void;
}

class KlogLogger implements Logger {
  constructor(
    private readonly sink: Sink,
    private readonly level: number,
    private readonly name: string,
    private readonly values: LogValues,
  ) {}

  info(msg: string, values?: LogValues): void {
    if (!this.enabled()) return;
    this.sink.emit(this.record('info', msg, undefined, values));
  }

  error(err: unknown, msg: string, values?: LogValues): void {
    this.sink.emit(this.record('error', msg, err, values));
  }

  v(level: number): Logger {
    return new KlogLogger(this.sink, level, this.name, this.values);
  }

  enabled(): boolean {
    return this.level <= this.sink.verbosity;
  }

  withValues(values: LogValues): Logger {
    return new KlogLogger(this.sink, this.level, this.name, { ...this.values, ...values });
  }

  withName(name: string): Logger {
    return new KlogLogger(
      this.sink,
      this.level,
      this.name ? `${this.name}/${name}` : name,
      this.values,
    );
  }

  private record(
    severity: 'info' | 'error',
    msg: string,
    err: unknown,
    values: LogValues | undefined,
  ): LogRecord {
    return {
      severity,
      verbosity: severity === 'error' ? 0 : this.level,
      time: 0,
      caller: '',
      name: this.name,
      msg,
      ...(severity === 'error' ? { err } : {}),
      values: values ? { ...this.values, ...values } : this.values,
    };
  }
}

/** `file.ts:line` of the first stack frame outside this folder. */
function callerOf(stack: string | undefined): string {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const m = /\(?([^\s()]+):(\d+):\d+\)?$/.exec(line.trim());
    if (!m?.[1] || /[\\/]logging[\\/](logger|text|json)\.[cm]?[jt]s$/.test(m[1])) continue;
    if (/[\\/]dist[\\/]index\.c?js$/.test(m[1]) && line.includes('KlogLogger')) continue;
    return `${m[1].split(/[\\/]/).pop() ?? m[1]}:${m[2]}`;
  }
  return '';
}

/**
 * Makes the logger kube-controller-manager writes with: klog's text format
 * by default, component-base's JSON with `format: 'json'`, and `-v`
 * verbosity. Errors are always written.
 *
 * @example
 * ```ts
 * const logger = newLogger({ verbosity: 2 });
 * logger.withName('replicaset-controller').v(2).info('Starting controller', { workers: 5 });
 * ```
 *
 * @category Logging
 */
export function newLogger(opts: LoggerOptions = {}): Logger {
  const format = opts.format ?? 'text';
  const write = opts.write ?? ((line: string) => void process.stderr.write(line));
  const now = opts.now ?? Date.now;
  const pid = opts.pid ?? process.pid;
  const withCaller = opts.caller ?? true;
  const sink: Sink = {
    verbosity: opts.verbosity ?? 0,
    emit(record) {
      record.time = now();
      if (withCaller) record.caller = callerOf(new Error().stack);
      write(format === 'json' ? formatJsonLine(record) : formatTextLine(record, pid));
    },
  };
  return new KlogLogger(sink, 0, '', {});
}
