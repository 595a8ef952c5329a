import { expect, it } from 'vitest';
import { run } from './03-statefulset.js';
import { renderTimeline, statefulSetTimeline } from './timeline.js';

it('starts web-0..2 in order with their claims, keeps identities, and scales down from the top', async () => {
  const lines: string[] = [];
  const r = await run((line) => lines.push(line));

  // Ordered creation: each pod only once the one before it is ready.
  expect(r.created).toEqual(['web-0', 'web-1', 'web-2', 'web-1', 'web-1', 'web-2']);
  const first = r.pods.slice(0, 3);
  expect(first[1]!.created).toBeGreaterThanOrEqual(first[0]!.ready!);
  expect(first[2]!.created).toBeGreaterThanOrEqual(first[1]!.ready!);

  // At most one pod per identity at any moment.
  for (const name of ['web-0', 'web-1', 'web-2']) {
    const lives = r.pods.filter((p) => p.name === name);
    for (let i = 1; i < lives.length; i++) {
      expect(lives[i]!.created).toBeGreaterThanOrEqual(lives[i - 1]!.gone!);
    }
  }

  // A deleted web-1 comes back: a new pod, the same name, node and claim.
  expect(r.web1.after[0]).not.toBe(r.web1.before[0]);
  expect(r.web1.after.slice(1)).toEqual(r.web1.before.slice(1));
  expect(r.web1.after[2]).toBe('www-web-1');

  // Scale-down from the top, twice; the claims stay, and are reused.
  expect(r.deleted).toEqual(['web-1', 'web-2', 'web-1', 'web-2', 'web-1']);
  expect(Object.keys(r.volumes)).toEqual(['www-web-0', 'www-web-1', 'www-web-2']);
  expect(r.reused).toEqual(r.volumes);
  // whenScaled: Delete hands the claims of removed pods to those pods.
  expect(r.owners).toEqual({
    'www-web-0': [],
    'www-web-1': ['Pod/web-1'],
    'www-web-2': ['Pod/web-2'],
  });
  expect(r.events.filter((e) => e.includes('Warning'))).toEqual([]);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/03-statefulset.txt');
  await expect(renderTimeline(statefulSetTimeline(r))).toMatchFileSnapshot(
    '../statefulset-timeline.svg',
  );
});
