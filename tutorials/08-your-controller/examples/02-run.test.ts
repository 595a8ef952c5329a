import { expect, it } from 'vitest';
import { run } from './02-run.js';

it('reconciles only in the copy holding the Lease, and carries on after a hand-over', async () => {
  const lines: string[] = [];
  await run((line) => lines.push(line));
  const writes = (who: string) => lines.filter((l) => l.includes(who) && / secret app$/.test(l));
  // manager-a leads first and creates the Secret; manager-b leads after the hand-over.
  expect(lines.find((l) => l.includes('leads'))).toContain('manager-a');
  expect(writes('manager-a').map((l) => l.split('  ').pop())).toContain('create secret app');
  const handOver = lines.findIndex((l) => l.includes('manager-a') && l.includes('stopped'));
  expect(lines.findIndex((l) => l.includes('manager-b') && l.includes('leads'))).toBeGreaterThan(
    handOver,
  );
  expect(
    lines.slice(0, handOver).some((l) => l.includes('manager-b') && l.includes('secret')),
  ).toBe(false);
  expect(lines.slice(handOver).some((l) => l.includes('manager-a') && l.includes('secret'))).toBe(
    false,
  );
  expect(lines.at(-1)).toContain('Secret app is gone');
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/02-run.txt');
});
