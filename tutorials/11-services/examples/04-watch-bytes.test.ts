import { expect, it } from 'vitest';
import { run } from './04-watch-bytes.js';
import { bytesPicture } from './diagrams.js';

it('sends a watcher one whole Endpoints object per change, but only the slice that changed; caps Endpoints at 1,000', async () => {
  const lines: string[] = [];
  const r = await run((line) => lines.push(line));

  expect(r.slices).toBe(10);
  // Not ready, then ready again: two events on each watch.
  expect(r.endpointsEvents).toBe(2);
  expect(r.slicesEvents).toBe(2);
  // Each Endpoints event carries the whole object; each slice event one slice of ten.
  expect(r.endpointsBytes).toBeGreaterThan(2 * r.endpointsSize);
  expect(r.slicesBytes).toBeGreaterThan(2 * r.sliceSize);
  expect(r.slicesBytes).toBeLessThan(2 * r.sliceSize * 1.2);
  expect(r.endpointsBytes / r.slicesBytes).toBeGreaterThan(5);
  // One pod over the cap: the slices hold all 1,001, the Endpoints object
  // 1,000 and says so (maxCapacity, truncateEndpoints).
  expect(r.sliceEndpoints).toBe(1001);
  expect(r.truncatedAddresses).toBe(1000);
  expect(r.overCapacity).toBe('truncated');

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/04-watch-bytes.txt');
  await expect(bytesPicture(r)).toMatchFileSnapshot('../watch-bytes.svg');
});
