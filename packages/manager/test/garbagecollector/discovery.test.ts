// Discovery (discovery.ts) and what the garbage collector takes from it:
// TestGetDeletableResources of garbagecollector_test.go, and the REST mapper.
import { describe, expect, it } from 'vitest';
import type { APIResourceList } from 'kubernetes-types/meta/v1.js';
import {
  DeferredDiscoveryRESTMapper,
  filteredBy,
  groupVersionResources,
  serverPreferredNamespacedResources,
  supportsAllVerbs,
} from '../../src/discovery.js';
import {
  GroupDiscoveryFailedError,
  groupDiscoveryFailedErrorGroups,
  isGroupDiscoveryFailedError,
} from '@kcm-ts/apimachinery';
import { getDeletableResources } from '../../src/garbagecollector/garbage-collector.js';
import { TestDiscovery } from './helpers.js';

const appsV1: APIResourceList = {
  groupVersion: 'apps/v1',
  resources: [
    {
      name: 'pods',
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      verbs: ['delete', 'list', 'watch'],
    },
    { name: 'services', singularName: 'service', namespaced: true, kind: 'Service', verbs: [] },
  ],
};

describe('getDeletableResources', () => {
  it('keeps resources with delete, list and watch, and skips invalid group versions', async () => {
    const discovery = new TestDiscovery([
      appsV1,
      {
        groupVersion: 'foo//whatever',
        resources: [
          {
            name: 'bars',
            singularName: 'bar',
            namespaced: true,
            kind: 'Bar',
            verbs: ['delete', 'list', 'watch'],
          },
        ],
      },
      {
        groupVersion: 'acme/v1',
        resources: [
          {
            name: 'widgets',
            singularName: 'widget',
            namespaced: true,
            kind: 'Widget',
            verbs: ['delete'],
          },
        ],
      },
    ]);
    const { resources, error } = await getDeletableResources(discovery);
    expect([...resources.keys()]).toEqual(['apps/v1/pods']);
    expect(error).toBeUndefined();
  });

  it('returns what could be read along with a partial discovery failure', async () => {
    const failure = new GroupDiscoveryFailedError(
      new Map([['foo/v1', new Error('discovery failure')]]),
      [appsV1],
    );
    const discovery = new TestDiscovery();
    discovery.error = failure;
    const { resources, error } = await getDeletableResources(discovery);
    expect([...resources.keys()]).toEqual(['apps/v1/pods']);
    expect(error).toBe(failure);
    expect(failure.message).toBe(
      'unable to retrieve the complete list of server APIs: foo/v1: discovery failure',
    );
  });

  it('takes a partial failure from another copy of the package as one too', async () => {
    // Its ESM and CJS builds loaded side by side: the brand, not the class, says what it is.
    const failure = Object.assign(
      Object.create(Error.prototype) as Error,
      new GroupDiscoveryFailedError(
        new Map([['metrics.k8s.io/v1beta1', new Error('service unavailable')]]),
        [appsV1],
      ),
    );
    expect(isGroupDiscoveryFailedError(failure)).toBe(true);
    expect([...(groupDiscoveryFailedErrorGroups(failure)?.keys() ?? [])]).toEqual([
      'metrics.k8s.io/v1beta1',
    ]);
    const discovery = new TestDiscovery();
    discovery.error = failure;
    const { resources } = await getDeletableResources(discovery);
    expect([...resources.keys()]).toEqual(['apps/v1/pods']);
    const namespaced = await serverPreferredNamespacedResources(discovery).catch((e: unknown) => e);
    expect(isGroupDiscoveryFailedError(namespaced)).toBe(true);
    // Another error of the same name but without the partial result is not one.
    const plain = Object.assign(new Error('x'), { name: 'GroupDiscoveryFailedError' });
    expect(isGroupDiscoveryFailedError(plain)).toBe(false);
  });

  it('returns nothing and the error when discovery fails outright', async () => {
    const discovery = new TestDiscovery();
    discovery.error = new Error('internal error');
    const { resources, error } = await getDeletableResources(discovery);
    expect(resources.size).toBe(0);
    expect(error).toBe(discovery.error);
  });
});

describe('discovery helpers', () => {
  it('filters by verbs and namespacing, dropping lists left empty', async () => {
    const lists = new TestDiscovery().lists;
    const deletable = filteredBy(supportsAllVerbs(['deletecollection']), lists);
    expect(deletable.flatMap((l) => l.resources.map((r) => r.name))).not.toContain('namespaces');
    const namespaced = await serverPreferredNamespacedResources(new TestDiscovery());
    expect(namespaced.flatMap((l) => l.resources.map((r) => r.name))).not.toContain('nodes');
    expect(namespaced.flatMap((l) => l.resources.map((r) => r.name))).toContain('leases');
    expect([...groupVersionResources([appsV1]).keys()]).toEqual([
      'apps/v1/pods',
      'apps/v1/services',
    ]);
    expect(() => groupVersionResources([{ groupVersion: 'a/b/c', resources: [] }])).toThrow(
      'unexpected GroupVersion string: a/b/c',
    );
  });

  it('keeps the namespaced part of a partial failure', async () => {
    const discovery = new TestDiscovery();
    discovery.error = new GroupDiscoveryFailedError(new Map([['x/v1', 'down']]), discovery.lists);
    const err = await serverPreferredNamespacedResources(discovery).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GroupDiscoveryFailedError);
    const names = (err as GroupDiscoveryFailedError).resources.flatMap((l) =>
      l.resources.map((r) => r.name),
    );
    expect(names).toContain('pods');
    expect(names).not.toContain('namespaces');
  });
});

describe('DeferredDiscoveryRESTMapper', () => {
  it('maps kinds to resources and back, reading discovery once until reset', async () => {
    const discovery = new TestDiscovery();
    const mapper = new DeferredDiscoveryRESTMapper(discovery);
    const rs = await mapper.restMapping({ group: 'apps', kind: 'ReplicaSet' }, 'v1');
    expect(rs).toEqual({
      resource: { group: 'apps', version: 'v1', resource: 'replicasets' },
      groupVersionKind: { group: 'apps', version: 'v1', kind: 'ReplicaSet' },
      namespaced: true,
      singular: 'replicaset',
    });
    expect(await mapper.kindFor({ group: '', version: 'v1', resource: 'nodes' })).toEqual({
      group: '',
      version: 'v1',
      kind: 'Node',
    });
    await expect(
      mapper.restMapping({ group: 'apps', kind: 'ReplicaSet' }, 'v1beta1'),
    ).rejects.toThrow('no matches for kind "ReplicaSet" in version "apps/v1beta1"');
    await expect(mapper.kindFor({ group: 'x', version: 'v1', resource: 'ys' })).rejects.toThrow(
      'no matches for x/v1, Resource=ys',
    );
    expect(discovery.calls).toBe(1);
    mapper.reset();
    await mapper.restMapping({ group: '', kind: 'Pod' }, 'v1');
    expect(discovery.calls).toBe(2);
  });

  it('does not keep a failed read', async () => {
    const discovery = new TestDiscovery();
    discovery.error = new Error('down');
    const mapper = new DeferredDiscoveryRESTMapper(discovery);
    await expect(mapper.restMapping({ group: '', kind: 'Pod' }, 'v1')).rejects.toThrow('down');
    discovery.error = undefined;
    expect((await mapper.restMapping({ group: '', kind: 'Pod' }, 'v1')).resource.resource).toBe(
      'pods',
    );
  });
});
