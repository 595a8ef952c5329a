// Strategic merge patch: the patches kubectl sends, merging by key, the `$`
// directives, the result orders kube-apiserver produces, the errors and their
// status codes, and the per-kind schemas.
import type { Deployment, DeploymentStrategy } from 'kubernetes-types/apps/v1.js';
import type { Container, Namespace, Node, Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { StrategicMergePatchError, patchMetaForKind, strategicMergePatch } from '../src/index.js';
import type { PatchMeta } from '../src/index.js';

const metaOf = (apiVersion: string, kind: string): PatchMeta => {
  const meta = patchMetaForKind(apiVersion, kind);
  if (!meta) throw new Error(`no patch meta for ${apiVersion} ${kind}`);
  return meta;
};
const deploymentMeta = metaOf('apps/v1', 'Deployment');
const podMeta = metaOf('v1', 'Pod');

const deployment = (): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    finalizers: ['a'],
    ownerReferences: [{ uid: 'u1', name: 'x', kind: 'K', apiVersion: 'v1' }],
  },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'nginx:1.27',
            args: ['--a', '--b'],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
            envFrom: [{ configMapRef: { name: 'cm' } }],
            ports: [{ containerPort: 80, protocol: 'TCP' }],
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
          },
          { name: 'sidecar', image: 'busybox' },
        ],
        volumes: [{ name: 'data', emptyDir: {} }],
        tolerations: [{ key: 'k', operator: 'Exists' }],
      },
    },
  },
});

/** Applies `patch` to `original` (a fresh Deployment unless given). */
function apply<T extends object = Deployment>(
  patch: object,
  original: T = deployment() as T,
  meta: PatchMeta = deploymentMeta,
): T {
  return strategicMergePatch(original, patch, meta) as T;
}

const podSpecOf = (d: Deployment): PodSpec => d.spec!.template.spec!;
const containersOf = (d: Deployment): Container[] => podSpecOf(d).containers;
const names = (items: ReadonlyArray<{ name?: string }> | undefined) => items?.map((i) => i.name);

function caught(fn: () => unknown): StrategicMergePatchError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StrategicMergePatchError) return err;
    throw err;
  }
  throw new Error('expected a StrategicMergePatchError');
}

// Every key anywhere in a JSON value.
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe('strategicMergePatch: the patches kubectl sends (spec §11)', () => {
  it('kubectl apply: sets fields, merges the container by name, leaves no directive behind', () => {
    const lastApplied = '{"apiVersion":"apps/v1","kind":"Deployment"}';
    const out = apply({
      metadata: {
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied },
      },
      spec: {
        replicas: 3,
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }, { name: 'sidecar' }],
            containers: [{ image: 'nginx:1.28', name: 'web' }],
          },
        },
      },
    });
    expect(out.metadata?.annotations).toEqual({
      'kubectl.kubernetes.io/last-applied-configuration': lastApplied,
    });
    expect(out.spec?.replicas).toBe(3);
    const [web, sidecar] = containersOf(out);
    expect(web).toEqual({ ...containersOf(deployment())[0], image: 'nginx:1.28' });
    expect(sidecar).toEqual({ name: 'sidecar', image: 'busybox' });
    expect(keysOf(out).filter((k) => k.startsWith('$'))).toEqual([]);
  });

  it('kubectl set image: changes one container and keeps the order', () => {
    const out = apply({
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }, { name: 'sidecar' }],
            containers: [{ image: 'busybox:1.37', name: 'sidecar' }],
          },
        },
      },
    });
    expect(containersOf(out).map((c) => [c.name, c.image])).toEqual([
      ['web', 'nginx:1.27'],
      ['sidecar', 'busybox:1.37'],
    ]);
  });

  it('kubectl rollout pause sets spec.paused; resume deletes it with null', () => {
    const paused = apply({ spec: { paused: true } });
    expect(paused.spec?.paused).toBe(true);
    const resumed = apply({ spec: { paused: null } }, paused);
    expect(resumed.spec).not.toHaveProperty('paused');
    expect(resumed.spec?.replicas).toBe(1);
  });

  it('kubectl rollout restart: adds the restartedAt annotation to the template', () => {
    const at = '2026-11-22T10:00:00Z';
    const out = apply({
      spec: {
        template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': at } } },
      },
    });
    expect(out.spec?.template.metadata).toEqual({
      labels: { app: 'web' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': at },
    });
  });
});

describe('strategicMergePatch: lists merged by key', () => {
  it('merges containers by name: updates one in place and appends a new one', () => {
    const out = apply({
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'web', imagePullPolicy: 'Always' },
              { name: 'log', image: 'fluentd' },
            ],
          },
        },
      },
    });
    const containers = containersOf(out);
    expect(containers.map((c) => c.name)).toEqual(['web', 'log', 'sidecar']);
    expect(containers[0]).toMatchObject({ image: 'nginx:1.27', imagePullPolicy: 'Always' });
    expect(containers[1]).toEqual({ name: 'log', image: 'fluentd' });
  });

  it('merges env by name and ports by containerPort', () => {
    const out = apply({
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }, { name: 'sidecar' }],
            containers: [
              {
                name: 'web',
                '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }, { name: 'C' }],
                env: [
                  { name: 'B', value: 'two' },
                  { name: 'C', value: '3' },
                ],
                ports: [{ containerPort: 80, name: 'http' }],
              },
            ],
          },
        },
      },
    });
    const web = containersOf(out)[0];
    expect(web?.env).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: 'two' },
      { name: 'C', value: '3' },
    ]);
    expect(web?.ports).toEqual([{ containerPort: 80, protocol: 'TCP', name: 'http' }]);
  });

  it('merges volumes by name, and $retainKeys in an item swaps the volume source', () => {
    const out = apply({
      spec: {
        template: {
          spec: {
            volumes: [
              { name: 'data', $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' } },
              { name: 'cache', emptyDir: { medium: 'Memory' } },
            ],
          },
        },
      },
    });
    expect(podSpecOf(out).volumes).toEqual([
      { name: 'data', configMap: { name: 'cm' } },
      { name: 'cache', emptyDir: { medium: 'Memory' } },
    ]);
  });

  it('merges volumeMounts by mountPath', () => {
    const out = apply({
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'web',
                volumeMounts: [
                  { mountPath: '/data', readOnly: true },
                  { mountPath: '/cache', name: 'cache' },
                ],
              },
            ],
          },
        },
      },
    });
    expect(containersOf(out)[0]?.volumeMounts).toEqual([
      { name: 'data', mountPath: '/data', readOnly: true },
      { mountPath: '/cache', name: 'cache' },
    ]);
  });

  it('merges ownerReferences by uid', () => {
    const out = apply({
      metadata: {
        ownerReferences: [
          { uid: 'u1', controller: true },
          { uid: 'u2', name: 'y', kind: 'K', apiVersion: 'v1' },
        ],
      },
    });
    expect(out.metadata?.ownerReferences).toEqual([
      { uid: 'u1', name: 'x', kind: 'K', apiVersion: 'v1', controller: true },
      { uid: 'u2', name: 'y', kind: 'K', apiVersion: 'v1' },
    ]);
  });

  it('removes an item with $patch: delete, every duplicate of it, and ignores a missing one', () => {
    const out = apply({
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'sidecar', $patch: 'delete' },
              { name: 'web', env: [{ name: 'A', $patch: 'delete' }] },
              { name: 'ghost', $patch: 'delete' },
            ],
          },
        },
      },
    });
    expect(names(containersOf(out))).toEqual(['web']);
    expect(containersOf(out)[0]?.env).toEqual([{ name: 'B', value: '2' }]);

    const twice = { spec: { containers: [{ name: 'c' }, { name: 'd' }, { name: 'c' }] } };
    const pod = strategicMergePatch(
      twice,
      { spec: { containers: [{ name: 'c', $patch: 'delete' }] } },
      podMeta,
    ) as Pod;
    expect(names(pod.spec?.containers)).toEqual(['d']);
  });

  it('replaces the whole list when an item says $patch: replace', () => {
    const out = apply({
      spec: {
        template: {
          spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'x', tty: null }] },
        },
      },
    });
    expect(containersOf(out)).toEqual([{ name: 'only', image: 'x' }]);
    const emptied = apply({
      metadata: { ownerReferences: [{ $patch: 'replace' }] },
    });
    expect(emptied.metadata?.ownerReferences).toEqual([]);
  });

  it('merges two patch items with the same key into one', () => {
    const out = apply({
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'new', image: 'a' },
              { name: 'new', tty: true },
            ],
          },
        },
      },
    });
    expect(containersOf(out).filter((c) => c.name === 'new')).toEqual([
      { name: 'new', image: 'a', tty: true },
    ]);
  });

  it('merges status conditions by type: Pod, Deployment, Namespace; Node addresses too', () => {
    const pod: Pod = {
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'PodScheduled', status: 'True' },
        ],
        podIPs: [{ ip: '10.0.0.1' }],
      },
    };
    const patched = strategicMergePatch(
      pod,
      { status: { conditions: [{ type: 'Ready', status: 'True' }], podIPs: [{ ip: 'fd00::1' }] } },
      podMeta,
    ) as Pod;
    expect(patched.status?.conditions).toEqual([
      { type: 'Ready', status: 'True' },
      { type: 'PodScheduled', status: 'True' },
    ]);
    expect(patched.status?.podIPs).toEqual([{ ip: 'fd00::1' }, { ip: '10.0.0.1' }]);

    const d = apply({
      status: { conditions: [{ type: 'Progressing', status: 'True', reason: 'NewRSAvailable' }] },
    });
    expect(d.status?.conditions).toEqual([
      { type: 'Progressing', status: 'True', reason: 'NewRSAvailable' },
    ]);

    const ns = strategicMergePatch(
      { status: { phase: 'Terminating', conditions: [{ type: 'A', status: 'False' }] } },
      { status: { conditions: [{ type: 'A', status: 'True' }] } },
      metaOf('v1', 'Namespace'),
    ) as Namespace;
    expect(ns.status).toEqual({
      phase: 'Terminating',
      conditions: [{ type: 'A', status: 'True' }],
    });

    const node = strategicMergePatch(
      { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.5' }] } },
      { status: { addresses: [{ type: 'Hostname', address: 'n1' }] } },
      metaOf('v1', 'Node'),
    ) as Node;
    expect(node.status?.addresses).toEqual([
      { type: 'Hostname', address: 'n1' },
      { type: 'InternalIP', address: '10.0.0.5' },
    ]);
  });
});

describe('strategicMergePatch: lists of primitives and lists without a strategy', () => {
  it('unions finalizers without duplicates, in the order kube-apiserver gives', () => {
    // The patch's values come first, in the patch's order, unless the
    // object had them earlier (normalizeElementOrder).
    expect(apply({ metadata: { finalizers: ['b', 'a'] } }).metadata?.finalizers).toEqual([
      'b',
      'a',
    ]);
    const two = apply({ metadata: { finalizers: ['b'] } });
    expect(two.metadata?.finalizers).toEqual(['b', 'a']);
    expect(apply({ metadata: { finalizers: ['a', 'b'] } }, two).metadata?.finalizers).toEqual([
      'a',
      'b',
    ]);
    // kubectl says where each value goes.
    const ordered = apply({
      metadata: { '$setElementOrder/finalizers': ['a', 'b'], finalizers: ['b'] },
    });
    expect(ordered.metadata?.finalizers).toEqual(['a', 'b']);
  });

  it('unions Node spec.podCIDRs', () => {
    const node = strategicMergePatch(
      { spec: { podCIDRs: ['10.0.0.0/24'] } },
      { spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } },
      metaOf('v1', 'Node'),
    ) as Node;
    expect(node.spec?.podCIDRs).toEqual(['10.0.0.0/24', 'fd00::/64']);
  });

  it('removes values with $deleteFromPrimitiveList, whatever the list strategy', () => {
    const out = apply({
      metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 'zzz'] },
      spec: {
        template: {
          spec: { containers: [{ name: 'web', '$deleteFromPrimitiveList/args': ['--a'] }] },
        },
      },
    });
    expect(out.metadata?.finalizers).toEqual([]);
    expect(containersOf(out)[0]?.args).toEqual(['--b']);
  });

  it('$deleteFromPrimitiveList adds nothing where there is no list, and ignores a non-list', () => {
    const out = apply({
      metadata: { '$deleteFromPrimitiveList/labels': ['x'] },
      spec: { template: { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } } },
    });
    expect(out.spec?.template.metadata).toEqual({ labels: { app: 'web' } });
    expect(out.metadata).toEqual(deployment().metadata);
    const ignored = apply({ metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } });
    expect(ignored.metadata?.finalizers).toEqual(['a']);
  });

  it('replaces lists without a strategy whole: args, envFrom, tolerations', () => {
    const out = apply({
      spec: {
        template: {
          spec: {
            containers: [{ name: 'web', args: ['--c'], envFrom: [{ secretRef: { name: 's' } }] }],
            tolerations: [{ key: 'other', operator: 'Exists', $patch: 'delete' }],
          },
        },
      },
    });
    expect(containersOf(out)[0]).toMatchObject({
      args: ['--c'],
      envFrom: [{ secretRef: { name: 's' } }],
    });
    // A replaced list is taken as it stands; only the `$` keys go.
    expect(podSpecOf(out).tolerations).toEqual([{ key: 'other', operator: 'Exists' }]);
  });

  it('treats fields the schema does not describe like a JSON merge patch', () => {
    const out = strategicMergePatch(
      { data: { a: '1', b: '2' }, list: [{ name: 'x', v: 1 }], n: 1 },
      { data: { b: null, c: '3' }, list: [{ name: 'x', w: 2 }], n: { now: 'a map' } },
      metaOf('v1', 'ConfigMap'),
    );
    expect(out).toEqual({
      data: { a: '1', c: '3' },
      list: [{ name: 'x', w: 2 }],
      n: { now: 'a map' },
    });
  });
});

describe('strategicMergePatch: maps, null and directives', () => {
  it('drops rollingUpdate when a $retainKeys patch switches the strategy to Recreate', () => {
    const out = apply({ spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } });
    expect(out.spec?.strategy).toEqual({ type: 'Recreate' });
  });

  it('merges the strategy as usual without $retainKeys, and within the kept keys with it', () => {
    const plain = apply({ spec: { strategy: { type: 'Recreate' } } });
    expect(plain.spec?.strategy?.rollingUpdate).toBeDefined();
    const kept = apply({
      spec: {
        strategy: {
          $retainKeys: ['rollingUpdate', 'type'],
          rollingUpdate: { maxSurge: 1 },
          type: 'RollingUpdate',
        },
      },
    });
    expect(kept.spec?.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' },
    } satisfies DeploymentStrategy);
  });

  it('replaces a map with $patch: replace and empties it with $patch: delete', () => {
    const replaced = apply({
      spec: { template: { metadata: { labels: { $patch: 'replace', tier: 'web', x: null } } } },
    });
    expect(replaced.spec?.template.metadata?.labels).toEqual({ tier: 'web' });
    expect(apply({ spec: { strategy: { $patch: 'delete' } } }).spec?.strategy).toEqual({});
    expect(strategicMergePatch({ a: 1, b: 2 }, { $patch: 'replace', c: 3 }, {})).toEqual({ c: 3 });
  });

  it('drops a map carrying $patch where the object has no value yet, as Go does', () => {
    const out = apply({ metadata: { labels: { $patch: 'replace', a: 'b' } } });
    expect(out.metadata).not.toHaveProperty('labels');
  });

  it('deletes keys set to null at any depth, and drops nulls inside new values', () => {
    const out = apply({
      metadata: { labels: { fresh: 'yes', gone: null }, namespace: null, uid: null },
      spec: {
        replicas: null,
        template: {
          spec: { containers: [{ name: 'new', image: 'x', resources: { limits: null } }] },
        },
      },
    });
    expect(out.metadata?.labels).toEqual({ fresh: 'yes' });
    expect(out.metadata).not.toHaveProperty('namespace');
    expect(out.spec).not.toHaveProperty('replicas');
    expect(containersOf(out).find((c) => c.name === 'new')).toEqual({
      name: 'new',
      image: 'x',
      resources: {},
    });
  });

  it('keeps nulls the object already holds', () => {
    const out = strategicMergePatch(
      { metadata: { creationTimestamp: null } },
      { spec: {} },
      podMeta,
    );
    expect(out).toEqual({ metadata: { creationTimestamp: null }, spec: {} });
  });

  it('never writes a directive key into the result', () => {
    const out = apply({
      $unknown: 1,
      metadata: { '$setElementOrder/finalizers': ['a'] },
      spec: {
        template: {
          spec: {
            containers: [{ name: 'web', $retainKeys: ['name', 'image'], image: 'n' }],
            nodeSelector: { $patch: 'merge-me-not', $other: 1 },
            extra: { $retainKeys: ['x'], x: { $patch: 'replace', y: 1 } },
          },
        },
      },
    });
    expect(keysOf(out).filter((k) => k.startsWith('$'))).toEqual([]);
    // $retainKeys in a container keeps only the listed fields.
    expect(containersOf(out)[0]).toEqual({ name: 'web', image: 'n' });
  });

  it('changes neither input', () => {
    const original = deepFreeze(deployment());
    const patches = [
      { spec: { template: { spec: { containers: [{ name: 'web', image: 'n' }] } } } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], finalizers: ['z'] } },
      { metadata: { ownerReferences: [{ uid: 'u1', $patch: 'delete' }] } },
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      {
        spec: {
          template: {
            spec: {
              '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'web' }],
              containers: [{ name: 'web', env: [{ $patch: 'replace' }, { name: 'Z' }] }],
              volumes: [{ name: 'data', $patch: 'delete' }],
            },
          },
        },
      },
    ].map(deepFreeze);
    for (const p of patches) {
      const out = apply(p, original);
      expect(out).not.toBe(original);
    }
    expect(original).toEqual(deployment());
  });
});

describe('strategicMergePatch: order of merged lists', () => {
  const list = { fields: { items: { strategy: 'merge', mergeKey: 'name' } } } as const;
  const order = (o: Record<string, unknown>) =>
    (o.items as Array<{ name: number }>).map((i) => i.name);
  const items = (...ns: number[]) => ns.map((name) => ({ name }));

  it('takes the patch order for the items it names, the object order for the rest', () => {
    expect(
      order(strategicMergePatch({ items: items(1, 2, 3) }, { items: items(3, 1) }, list)),
    ).toEqual([2, 3, 1]);
    expect(order(strategicMergePatch({ items: items(1, 2) }, { items: items(4) }, list))).toEqual([
      4, 1, 2,
    ]);
  });

  it('orders by $setElementOrder; an item only the object has stays ahead of those it preceded', () => {
    const out = strategicMergePatch(
      { items: items(1, 2, 3, 4) },
      { '$setElementOrder/items': items(4, 2, 5), items: items(5) },
      list,
    );
    expect(order(out)).toEqual([1, 3, 4, 2, 5]);
    const moved = strategicMergePatch(
      { items: items(1, 2, 3) },
      { '$setElementOrder/items': items(3, 1, 2) },
      list,
    );
    expect(order(moved)).toEqual([3, 1, 2]);
  });

  it('orders by the slots deleted items free when adding and deleting at once, as Go does', () => {
    const out = strategicMergePatch(
      { items: [{ name: 1 }, { name: 2, v: 'b' }, { name: 4, v: 'c' }] },
      {
        '$setElementOrder/items': items(2, 3),
        items: [{ name: 3 }, { name: 1, $patch: 'delete' }],
      },
      list,
    );
    expect(order(out)).toEqual([2, 4, 3]);
  });
});

describe('strategicMergePatch: errors', () => {
  it('names the item that lacks its merge key (400)', () => {
    const err = caught(() =>
      apply({ spec: { template: { spec: { containers: [{ name: 'web' }, { image: 'x' }] } } } }),
    );
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('StrategicMergePatchError');
    expect(err.code).toBe(400);
    expect(err.path).toBe('spec.template.spec.containers[1]');
    expect(err.message).toBe('spec.template.spec.containers[1]: missing merge key "name"');
    const del = caught(() => apply({ metadata: { ownerReferences: [{ $patch: 'delete' }] } }));
    expect(del.message).toBe('metadata.ownerReferences[0]: missing merge key "uid"');
  });

  it('rejects unknown $patch values, and "merge", in maps and in lists (400)', () => {
    const inMap = caught(() => apply({ spec: { $patch: 'shuffle' } }));
    expect([inMap.code, inMap.path]).toEqual([400, 'spec']);
    expect(inMap.message).toContain('unknown patch type "shuffle"');
    expect(caught(() => apply({ spec: { strategy: { $patch: 'merge' } } })).code).toBe(400);
    const inList = caught(() =>
      apply({ spec: { template: { spec: { containers: [{ name: 'web', $patch: 'merge' }] } } } }),
    );
    expect([inList.code, inList.path]).toEqual([400, 'spec.template.spec.containers[0]']);
  });

  it('rejects a $retainKeys that is not a list or leaves out a field the patch sets (400)', () => {
    const notList = caught(() => apply({ spec: { strategy: { $retainKeys: 'type' } } }));
    expect([notList.code, notList.path]).toEqual([400, 'spec.strategy']);
    const missing = caught(() =>
      apply({ spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: {} } } }),
    );
    expect([missing.code, missing.path]).toEqual([400, 'spec.strategy']);
    expect(missing.message).toContain('"rollingUpdate"');
    // Nulls and the list directives need no place in $retainKeys.
    const ok = apply({
      spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } },
    });
    expect(ok.spec?.strategy).toEqual({ type: 'Recreate' });
  });

  it('rejects a patch whose items are out of the $setElementOrder order (400)', () => {
    const err = caught(() =>
      apply({
        spec: {
          template: {
            spec: {
              '$setElementOrder/containers': [{ name: 'web' }, { name: 'sidecar' }],
              containers: [{ name: 'sidecar' }, { name: 'web' }],
            },
          },
        },
      }),
    );
    expect([err.code, err.path]).toEqual([400, 'spec.template.spec.containers']);
    const notList = caught(() => apply({ metadata: { '$setElementOrder/finalizers': 'a' } }));
    expect([notList.code, notList.path]).toEqual([400, 'metadata.$setElementOrder/finalizers']);
  });

  it('rejects directive keys without a field name (400)', () => {
    const err = caught(() => apply({ metadata: { $deleteFromPrimitiveListfinalizers: ['a'] } }));
    expect([err.code, err.path]).toEqual([400, 'metadata.$deleteFromPrimitiveListfinalizers']);
    expect(caught(() => apply({ metadata: { $setElementOrder: [] } })).code).toBe(400);
  });

  it('refuses to merge into a list whose own items lack the merge key (400)', () => {
    const err = caught(() =>
      strategicMergePatch(
        { spec: { containers: [{ image: 'x' }] } },
        { spec: { containers: [{ name: 'a' }] } },
        podMeta,
      ),
    );
    expect([err.code, err.path]).toEqual([400, 'spec.containers[0]']);
    expect(err.message).toContain('missing merge key "name"');
  });

  it('answers 422 for a list of lists in a merging list', () => {
    const err = caught(() => apply({ metadata: { finalizers: [['a']] } }));
    expect([err.code, err.path]).toEqual([422, 'metadata.finalizers']);
    expect(err.message).toBe('metadata.finalizers: lists of lists are not supported');
  });

  it('rejects items of mixed types in a merging list, and non-object arguments (400)', () => {
    const mixed = caught(() => apply({ metadata: { finalizers: [1] } }));
    expect([mixed.code, mixed.path]).toEqual([400, 'metadata.finalizers']);
    const objects = caught(() => apply({ spec: { template: { spec: { containers: ['web'] } } } }));
    expect(objects.code).toBe(400);
    expect(caught(() => strategicMergePatch([], {}, {})).code).toBe(400);
    expect(caught(() => strategicMergePatch({}, [], {})).code).toBe(400);
  });
});

describe('patchMetaForKind', () => {
  it('knows the course kinds and nothing else', () => {
    for (const [v, k] of [
      ['v1', 'Pod'],
      ['v1', 'Namespace'],
      ['v1', 'ConfigMap'],
      ['v1', 'Secret'],
      ['v1', 'Event'],
      ['v1', 'Node'],
      ['apps/v1', 'Deployment'],
      ['apps/v1', 'ReplicaSet'],
      ['coordination.k8s.io/v1', 'Lease'],
      ['events.k8s.io/v1', 'Event'],
      ['autoscaling/v1', 'Scale'],
    ] as const) {
      expect(patchMetaForKind(v, k)?.fields?.metadata?.meta?.fields?.ownerReferences).toEqual({
        strategy: 'merge',
        mergeKey: 'uid',
      });
    }
    expect(patchMetaForKind('example.com/v1', 'Widget')).toBeUndefined();
    expect(patchMetaForKind('apps/v1', 'Pod')).toBeUndefined();
    expect(patchMetaForKind('v1', 'toString')).toBeUndefined();
  });

  it('describes PodSpec once, for Pods and for the templates of Deployments and ReplicaSets', () => {
    const podSpec = podMeta.fields?.spec?.meta;
    const template = (m: PatchMeta) => m.fields?.spec?.meta?.fields?.template?.meta?.fields?.spec;
    expect(template(deploymentMeta)?.meta).toBe(podSpec);
    expect(template(metaOf('apps/v1', 'ReplicaSet'))?.meta).toBe(podSpec);
    const fields = podSpec?.fields ?? {};
    expect(fields.volumes).toEqual({ strategy: 'merge,retainKeys', mergeKey: 'name' });
    expect(fields.hostAliases?.mergeKey).toBe('ip');
    expect(fields.topologySpreadConstraints?.mergeKey).toBe('topologyKey');
    expect(fields).not.toHaveProperty('tolerations');
    const container = fields.containers?.meta?.fields ?? {};
    expect(Object.keys(container).sort()).toEqual([
      'env',
      'ports',
      'volumeDevices',
      'volumeMounts',
    ]);
    expect(fields.ephemeralContainers?.meta).toBe(fields.containers?.meta);
  });
});

describe('patchMetaForKind: the workload and storage kinds', () => {
  const pod = (containers: object[]) => ({ template: { spec: { containers } } });
  const stored = [
    { name: 'main', image: 'busybox:1.36' },
    { name: 'side', image: 'envoy' },
  ];
  const patched = [{ name: 'main', image: 'busybox:1.37' }];

  it.each([
    ['apps/v1', 'DaemonSet', (c: object[]) => ({ spec: pod(c) })],
    ['apps/v1', 'StatefulSet', (c: object[]) => ({ spec: pod(c) })],
    ['batch/v1', 'Job', (c: object[]) => ({ spec: pod(c) })],
    ['batch/v1', 'CronJob', (c: object[]) => ({ spec: { jobTemplate: { spec: pod(c) } } })],
  ])('merges the containers of a %s %s by name', (apiVersion, kind, wrap) => {
    const meta = patchMetaForKind(apiVersion, kind);
    expect(meta).toBeDefined();
    const out = strategicMergePatch(wrap(stored), wrap(patched), meta!);
    expect(JSON.stringify(out)).toBe(
      JSON.stringify(
        wrap([
          { name: 'main', image: 'busybox:1.37' },
          { name: 'side', image: 'envoy' },
        ]),
      ),
    );
  });

  it('merges a Service’s ports by port and status conditions by type', () => {
    const meta = patchMetaForKind('v1', 'Service')!;
    const out = strategicMergePatch(
      {
        spec: {
          ports: [
            { port: 80, name: 'http' },
            { port: 443, name: 'https' },
          ],
        },
      },
      { spec: { ports: [{ port: 443, targetPort: 8443 }] } },
      meta,
    );
    expect(out).toEqual({
      spec: {
        ports: [
          { port: 80, name: 'http' },
          { port: 443, name: 'https', targetPort: 8443 },
        ],
      },
    });
  });

  it('knows PersistentVolumeClaims, PersistentVolumes, ControllerRevisions and StorageClasses', () => {
    for (const [apiVersion, kind] of [
      ['v1', 'PersistentVolumeClaim'],
      ['v1', 'PersistentVolume'],
      ['apps/v1', 'ControllerRevision'],
      ['storage.k8s.io/v1', 'StorageClass'],
    ] as const) {
      expect(patchMetaForKind(apiVersion, kind), `${apiVersion} ${kind}`).toBeDefined();
    }
    expect(patchMetaForKind('example.com/v1', 'Widget')).toBeUndefined();
  });
});
