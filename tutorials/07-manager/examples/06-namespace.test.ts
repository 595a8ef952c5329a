import { expect, it } from 'vitest';
import { namespaceDeletionGracePeriod } from '@kcm-ts/manager';
import { run } from './06-namespace.js';

it('empties a terminating namespace, reports its conditions, and only then removes the kubernetes finalizer', async () => {
  const lines: string[] = [];
  const { steps, states, goneAfter } = await run((line) => lines.push(line));
  const index = (text: string) => {
    const i = steps.findIndex((s) => s.includes(text));
    expect(i, text).toBeGreaterThanOrEqual(0);
    return i;
  };
  const seconds = (line: string) => Number(/^t=\s*([\d.]+)s/.exec(line)?.[1]);

  // The API server only marks the namespace: Terminating, finalizer kept.
  expect(steps[0]).toBe(
    't= 0.0s  api                  Namespace shop gets a deletionTimestamp, phase Terminating',
  );
  expect(states[0]?.spec?.finalizers).toEqual(['kubernetes']);

  // The controller waits out the grace period before it touches anything.
  const first = steps.find((s) => s.includes('namespace-controller'))!;
  expect(seconds(first) * 1000).toBe(namespaceDeletionGracePeriod);
  for (const resource of ['pods', 'deployments.apps', 'replicasets.apps', 'configmaps']) {
    index(`DELETE ${resource} (the whole collection in shop)`);
  }

  // While pods terminate the namespace says so, and keeps its finalizer.
  const remaining = index('NamespaceContentRemaining=True');
  const podsGone = index('Pod nginx-deployment-7f4d79f7d7-xxxxx is gone');
  const finalize = index('PUT namespaces/shop/finalize: spec.finalizers []');
  expect(remaining).toBeLessThan(podsGone);
  expect(podsGone).toBeLessThan(index('NamespaceContentRemaining=False'));
  expect(index('NamespaceContentRemaining=False')).toBeLessThan(finalize);
  // The finalize call is the last thing the controller does; then the namespace goes.
  expect(steps.at(-1)).toContain('Namespace shop is gone');
  expect(finalize).toBe(steps.length - 2);
  for (const state of states.slice(0, -1)) expect(state.spec?.finalizers).toEqual(['kubernetes']);

  // The status update re-queues the namespace after another grace period:
  // the second pass finds it empty and finalizes it.
  expect(goneAfter).toBe(2 * namespaceDeletionGracePeriod);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/06-namespace.txt');
});
