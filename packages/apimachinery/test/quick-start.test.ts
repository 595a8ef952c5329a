import { expect, it } from 'vitest';
import { FakeClock, type Clock } from '../src/index.js';

it('moves time only when told to', async () => {
  //#region fake-clock
  // Code under test takes a Clock...
  async function retryLater(clock: Clock, log: string[]) {
    log.push(`try at ${clock.now()}`);
    await clock.sleep(5_000);
    log.push(`retry at ${clock.now()}`);
  }

  // ...and the test drives it: five seconds pass at once.
  const clock = new FakeClock(0);
  const log: string[] = [];
  const done = retryLater(clock, log);
  await clock.advance(5_000);
  await done; // log: ['try at 0', 'retry at 5000']
  //#endregion fake-clock
  expect(log).toEqual(['try at 0', 'retry at 5000']);
  expect(clock.hasWaiters()).toBe(false);
});
