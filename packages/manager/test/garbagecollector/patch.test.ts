// The ownerReference patches (patch.go, controller_utils.go), applied with
// the strategic merge patch of @kcm-ts/apimachinery as the API server
// applies them: TestDeleteOwnerRefPatch and TestUnblockOwnerReference.
import { describe, expect, it } from 'vitest';
import { patchMetaForKind, strategicMergePatch } from '@kcm-ts/apimachinery';
import { Node } from '../../src/garbagecollector/graph.js';
import {
  generateDeleteOwnerRefStrategicMergePatch,
  unblockOwnerReferencesStrategicMergePatch,
} from '../../src/garbagecollector/patch.js';
import { ReferenceCache } from '../../src/garbagecollector/uid-cache.js';

const podMeta = patchMetaForKind('v1', 'Pod')!;

describe('ownerReference patches', () => {
  it('deletes the references to the given owners and keeps the rest', () => {
    const original = {
      metadata: { uid: '100', ownerReferences: [{ uid: '1' }, { uid: '2' }, { uid: '3' }] },
    };
    const p = generateDeleteOwnerRefStrategicMergePatch('100', ['2', '3']);
    expect(p.body).toEqual({
      metadata: {
        uid: '100',
        ownerReferences: [
          { $patch: 'delete', uid: '2' },
          { $patch: 'delete', uid: '3' },
        ],
      },
    });
    expect(strategicMergePatch(original, p.body, podMeta)).toEqual({
      metadata: { uid: '100', ownerReferences: [{ uid: '1' }] },
    });
  });

  it('unsets blockOwnerDeletion on every blocking reference', () => {
    const owners = [
      { apiVersion: 'v1', kind: 'Pod', name: 'a', uid: '1', blockOwnerDeletion: true },
      { apiVersion: 'v1', kind: 'Pod', name: 'b', uid: '2', blockOwnerDeletion: false },
      { apiVersion: 'v1', kind: 'Pod', name: 'c', uid: '3' },
    ];
    const node = new Node({
      identity: { apiVersion: 'v1', kind: 'Pod', name: 'x', uid: '100', namespace: 'ns' },
      owners,
    });
    const p = unblockOwnerReferencesStrategicMergePatch(node);
    const patched = strategicMergePatch(
      { metadata: { uid: '100', ownerReferences: owners } },
      p.body,
      podMeta,
    );
    expect(patched).toEqual({
      metadata: {
        uid: '100',
        ownerReferences: [{ ...owners[0], blockOwnerDeletion: false }, owners[1], owners[2]],
      },
    });
  });
});

describe('ReferenceCache', () => {
  const r = (uid: string) => ({
    apiVersion: 'v1',
    kind: 'ReplicationController',
    name: `rc${uid}`,
    uid,
    namespace: 'ns1',
  });

  it('evicts the least recently used reference, a hit counting as a use', () => {
    const cache = new ReferenceCache(2);
    cache.add(r('1'));
    cache.add(r('2'));
    // rc1 is used again, so rc2 is the oldest when rc3 arrives.
    expect(cache.has(r('1'))).toBe(true);
    cache.add(r('3'));
    expect(cache.has(r('1'))).toBe(true);
    expect(cache.has(r('2'))).toBe(false);
    expect(cache.has(r('3'))).toBe(true);
    expect(cache.size).toBe(2);
  });

  it('tells references apart by every coordinate and the namespace', () => {
    const cache = new ReferenceCache(10);
    cache.add(r('1'));
    expect(cache.has({ ...r('1'), namespace: '' })).toBe(false);
    expect(cache.has({ ...r('1'), kind: 'Pod' })).toBe(false);
    expect(cache.has({ ...r('1') })).toBe(true);
  });
});
