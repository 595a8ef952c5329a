import { expect, it } from 'vitest';
import { run } from './01-timeline.js';

it('hands the lease over after a partition and after a clean shutdown, never to two at once', async () => {
  const lines: string[] = [];
  const { leaderships: terms, lease } = await run((line) => lines.push(line));
  expect(terms.map((t) => t.identity)).toEqual(['a', 'b', 'c']);
  const [a, b, c] = terms as [(typeof terms)[0], (typeof terms)[0], (typeof terms)[0]];
  // One leader at a time, in order.
  expect(a.to).toBeLessThanOrEqual(b.from);
  expect(b.to).toBeLessThanOrEqual(c.from);
  // Cut off at 5 s, a last renewed at 4 s: it gives up when the renewal due at
  // 6 s has failed for the renew deadline (10 s), before its 15 s lease ends.
  expect(a.to).toBe(16_000);
  // b may take over only once the record it last saw change (at 4.2 s) is
  // 15 s old, and it looks every 3.2 s.
  expect(b.from).toBeGreaterThanOrEqual(4_200 + 15_000);
  expect(b.from).toBeLessThan(4_200 + 15_000 + 3_200);
  // A clean release is taken over at the follower's next try.
  expect(c.from - b.to).toBeLessThanOrEqual(3_200);
  expect(lines).toContain('t=30.0s      Lease: holder "b", transitions 1');
  expect(lines).toContain('t=35.0s      Lease: holder "c", transitions 2');
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/01-timeline.txt');

  // The Lease after b took over, as the chapter shows it.
  expect(lease.spec?.holderIdentity).toBe('b');
  expect(lease.spec?.leaseDurationSeconds).toBe(15);
  const shown = {
    apiVersion: lease.apiVersion,
    kind: lease.kind,
    metadata: { name: lease.metadata?.name, namespace: lease.metadata?.namespace },
    spec: lease.spec,
  };
  await expect(`${JSON.stringify(shown, null, 2)}\n`).toMatchFileSnapshot(
    './__output__/lease.json',
  );
});
