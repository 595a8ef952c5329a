import { expect, it } from 'vitest';
import { run } from './01-one-sync.js';

it('creates 3 pods in slow-start batches of 1 and 2, expecting them before it asks', async () => {
  const lines: string[] = [];
  const r = await run((line) => lines.push(line));

  expect(r.creates).toBe(3);
  expect(r.events).toEqual([
    'Normal SuccessfulCreate Created pod: web-#1',
    'Normal SuccessfulCreate Created pod: web-#2',
    'Normal SuccessfulCreate Created pod: web-#3',
  ]);
  expect(r.status).toEqual({
    replicas: 3,
    fullyLabeledReplicas: 3,
    readyReplicas: 3,
    availableReplicas: 3,
    observedGeneration: 1,
  });

  // The first sync: expectations checked first, raised before any create,
  // then creates in batches of 1, then 2.
  const texts = r.firstSync.map((s) => s.text);
  const at = (prefix: string) => texts.findIndex((t) => t.startsWith(prefix));
  expect(at('expectations satisfied? yes')).toBeLessThan(at('list pods from the cache: 0 active'));
  expect(at('expectCreations(3)')).toBeLessThan(at('create pod'));
  expect(texts.filter((t) => t.startsWith('create pod'))).toEqual([
    'create pod (slow-start batch 1)',
    'create pod (slow-start batch 2)',
    'create pod (slow-start batch 2)',
  ]);
  // Each new pod the informer reports lowers the expectation by one.
  expect(texts.filter((t) => t.startsWith('addPod'))).toEqual([
    'addPod: creationObserved, add default/web (expecting 2 creations, 0 deletions)',
    'addPod: creationObserved, add default/web (expecting 1 creation, 0 deletions)',
    'addPod: creationObserved, add default/web (expecting 0 creations, 0 deletions)',
  ]);
  // The status written at the end of the first sync counts the pods it started from.
  expect(texts).toContain('update status: replicas 0, ready 0, available 0, observedGeneration 1');
  expect(r.firstSync.at(-1)?.text).toBe('done default/web');
  // Later syncs only write status as pods become ready; none creates again.
  expect(r.steps.slice(r.firstSync.length).some((s) => s.text.startsWith('create pod'))).toBe(
    false,
  );

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/01-one-sync.txt');
  await expect(r.svg).toMatchFileSnapshot('../one-sync.svg');
});
