import { expect, it } from 'vitest';
import { run } from './01-event-path.js';

it('follows each change from the API server to the worker', async () => {
  const lines: string[] = [];
  await run((line) => lines.push(line));
  // The initial list reaches the handler flagged as such, before any watch event.
  expect(lines[0]).toMatch(/^api server → reflector: LIST at rv \d+: \[web-1\]$/);
  expect(lines[1]).toBe('indexer → handler: add default/web-1 (initial list)');
  // Every change passes reflector → handler → worker in that order.
  for (const [event, handler, worker] of [
    ['ADDED web-2', 'add default/web-2', 'default/web-2 labels'],
    ['MODIFIED web-1', 'update default/web-1', 'default/web-1 labels {"app":"web","tier":"front"}'],
    ['DELETED web-2', 'delete default/web-2', 'default/web-2 is gone'],
  ] as const) {
    const at = lines.findIndex((l) => l.includes(event));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toContain(handler);
    expect(lines[at + 2]).toContain(`workqueue → worker: ${worker}`);
  }
  expect(lines.at(-1)).toBe('cache, namespace index "default": [default/web-1]');
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/01-event-path.txt');
});
