// apps/v1 DaemonSets, StatefulSets and ControllerRevisions as kube-apiserver
// stores them: the v1 defaults (claim templates included), the template
// generation annotation of DaemonSets, kube's field errors, the StatefulSet
// spec fields that may change, status validation, ControllerRevisions' data
// that may not change, strategic merge patches, and the Tables kubectl prints.
import { isInvalid } from '@kcm-ts/apimachinery';
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { ControllerRevision, DaemonSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import { describe, expect, it } from 'vitest';
import { inProcessClient } from '../src/client/in-process-client.js';
import { toTable } from '../src/printers/index.js';
import { newRegistry } from './helpers.js';

const template = (image = 'nginx:1.27', extra: object = {}) => ({
  metadata: { labels: { app: 'x' } },
  spec: { containers: [{ name: 'c', image }], ...extra },
});

const daemonSet = (name: string, spec: object = {}): KubeObject =>
  ({
    metadata: { name },
    spec: { selector: { matchLabels: { app: 'x' } }, template: template(), ...spec },
  }) as KubeObject;

const statefulSet = (name: string, spec: object = {}): KubeObject =>
  ({
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: 'x' } },
      serviceName: name,
      template: template(),
      ...spec,
    },
  }) as KubeObject;

function setup() {
  const { registry } = newRegistry();
  const ds = registry.resource('apps', 'daemonsets');
  const sts = registry.resource('apps', 'statefulsets');
  const cr = registry.resource('apps', 'controllerrevisions');
  const causes = (fn: () => unknown): string[] => {
    try {
      fn();
    } catch (err) {
      expect(isInvalid(err)).toBe(true);
      const details = (err as { details?: { causes?: { field?: string; message?: string }[] } })
        .details;
      return (details?.causes ?? []).map((c) => `${c.field ?? ''}: ${c.message ?? ''}`);
    }
    throw new Error('expected 422 Invalid');
  };
  return { registry, ds, sts, cr, causes };
}

describe('DaemonSets', () => {
  it('are defaulted, and count their template generations in an annotation', () => {
    const { registry, ds } = setup();
    const created = registry.create(ds, 'default', daemonSet('fluentd')) as DaemonSet;
    expect(created.spec).toMatchObject({
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
    });
    expect(created.status).toEqual({
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    });
    const generation = (d: DaemonSet) =>
      d.metadata?.annotations?.['deprecated.daemonset.template.generation'];
    expect(generation(created)).toBe('1');
    // A strategic merge patch of the template: containers merge by name.
    const rolled = registry.patch(ds, 'default', 'fluentd', {
      type: 'strategic',
      body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } } } },
    }).object as DaemonSet;
    expect(rolled.spec?.template.spec?.containers.map((c) => c.image)).toEqual(['nginx:1.28']);
    expect(generation(rolled)).toBe('2');
    expect(rolled.metadata?.generation).toBe(2);
    // A change elsewhere in the spec leaves the template generation alone.
    const limited = registry.patch(ds, 'default', 'fluentd', {
      type: 'merge',
      body: { spec: { minReadySeconds: 5 } },
    }).object as DaemonSet;
    expect(generation(limited)).toBe('2');
    expect(limited.metadata?.generation).toBe(3);
  });

  it('are validated with kube-apiserver’s field errors', () => {
    const { registry, ds, causes } = setup();
    const create = (spec: object) => registry.create(ds, 'default', daemonSet('bad', spec));
    expect(
      causes(() =>
        create({
          updateStrategy: {
            type: 'RollingUpdate',
            rollingUpdate: { maxUnavailable: 0, maxSurge: 0 },
          },
        }),
      ),
    ).toEqual([
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0',
    ]);
    expect(
      causes(() =>
        create({
          template: template('nginx', { restartPolicy: 'Never', activeDeadlineSeconds: 5 }),
          updateStrategy: {
            type: 'RollingUpdate',
            rollingUpdate: { maxUnavailable: '150%', maxSurge: 1 },
          },
        }),
      ),
    ).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported',
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
      'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero',
    ]);
    expect(causes(() => create({ updateStrategy: { type: 'Sometimes' } }))).toHaveLength(1);
    registry.create(ds, 'default', daemonSet('fluentd'));
    const errs = causes(() =>
      registry.patch(ds, 'default', 'fluentd', {
        type: 'merge',
        body: { spec: { selector: { matchLabels: { app: 'y' } } } },
      }),
    );
    // The spec is validated first, then the selector against the stored one.
    expect(errs).toHaveLength(2);
    expect(errs[0]).toMatch(
      /^spec\.template\.metadata\.labels: Invalid value: .*: `selector` does not match template `labels`$/,
    );
    expect(errs[1]).toMatch(/^spec\.selector: Invalid value: .*: field is immutable$/);
  });
});

describe('StatefulSets', () => {
  it('are defaulted, their claim templates written out as the API returns them', () => {
    const { registry, sts } = setup();
    const created = registry.create(
      sts,
      'default',
      statefulSet('web', {
        volumeClaimTemplates: [
          {
            metadata: { name: 'www' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      }),
    ) as StatefulSet;
    expect(created.spec).toMatchObject({
      replicas: 1,
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      revisionHistoryLimit: 10,
    });
    expect(created.spec?.volumeClaimTemplates?.[0]).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'www', creationTimestamp: null },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '1Gi' } },
        volumeMode: 'Filesystem',
      },
      status: { phase: 'Pending' },
    });
    expect(created.status).toEqual({ replicas: 0, availableReplicas: 0 });
  });

  it('are named as DNS labels, validated, and change only the fields upstream lets change', () => {
    const { registry, sts, causes } = setup();
    expect(causes(() => registry.create(sts, 'default', statefulSet('web.v1')))).toEqual([
      'metadata.name: Invalid value: "web.v1": must not contain dots',
    ]);
    expect(
      causes(() =>
        registry.create(
          sts,
          'default',
          statefulSet('bad', {
            podManagementPolicy: 'Random',
            updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } },
            persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep', whenScaled: 'Delete' },
            replicas: -1,
          }),
        ),
      ),
    ).toEqual([
      "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
      'spec.updateStrategy.rollingUpdate: Invalid value: {"partition":1}: only allowed for updateStrategy \'RollingUpdate\'',
      'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"',
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    ]);
    registry.create(sts, 'default', statefulSet('web'));
    const patch = (body: object) =>
      registry.patch(sts, 'default', 'web', { type: 'merge', body }).object as StatefulSet;
    expect(causes(() => patch({ spec: { serviceName: 'other' } }))).toEqual([
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
    const scaled = patch({
      spec: { replicas: 3, updateStrategy: { rollingUpdate: { partition: 2 } } },
    });
    expect(scaled.spec?.replicas).toBe(3);
    expect(scaled.spec?.updateStrategy?.rollingUpdate?.partition).toBe(2);
  });

  it('take only a consistent status through /status', () => {
    const { registry, sts, causes } = setup();
    registry.create(sts, 'default', statefulSet('web'));
    const status = (s: object) => {
      const current = registry.get(sts, 'default', 'web');
      return registry.update(
        sts,
        'default',
        'web',
        { ...current, status: s },
        {
          subresource: 'status',
        },
      ).object as StatefulSet;
    };
    expect(
      status({ replicas: 2, readyReplicas: 1, availableReplicas: 1, collisionCount: 1 }).status,
    ).toMatchObject({ replicas: 2, readyReplicas: 1 });
    expect(
      causes(() =>
        status({ replicas: 1, readyReplicas: 2, availableReplicas: 2, collisionCount: 0 }),
      ),
    ).toEqual([
      'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.collisionCount: Invalid value: 0: cannot be decremented',
    ]);
  });
});

describe('the scale subresource through the in-process client', () => {
  it('takes a Scale and answers with one, as the HTTP server does', async () => {
    const { registry, sts } = setup();
    registry.create(sts, 'default', statefulSet('web', { replicas: 1 }));
    const client = inProcessClient<KubeObject>(registry, sts).inNamespace('default');
    const scale = {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 4 },
    } as KubeObject;
    const answer = (await client.update(scale, { subresource: 'scale' })) as KubeObject & {
      spec?: { replicas?: number };
    };
    expect(answer.kind).toBe('Scale');
    expect(answer.spec?.replicas).toBe(4);
    expect((registry.get(sts, 'default', 'web') as StatefulSet).spec?.replicas).toBe(4);
    const ds = inProcessClient<KubeObject>(registry, registry.resource('apps', 'daemonsets'));
    await expect(ds.inNamespace('default').update(scale, { subresource: 'scale' })).rejects.toThrow(
      'daemonsets/scale.apps "web" not found',
    );
  });
});

describe('ControllerRevisions', () => {
  it('need data, and keep it', () => {
    const { registry, cr, causes } = setup();
    expect(
      causes(() => registry.create(cr, 'default', { metadata: { name: 'r' }, revision: -1 })),
    ).toEqual([
      'data: Required value: data is mandatory',
      'revision: Invalid value: -1: must be greater than or equal to 0',
    ]);
    registry.create(cr, 'default', {
      metadata: { name: 'web-7d8f' },
      data: { spec: { template: template() } },
      revision: 1,
    });
    expect(
      causes(() =>
        registry.patch(cr, 'default', 'web-7d8f', { type: 'merge', body: { data: { x: 1 } } }),
      )[0],
    ).toMatch(/^data: Invalid value: .*: field is immutable$/);
    // The revision number may change: a rollback moves an old revision to the top.
    const moved = registry.patch(cr, 'default', 'web-7d8f', {
      type: 'merge',
      body: { revision: 3 },
    }).object as ControllerRevision;
    expect(moved.revision).toBe(3);
  });
});

describe('the Tables of DaemonSets, StatefulSets and ControllerRevisions', () => {
  const now = Date.parse('2026-01-02T03:04:05Z');
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const cells = (resource: string, o: object) => {
    const t = toTable(resource, 'apps', [o], { now, resourceVersion: '1' });
    return Object.fromEntries(t.columnDefinitions.map((c, i) => [c.name, t.rows[0]!.cells[i]]));
  };

  it('print what kubectl get prints', () => {
    const meta = { name: 'fluentd', creationTimestamp: iso(now - 90_000) };
    expect(
      cells('daemonsets', {
        metadata: meta,
        spec: {
          selector: { matchLabels: { app: 'x' } },
          template: template('fluentd:v5', { nodeSelector: { 'kubernetes.io/os': 'linux' } }),
        },
        status: {
          desiredNumberScheduled: 3,
          currentNumberScheduled: 3,
          numberReady: 2,
          updatedNumberScheduled: 3,
          numberAvailable: 2,
        },
      }),
    ).toEqual({
      Name: 'fluentd',
      Desired: 3,
      Current: 3,
      Ready: 2,
      'Up-to-date': 3,
      Available: 2,
      'Node Selector': 'kubernetes.io/os=linux',
      Age: '90s',
      Containers: 'c',
      Images: 'fluentd:v5',
      Selector: 'app=x',
    });
    expect(
      cells('statefulsets', {
        metadata: { ...meta, name: 'web' },
        spec: { replicas: 3, template: template() },
        status: { readyReplicas: 2 },
      }),
    ).toEqual({ Name: 'web', Ready: '2/3', Age: '90s', Containers: 'c', Images: 'nginx:1.27' });
    expect(
      cells('controllerrevisions', {
        metadata: {
          ...meta,
          name: 'web-7d8f',
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u', controller: true },
          ],
        },
        revision: 2,
      }),
    ).toEqual({ Name: 'web-7d8f', Controller: 'statefulset.apps/web', Revision: 2, Age: '90s' });
  });
});
