// User data keyed by names that are also JavaScript's own (`constructor`,
// `__proto__`, `toString`...) is data like any other, and status and scale
// writes are checked as kube-apiserver checks them: a JSON merge patch
// applies such labels, a ConfigMap takes such keys, a namespace's phase
// follows its deletionTimestamp, and a Scale names its own parent.
import { isBadRequest, isInvalid, type KubeObject } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { mergePatch } from '../src/apiserver/merge-patch.js';
import { newRegistry } from './helpers.js';

const jsonOf = (text: string): unknown => JSON.parse(text);

describe('keys that are also JavaScript names', () => {
  it('are applied by a JSON merge patch, and none reaches a prototype', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    registry.create(cms, 'default', { metadata: { name: 'x' } });
    const body = jsonOf(
      '{"metadata":{"labels":{"constructor":"x","team":"a","prototype":"q"}},"data":{"__proto__":"p","constructor":"c"}}',
    ) as object;
    const patched = registry.patch(cms, 'default', 'x', { type: 'merge', body })
      .object as KubeObject & { data?: Record<string, string> };
    expect(patched.metadata?.labels).toEqual({ constructor: 'x', team: 'a', prototype: 'q' });
    expect(JSON.parse(JSON.stringify(patched.data))).toEqual(
      jsonOf('{"__proto__":"p","constructor":"c"}'),
    );
    expect(Object.getPrototypeOf(patched.data)).toBe(Object.prototype);
    // A null removes the key, however it is named.
    const removed = registry.patch(cms, 'default', 'x', {
      type: 'merge',
      body: jsonOf(
        '{"metadata":{"labels":{"constructor":null}},"data":{"__proto__":null}}',
      ) as object,
    }).object as KubeObject & { data?: Record<string, string> };
    expect(removed.metadata?.labels).toEqual({ team: 'a', prototype: 'q' });
    expect(removed.data).toEqual({ constructor: 'c' });
  });

  it('follow RFC 7386 in the merge itself', () => {
    expect(mergePatch({ a: { b: 1, c: 2 }, d: [1] }, { a: { b: null, e: 3 }, d: [2] })).toEqual({
      a: { c: 2, e: 3 },
      d: [2],
    });
    expect(mergePatch({ a: 1 }, 'x')).toBe('x');
    expect(mergePatch('x', { a: 1 })).toEqual({ a: 1 });
  });

  it('are ConfigMap keys like any other', () => {
    const { registry } = newRegistry();
    const data = { toString: 'a', constructor: 'b', valueOf: 'c', hasOwnProperty: 'd' };
    const created = registry.create(registry.resource('', 'configmaps'), 'default', {
      metadata: { name: 'keys' },
      data,
    }) as KubeObject & { data?: Record<string, string> };
    expect(created.data).toEqual(data);
  });
});

describe('status and scale writes', () => {
  it('refuse a namespace phase its deletionTimestamp does not allow (ValidateNamespaceStatusUpdate)', () => {
    const { registry } = newRegistry();
    const ns = registry.resource('', 'namespaces');
    const created = registry.create(ns, '', { metadata: { name: 'p1' } });
    let err: unknown;
    try {
      registry.update(
        ns,
        '',
        'p1',
        { ...created, status: { phase: 'Terminating' } },
        {
          subresource: 'status',
        },
      );
    } catch (e) {
      err = e;
    }
    expect(isInvalid(err)).toBe(true);
    expect((err as Error).message).toContain(
      'status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty',
    );
    expect((registry.get(ns, '', 'p1') as { status?: { phase?: string } }).status?.phase).toBe(
      'Active',
    );
  });

  it('refuse a Scale that names another object or namespace', () => {
    const { registry } = newRegistry();
    const rs = registry.resource('apps', 'replicasets');
    registry.create(rs, 'default', {
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    });
    const scale = (metadata: object) => ({ kind: 'Scale', metadata, spec: { replicas: 5 } });
    const refusal = (metadata: object): unknown => {
      try {
        registry.updateScale(rs, 'default', 'web', scale(metadata));
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const other = refusal({ name: 'other' });
    expect(isBadRequest(other)).toBe(true);
    expect((other as Error).message).toBe(
      'the name of the object (other) does not match the name on the URL (web)',
    );
    const elsewhere = refusal({ name: 'web', namespace: 'kube-system' });
    expect(isBadRequest(elsewhere)).toBe(true);
    expect((elsewhere as Error).message).toBe(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    expect(
      (registry.get(rs, 'default', 'web') as { spec?: { replicas?: number } }).spec?.replicas,
    ).toBe(1);
    expect(refusal({ name: 'web', namespace: 'default' })).toBeUndefined();
  });
});
