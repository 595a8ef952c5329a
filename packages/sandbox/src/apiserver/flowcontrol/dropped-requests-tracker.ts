// The Retry-After a 429 from priority and fairness carries
// (staging/src/k8s.io/apiserver/pkg/util/flowcontrol/
// dropped_requests_tracker.go): one second at first, doubled (up to 32)
// when a priority level keeps refusing at least three requests per second
// of it, lowered by one when it refuses fewer, as TCP backs off.

const maxRetryAfter = 32;

interface Stats {
  /** Refusals per past second, oldest first. */
  history: { unix: number; count: number }[];
  currentUnix: number;
  currentCount: number;
  retryAfter: number;
  retryAfterUpdateUnix: number;
}

/** Counts refused requests per priority level and says how long their clients should wait. */
export class DroppedRequestsTracker {
  readonly #levels = new Map<string, Stats>();

  /** @param nowUnix - the current time in whole seconds */
  constructor(private readonly nowUnix: () => number) {}

  /** Notes a request of `level` refused now. */
  recordDroppedRequest(level: string): void {
    const unix = this.nowUnix();
    let s = this.#levels.get(level);
    if (!s) {
      s = { history: [], currentUnix: 0, currentCount: 0, retryAfter: 1, retryAfterUpdateUnix: 0 };
      this.#levels.set(level, s);
    }
    if (s.currentUnix === unix) {
      s.currentCount++;
      return;
    }
    s.history.push({ unix: s.currentUnix, count: s.currentCount });
    while (s.history.length > 0 && s.currentUnix - s.history[0]!.unix > maxRetryAfter) {
      s.history.shift();
    }
    s.currentUnix = unix;
    s.currentCount = 1;
    updateRetryAfter(s, unix);
  }

  /** The seconds a refused client of `level` is told to wait. */
  retryAfter(level: string): number {
    return this.#levels.get(level)?.retryAfter ?? 1;
  }
}

// Over the seconds [unix - retryAfter, unix).
function updateRetryAfter(s: Stats, unix: number): void {
  let dropped = 0;
  for (let i = s.history.length - 1; i >= 0; i--) {
    const h = s.history[i]!;
    if (unix - h.unix > s.retryAfter) break;
    if (h.unix < unix) dropped += h.count;
  }
  if (unix - s.retryAfterUpdateUnix >= s.retryAfter && dropped >= 3 * s.retryAfter) {
    s.retryAfter = Math.min(s.retryAfter * 2, maxRetryAfter);
    s.retryAfterUpdateUnix = unix;
    return;
  }
  if (dropped < s.retryAfter && s.retryAfter > 1) s.retryAfter--;
}
