import { FakeClock } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { reconcile, run } from './01-desired-vs-actual.js';
import { drawDesiredVsActual } from './desired-vs-actual-svg.js';

describe('reconcile', () => {
  it('creates what is missing and deletes the newest extras', () => {
    expect(reconcile(3, ['a'])).toEqual({ create: 2 });
    expect(reconcile(1, ['a', 'b', 'c'])).toEqual({ delete: ['b', 'c'] });
    expect(reconcile(2, ['a', 'b'])).toBe('nothing');
  });

  it('is level-triggered: acting on its own decision leaves nothing to do', () => {
    for (let desired = 0; desired < 5; desired++) {
      for (let have = 0; have < 5; have++) {
        let pods = Array.from({ length: have }, (_, i) => `p${i}`);
        const action = reconcile(desired, pods);
        if (typeof action === 'object' && 'create' in action) {
          pods = [...pods, ...Array.from({ length: action.create }, (_, i) => `n${i}`)];
        } else if (typeof action === 'object') {
          pods = pods.filter((p) => !action.delete.includes(p));
        }
        expect(reconcile(desired, pods)).toBe('nothing');
      }
    }
  });
});

it('converges after every disturbance', async () => {
  const clock = new FakeClock();
  const lines: string[] = [];
  const done = run({ clock, log: (line) => lines.push(line) });
  await clock.advance(3000);
  const pods = await done;
  expect(pods).toHaveLength(2);
  expect(lines).toHaveLength(4);
  expect(lines.at(-1)).toContain('"nothing"');
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot(
    './__output__/01-desired-vs-actual.txt',
  );
  await expect(drawDesiredVsActual(lines)).toMatchFileSnapshot('../desired-vs-actual.svg');
});
