// ServiceAccounts, ReplicationControllers, PodDisruptionBudgets and the RBAC
// kinds, as kube-apiserver stores them: defaults (SetDefaults_ReplicationController,
// the rbac/v1 binding defaults), validation (ValidateReplicationController,
// ValidatePodDisruptionBudget, ValidateRole/ClusterRole/...Binding, after
// TestValidateReplicationController, TestValidatePodDisruptionBudgetSpec and
// TestValidateRoleBinding in upstream's validation_test.go), status
// subresources, the RC scale, discovery and Table columns.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@kcm-ts/apimachinery';
import { aggregatedDiscovery, apiResourceList } from '../src/apiserver/discovery.js';
import { toTable } from '../src/printers/index.js';
import { epoch, newRegistry } from './helpers.js';

const rcBody = (over: Record<string, unknown> = {}) => ({
  metadata: { name: 'web' },
  spec: {
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
    },
    ...over,
  },
});

const causes = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    return (
      (err as { details?: { causes?: { field: string; message: string }[] } }).details?.causes ?? []
    ).map((c) => `${c.field}: ${c.message}`);
  }
  throw new Error('expected an error');
};

describe('ReplicationControllers', () => {
  it('default the selector and labels from the template and replicas to 1, with a generation', () => {
    const { registry } = newRegistry();
    const rcs = registry.resource('', 'replicationcontrollers');
    const rc = registry.create(rcs, 'default', rcBody()) as KubeObject & {
      spec: Record<string, unknown>;
      status: unknown;
    };
    expect(rc.metadata?.labels).toEqual({ app: 'web' });
    expect(rc.spec.selector).toEqual({ app: 'web' });
    expect(rc.spec.replicas).toBe(1);
    expect(rc.metadata?.generation).toBe(1);
    expect(rc.status).toEqual({ replicas: 0 });
    expect((rc.spec.template as { spec: { restartPolicy: string } }).spec.restartPolicy).toBe(
      'Always',
    );
  });

  it('validate as ValidateReplicationController (TestValidateReplicationController cases)', () => {
    const { registry } = newRegistry();
    const rcs = registry.resource('', 'replicationcontrollers');
    expect(
      causes(() => registry.create(rcs, 'default', rcBody({ selector: { app: 'other' } }))),
    ).toEqual([
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: selector does not match labels in spec.template',
    ]);
    expect(
      causes(() =>
        registry.create(rcs, 'default', { metadata: { name: 'x' }, spec: { replicas: -1 } }),
      ),
    ).toEqual([
      'spec.selector: Required value',
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.template: Required value',
    ]);
    const never = rcBody();
    (never.spec.template as { spec: Record<string, unknown> }).spec.restartPolicy = 'Never';
    expect(causes(() => registry.create(rcs, 'default', never))).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ]);
  });

  it('keep status apart, and scale through autoscaling/v1 Scale with a string selector', () => {
    const { registry } = newRegistry();
    const rcs = registry.resource('', 'replicationcontrollers');
    registry.create(rcs, 'default', rcBody());
    const scale = registry.getScale(rcs, 'default', 'web') as KubeObject & {
      spec: { replicas: number };
      status: { selector: string };
    };
    expect(scale.kind).toBe('Scale');
    expect(scale.spec.replicas).toBe(1);
    expect(scale.status.selector).toBe('app=web');
    const scaled = registry.patchScale(rcs, 'default', 'web', {
      type: 'merge',
      body: { spec: { replicas: 3 } },
    }) as KubeObject & { spec: { replicas: number } };
    expect(scaled.spec.replicas).toBe(3);
    const rc = registry.get(rcs, 'default', 'web') as KubeObject & { spec: { replicas: number } };
    expect(rc.spec.replicas).toBe(3);
    expect(rc.metadata?.generation).toBe(2);
    // A status write keeps the spec; counts above replicas are refused.
    const status = registry.update(
      rcs,
      'default',
      'web',
      { ...rc, spec: { ...rc.spec, replicas: 9 }, status: { replicas: 3, readyReplicas: 3 } },
      { subresource: 'status' },
    ).object as KubeObject & { spec: { replicas: number }; status: { readyReplicas: number } };
    expect(status.spec.replicas).toBe(3);
    expect(status.status.readyReplicas).toBe(3);
    expect(
      causes(() =>
        registry.update(
          rcs,
          'default',
          'web',
          { ...status, status: { replicas: 1, readyReplicas: 2 } },
          { subresource: 'status' },
        ),
      ),
    ).toEqual(['status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas']);
  });
});

describe('PodDisruptionBudgets', () => {
  it('start with zero counts and a generation, and validate as ValidatePodDisruptionBudgetSpec', () => {
    const { registry } = newRegistry();
    const pdbs = registry.resource('policy', 'poddisruptionbudgets');
    const pdb = registry.create(pdbs, 'default', {
      metadata: { name: 'p' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    }) as KubeObject & { status: unknown };
    expect(pdb.status).toEqual({
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
    });
    expect(pdb.metadata?.generation).toBe(1);
    expect(
      causes(() =>
        registry.create(pdbs, 'default', {
          metadata: { name: 'q' },
          spec: { minAvailable: 1, maxUnavailable: '150%', unhealthyPodEvictionPolicy: 'Never' },
        }),
      ),
    ).toEqual([
      'spec: Invalid value: {"minAvailable":1,"maxUnavailable":"150%","unhealthyPodEvictionPolicy":"Never"}: minAvailable and maxUnavailable cannot be both set',
      'spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
      'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
    ]);
    expect(
      causes(() =>
        registry.update(
          pdbs,
          'default',
          'p',
          { ...pdb, status: { disruptionsAllowed: -1 } },
          { subresource: 'status' },
        ),
      ),
    ).toEqual(['status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0']);
  });
});

describe('RBAC kinds', () => {
  it('default the roleRef and subject API groups, and keep the roleRef fixed', () => {
    const { registry } = newRegistry();
    const rbs = registry.resource('rbac.authorization.k8s.io', 'rolebindings');
    const rb = registry.create(rbs, 'default', {
      metadata: { name: 'b' },
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'ServiceAccount', name: 'x' },
      ],
    }) as KubeObject & { roleRef: unknown; subjects: unknown };
    expect(rb.roleRef).toEqual({
      kind: 'ClusterRole',
      name: 'view',
      apiGroup: 'rbac.authorization.k8s.io',
    });
    expect(rb.subjects).toEqual([
      { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'x', apiGroup: '' },
    ]);
    expect(
      causes(() =>
        registry.update(rbs, 'default', 'b', {
          ...rb,
          roleRef: { ...(rb.roleRef as object), name: 'edit' },
        }),
      ),
    ).toEqual([
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    ]);
  });

  it('validate rules and bindings (TestValidateRoleBinding, TestValidatePolicyRule)', () => {
    const { registry } = newRegistry();
    const roles = registry.resource('rbac.authorization.k8s.io', 'roles');
    expect(
      causes(() =>
        registry.create(roles, 'default', {
          metadata: { name: 'r' },
          rules: [
            { verbs: [], resources: ['pods'] },
            { verbs: ['get'], nonResourceURLs: ['/x'] },
          ],
        }),
      ),
    ).toEqual([
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[1].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
    ]);
    const crbs = registry.resource('rbac.authorization.k8s.io', 'clusterrolebindings');
    expect(
      causes(() =>
        registry.create(crbs, '', {
          metadata: { name: 'c' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
          subjects: [
            { kind: 'ServiceAccount', name: 'x' },
            { kind: 'Robot', name: 'y' },
          ],
        }),
      ),
    ).toEqual([
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      'subjects[0].namespace: Required value',
      'subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    ]);
    // RBAC names are path segments: a colon is fine, a slash is not.
    const clusterRoles = registry.resource('rbac.authorization.k8s.io', 'clusterroles');
    expect(() =>
      registry.create(clusterRoles, '', { metadata: { name: 'team:reader' }, rules: [] }),
    ).not.toThrow();
    expect(causes(() => registry.create(clusterRoles, '', { metadata: { name: 'a/b' } }))).toEqual([
      `metadata.name: Invalid value: "a/b": may not contain '/'`,
    ]);
  });

  it('seed the bootstrap cluster roles and bindings, the aggregated ones without rules', () => {
    const { registry } = newRegistry();
    const clusterRoles = registry.resource('rbac.authorization.k8s.io', 'clusterroles');
    const admin = registry.get(clusterRoles, '', 'admin') as KubeObject & {
      rules?: unknown;
      aggregationRule: unknown;
    };
    expect(admin.aggregationRule).toEqual({
      clusterRoleSelectors: [
        { matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } },
      ],
    });
    expect(admin.rules).toBeUndefined();
    expect(admin.metadata?.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    const edit = registry.get(clusterRoles, '', 'edit');
    expect(edit.metadata?.labels?.['rbac.authorization.k8s.io/aggregate-to-admin']).toBe('true');
    const names = registry.list(clusterRoles, '').items.map((r) => r.metadata?.name);
    expect(names).toEqual([
      'admin',
      'cluster-admin',
      'edit',
      'system:aggregate-to-admin',
      'system:aggregate-to-edit',
      'system:aggregate-to-view',
      'system:basic-user',
      'system:discovery',
      'system:public-info-viewer',
      'view',
    ]);
    const crbs = registry.resource('rbac.authorization.k8s.io', 'clusterrolebindings');
    expect(registry.list(crbs, '').items.map((b) => b.metadata?.name)).toEqual([
      'cluster-admin',
      'kubeadm:cluster-admins',
      'system:basic-user',
      'system:discovery',
      'system:public-info-viewer',
    ]);
  });
});

describe('discovery and tables', () => {
  it("advertise kube-apiserver's short names, categories and subresources", () => {
    const core = apiResourceList('', 'v1') as { resources: Record<string, unknown>[] };
    const byName = (n: string) => core.resources.find((r) => r.name === n);
    expect(byName('replicationcontrollers')).toMatchObject({
      shortNames: ['rc'],
      categories: ['all'],
    });
    expect(byName('replicationcontrollers/scale')).toMatchObject({
      group: 'autoscaling',
      kind: 'Scale',
    });
    expect(byName('serviceaccounts')).toMatchObject({ shortNames: ['sa'] });
    expect(byName('serviceaccounts/token')).toMatchObject({
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
    expect(byName('pods/eviction')).toMatchObject({
      group: 'policy',
      kind: 'Eviction',
      verbs: ['create'],
    });
    const policy = apiResourceList('policy', 'v1') as { resources: Record<string, unknown>[] };
    expect(policy.resources.map((r) => r.name)).toEqual([
      'poddisruptionbudgets',
      'poddisruptionbudgets/status',
    ]);
    expect(policy.resources[0]).toMatchObject({ shortNames: ['pdb'] });
    const groups = (aggregatedDiscovery(false).items as { metadata: { name: string } }[]).map(
      (g) => g.metadata.name,
    );
    expect(groups).toEqual(expect.arrayContaining(['policy', 'rbac.authorization.k8s.io']));
  });

  it('print the columns kubectl shows', () => {
    const { registry } = newRegistry();
    const table = (group: string, resource: string, ns: string) =>
      toTable(resource, group, registry.list(registry.resource(group, resource), ns).items, {
        now: epoch + 60_000,
        resourceVersion: '1',
      });
    registry.create(registry.resource('', 'replicationcontrollers'), 'default', rcBody());
    const rc = table('', 'replicationcontrollers', 'default');
    expect(rc.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      'Desired',
      'Current',
      'Ready',
      'Age',
      'Containers',
      'Images',
      'Selector',
    ]);
    expect(rc.rows[0]?.cells).toEqual(['web', 1, 0, 0, '60s', 'c', 'nginx:1.27', 'app=web']);
    registry.create(registry.resource('policy', 'poddisruptionbudgets'), 'default', {
      metadata: { name: 'p' },
      spec: { maxUnavailable: '50%', selector: { matchLabels: { app: 'web' } } },
    });
    const pdb = table('policy', 'poddisruptionbudgets', 'default');
    expect(pdb.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      'Min Available',
      'Max Unavailable',
      'Allowed Disruptions',
      'Age',
    ]);
    expect(pdb.rows[0]?.cells).toEqual(['p', 'N/A', '50%', 0, '60s']);
    registry.create(registry.resource('', 'serviceaccounts'), 'default', {
      metadata: { name: 'x' },
    });
    expect(table('', 'serviceaccounts', 'default').rows[0]?.cells).toEqual(['x', 0, '60s']);
    const crb = table('rbac.authorization.k8s.io', 'clusterrolebindings', '');
    expect(crb.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      'Role',
      'Age',
      'Users',
      'Groups',
      'ServiceAccounts',
    ]);
    expect(crb.rows.find((r) => r.cells[0] === 'system:public-info-viewer')?.cells).toEqual([
      'system:public-info-viewer',
      'ClusterRole/system:public-info-viewer',
      '60s',
      '',
      'system:authenticated, system:unauthenticated',
      '',
    ]);
    const roles = table('rbac.authorization.k8s.io', 'clusterroles', '');
    expect(roles.columnDefinitions.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Created At', 'date'],
    ]);
    expect(roles.rows[0]?.cells).toEqual(['admin', '2026-01-02T03:04:05Z']);
  });
});
