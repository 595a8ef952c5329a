// When the HTTP server writes its watch streams. Go's watch server writes
// each event and flushes only when its channel is empty, so a watcher that
// lags behind a burst gets many events per flush. Node has one thread: here
// the streams with events waiting are written in rounds, at most one round
// per interval, all of a round's events for a stream in one socket write.
// The interval paces socket writes in real time; it is no API time, so it
// follows no injected clock.

/** Flushes of many streams, run together, at most once per interval. */
export class FlushRounds {
  private readonly pending = new Set<() => void>();
  private scheduled = false;
  private last = -Infinity;

  /** `interval`: the least time between two rounds, in real milliseconds. */
  constructor(private readonly interval: number) {}

  /**
   * Runs `flush` in the next round: after this turn of the event loop, or,
   * if the last round was less than an interval ago, once it has passed.
   */
  add(flush: () => void): void {
    this.pending.add(flush);
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.last + this.interval - performance.now();
    if (wait > 0) setTimeout(this.run, wait);
    else setImmediate(this.run);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    this.last = performance.now();
    const flushes = [...this.pending];
    this.pending.clear();
    for (const flush of flushes) flush();
  };
}
