// Cases after apimachinery pkg/apis/meta/v1/controller_ref_test.go.
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  getControllerOf,
  isControlledBy,
  labelsOf,
  nameOf,
  namespaceOf,
  newControllerRef,
  parseSelector,
  resourceVersionOf,
  uidOf,
  type KubeObject,
} from '../src/index.js';

const rs: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { namespace: 'default', name: 'web-abc', uid: 'uid-rs', resourceVersion: '42' },
};

describe('metadata getters', () => {
  it('read the fields, or give empty values as Go getters do', () => {
    expect([namespaceOf(rs), nameOf(rs), uidOf(rs), resourceVersionOf(rs)]).toEqual([
      'default',
      'web-abc',
      'uid-rs',
      '42',
    ]);
    const bare: KubeObject = {};
    expect([namespaceOf(bare), nameOf(bare), uidOf(bare), resourceVersionOf(bare)]).toEqual([
      '',
      '',
      '',
      '',
    ]);
    expect(labelsOf(bare)).toEqual({});
  });

  it('accept kubernetes-types objects, and labelsOf feeds a selector', () => {
    const pod: Pod = { metadata: { name: 'p', labels: { app: 'web' } }, spec: { containers: [] } };
    expect(nameOf(pod)).toBe('p');
    expect(parseSelector('app=web').matches(labelsOf(pod))).toBe(true);
  });
});

describe('controller references', () => {
  const ref = newControllerRef(rs, { group: 'apps', version: 'v1', kind: 'ReplicaSet' });

  it('newControllerRef marks the owner as controller and blocks its deletion', () => {
    expect(ref).toStrictEqual({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'web-abc',
      uid: 'uid-rs',
      controller: true,
      blockOwnerDeletion: true,
    });
    // The JSON field order of Go's OwnerReference.
    expect(Object.keys(ref)).toEqual([
      'apiVersion',
      'kind',
      'name',
      'uid',
      'controller',
      'blockOwnerDeletion',
    ]);
    const node = { metadata: { name: 'n1', uid: 'uid-n' } };
    expect(newControllerRef(node, { group: '', version: 'v1', kind: 'Node' }).apiVersion).toBe(
      'v1',
    );
  });

  it('getControllerOf finds the reference with controller: true, and copies it', () => {
    const pod: KubeObject = {
      metadata: {
        name: 'p',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Other', name: 'o', uid: 'uid-o' },
          { apiVersion: 'v1', kind: 'Other', name: 'f', uid: 'uid-f', controller: false },
          ref,
        ],
      },
    };
    const got = getControllerOf(pod);
    expect(got).toEqual(ref);
    expect(got).not.toBe(ref);
    got!.name = 'changed';
    expect(pod.metadata?.ownerReferences?.[2]?.name).toBe('web-abc');
  });

  it('getControllerOf gives undefined when there is no controller', () => {
    expect(getControllerOf({})).toBeUndefined();
    expect(getControllerOf({ metadata: { ownerReferences: [] } })).toBeUndefined();
    const notController = { ...ref, controller: false };
    expect(getControllerOf({ metadata: { ownerReferences: [notController] } })).toBeUndefined();
  });

  it('isControlledBy compares uids, not names', () => {
    const pod: KubeObject = { metadata: { name: 'p', ownerReferences: [ref] } };
    expect(isControlledBy(pod, rs)).toBe(true);
    const recreated = { ...rs, metadata: { ...rs.metadata, uid: 'uid-new' } };
    expect(isControlledBy(pod, recreated)).toBe(false);
    expect(isControlledBy({ metadata: { name: 'orphan' } }, rs)).toBe(false);
  });
});
