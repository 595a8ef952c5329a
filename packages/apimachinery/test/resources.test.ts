import { describe, expect, it } from 'vitest';
import { builtinResources, groupResourceString } from '../src/index.js';

describe('builtinResources', () => {
  it('names each built-in resource once, with its kind, scope and singular name', () => {
    expect(builtinResources.pods).toEqual({
      group: '',
      version: 'v1',
      resource: 'pods',
      kind: 'Pod',
      namespaced: true,
      singular: 'pod',
    });
    expect(groupResourceString(builtinResources.replicaSets)).toBe('replicasets.apps');
    expect(builtinResources.nodes.namespaced).toBe(false);
    expect(builtinResources.namespaces.namespaced).toBe(false);
    expect(builtinResources.eventsV1.group).toBe('events.k8s.io');
  });

  it('cannot be changed by a caller', () => {
    expect(Object.isFrozen(builtinResources)).toBe(true);
    expect(Object.isFrozen(builtinResources.pods)).toBe(true);
  });
});
