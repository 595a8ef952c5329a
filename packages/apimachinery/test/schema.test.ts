// Cases after apimachinery pkg/runtime/schema/group_version_test.go.
import { describe, expect, it } from 'vitest';
import {
  groupKindString,
  groupResourceString,
  groupVersionString,
  parseGroupVersion,
} from '../src/index.js';

describe('parseGroupVersion', () => {
  it.each([
    ['', { group: '', version: '' }],
    ['/', { group: '', version: '' }],
    ['v1', { group: '', version: 'v1' }],
    ['apps/v1', { group: 'apps', version: 'v1' }],
    ['rbac.authorization.k8s.io/v1', { group: 'rbac.authorization.k8s.io', version: 'v1' }],
    ['apps/', { group: 'apps', version: '' }],
  ])('parses %j', (input, expected) => {
    expect(parseGroupVersion(input)).toEqual(expected);
  });

  it('throws on more than one slash', () => {
    expect(() => parseGroupVersion('a/b/c')).toThrow('unexpected GroupVersion string: a/b/c');
  });

  it('round-trips with groupVersionString', () => {
    for (const s of ['v1', 'apps/v1', 'batch/v1']) {
      expect(groupVersionString(parseGroupVersion(s))).toBe(s);
    }
  });
});

describe('qualified names', () => {
  it('print resource.group and Kind.group, or just the name for the core group', () => {
    expect(groupResourceString({ group: 'apps', resource: 'deployments' })).toBe(
      'deployments.apps',
    );
    expect(groupResourceString({ group: '', resource: 'pods' })).toBe('pods');
    expect(groupKindString({ group: 'apps', kind: 'Deployment' })).toBe('Deployment.apps');
    expect(groupKindString({ group: '', kind: 'Pod' })).toBe('Pod');
  });
});
