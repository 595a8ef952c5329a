import { expect, it } from 'vitest';
import { run } from './02-shared-factory.js';

it('serves two consumers from one list and one watch', async () => {
  const lines: string[] = [];
  const requests = await run((line) => lines.push(line));
  expect(lines[0]).toBe('web pods from the lister: default/web-1, default/web-2');
  expect(lines[1]).toBe('pods per app from the handler: db=1, web=2');
  expect(lines[2]).toBe(`web-9: tryGet gives undefined; get throws 'pod "web-9" not found'`);
  expect(requests.filter((r) => r.startsWith('GET') && !r.endsWith('(watch)'))).toHaveLength(1);
  expect(requests.filter((r) => r.endsWith('(watch)')).length).toBeLessThanOrEqual(1);
});
