// The namespace conditions (deletion/status_condition_utils.go).
import type { NamespaceStatus } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '@kcm-ts/apimachinery';
import { GroupDiscoveryFailedError } from '@kcm-ts/apimachinery';
import {
  NamespaceConditionUpdater,
  namespaceConditionTypes,
  updateConditions,
} from '../../src/namespace/status-condition-utils.js';

describe('namespace conditions', () => {
  it('writes every type, changing the transition time only with the status', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const status: NamespaceStatus = { phase: 'Terminating' };
    expect(updateConditions(status, [], clock)).toBe(true);
    expect(status.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual(
      namespaceConditionTypes.map((t) => `${t}=False`),
    );
    expect(updateConditions(status, [], clock)).toBe(false);

    await clock.advance(60_000);
    const remaining = (message: string) => ({
      type: 'NamespaceContentRemaining',
      status: 'True',
      reason: 'SomeResourcesRemain',
      message,
    });
    expect(updateConditions(status, [remaining('a')], clock)).toBe(true);
    const c = status.conditions?.find((x) => x.type === 'NamespaceContentRemaining');
    expect(c).toMatchObject({
      status: 'True',
      lastTransitionTime: '2026-01-01T00:01:00Z',
      message: 'a',
    });
    await clock.advance(60_000);
    // Same status, new message: the transition time stays.
    expect(updateConditions(status, [remaining('b')], clock)).toBe(true);
    expect(c).toMatchObject({ lastTransitionTime: '2026-01-01T00:01:00Z', message: 'b' });
    expect(status.conditions).toHaveLength(5);
  });

  it('turns failures into conditions with upstream reasons and messages', () => {
    const clock = new FakeClock();
    const u = new NamespaceConditionUpdater(clock);
    u.processDiscoverResourcesErr(
      new GroupDiscoveryFailedError(new Map([['a/v1', new Error('x')]])),
    );
    u.processGroupVersionErr(new Error('unexpected GroupVersion string: a/b/c'));
    u.processDeleteContentErr(new Error('second'));
    u.processDeleteContentErr(new Error('first'));
    u.processContentTotals({
      gvrToNumRemaining: new Map([
        ['pods.', 2],
        ['deployments.apps', 1],
      ]),
      finalizersToNumRemaining: new Map([['example.com/hold', 3]]),
    });
    const ns = { metadata: { name: 'x' } };
    expect(u.update(ns)).toBe(true);
    expect(
      (ns as { status?: NamespaceStatus }).status?.conditions?.map(
        (c) => `${c.type} ${c.reason}: ${c.message}`,
      ),
    ).toEqual([
      'NamespaceDeletionDiscoveryFailure DiscoveryFailed: Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: a/v1: x',
      'NamespaceDeletionGroupVersionParsingFailure GroupVersionParsingFailed: unexpected GroupVersion string: a/b/c',
      'NamespaceDeletionContentFailure ContentDeletionFailed: Failed to delete all resource types, 2 remaining: first, second',
      'NamespaceContentRemaining SomeResourcesRemain: Some resources are remaining: deployments.apps has 1 resource instances, pods. has 2 resource instances',
      'NamespaceFinalizersRemaining SomeFinalizersRemain: Some content in the namespace has finalizers remaining: example.com/hold in 3 resource instances',
    ]);
  });
});
