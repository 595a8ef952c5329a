import {
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isStatusError,
} from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { configMap, deployment, newRegistry } from './helpers.js';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function caught(fn: () => unknown): Any {
  try {
    fn();
  } catch (err) {
    if (!isStatusError(err)) throw err;
    return err.toStatus();
  }
  throw new Error('expected a StatusError');
}

describe('create', () => {
  it('fills uid, creationTimestamp at second precision, resourceVersion, generation and defaults', () => {
    const { registry } = newRegistry();
    const deploys = registry.resource('apps', 'deployments');
    const before = registry.storage.currentRevision();
    const d = registry.create(deploys, 'default', deployment('web')) as Any;
    expect(d.apiVersion).toBe('apps/v1');
    expect(d.kind).toBe('Deployment');
    expect(d.metadata.namespace).toBe('default');
    expect(d.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(d.metadata.creationTimestamp).toBe('2026-01-02T03:04:05Z');
    expect(d.metadata.resourceVersion).toBe(String(before + 1));
    expect(d.metadata.generation).toBe(1);
    expect(d.spec.replicas).toBe(1);
    expect(d.spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
    });
    expect(d.spec.revisionHistoryLimit).toBe(10);
    expect(d.spec.progressDeadlineSeconds).toBe(600);
    expect(d.spec.template.metadata.creationTimestamp).toBeNull();
    expect(d.spec.template.spec.containers[0]).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
    });
    expect(d.status).toEqual({});
  });

  it('seeds the four namespaces with their label, finalizer and phase', () => {
    const { registry } = newRegistry();
    const list = registry.list(registry.resource('', 'namespaces'), '');
    expect(list.items.map((n) => n.metadata?.name)).toEqual([
      'default',
      'kube-node-lease',
      'kube-public',
      'kube-system',
    ]);
    expect(list.items[0]).toMatchObject({
      metadata: { labels: { 'kubernetes.io/metadata.name': 'default' } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  });

  it('gives a pod container the requests of its limits where it has none, as SetDefaults_Pod does', () => {
    const { registry } = newRegistry();
    const pods = registry.resource('', 'pods');
    const pod = registry.create(pods, 'default', {
      metadata: { name: 'limited' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'nginx:1.27',
            resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m' } },
          },
        ],
      },
    });
    expect(
      (pod as { spec: { containers: { resources: unknown }[] } }).spec.containers[0]!.resources,
    ).toEqual({
      limits: { cpu: '500m', memory: '128Mi' },
      requests: { cpu: '100m', memory: '128Mi' },
    });
  });

  it('gives a new pod five minutes on a node that is not ready or unreachable, unless it says otherwise (DefaultTolerationSeconds)', () => {
    const { registry } = newRegistry();
    const pods = registry.resource('', 'pods');
    const container = [{ name: 'c', image: 'nginx:1.27' }];
    const tolerationsOf = (o: unknown) =>
      (o as { spec: { tolerations?: unknown[] } }).spec.tolerations;
    const plain = registry.create(pods, 'default', {
      metadata: { name: 'plain' },
      spec: { containers: container },
    });
    expect(tolerationsOf(plain)).toEqual([
      {
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
      {
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
    ]);
    const own = {
      key: 'node.kubernetes.io/unreachable',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 5,
    };
    const mine = registry.create(pods, 'default', {
      metadata: { name: 'mine' },
      spec: { containers: container, tolerations: [own] },
    });
    expect(tolerationsOf(mine)).toEqual([
      own,
      {
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
    ]);
    // An empty key with operator Exists tolerates every taint: nothing to add.
    const everything = registry.create(pods, 'default', {
      metadata: { name: 'everything' },
      spec: { containers: container, tolerations: [{ operator: 'Exists' }] },
    });
    expect(tolerationsOf(everything)).toEqual([{ operator: 'Exists' }]);
  });

  it('generates names from generateName with five characters from the no-vowel alphabet', () => {
    const { registry } = newRegistry();
    const cm = registry.create(registry.resource('', 'configmaps'), 'default', {
      metadata: { generateName: 'web-' },
    });
    expect(cm.metadata?.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('answers a taken name with 409 AlreadyExists naming the resource', () => {
    const { registry } = newRegistry();
    const deploys = registry.resource('apps', 'deployments');
    registry.create(deploys, 'default', deployment('web'));
    const status = caught(() => registry.create(deploys, 'default', deployment('web')));
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'deployments.apps "web" already exists',
      reason: 'AlreadyExists',
      details: { name: 'web', group: 'apps', kind: 'deployments' },
      code: 409,
    });
  });

  it('refuses a missing namespace (404), a terminating one (403) and a mismatched one (400)', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    expect(caught(() => registry.create(cms, 'nope', configMap('a')))).toMatchObject({
      code: 404,
      message: 'namespaces "nope" not found',
    });
    expect(
      caught(() =>
        registry.create(cms, 'default', { metadata: { name: 'a', namespace: 'other' } }),
      ),
    ).toMatchObject({
      code: 400,
      message:
        'the namespace of the provided object does not match the namespace sent on the request',
    });
    const nss = registry.resource('', 'namespaces');
    registry.create(nss, '', { metadata: { name: 'doomed' } });
    registry.create(cms, 'doomed', {
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    registry.delete(nss, '', 'doomed');
    expect(caught(() => registry.create(cms, 'doomed', configMap('b')))).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: expect.stringContaining(
        'unable to create new content in namespace doomed because it is being terminated',
      ),
    });
  });

  it('validates names and the selector against the template labels, as kube-apiserver words it', () => {
    const { registry } = newRegistry();
    const deploys = registry.resource('apps', 'deployments');
    const bad = deployment('web');
    (bad as Any).spec.template.metadata.labels = { app: 'other' };
    const status = caught(() => registry.create(deploys, 'default', bad));
    expect(status.code).toBe(422);
    expect(status.reason).toBe('Invalid');
    expect(status.message).toBe(
      'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
    );
    expect(status.details).toMatchObject({
      name: 'web',
      group: 'apps',
      kind: 'Deployment',
      causes: [{ reason: 'FieldValueInvalid', field: 'spec.template.metadata.labels' }],
    });
    const badName = caught(() =>
      registry.create(registry.resource('', 'configmaps'), 'default', configMap('Web')),
    );
    expect(badName.message).toMatch(
      /^ConfigMap "Web" is invalid: metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain/,
    );
    const noName = caught(() =>
      registry.create(registry.resource('', 'configmaps'), 'default', { metadata: {} }),
    );
    expect(noName.message).toBe(
      'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
    );
  });

  it('rejects bodies of the wrong kind or shape with 400 and stores nothing', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    const rv = registry.storage.currentRevision();
    for (const body of [
      null,
      [],
      'x',
      { kind: 'Secret', metadata: { name: 'a' } },
      { apiVersion: 'apps/v1', metadata: { name: 'a' } },
      { metadata: 'a' },
    ]) {
      expect(caught(() => registry.create(cms, 'default', body)).code).toBe(400);
    }
    expect(registry.storage.currentRevision()).toBe(rv);
  });

  it("merges a Secret's stringData into data as base64, never storing it, and refuses non-strings", () => {
    const { registry } = newRegistry();
    const secrets = registry.resource('', 'secrets');
    const created = registry.create(secrets, 'default', {
      metadata: { name: 'db' },
      data: { user: Buffer.from('old').toString('base64'), host: 'aG9zdA==' },
      stringData: { user: 'admin', password: 'pässword' },
    }) as Any;
    expect(created.type).toBe('Opaque');
    expect(created.stringData).toBeUndefined();
    expect(created.data).toEqual({
      user: Buffer.from('admin').toString('base64'),
      host: 'aG9zdA==',
      password: Buffer.from('pässword', 'utf8').toString('base64'),
    });
    const status = caught(() =>
      registry.create(secrets, 'default', { metadata: { name: 'bad' }, stringData: { n: 1 } }),
    );
    // Go's decoder refuses it before validation runs.
    expect(status.code).toBe(400);
    expect(status.message).toBe(
      'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field Secret.stringData of type string',
    );
  });

  it('insists on six fractional digits in MicroTime fields', () => {
    const { registry } = newRegistry();
    const leases = registry.resource('coordination.k8s.io', 'leases');
    const status = caught(() =>
      registry.create(leases, 'default', {
        metadata: { name: 'l' },
        spec: { renewTime: '2026-01-02T03:04:05.678Z' },
      }),
    );
    expect(status.code).toBe(400);
    expect(status.message).toContain('parsing time "2026-01-02T03:04:05.678Z"');
    const ok = registry.create(leases, 'default', {
      metadata: { name: 'l' },
      spec: { renewTime: '2026-01-02T03:04:05.678000Z' },
    }) as Any;
    expect(ok.spec.renewTime).toBe('2026-01-02T03:04:05.678000Z');
  });
});

describe('update', () => {
  it('answers a stale resourceVersion with 409 Conflict in kube-apiserver words', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    const v1 = registry.create(cms, 'default', configMap('a', { k: '1' }));
    registry.update(cms, 'default', 'a', { ...v1, data: { k: '2' } });
    const status = caught(() => registry.update(cms, 'default', 'a', { ...v1, data: { k: '3' } }));
    expect(status).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'a', kind: 'configmaps' },
    });
  });

  it('allows unconditional updates except for Leases, which may be created by PUT', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    registry.create(cms, 'default', configMap('a'));
    const out = registry.update(cms, 'default', 'a', configMap('a', { k: 'v' }));
    expect((out.object as Any).data).toEqual({ k: 'v' });
    expect(
      isNotFound(statusOf(() => registry.update(cms, 'default', 'missing', configMap('missing')))),
    ).toBe(true);

    const leases = registry.resource('coordination.k8s.io', 'leases');
    const created = registry.update(leases, 'default', 'lock', {
      metadata: { name: 'lock' },
      spec: { holderIdentity: 'a' },
    });
    expect(created.created).toBe(true);
    const status = caught(() =>
      registry.update(leases, 'default', 'lock', {
        metadata: { name: 'lock' },
        spec: { holderIdentity: 'b' },
      }),
    );
    expect(status.code).toBe(422);
    expect(status.message).toBe(
      'Lease.coordination.k8s.io "lock" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
    );
  });

  it('bumps a Deployment generation on spec and annotation changes, a ReplicaSet only on spec', () => {
    const { registry } = newRegistry();
    const deploys = registry.resource('apps', 'deployments');
    const d = registry.create(deploys, 'default', deployment('web')) as Any;
    const annotated = registry.update(deploys, 'default', 'web', {
      ...d,
      metadata: { ...d.metadata, annotations: { a: '1' } },
    }).object as Any;
    expect(annotated.metadata.generation).toBe(2);
    const labelled = registry.update(deploys, 'default', 'web', {
      ...annotated,
      metadata: { ...annotated.metadata, labels: { l: '1' } },
    }).object as Any;
    expect(labelled.metadata.generation).toBe(2);
    const scaled = registry.update(deploys, 'default', 'web', {
      ...labelled,
      spec: { ...labelled.spec, replicas: 3 },
    }).object as Any;
    expect(scaled.metadata.generation).toBe(3);

    const rss = registry.resource('apps', 'replicasets');
    const rs = registry.create(rss, 'default', {
      ...deployment('rs'),
      kind: 'ReplicaSet',
      spec: { ...(deployment('rs') as Any).spec },
    }) as Any;
    const rsAnnotated = registry.update(rss, 'default', 'rs', {
      ...rs,
      metadata: { ...rs.metadata, annotations: { a: '1' } },
    }).object as Any;
    expect(rsAnnotated.metadata.generation).toBe(1);
  });

  it('keeps status on main writes and spec (and Deployment labels) on status writes, never bumping generation there', () => {
    const { registry } = newRegistry();
    const deploys = registry.resource('apps', 'deployments');
    const d = registry.create(deploys, 'default', deployment('web')) as Any;
    const viaMain = registry.update(deploys, 'default', 'web', { ...d, status: { replicas: 9 } })
      .object as Any;
    expect(viaMain.status).toEqual({});
    const viaStatus = registry.update(
      deploys,
      'default',
      'web',
      {
        ...viaMain,
        metadata: {
          ...viaMain.metadata,
          labels: { x: 'y' },
          annotations: { 'deployment.kubernetes.io/revision': '1' },
        },
        spec: { ...viaMain.spec, replicas: 5 },
        status: { observedGeneration: 1, replicas: 1 },
      },
      { subresource: 'status' },
    ).object as Any;
    expect(viaStatus.status).toEqual({ observedGeneration: 1, replicas: 1 });
    expect(viaStatus.spec.replicas).toBe(1);
    expect(viaStatus.metadata.labels).toBeUndefined();
    expect(viaStatus.metadata.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1' });
    expect(viaStatus.metadata.generation).toBe(1);
  });

  it('keeps the resourceVersion and sends no event for a write that changes nothing', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    const a = registry.create(cms, 'default', configMap('a', { k: 'v' }));
    const rv = registry.storage.currentRevision();
    const same = registry.update(cms, 'default', 'a', a).object;
    expect(same.metadata?.resourceVersion).toBe(a.metadata?.resourceVersion);
    expect(registry.storage.currentRevision()).toBe(rv);
  });

  it('stores no empty finalizers, owner references, labels or annotations, as Go omits them', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    registry.create(cms, 'default', {
      metadata: { name: 'held', finalizers: ['example.com/hold'], labels: { a: 'b' } },
    });
    const out = registry.patch(cms, 'default', 'held', {
      type: 'merge',
      body: {
        metadata: { finalizers: [], labels: { a: null }, annotations: {}, ownerReferences: [] },
      },
    }).object;
    expect(out.metadata).not.toHaveProperty('finalizers');
    expect(out.metadata).not.toHaveProperty('labels');
    expect(out.metadata).not.toHaveProperty('annotations');
    expect(out.metadata).not.toHaveProperty('ownerReferences');
    expect(registry.get(cms, 'default', 'held').metadata).not.toHaveProperty('finalizers');
  });

  it('keeps immutable metadata and the selector', () => {
    const { registry } = newRegistry();
    const deploys = registry.resource('apps', 'deployments');
    const d = registry.create(deploys, 'default', deployment('web')) as Any;
    const out = registry.update(deploys, 'default', 'web', {
      ...d,
      metadata: { ...d.metadata, creationTimestamp: '2000-01-01T00:00:00Z', generation: 42 },
    }).object as Any;
    expect(out.metadata.creationTimestamp).toBe(d.metadata.creationTimestamp);
    expect(out.metadata.generation).toBe(1);
    expect(
      caught(() =>
        registry.update(deploys, 'default', 'web', {
          ...d,
          metadata: { ...d.metadata, uid: 'other' },
        }),
      ).message,
    ).toContain('metadata.uid: Invalid value: "other": field is immutable');
    const moved = deployment('web', { app: 'moved' }) as Any;
    const status = caught(() => registry.update(deploys, 'default', 'web', moved));
    expect(status.code).toBe(422);
    expect(status.message).toContain('spec.selector: Invalid value:');
    expect(status.message).toContain('field is immutable');
  });
});

function statusOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('list', () => {
  function seed() {
    const { registry, clock } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    registry.create(registry.resource('', 'namespaces'), '', { metadata: { name: 'other' } });
    for (const [ns, name, tier] of [
      ['default', 'b', 'web'],
      ['default', 'a', 'db'],
      ['other', 'c', 'web'],
      ['default', 'd', 'web'],
    ] as const) {
      registry.create(cms, ns, configMap(name, {}, { tier }));
    }
    return { registry, clock, cms };
  }

  it('orders by namespace then name and reports the current revision', () => {
    const { registry, cms } = seed();
    const list = registry.list(cms, '');
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`)).toEqual([
      'default/a',
      'default/b',
      'default/d',
      'other/c',
    ]);
    expect(list.metadata.resourceVersion).toBe(String(registry.storage.currentRevision()));
  });

  it('filters by label and field selectors and rejects malformed or unsupported ones with 400', () => {
    const { registry, cms } = seed();
    const names = (opts: object) => registry.list(cms, '', opts).items.map((o) => o.metadata?.name);
    expect(names({ labelSelector: 'tier=web' })).toEqual(['b', 'd', 'c']);
    expect(
      names({ labelSelector: 'tier in (db)', fieldSelector: 'metadata.namespace=default' }),
    ).toEqual(['a']);
    expect(names({ fieldSelector: 'metadata.name!=a' })).toEqual(['b', 'd', 'c']);
    expect(caught(() => registry.list(cms, '', { labelSelector: 'tier in (' })).code).toBe(400);
    expect(
      caught(() => registry.list(cms, '', { fieldSelector: 'spec.nodeName=x' })),
    ).toMatchObject({ code: 400, message: 'field label not supported: spec.nodeName' });
    const pods = registry.resource('', 'pods');
    expect(registry.list(pods, '', { fieldSelector: 'spec.nodeName=x' }).items).toEqual([]);
  });

  it('serves a list at resourceVersion "0" whole, ignoring limit, as the watch cache does', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    for (const name of ['a', 'b', 'c']) registry.create(cms, 'default', configMap(name));
    const cached = registry.list(cms, 'default', { resourceVersion: '0', limit: 1 });
    expect(cached.items.map((o) => o.metadata?.name)).toEqual(['a', 'b', 'c']);
    expect(cached.metadata.continue).toBeUndefined();
    // Without resourceVersion "0" the same limit pages.
    const paged = registry.list(cms, 'default', { limit: 1 });
    expect(paged.items).toHaveLength(1);
    expect(paged.metadata.continue).toBeDefined();
  });

  it('pages with limit and continue, consistently at the first page revision', () => {
    const { registry, cms } = seed();
    const first = registry.list(cms, '', { limit: 2 });
    expect(first.items.map((o) => o.metadata?.name)).toEqual(['a', 'b']);
    expect(first.metadata.remainingItemCount).toBe(2);
    const token = first.metadata.continue ?? '';
    expect(token).not.toBe('');
    // Changes after the first page are not seen by the rest of the list.
    registry.delete(cms, 'default', 'd');
    registry.create(cms, 'default', configMap('c2'));
    const second = registry.list(cms, '', { limit: 2, continue: token });
    expect(second.items.map((o) => o.metadata?.name)).toEqual(['d', 'c']);
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect(second.metadata.continue).toBeUndefined();
  });

  it('answers 410 Expired for a continue token or Exact version older than the history', () => {
    const { registry, cms } = seed();
    const first = registry.list(cms, '', { limit: 1 });
    const rv = first.metadata.resourceVersion ?? '';
    registry.create(cms, 'default', configMap('z'));
    expect(
      registry.list(cms, '', { resourceVersion: rv, resourceVersionMatch: 'Exact' }).items,
    ).toHaveLength(4);
    registry.storage.compact();
    expect(
      isResourceExpired(
        statusOf(() =>
          registry.list(cms, '', { limit: 1, continue: first.metadata.continue ?? '' }),
        ),
      ),
    ).toBe(true);
    expect(
      isResourceExpired(
        statusOf(() =>
          registry.list(cms, '', { resourceVersion: rv, resourceVersionMatch: 'Exact' }),
        ),
      ),
    ).toBe(true);
  });

  it('answers 410 for a continue token naming a revision not reached yet, 400 for an rv that is no int64', () => {
    const { registry, cms } = seed();
    const forged = (rv: unknown) =>
      btoa(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: 'default/a' }));
    const current = registry.storage.currentRevision();
    // Etcd's own answer would be a 500 (required revision is a future revision).
    const future = caught(() =>
      registry.list(cms, '', { limit: 1, continue: forged(current + 1) }),
    );
    expect(future).toMatchObject({ code: 410, reason: 'Expired' });
    expect(future.message).toBe(
      `The provided continue parameter names resourceVersion ${current + 1}, which this server has not reached (its current resourceVersion is ${current}), so it cannot continue that list. You can start a new list without the continue parameter.`,
    );
    for (const [rv, literal] of [
      [1e300, '1e+300'],
      [1.5, '1.5'],
      [2 ** 64, '18446744073709552000'],
    ] as const) {
      expect(
        caught(() => registry.list(cms, '', { limit: 1, continue: forged(rv) })),
      ).toMatchObject({
        code: 400,
        message: `continue key is not valid: json: cannot unmarshal number ${literal} into Go struct field continueToken.rv of type int64`,
      });
    }
    // The literal as the token spells it, as Go quotes it.
    const spelled = btoa('{"v":"meta.k8s.io/v1","rv":1E300,"start":"default/a"}');
    expect(caught(() => registry.list(cms, '', { limit: 1, continue: spelled })).message).toContain(
      'cannot unmarshal number 1E300 into',
    );
    // A token of the current revision still reads.
    expect(
      registry
        .list(cms, '', { limit: 1, continue: forged(current) })
        .items.map((o) => o.metadata?.name),
    ).toEqual(['a']);
  });

  it('answers 504 for a resourceVersion the server has not reached, and 400 for bad parameters', () => {
    const { registry, cms } = seed();
    const status = caught(() => registry.list(cms, '', { resourceVersion: '999999' }));
    expect(status).toMatchObject({
      code: 504,
      reason: 'Timeout',
      details: { causes: [{ reason: 'ResourceVersionTooLarge' }], retryAfterSeconds: 1 },
    });
    expect(caught(() => registry.list(cms, '', { resourceVersionMatch: 'Exact' })).code).toBe(400);
    expect(caught(() => registry.list(cms, '', { continue: 'not-a-token' })).code).toBe(400);
    expect(caught(() => registry.list(cms, '', { resourceVersion: 'abc' })).code).toBe(400);
  });
});

describe('delete', () => {
  it('deletes at once and answers with a success Status, or with the object for pods', () => {
    const { registry } = newRegistry();
    const deploys = registry.resource('apps', 'deployments');
    const d = registry.create(deploys, 'default', deployment('web'));
    expect(registry.delete(deploys, 'default', 'web')).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'web', group: 'apps', kind: 'deployments', uid: d.metadata?.uid },
    });
    expect(isNotFound(statusOf(() => registry.get(deploys, 'default', 'web')))).toBe(true);
    const pods = registry.resource('', 'pods');
    registry.create(pods, 'default', {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    });
    expect(registry.delete(pods, 'default', 'p')).toMatchObject({
      kind: 'Pod',
      metadata: { name: 'p' },
    });
  });

  it('holds objects with finalizers until the last one is removed, bumping generation once', () => {
    const { registry, clock } = newRegistry();
    const deploys = registry.resource('apps', 'deployments');
    registry.create(deploys, 'default', {
      ...deployment('web'),
      metadata: { name: 'web', finalizers: ['example.com/hold'] },
    });
    clock.step(2000);
    const held = registry.delete(deploys, 'default', 'web') as Any;
    expect(held.metadata.deletionTimestamp).toBe('2026-01-02T03:04:07Z');
    expect(held.metadata.deletionGracePeriodSeconds).toBe(0);
    expect(held.metadata.generation).toBe(2);
    expect(registry.delete(deploys, 'default', 'web')).toMatchObject({
      metadata: { resourceVersion: held.metadata.resourceVersion },
    });
    const addMore = caught(() =>
      registry.update(deploys, 'default', 'web', {
        ...held,
        metadata: { ...held.metadata, finalizers: ['example.com/hold', 'new'] },
      }),
    );
    expect(addMore.code).toBe(422);
    const released = registry.update(deploys, 'default', 'web', {
      ...held,
      metadata: { ...held.metadata, finalizers: [] },
    });
    expect(released.object.metadata?.name).toBe('web');
    expect(isNotFound(statusOf(() => registry.get(deploys, 'default', 'web')))).toBe(true);
  });

  it('sets the garbage collector finalizers for Foreground and Orphan, and removes them for Background', () => {
    const { registry } = newRegistry();
    const rss = registry.resource('apps', 'replicasets');
    const make = (name: string) =>
      registry.create(rss, 'default', { ...deployment(name), kind: 'ReplicaSet' });
    make('fg');
    make('or');
    expect(
      (registry.delete(rss, 'default', 'fg', { propagationPolicy: 'Foreground' }) as Any).metadata
        .finalizers,
    ).toEqual(['foregroundDeletion']);
    expect(
      (registry.delete(rss, 'default', 'or', { propagationPolicy: 'Orphan' }) as Any).metadata
        .finalizers,
    ).toEqual(['orphan']);
    expect(
      (registry.delete(rss, 'default', 'or', { propagationPolicy: 'Background' }) as Any).kind,
    ).toBe('Status');
    expect(
      caught(() =>
        registry.delete(rss, 'default', 'fg', { propagationPolicy: 'Sideways' as never }),
      ).code,
    ).toBe(422);
  });

  it('deletes a scheduled pod gracefully, and at once with grace 0', () => {
    const { registry, clock } = newRegistry();
    const pods = registry.resource('', 'pods');
    registry.create(pods, 'default', {
      metadata: { name: 'p' },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }] },
    });
    const terminating = registry.delete(pods, 'default', 'p') as Any;
    expect(terminating.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(terminating.metadata.deletionTimestamp).toBe('2026-01-02T03:04:35Z');
    clock.step(1000);
    registry.delete(pods, 'default', 'p', { gracePeriodSeconds: 0 });
    expect(isNotFound(statusOf(() => registry.get(pods, 'default', 'p')))).toBe(true);
  });

  it('checks preconditions', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    registry.create(cms, 'default', configMap('a'));
    expect(
      isConflict(
        statusOf(() => registry.delete(cms, 'default', 'a', { preconditions: { uid: 'x' } })),
      ),
    ).toBe(true);
    expect(
      isConflict(
        statusOf(() =>
          registry.delete(cms, 'default', 'a', { preconditions: { resourceVersion: '1' } }),
        ),
      ),
    ).toBe(true);
  });

  it('empties a deleted namespace and removes it once its last object is gone', async () => {
    const { registry } = newRegistry();
    const nss = registry.resource('', 'namespaces');
    const cms = registry.resource('', 'configmaps');
    registry.create(nss, '', { metadata: { name: 'team' } });
    registry.create(cms, 'team', configMap('free'));
    const held = registry.create(cms, 'team', {
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    const ns = registry.delete(nss, '', 'team') as Any;
    expect(ns.status.phase).toBe('Terminating');
    expect(registry.list(cms, 'team').items.map((o) => o.metadata?.name)).toEqual(['held']);
    const current = registry.get(cms, 'team', 'held');
    registry.update(cms, 'team', 'held', {
      ...current,
      metadata: { ...current.metadata, finalizers: [] },
    });
    await Promise.resolve();
    expect(isNotFound(statusOf(() => registry.get(nss, '', 'team')))).toBe(true);
    expect(held.metadata?.name).toBe('held');
  });
});

describe('scale and views', () => {
  it('reads and writes the Scale of a Deployment, bumping generation', () => {
    const { registry } = newRegistry();
    const deploys = registry.resource('apps', 'deployments');
    registry.create(deploys, 'default', deployment('web'));
    const scale = registry.getScale(deploys, 'default', 'web') as Any;
    expect(scale).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 1 },
      status: { replicas: 0, selector: 'app=web' },
    });
    const out = registry.patchScale(deploys, 'default', 'web', {
      type: 'merge',
      body: { spec: { replicas: 5 } },
    }) as Any;
    expect(out.spec.replicas).toBe(5);
    expect((registry.get(deploys, 'default', 'web') as Any).metadata.generation).toBe(2);
    expect(
      isInvalid(
        statusOf(() => registry.updateScale(deploys, 'default', 'web', { spec: { replicas: -1 } })),
      ),
    ).toBe(true);
    expect(
      isConflict(
        statusOf(() =>
          registry.updateScale(deploys, 'default', 'web', {
            metadata: { resourceVersion: '1' },
            spec: { replicas: 2 },
          }),
        ),
      ),
    ).toBe(true);
  });

  it('shows core events through events.k8s.io/v1 with the renamed fields, and back', () => {
    const { registry } = newRegistry();
    const modern = registry.resource('events.k8s.io', 'events');
    const core = registry.resource('', 'events');
    registry.create(modern, 'default', {
      metadata: { name: 'e1' },
      regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
      note: 'pulled',
      reason: 'Pulled',
      type: 'Normal',
      reportingController: 'kubelet',
      reportingInstance: 'n1',
      action: 'Pull',
      eventTime: '2026-01-02T03:04:05.000000Z',
    });
    const seen = registry.get(core, 'default', 'e1') as Any;
    expect(seen).toMatchObject({
      apiVersion: 'v1',
      involvedObject: { kind: 'Pod', name: 'p' },
      message: 'pulled',
      reportingComponent: 'kubelet',
    });
    expect(
      registry.list(core, 'default', { fieldSelector: 'involvedObject.name=p' }).items,
    ).toHaveLength(1);
    const back = registry.get(modern, 'default', 'e1') as Any;
    expect(back).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      regarding: { name: 'p' },
      note: 'pulled',
    });
    expect(back.message).toBeUndefined();
    expect(
      isAlreadyExists(
        statusOf(() => registry.create(core, 'default', { metadata: { name: 'e1' } })),
      ),
    ).toBe(true);
  });
});

describe('patch', () => {
  it('applies JSON patches and answers a failing one with 422, a malformed one with 400', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    registry.create(cms, 'default', configMap('a', { k: 'v' }));
    const out = registry.patch(cms, 'default', 'a', {
      type: 'json',
      ops: [{ op: 'replace', path: '/data/k', value: 'w' }],
    });
    expect((out.object as Any).data).toEqual({ k: 'w' });
    expect(
      caught(() =>
        registry.patch(cms, 'default', 'a', {
          type: 'json',
          ops: [{ op: 'test', path: '/data/k', value: 'nope' }],
        }),
      ).code,
    ).toBe(422);
    expect(
      caught(() =>
        registry.patch(cms, 'default', 'a', {
          type: 'json',
          ops: [{ op: 'replace', path: '/metadata/annotations', value: {} }],
        }),
      ).code,
    ).toBe(422);
    expect(
      caught(() =>
        registry.patch(cms, 'default', 'a', { type: 'json', ops: { op: 'add' } as never }),
      ).code,
    ).toBe(400);
    expect(
      caught(() =>
        registry.patch(cms, 'default', 'a', {
          type: 'json',
          ops: [{ op: 'frobnicate', path: '/x' } as never],
        }),
      ).code,
    ).toBe(400);
  });

  it('applies merge patches, null deleting, and resolves resourceVersion preconditions in them', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    registry.create(cms, 'default', configMap('a', { k: 'v', gone: 'x' }));
    const out = registry.patch(cms, 'default', 'a', {
      type: 'merge',
      body: { data: { k: 'w', gone: null } },
    });
    expect((out.object as Any).data).toEqual({ k: 'w' });
    expect(
      isConflict(
        statusOf(() =>
          registry.patch(cms, 'default', 'a', {
            type: 'merge',
            body: { metadata: { resourceVersion: '1' }, data: { k: 'z' } },
          }),
        ),
      ),
    ).toBe(true);
    expect(
      isNotFound(
        statusOf(() => registry.patch(cms, 'default', 'missing', { type: 'merge', body: {} })),
      ),
    ).toBe(true);
  });

  it('creates a missing object with server-side apply and requires a field manager', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    const out = registry.patch(cms, 'default', 'a', {
      type: 'apply',
      fieldManager: 'me',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } },
    });
    expect(out.created).toBe(true);
    expect(
      caught(() =>
        registry.patch(cms, 'default', 'a', { type: 'apply', fieldManager: '', body: {} }),
      ).code,
    ).toBe(400);
  });
});

describe('pods/binding', () => {
  const pod = (name: string) => ({
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'x' }] },
  });
  const binding = (name: string, node: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name, ...extra },
    target: { kind: 'Node', name: node },
  });

  it('sets nodeName, copies annotations and marks PodScheduled, once', () => {
    const { registry } = newRegistry();
    const pods = registry.resource('', 'pods');
    registry.create(pods, 'default', pod('p'));
    const rv = registry.storage.currentRevision();
    const out = registry.bindPod(
      'default',
      'p',
      binding('p', 'node-1', { annotations: { why: 'fits' } }),
    );
    expect(out).toMatchObject({ kind: 'Status', status: 'Success' });
    const bound = registry.get(pods, 'default', 'p') as Any;
    expect(bound.spec.nodeName).toBe('node-1');
    expect(bound.metadata.annotations).toEqual({ why: 'fits' });
    expect(bound.metadata.resourceVersion).toBe(String(rv + 1));
    expect(bound.status.conditions).toEqual([
      {
        type: 'PodScheduled',
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: '2026-01-02T03:04:05Z',
      },
    ]);
    const again = caught(() => registry.bindPod('default', 'p', binding('p', 'node-2')));
    expect(again).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-1"',
    });
  });

  it('refuses a mismatched name, a target that is not a Node, a missing pod and a terminating one', () => {
    const { registry } = newRegistry();
    const pods = registry.resource('', 'pods');
    registry.create(pods, 'default', {
      ...pod('p'),
      metadata: { name: 'p', finalizers: ['example.com/hold'] },
    });
    expect(caught(() => registry.bindPod('default', 'p', binding('q', 'n')))).toMatchObject({
      code: 400,
      message: 'name in URL does not match name in Binding object',
    });
    const invalid = caught(() =>
      registry.bindPod('default', 'p', { ...binding('p', ''), target: { kind: 'Pod', name: '' } }),
    );
    expect(invalid).toMatchObject({
      code: 422,
      reason: 'Invalid',
      details: { kind: 'Binding', name: 'p' },
    });
    expect(invalid.details.causes.map((c: Any) => c.field)).toEqual(['target.kind', 'target.name']);
    expect(caught(() => registry.bindPod('default', 'nope', binding('nope', 'n')))).toMatchObject({
      code: 404,
    });
    registry.delete(pods, 'default', 'p', { gracePeriodSeconds: 0 });
    expect(caught(() => registry.bindPod('default', 'p', binding('p', 'n'))).message).toBe(
      'Operation cannot be fulfilled on pods/binding "p": pod p is being deleted, cannot be assigned to a host',
    );
  });
});
