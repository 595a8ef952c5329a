// The seats and queues of one priority level: staging/src/k8s.io/apiserver/
// pkg/util/flowcontrol/fairqueuing/queueset/queueset.go (StartRequest,
// chooseQueueIndexLocked, dispatchAsMuchAsPossibleLocked, finishRequest).
// A request takes as many seats as its work estimate while it runs; when the
// level has none to spare it waits in the shortest queue of its flow's hand,
// and queues take turns by the seats they have been given, so one busy flow
// cannot starve the others. A request refused (its queue is full, or it
// waited too long) is answered 429 by the caller.
import { FifoBuffer } from '@kcm-ts/apimachinery';
import type { Clock, Timer } from '@kcm-ts/apimachinery';
import { dealHand } from './shuffle-sharding.js';

/** How a priority level queues, if it does. */
export interface QueuingConfig {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

/** One priority level's limits. */
export interface QueueSetConfig {
  /** The seats its requests may hold at once. */
  concurrencyLimit: number;
  /** Its queues; without them a request that does not fit is refused at once. */
  queuing?: QueuingConfig;
}

/** Why a request was not run. */
export type RejectReason = 'concurrency-limit' | 'queue-full' | 'time-out' | 'cancelled';

/** What {@link QueueSet.startRequest} settles with. */
export type StartResult =
  | { dispatched: true; finish: () => void; queued: boolean }
  | { dispatched: false; reason: RejectReason };

interface Waiting {
  width: number;
  /** Stops listening for the request's cancellation. */
  forget?: () => void;
  queue: Queue;
  resolve: (r: StartResult) => void;
  timer?: Timer;
  done: boolean;
}

interface Queue {
  index: number;
  waiting: FifoBuffer<Waiting>;
  /** Requests of `waiting` still waiting (the others gave up and are skipped). */
  live: number;
  /** Seats its dispatched requests hold now. */
  seatsInUse: number;
  /** Seats it has been given so far, on the level's virtual clock. */
  virtualStart: number;
}

/** One priority level's seats and queues. */
export class QueueSet {
  readonly #config: QueueSetConfig;
  readonly #clock: Clock;
  readonly #queues: Queue[];
  readonly #hands = new Map<bigint, number[]>();
  #seatsInUse = 0;
  #executing = 0;
  #waiting = 0;
  readonly #counts = { dispatched: 0, rejected: 0, timedOut: 0, cancelled: 0 };
  #lastDispatched = -1;
  /** The virtual start of the queue served last: where a queue that was idle starts again. */
  #virtualNow = 0;

  constructor(config: QueueSetConfig, clock: Clock) {
    this.#config = config;
    this.#clock = clock;
    this.#queues = Array.from({ length: config.queuing?.queues ?? 0 }, (_, index) => ({
      index,
      waiting: new FifoBuffer<Waiting>(),
      live: 0,
      seatsInUse: 0,
      virtualStart: 0,
    }));
  }

  /** Seats held by running requests. */
  get seatsInUse(): number {
    return this.#seatsInUse;
  }

  /** Requests waiting in the queues. */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * What `/debug/api_priority_and_fairness/dump_priority_levels` shows of
   * the level: queues in use, requests waiting and running, and how many
   * were run, refused, timed out in a queue and cancelled there so far.
   */
  stats(): {
    activeQueues: number;
    waiting: number;
    executing: number;
    seatsInUse: number;
    dispatched: number;
    rejected: number;
    timedOut: number;
    cancelled: number;
  } {
    const activeQueues = this.#queues.filter((q) => q.live > 0 || q.seatsInUse > 0).length;
    return {
      activeQueues,
      waiting: this.#waiting,
      executing: this.#executing,
      seatsInUse: this.#seatsInUse,
      ...this.#counts,
    };
  }

  /**
   * Asks for `width` seats for a request of the flow `flowHash`: granted at
   * once if they are free, else after waiting in a queue for at most
   * `waitLimitMs` (or until `signal` aborts). A granted request must call
   * `finish` once it has been answered.
   */
  startRequest(
    flowHash: bigint,
    width: number,
    waitLimitMs: number,
    signal?: AbortSignal,
  ): Promise<StartResult> {
    const seats = Math.max(1, Math.min(width, this.#config.concurrencyLimit));
    const queuing = this.#config.queuing;
    if (!queuing || this.#queues.length === 0) {
      if (!this.#fits(seats)) return Promise.resolve(this.#reject('concurrency-limit'));
      return Promise.resolve(this.#dispatchNow(seats));
    }
    const queue = this.#chooseQueue(flowHash, queuing);
    if (queue.live >= queuing.queueLengthLimit) return Promise.resolve(this.#reject('queue-full'));
    // Nothing waits and the seats are free: run at once.
    if (this.#waiting === 0 && this.#fits(seats))
      return Promise.resolve(this.#dispatchNow(seats, queue));
    if (signal?.aborted) return Promise.resolve(this.#reject('cancelled'));
    return new Promise<StartResult>((resolve) => {
      const w: Waiting = { width: seats, queue, resolve, done: false };
      if (queue.live === 0 && queue.seatsInUse === 0) {
        queue.virtualStart = Math.max(queue.virtualStart, this.#virtualNow);
      }
      queue.waiting.push(w);
      queue.live++;
      this.#waiting++;
      const giveUp = (reason: RejectReason) => {
        if (w.done) return;
        w.done = true;
        this.#waiting--;
        queue.live--;
        signal?.removeEventListener('abort', onAbort);
        resolve(this.#reject(reason));
        // The head may have been the one in the way.
        this.#dispatchAsMuchAsPossible();
      };
      const onAbort = () => giveUp('cancelled');
      w.timer = this.#clock.afterFunc(waitLimitMs, () => giveUp('time-out'));
      signal?.addEventListener('abort', onAbort, { once: true });
      w.forget = () => signal?.removeEventListener('abort', onAbort);
      this.#dispatchAsMuchAsPossible();
    });
  }

  #reject(reason: RejectReason): StartResult {
    if (reason === 'time-out') this.#counts.timedOut++;
    else if (reason === 'cancelled') this.#counts.cancelled++;
    else this.#counts.rejected++;
    return { dispatched: false, reason };
  }

  #fits(seats: number): boolean {
    // A request wider than what is free still runs when nothing else does.
    return this.#seatsInUse === 0 || this.#seatsInUse + seats <= this.#config.concurrencyLimit;
  }

  // The queue of the flow's hand with the least work waiting and running.
  #chooseQueue(flowHash: bigint, queuing: QueuingConfig): Queue {
    let hand = this.#hands.get(flowHash);
    if (!hand) {
      if (this.#hands.size >= 10_000) this.#hands.clear();
      hand = dealHand(
        flowHash,
        this.#queues.length,
        Math.min(queuing.handSize, this.#queues.length),
      );
      this.#hands.set(flowHash, hand);
    }
    let best: Queue | undefined;
    let bestLoad = Infinity;
    for (const i of hand) {
      const q = this.#queues[i]!;
      let load = q.seatsInUse;
      for (const w of q.waiting) if (!w.done) load += w.width;
      if (load < bestLoad) {
        best = q;
        bestLoad = load;
      }
    }
    return best!;
  }

  #dispatchNow(seats: number, queue?: Queue): StartResult & { dispatched: true } {
    this.#seatsInUse += seats;
    this.#executing++;
    this.#counts.dispatched++;
    if (queue) {
      queue.seatsInUse += seats;
      queue.virtualStart += seats;
    }
    let finished = false;
    return {
      dispatched: true,
      queued: false,
      finish: () => {
        if (finished) return;
        finished = true;
        this.#seatsInUse -= seats;
        this.#executing--;
        if (queue) queue.seatsInUse -= seats;
        this.#dispatchAsMuchAsPossible();
      },
    };
  }

  #dispatchAsMuchAsPossible(): void {
    for (;;) {
      const queue = this.#nextQueue();
      if (!queue) return;
      const head = queue.waiting.peek()!;
      if (!this.#fits(head.width)) return;
      queue.waiting.shift();
      this.#waiting--;
      queue.live--;
      head.done = true;
      head.timer?.stop();
      head.forget?.();
      this.#virtualNow = queue.virtualStart;
      this.#lastDispatched = queue.index;
      head.resolve({ ...this.#dispatchNow(head.width, queue), queued: true });
    }
  }

  // The queue with waiting requests that has been given the fewest seats;
  // among equals, the next after the one served last.
  #nextQueue(): Queue | undefined {
    let best: Queue | undefined;
    const n = this.#queues.length;
    for (let k = 1; k <= n; k++) {
      const q = this.#queues[(this.#lastDispatched + k + n) % n]!;
      if (q.live === 0) continue;
      while (q.waiting.peek()!.done) q.waiting.shift();
      if (!best || q.virtualStart < best.virtualStart) best = q;
    }
    return best;
  }
}
