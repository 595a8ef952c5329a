// The scheduling queue, simplified (pkg/scheduler/backend/queue/
// scheduling_queue.go, PriorityQueue): pods wait in one of three places.
//
// - activeQ: ready to be tried, in the order they came;
// - backoffQ: tried and failed recently; each waits out its backoff, 1 s
//   after the first attempt, doubling to 10 s at most
//   (podInitialBackoffDuration, podMaxBackoffDuration);
// - unschedulablePods: no node fitted; they stay until a cluster event
//   may have changed that (MoveAllToActiveOrBackoffQueue: a node added,
//   its labels, taints, allocatable resources or cordon changed, a bound
//   pod deleted or finished, ...), or for 5 minutes at most
//   (podMaxInUnschedulablePodsDuration), then go to backoffQ, or straight
//   to activeQ when their backoff is over.
//
// Unlike kube-scheduler, there are no queueing hints: every event moves
// every unschedulable pod, which is simple and only costs a retry. The
// queue is a `@kcm-ts/workqueue` delaying queue (one worker, one key at a
// time), with the backoffs as delays on the sandbox's clock.
import type { Clock } from '@kcm-ts/apimachinery';
import { newDelayingQueue, type DelayingQueue, type GetResult } from '@kcm-ts/workqueue';

/** podInitialBackoffDuration and podMaxBackoffDuration. */
export const podInitialBackoff = 1_000;
export const podMaxBackoff = 10_000;
/** podMaxInUnschedulablePodsDuration: an unschedulable pod is tried again after this at the latest. */
export const podMaxInUnschedulablePods = 5 * 60_000;

/** calculateBackoffDuration: 1 s after the first attempt, doubled for each further one, 10 s at most. */
export function backoffDuration(attempts: number): number {
  let d = podInitialBackoff;
  for (let i = 1; i < attempts; i++) {
    d *= 2;
    if (d > podMaxBackoff) return podMaxBackoff;
  }
  return d;
}

/** What the queue remembers of a pod it has tried (Go's QueuedPodInfo). */
interface QueuedPodInfo {
  /** Scheduling attempts so far. */
  attempts: number;
  /** When the last attempt failed. */
  timestamp: number;
  /** In unschedulablePods: waiting for a cluster event. */
  unschedulable: boolean;
  /** Not to be tried before then. */
  due: number;
}

export class SchedulingQueue {
  readonly #clock: Clock;
  readonly #queue: DelayingQueue<string>;
  readonly #pods = new Map<string, QueuedPodInfo>();

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#queue = newDelayingQueue<string>({ clock, name: 'scheduler' });
  }

  /**
   * Add, and Update for a change that may matter (the spec, the labels):
   * to activeQ, or backoffQ while the pod backs off.
   */
  add(key: string): void {
    const info = this.#pods.get(key);
    if (info === undefined) this.#queue.add(key);
    else this.#activate(key, info);
  }

  /** MoveAllToActiveOrBackoffQueue: the unschedulable pods (those `which` accepts) are tried again. */
  moveAllToActiveOrBackoffQueue(which: (key: string) => boolean = () => true): void {
    for (const [key, info] of this.#pods) {
      if (info.unschedulable && which(key)) this.#activate(key, info);
    }
  }

  #activate(key: string, info: QueuedPodInfo): void {
    const now = this.#clock.now();
    info.unschedulable = false;
    info.due = Math.max(now, info.timestamp + backoffDuration(info.attempts));
    this.#queue.addAfter(key, info.due - now);
  }

  /** The next key, once there is one; `[key, true]` once shut down. Then {@link SchedulingQueue.pop}. */
  get(): Promise<GetResult<string>> {
    return this.#queue.get();
  }

  /**
   * Pop, for a key {@link SchedulingQueue.get} gave: whether the pod is to
   * be tried now, counting the attempt; false for a wake-up that a later
   * move made needless (its backoff, or its 5 minutes among the
   * unschedulable pods, are not over), which the caller marks done.
   */
  pop(key: string): boolean {
    let info = this.#pods.get(key);
    if (info !== undefined && this.#clock.now() < info.due) return false;
    if (info === undefined) {
      info = { attempts: 0, timestamp: 0, unschedulable: false, due: 0 };
      this.#pods.set(key, info);
    }
    info.unschedulable = false;
    info.attempts++;
    return true;
  }

  /** Done: the attempt on `key` is over (whatever came of it). */
  done(key: string): void {
    this.#queue.done(key);
  }

  /**
   * AddUnschedulableIfNotPresent: no node fitted; the pod waits for a
   * cluster event, or 5 minutes.
   */
  addUnschedulable(key: string): void {
    const info = this.#info(key);
    const now = this.#clock.now();
    info.timestamp = now;
    info.unschedulable = true;
    info.due = now + podMaxInUnschedulablePods;
    this.#queue.addAfter(key, podMaxInUnschedulablePods);
  }

  /** The attempt failed with an error (a binding refused): tried again after the pod's backoff. */
  addBackoff(key: string): void {
    const info = this.#info(key);
    const now = this.#clock.now();
    info.timestamp = now;
    info.unschedulable = false;
    info.due = now + backoffDuration(info.attempts);
    this.#queue.addAfter(key, info.due - now);
  }

  #info(key: string): QueuedPodInfo {
    let info = this.#pods.get(key);
    if (info === undefined) {
      info = { attempts: 1, timestamp: 0, unschedulable: false, due: 0 };
      this.#pods.set(key, info);
    }
    return info;
  }

  /** Forget: the pod is bound or gone. */
  forget(key: string): void {
    this.#pods.delete(key);
  }

  /** Whether `key` waits among the unschedulable pods. */
  isUnschedulable(key: string): boolean {
    return this.#pods.get(key)?.unschedulable === true;
  }

  /** The keys of the unschedulable pods. */
  unschedulableKeys(): string[] {
    return [...this.#pods].filter(([, i]) => i.unschedulable).map(([k]) => k);
  }

  shutDown(): void {
    this.#queue.shutDown();
  }
}
