import { expect, it } from 'vitest';
import { measure, run } from './02-expectations.js';

it('without expectations a lagging informer makes the controller create twice; with them, never', async () => {
  const lines: string[] = [];
  const outcomes = await run((line) => lines.push(line));
  const find = (lag: number, expectations: boolean) =>
    outcomes.find((o) => o.lag === lag && o.expectations === expectations)!;

  // With expectations: exactly 3 creates and no deletes, whatever the lag.
  for (const lag of [0, 50, 100]) {
    expect(find(lag, true)).toMatchObject({ creates: 3, deletes: 0, peak: 3 });
    expect(find(lag, true).settledAt).toBeDefined();
  }
  // Without: as soon as the informer lags, the sync that follows the first
  // one sees none of the new pods and creates them again, then the surplus
  // is deleted, more than once.
  for (const lag of [50, 100]) {
    const o = find(lag, false);
    expect(o.creates).toBeGreaterThan(3);
    expect(o.deletes).toBeGreaterThan(o.creates - 3);
    expect(o.peak).toBeGreaterThan(3);
  }
  // In one process the watch is faster than the status write: no race to lose.
  expect(find(0, false)).toMatchObject({ creates: 3, deletes: 0 });
  // The second sync of the run without expectations: the controller's own
  // status write woke it, and it created 3 more.
  const second = find(100, false).lines.find((l) => l.includes('sync 2:'));
  expect(second).toBe('t=0.100s  sync 2: sees 0 of 3 pods; writes 3 creates');
  const waits = find(100, true).lines.find((l) => l.includes('sync 2:'));
  expect(waits).toBe(
    't=0.100s  sync 2: waits (expecting 3 creations, 0 deletions); writes nothing',
  );

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/02-expectations.txt');
});

it('with an informer a second late, the controller without expectations over-creates; with them it does not', async () => {
  // How far it goes differs from run to run: which pods it deletes depends
  // on their random uids (the last tiebreak of the ranking).
  const without = await measure({ lag: 1000, expectations: false });
  const withExp = await measure({ lag: 1000, expectations: true });
  expect(without.creates).toBeGreaterThan(3);
  expect(without.peak).toBeGreaterThan(3);
  expect(without.deletes).toBeGreaterThan(without.creates - 3);
  expect(withExp).toMatchObject({ creates: 3, deletes: 0, peak: 3 });
  expect(withExp.settledAt).toBeDefined();
});
