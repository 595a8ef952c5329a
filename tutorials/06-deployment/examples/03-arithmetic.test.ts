import { expect, it } from 'vitest';
import { run } from './03-arithmetic.js';

it('resolves maxSurge and maxUnavailable as upstream, and the sandbox keeps exactly those limits', async () => {
  const lines: string[] = [];
  const rows = await run((line) => lines.push(line));
  const byName = new Map(rows.map((r) => [r.setting.name, r]));

  // Surge rounds up, unavailable rounds down; both zero becomes one unavailable.
  expect([byName.get('defaults')?.surge, byName.get('defaults')?.unavailable]).toEqual([3, 2]);
  expect([byName.get('walkthrough')?.surge, byName.get('walkthrough')?.unavailable]).toEqual([
    1, 0,
  ]);
  expect([byName.get('fencepost')?.surge, byName.get('fencepost')?.unavailable]).toEqual([0, 1]);
  expect([byName.get('single pod')?.surge, byName.get('single pod')?.unavailable]).toEqual([1, 0]);
  // The new ReplicaSet starts at maxSurge: with no surge, at zero.
  expect(rows.map((r) => r.firstStep)).toEqual([3, 1, 0, 10, 0, 1]);

  for (const r of rows) {
    const { replicas } = r.setting;
    // The limits hold, and are reached.
    expect(r.measured.mostPods, r.setting.name).toBe(replicas + r.surge);
    expect(r.measured.fewestReady, r.setting.name).toBe(replicas - r.unavailable);
    // Waves of surge + unavailable pods, each one pod's time to Ready (2 s).
    expect(r.measured.took, r.setting.name).toBe(r.waves * 2000);
  }

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/03-arithmetic.txt');
});
