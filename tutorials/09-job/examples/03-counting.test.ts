import { expect, it } from 'vitest';
import { counters, run } from './03-counting.js';

it('counts every pod once through the tracking finalizer, where three naive counts go wrong', async () => {
  const lines: string[] = [];
  const runs = await run((line) => lines.push(line));
  const [restart, outage, patches] = runs;

  // The real Job controller: 6 pods ran and 6 were counted, in every run.
  for (const r of runs)
    expect(r.outcomes.exact).toMatchObject({ ran: 6, reported: 6, complete: true });

  // A restart lists every pod again: counting Succeeded events counts the
  // first two twice, and the Job completes after 4 pods.
  expect(restart!.outcomes.events).toMatchObject({ ran: 4, reported: 6, complete: true });
  expect(restart!.outcomes.existing).toMatchObject({ ran: 6, reported: 6 });
  expect(restart!.outcomes.finalizer).toMatchObject({ ran: 6, reported: 6 });

  // Finished pods deleted while the controllers are down: counting what
  // exists loses all four and runs six more; the events never come. A
  // finalizer keeps the uncounted pods until they are counted.
  expect(outage!.outcomes.existing).toMatchObject({ ran: 10, reported: 6 });
  expect(outage!.outcomes.events).toMatchObject({ ran: 8, reported: 6 });
  expect(outage!.outcomes.finalizer).toMatchObject({ ran: 6, reported: 6 });
  // And the API server refuses a succeeded counter that goes down.
  expect(outage!.refused.length).toBeGreaterThan(0);
  for (const m of outage!.refused) expect(m).toMatch(/cannot decrease the succeeded counter/);

  // Pod patches fail: a finalizer without the uncounted list counts the
  // same pods at every retry; the real controller holds their uids in
  // uncountedTerminatedPods until the finalizers are gone.
  expect(patches!.outcomes.finalizer.reported).toBeGreaterThan(6);
  expect(patches!.outcomes.existing).toMatchObject({ ran: 6, reported: 6 });
  expect(patches!.outcomes.events).toMatchObject({ ran: 6, reported: 6 });
  const held = patches!.exactTrace.filter((l) => /uncountedTerminatedPods\.succeeded=\[\w/.test(l));
  expect(held.length).toBeGreaterThanOrEqual(2);

  for (const counter of counters) expect(restart!.outcomes[counter].complete).toBe(true);
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/03-counting.txt');
});
