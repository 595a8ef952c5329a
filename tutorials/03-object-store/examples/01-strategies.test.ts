import { expect, it } from 'vitest';
import { run } from './01-strategies.js';
import { drawStrategies } from './strategies-svg.js';

it('shows what each strategy costs and how fresh it is', { timeout: 120_000 }, async () => {
  const lines: string[] = [];
  const results = await run((line) => lines.push(line));
  const by = Object.fromEntries(results.map((r) => [r.strategy, r]));
  // Get: one request per read (20 pods × 30 reads); the change is read at the next read.
  expect(by.Get).toMatchObject({ requests: '600 get', staleFor: 5_000 });
  // Cache: one fetch per minute (TTL 60 s); the change waits for the entry to expire.
  expect(by.Cache).toMatchObject({ requests: '5 get', staleFor: 55_000 });
  // Watch: one list and one watch for the whole run; the change arrives as an event.
  expect(by.Watch).toMatchObject({ requests: '1 list, 1 watch', staleFor: 5_000 });
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/01-strategies.txt');
  await expect(drawStrategies(results)).toMatchFileSnapshot('../strategies.svg');
});
