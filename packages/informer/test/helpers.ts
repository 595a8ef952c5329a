// Shared test doubles for the informer suites.
import type { LogValues, Logger } from '@kcm-ts/apimachinery';
import type { KeyListerGetter } from '../src/index.js';

/** A test object in the shape of client-go's testFifoObject: a name and a value. */
export interface TestObj {
  metadata: { name: string; namespace?: string };
  val: unknown;
}

/** Builds a {@link TestObj}, like Go's mkFifoObj. */
export function mk(name: string, val: unknown): TestObj {
  return { metadata: { name }, val };
}

/** A KeyListerGetter over a fixed list of objects, like Go's literalListerGetter. */
export function literalListerGetter(list: () => TestObj[]): KeyListerGetter<TestObj> {
  return {
    listKeys: () => list().map((o) => o.metadata.name),
    getByKey: (key) => list().find((o) => o.metadata.name === key),
  };
}

/** Lets every queued promise callback, and anything they queue in turn, run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** One line a {@link RecordingLogger} was given. */
export interface LogLine {
  level: 'info' | 'error';
  /** The verbosity the line was written at (`logger.v(n)`). */
  v: number;
  msg: string;
  err?: unknown;
  values?: Record<string, unknown>;
}

/** A Logger (from @kcm-ts/apimachinery) that keeps every line, whatever its verbosity. */
export class RecordingLogger implements Logger {
  readonly lines: LogLine[];
  readonly #v: number;
  readonly #values: Record<string, unknown>;

  constructor(lines: LogLine[] = [], v = 0, values: Record<string, unknown> = {}) {
    this.lines = lines;
    this.#v = v;
    this.#values = values;
  }

  info(msg: string, values?: LogValues): void {
    this.lines.push({ level: 'info', v: this.#v, msg, values: { ...this.#values, ...values } });
  }

  error(err: unknown, msg: string, values?: LogValues): void {
    this.lines.push({ level: 'error', v: 0, msg, err, values: { ...this.#values, ...values } });
  }

  v(level: number): Logger {
    return new RecordingLogger(this.lines, level, this.#values);
  }

  enabled(): boolean {
    return true;
  }

  withValues(values: LogValues): Logger {
    return new RecordingLogger(this.lines, this.#v, { ...this.#values, ...values });
  }

  withName(_name: string): Logger {
    return this;
  }

  /** The messages written, in order. */
  messages(): string[] {
    return this.lines.map((l) => l.msg);
  }
}
