import { describe, expect, it } from 'vitest';
import { FakeClock, RealClock, realClock } from '../src/index.js';

/** Lets every queued promise callback run. */
function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Tracks whether a promise has settled, without awaiting it. */
function track(p: Promise<void>): { done: boolean } {
  const state = { done: false };
  void p.then(() => {
    state.done = true;
  });
  return state;
}

describe('FakeClock', () => {
  it('starts at 2026-01-01 by default, or at the given time', () => {
    expect(new FakeClock().now()).toBe(Date.UTC(2026, 0, 1));
    expect(new FakeClock(1234).now()).toBe(1234);
    expect(new FakeClock(new Date(5678)).now()).toBe(5678);
  });

  it('moves now and since only when stepped', () => {
    const clock = new FakeClock(1000);
    const t0 = clock.now();
    expect(clock.since(t0)).toBe(0);
    clock.step(250);
    expect(clock.now()).toBe(1250);
    expect(clock.since(t0)).toBe(250);
    clock.step(0.5);
    expect(clock.since(t0)).toBe(250.5);
    clock.step(-100);
    expect(clock.now()).toBe(1250.5);
  });

  it('fires an afterFunc once its deadline is reached, not before', () => {
    const clock = new FakeClock(0);
    let fired = 0;
    clock.afterFunc(100, () => fired++);
    clock.step(99);
    expect(fired).toBe(0);
    clock.step(1);
    expect(fired).toBe(1);
    clock.step(1000);
    expect(fired).toBe(1);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('fires a zero or negative afterFunc on the next step, even step(0)', () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.afterFunc(0, () => fired.push('zero'));
    clock.afterFunc(-5, () => fired.push('negative'));
    expect(fired).toEqual([]);
    clock.step(0);
    expect(fired).toEqual(['zero', 'negative']);
  });

  it('reports from stop whether the timer was still pending', () => {
    const clock = new FakeClock(0);
    let fired = 0;
    const timer = clock.afterFunc(10, () => fired++);
    expect(clock.waiterCount()).toBe(1);
    expect(timer.stop()).toBe(true);
    expect(timer.stop()).toBe(false);
    expect(clock.waiterCount()).toBe(0);
    clock.step(100);
    expect(fired).toBe(0);

    const fires = clock.afterFunc(10, () => fired++);
    clock.step(10);
    expect(fired).toBe(1);
    expect(fires.stop()).toBe(false);
  });

  it('reports from reset whether the timer was still pending, and re-arms it either way', () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    const timer = clock.afterFunc(10, () => fired.push(clock.now()));
    clock.step(5);
    expect(timer.reset(10)).toBe(true); // now due at 15
    clock.step(9);
    expect(fired).toEqual([]);
    clock.step(1);
    expect(fired).toEqual([15]);
    expect(timer.reset(5)).toBe(false); // already fired, re-armed for 20
    expect(clock.waiterCount()).toBe(1);
    clock.step(5);
    expect(fired).toEqual([15, 20]);
    timer.stop();
    expect(timer.reset(1)).toBe(false); // stopped, re-armed for 21
    clock.step(1);
    expect(fired).toEqual([15, 20, 21]);
  });

  it('can re-arm a timer from inside its own callback', () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    const timer = clock.afterFunc(10, () => {
      fired.push(clock.now());
      if (fired.length < 3) expect(timer.reset(10)).toBe(false);
    });
    clock.step(100);
    expect(fired).toEqual([10, 20, 30]);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('runs due callbacks in deadline order, ties in creation order, and at their own time', () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.afterFunc(30, () => fired.push(`c@${clock.now()}`));
    clock.afterFunc(10, () => fired.push(`a@${clock.now()}`));
    clock.afterFunc(20, () => fired.push(`b1@${clock.now()}`));
    clock.afterFunc(20, () => fired.push(`b2@${clock.now()}`));
    clock.step(50);
    expect(fired).toEqual(['a@10', 'b1@20', 'b2@20', 'c@30']);
    expect(clock.now()).toBe(50);
  });

  it('fires a timer scheduled by a callback during step when it is due within the step', () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    clock.afterFunc(10, () => {
      fired.push(clock.now());
      clock.afterFunc(10, () => fired.push(clock.now()));
      clock.afterFunc(100, () => fired.push(clock.now()));
    });
    clock.step(30);
    expect(fired).toEqual([10, 20]);
    expect(clock.waiterCount()).toBe(1);
  });

  it('ticks a ticker every period, catching up one tick per period missed', () => {
    const clock = new FakeClock(0);
    const ticks: number[] = [];
    const ticker = clock.newTicker(100, () => ticks.push(clock.now()));
    clock.step(99);
    expect(ticks).toEqual([]);
    clock.step(1);
    expect(ticks).toEqual([100]);
    clock.step(350);
    expect(ticks).toEqual([100, 200, 300, 400]);
    expect(clock.now()).toBe(450);
    clock.step(50);
    expect(ticks).toEqual([100, 200, 300, 400, 500]);
    expect(clock.waiterCount()).toBe(1);
    ticker.stop();
    expect(clock.hasWaiters()).toBe(false);
    clock.step(1000);
    expect(ticks).toHaveLength(5);
  });

  it('can stop a ticker from inside its tick', () => {
    const clock = new FakeClock(0);
    let ticks = 0;
    const ticker = clock.newTicker(10, () => {
      if (++ticks === 2) ticker.stop();
    });
    clock.step(100);
    expect(ticks).toBe(2);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('rejects a ticker period that is not positive', () => {
    const clock = new FakeClock(0);
    expect(() => clock.newTicker(0, () => {})).toThrow(RangeError);
    expect(() => clock.newTicker(-1, () => {})).toThrow(RangeError);
    expect(() => clock.newTicker(NaN, () => {})).toThrow(RangeError);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('resolves sleep when time is advanced past it', async () => {
    const clock = new FakeClock(0);
    const slept = track(clock.sleep(100));
    expect(clock.waiterCount()).toBe(1);
    await clock.advance(99);
    expect(slept.done).toBe(false);
    await clock.advance(1);
    expect(slept.done).toBe(true);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('resolves sleep after step once the microtasks have run', async () => {
    const clock = new FakeClock(0);
    const slept = track(clock.sleep(10));
    clock.step(10);
    await flush();
    expect(slept.done).toBe(true);
  });

  it('resolves sleep early when its signal aborts, and removes its timer', async () => {
    const clock = new FakeClock(0);
    const controller = new AbortController();
    const slept = track(clock.sleep(1000, controller.signal));
    const other = track(clock.sleep(2000));
    expect(clock.waiterCount()).toBe(2);
    controller.abort();
    await flush();
    expect(slept.done).toBe(true);
    expect(other.done).toBe(false);
    expect(clock.waiterCount()).toBe(1);
    expect(clock.now()).toBe(0);
  });

  it('resolves sleep at once for an already-aborted signal, without a timer', async () => {
    const clock = new FakeClock(0);
    const slept = track(clock.sleep(1000, AbortSignal.abort()));
    expect(clock.hasWaiters()).toBe(false);
    await flush();
    expect(slept.done).toBe(true);
  });

  it('ignores an abort that comes after the sleep resolved', async () => {
    const clock = new FakeClock(0);
    const controller = new AbortController();
    const slept = track(clock.sleep(10, controller.signal));
    await clock.advance(10);
    expect(slept.done).toBe(true);
    const other = clock.afterFunc(5, () => {});
    controller.abort();
    expect(clock.waiterCount()).toBe(1);
    expect(other.stop()).toBe(true);
  });

  it('lets step wake only the first of chained sleeps, but advance wake them all', async () => {
    const chain = (clock: FakeClock, log: number[]) =>
      (async () => {
        for (let i = 0; i < 3; i++) {
          await clock.sleep(100);
          log.push(clock.now());
        }
      })();

    const stepped = new FakeClock(0);
    const stepLog: number[] = [];
    void chain(stepped, stepLog);
    stepped.step(300);
    await flush();
    // Only the first sleep was registered when step ran; the second started at 300.
    expect(stepLog).toEqual([300]);
    expect(stepped.waiterCount()).toBe(1);
    stepped.step(100);
    await flush();
    expect(stepLog).toEqual([300, 400]);

    const advanced = new FakeClock(0);
    const advanceLog: number[] = [];
    const done = chain(advanced, advanceLog);
    await advanced.advance(300);
    await done;
    // advance yields after each deadline, so each sleep starts when the last one ended.
    expect(advanceLog).toEqual([100, 200, 300]);
    expect(advanced.now()).toBe(300);
    expect(advanced.hasWaiters()).toBe(false);
  });

  it('runs advance callbacks interleaved with the promise chains they wake', async () => {
    const clock = new FakeClock(0);
    const log: string[] = [];
    void clock.sleep(10).then(() => log.push(`sleep@${clock.now()}`));
    clock.afterFunc(20, () => log.push(`timer@${clock.now()}`));
    await clock.advance(25);
    expect(log).toEqual(['sleep@10', 'timer@20']);
    expect(clock.now()).toBe(25);
  });

  it('lets setTime move forward, firing what came due, and backwards, firing nothing', () => {
    const clock = new FakeClock(1000);
    const fired: number[] = [];
    clock.afterFunc(100, () => fired.push(clock.now()));
    clock.afterFunc(500, () => fired.push(clock.now()));
    clock.setTime(1200);
    expect(fired).toEqual([1100]);
    expect(clock.now()).toBe(1200);

    clock.setTime(new Date(200));
    expect(clock.now()).toBe(200);
    expect(clock.since(1200)).toBe(-1000);
    expect(fired).toEqual([1100]);
    expect(clock.waiterCount()).toBe(1);
    // The remaining timer keeps its absolute deadline of 1500.
    clock.step(1299);
    expect(fired).toEqual([1100]);
    clock.step(1);
    expect(fired).toEqual([1100, 1500]);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('counts timers, tickers and sleeps as waiters', async () => {
    const clock = new FakeClock(0);
    expect(clock.hasWaiters()).toBe(false);
    expect(clock.waiterCount()).toBe(0);
    const timer = clock.afterFunc(10, () => {});
    const ticker = clock.newTicker(10, () => {});
    const controller = new AbortController();
    const slept = clock.sleep(10, controller.signal);
    expect(clock.hasWaiters()).toBe(true);
    expect(clock.waiterCount()).toBe(3);
    timer.stop();
    expect(clock.waiterCount()).toBe(2);
    controller.abort();
    await slept;
    expect(clock.waiterCount()).toBe(1);
    ticker.stop();
    expect(clock.waiterCount()).toBe(0);
    expect(clock.hasWaiters()).toBe(false);
  });
});

describe('RealClock', () => {
  it('is what realClock is', () => {
    expect(realClock).toBeInstanceOf(RealClock);
  });

  it('reads a monotonic time close to Date.now', () => {
    const clock = new RealClock();
    const a = clock.now();
    const b = clock.now();
    expect(b).toBeGreaterThanOrEqual(a);
    expect(Math.abs(a - Date.now())).toBeLessThan(1000);
    expect(clock.since(a)).toBeGreaterThanOrEqual(0);
    expect(clock.since(a + 60_000)).toBeLessThan(0);
  });

  it('fires a 0ms afterFunc, and reports it as no longer pending', async () => {
    const clock = new RealClock();
    let fired = 0;
    const timer = clock.afterFunc(0, () => fired++);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(fired).toBe(1);
    expect(timer.stop()).toBe(false);
  });

  it('does not fire a timer stopped before it fires', async () => {
    const clock = new RealClock();
    let fired = 0;
    const timer = clock.afterFunc(1, () => fired++);
    expect(timer.stop()).toBe(true);
    expect(timer.stop()).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(fired).toBe(0);
  });

  it('re-arms a timer with reset', async () => {
    const clock = new RealClock();
    let fired = 0;
    const timer = clock.afterFunc(60_000, () => fired++);
    expect(timer.reset(0)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(fired).toBe(1);
  });

  it('resolves sleep at once for an already-aborted signal', async () => {
    const clock = new RealClock();
    const start = performance.now();
    await clock.sleep(60_000, AbortSignal.abort());
    expect(performance.now() - start).toBeLessThan(1000);
  });

  it('resolves sleep when its signal aborts', async () => {
    const clock = new RealClock();
    const controller = new AbortController();
    const slept = track(clock.sleep(60_000, controller.signal));
    await flush();
    expect(slept.done).toBe(false);
    controller.abort();
    await flush();
    expect(slept.done).toBe(true);
  });

  it('ticks a ticker until stopped, and rejects a non-positive period', async () => {
    const clock = new RealClock();
    let ticks = 0;
    const ticker = clock.newTicker(1, () => ticks++);
    await new Promise((resolve) => setTimeout(resolve, 10));
    ticker.stop();
    const seen = ticks;
    expect(seen).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(ticks).toBe(seen);
    expect(() => clock.newTicker(0, () => {})).toThrow(RangeError);
  });
});
