// The ReplicaSet orders of controller_utils.go, on the cases that tell them apart.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { formatTime } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  replicaSetsByCreationTimestamp,
  replicaSetsBySizeNewer,
  replicaSetsBySizeOlder,
} from '../src/index.js';

const t0 = Date.UTC(2026, 0, 1);
const rs = (name: string, replicas: number, created?: number): ReplicaSet => ({
  metadata: { name, ...(created !== undefined && { creationTimestamp: formatTime(created) }) },
  spec: { replicas, selector: {}, template: {} },
});
const names = (list: ReplicaSet[]) => list.map((r) => r.metadata!.name);

describe('ReplicaSet orders', () => {
  const list = [
    rs('b-new', 3, t0 + 2000),
    rs('a-old', 3, t0),
    rs('c-same-time', 3, t0),
    rs('big', 5, t0 + 1000),
    rs('no-time', 1),
  ];

  it('by creation time: older first, equal times by name, a missing time first', () => {
    expect(names([...list].sort(replicaSetsByCreationTimestamp))).toEqual([
      'no-time',
      'a-old',
      'c-same-time',
      'big',
      'b-new',
    ]);
  });

  it('by size, older first among equals', () => {
    expect(names([...list].sort(replicaSetsBySizeOlder))).toEqual([
      'big',
      'a-old',
      'c-same-time',
      'b-new',
      'no-time',
    ]);
  });

  it('by size, newer first among equals (equal times by name, descending)', () => {
    expect(names([...list].sort(replicaSetsBySizeNewer))).toEqual([
      'big',
      'b-new',
      'c-same-time',
      'a-old',
      'no-time',
    ]);
  });

  it('treats a missing spec.replicas as the default of 1', () => {
    const unset: ReplicaSet = { metadata: { name: 'unset' }, spec: { selector: {}, template: {} } };
    expect(
      names([rs('zero', 0, t0), unset, rs('two', 2, t0)].sort(replicaSetsBySizeOlder)),
    ).toEqual(['two', 'unset', 'zero']);
  });
});
