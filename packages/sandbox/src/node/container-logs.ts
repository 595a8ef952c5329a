// What the simulated containers "print": one log per container run, kept as
// the kubelet keeps the current and the previous container's log files
// (pkg/kubelet/kuberuntime/kuberuntime_container.go, GetContainerLogs; the
// CRI log files under /var/log/pods), and read back the way
// pkg/kubelet/kuberuntime/logs/logs.go (ReadLogs) reads them: from a time, the
// last N lines, following new ones until the container exits.
/** One line of a container's output, with when it was written (epoch ms). */
export interface LogLine {
  time: number;
  text: string;
}

/** One run of a container: from its start to its exit (or still running). */
interface Run {
  lines: LogLine[];
  /** Lines rotated away from the front of `lines`. */
  dropped: number;
  running: boolean;
  followers: Set<() => void>;
}

/** How many lines each run keeps, as the kubelet rotates log files. */
const maxLinesPerRun = 1_000;

/** How a log is read: kube's PodLogOptions, as numbers and flags. */
export interface LogQuery {
  /** The run before the current one. */
  previous?: boolean;
  /** Only lines written at or after this time (epoch ms). */
  since?: number;
  /** Only the last N lines (after `since`). */
  tailLines?: number;
  /** Prefix each line with its RFC 3339 time. */
  timestamps?: boolean;
  /** Stop after this many bytes. */
  limitBytes?: number;
}

const key = (podUID: string, container: string): string => `${podUID}/${container}`;

function format(line: LogLine, timestamps: boolean): string {
  if (!timestamps) return `${line.text}\n`;
  // RFC 3339 with nanoseconds, as the kubelet writes them.
  return `${new Date(line.time).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z')} ${line.text}\n`;
}

/**
 * The logs of every simulated container, by pod UID and container name: the
 * kubelet writes, the API server's `pods/log` reads.
 */
export class ContainerLogs {
  readonly #runs = new Map<string, Run[]>();

  /** Starts a new run of a container (its first start, or a restart). */
  start(podUID: string, container: string): void {
    const runs = this.#runs.get(key(podUID, container)) ?? [];
    const last = runs.at(-1);
    if (last) this.#finish(last);
    // The kubelet keeps the current and the previous container.
    this.#runs.set(key(podUID, container), [
      ...runs.slice(-1),
      { lines: [], dropped: 0, running: true, followers: new Set() },
    ]);
  }

  /** Appends a line to the container's current run. */
  write(podUID: string, container: string, time: number, text: string): void {
    const run = this.#runs.get(key(podUID, container))?.at(-1);
    if (!run) return;
    run.lines.push({ time, text });
    if (run.lines.length > maxLinesPerRun) {
      const extra = run.lines.length - maxLinesPerRun;
      run.lines.splice(0, extra);
      run.dropped += extra;
    }
    for (const wake of run.followers) wake();
  }

  /** Marks the current run as exited: followers reach its end. */
  exit(podUID: string, container: string): void {
    const run = this.#runs.get(key(podUID, container))?.at(-1);
    if (run) this.#finish(run);
  }

  /** Forgets a pod's logs (the pod is gone). */
  forget(podUID: string): void {
    for (const k of [...this.#runs.keys()]) {
      if (k.startsWith(`${podUID}/`)) {
        for (const run of this.#runs.get(k) ?? []) this.#finish(run);
        this.#runs.delete(k);
      }
    }
  }

  #finish(run: Run): void {
    run.running = false;
    for (const wake of run.followers) wake();
  }

  /** Whether the container has a run to read: the current one, or with `previous` the one before. */
  has(podUID: string, container: string, previous: boolean): boolean {
    const runs = this.#runs.get(key(podUID, container)) ?? [];
    return previous ? runs.length > 1 : runs.length > 0;
  }

  /**
   * Reads a log as `query` asks: the lines so far, formatted; then, with
   * `follow`, every new one through `onLine` until the run ends (`onEnd`)
   * or the returned stop function is called.
   */
  read(
    podUID: string,
    container: string,
    query: LogQuery,
    follow?: { onLine: (text: string) => void; onEnd: () => void },
  ): { text: string; stop: () => void } {
    const runs = this.#runs.get(key(podUID, container)) ?? [];
    const run = query.previous ? runs.at(-2) : runs.at(-1);
    const noop = { stop: () => {} };
    if (!run) {
      follow?.onEnd();
      return { text: '', ...noop };
    }
    let lines = run.lines.filter((l) => query.since === undefined || l.time >= query.since);
    if (query.tailLines !== undefined)
      lines = query.tailLines === 0 ? [] : lines.slice(-query.tailLines);
    let budget = query.limitBytes ?? Infinity;
    const take = (s: string): string => {
      if (budget <= 0) return '';
      const out = s.length > budget ? s.slice(0, budget) : s;
      budget -= out.length;
      return out;
    };
    const text = take(lines.map((l) => format(l, query.timestamps === true)).join(''));
    if (!follow || !run.running || query.previous || budget <= 0) {
      follow?.onEnd();
      return { text, ...noop };
    }
    // Counted from the run's first line, so rotation does not shift it.
    let sent = run.dropped + run.lines.length;
    const wake = (): void => {
      for (sent = Math.max(sent, run.dropped); sent < run.dropped + run.lines.length; sent++) {
        const line = run.lines[sent - run.dropped];
        if (line) follow.onLine(take(format(line, query.timestamps === true)));
      }
      if (!run.running || budget <= 0) {
        run.followers.delete(wake);
        follow.onEnd();
      }
    };
    run.followers.add(wake);
    return { text, stop: () => run.followers.delete(wake) };
  }
}
