import { expect, it } from 'vitest';
import { run } from './05-identity.js';

it('creates no second web-1 while the first is terminating, and one at once after a force deletion', async () => {
  const lines: string[] = [];
  const r = await run((line) => lines.push(line));

  // Two minutes of a graceful deletion on a silent node: the same one pod, every time.
  expect(r.waiting).toHaveLength(12);
  const [first] = r.waiting[0]!;
  for (const uids of r.waiting) expect(uids).toEqual([first]);
  // The force deletion frees the identity: the controller takes it in the same moment.
  expect(r.recreated - r.forced).toBeLessThanOrEqual(100);
  // The new pod goes where its volume is, and runs once the kubelet is back.
  expect(r.after).toEqual({ node: r.node, ready: true });
  expect(r.events.filter((e) => e.includes('SuccessfulCreate'))).toHaveLength(1);
  expect(r.events.filter((e) => e.includes('Warning'))).toEqual([]);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/05-identity.txt');
});
