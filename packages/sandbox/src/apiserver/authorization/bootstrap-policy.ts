// The RBAC objects a new cluster starts with: a subset of
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (ClusterRoles,
// ClusterRoleBindings) as kube-apiserver's rbac/bootstrap-roles post-start
// hook (pkg/registry/rbac/rest/storage_rbac.go, EnsureRBACPolicy) creates
// them, each labelled `kubernetes.io/bootstrapping: rbac-defaults` and
// annotated for auto-update; plus the `kubeadm:cluster-admins` binding
// kubeadm adds for the admin's group. The aggregated roles (admin, edit,
// view) are created with their aggregationRule and no rules: the
// clusterrole-aggregation controller fills them from the
// `aggregate-to-*` labelled roles, as in a real cluster.
//
// Kept: cluster-admin, admin, edit, view, system:aggregate-to-admin,
// system:aggregate-to-edit, system:aggregate-to-view (their rules for the
// groups the sandbox serves, and the networking and autoscaling ones
// policy.go names), system:discovery, system:basic-user,
// system:public-info-viewer, with their bindings. Left out: the roles of
// the control-plane components, nodes, controllers and monitoring.

const read = ['get', 'list', 'watch'];
const write = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const readWrite = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
];

/** One policy rule, as rbacv1helpers.NewRule builds it. */
interface Rule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  nonResourceURLs?: string[];
}

const rule = (verbs: string[], apiGroups: string[], resources: string[]): Rule => ({
  verbs,
  apiGroups,
  resources,
});
const urls = (verbs: string[], nonResourceURLs: string[]): Rule => ({ verbs, nonResourceURLs });

const aggregateLabel = (to: string) => ({
  [`rbac.authorization.k8s.io/aggregate-to-${to}`]: 'true',
});

/** The ClusterRoles of the bootstrap policy, by name, without their default metadata. */
function roles(): { name: string; labels?: Record<string, string>; body: object }[] {
  const aggregated = (to: string) => ({
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: aggregateLabel(to) }] },
  });
  return [
    {
      name: 'cluster-admin',
      body: { rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
    },
    { name: 'admin', body: aggregated('admin') },
    { name: 'edit', labels: aggregateLabel('admin'), body: aggregated('edit') },
    { name: 'view', labels: aggregateLabel('edit'), body: aggregated('view') },
    {
      name: 'system:aggregate-to-admin',
      labels: aggregateLabel('admin'),
      body: {
        rules: [
          rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
          rule(readWrite, ['rbac.authorization.k8s.io'], ['roles', 'rolebindings']),
        ],
      },
    },
    {
      name: 'system:aggregate-to-edit',
      labels: aggregateLabel('edit'),
      body: {
        rules: [
          rule(
            read,
            [''],
            [
              'pods/attach',
              'pods/proxy',
              'pods/exec',
              'pods/portforward',
              'secrets',
              'services/proxy',
            ],
          ),
          rule(['impersonate'], [''], ['serviceaccounts']),
          rule(write, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
          rule(['create'], [''], ['pods/eviction']),
          rule(
            write,
            [''],
            [
              'replicationcontrollers',
              'replicationcontrollers/scale',
              'serviceaccounts',
              'services',
              'services/proxy',
              'persistentvolumeclaims',
              'configmaps',
              'secrets',
              'events',
            ],
          ),
          rule(['create'], [''], ['serviceaccounts/token']),
          rule(
            write,
            ['apps'],
            [
              'statefulsets',
              'statefulsets/scale',
              'daemonsets',
              'deployments',
              'deployments/scale',
              'deployments/rollback',
              'replicasets',
              'replicasets/scale',
            ],
          ),
          rule(write, ['autoscaling'], ['horizontalpodautoscalers']),
          rule(write, ['batch'], ['jobs', 'cronjobs']),
          rule(write, ['policy'], ['poddisruptionbudgets']),
          rule(write, ['networking.k8s.io'], ['networkpolicies', 'ingresses']),
          rule(readWrite, ['coordination.k8s.io'], ['leases']),
        ],
      },
    },
    {
      name: 'system:aggregate-to-view',
      labels: aggregateLabel('view'),
      body: {
        rules: [
          rule(
            read,
            [''],
            [
              'pods',
              'replicationcontrollers',
              'replicationcontrollers/scale',
              'serviceaccounts',
              'services',
              'services/status',
              'endpoints',
              'persistentvolumeclaims',
              'persistentvolumeclaims/status',
              'configmaps',
            ],
          ),
          rule(
            read,
            [''],
            [
              'limitranges',
              'resourcequotas',
              'bindings',
              'events',
              'pods/status',
              'resourcequotas/status',
              'namespaces/status',
              'replicationcontrollers/status',
              'pods/log',
            ],
          ),
          rule(read, [''], ['namespaces']),
          rule(read, ['discovery.k8s.io'], ['endpointslices']),
          rule(
            read,
            ['apps'],
            [
              'controllerrevisions',
              'statefulsets',
              'statefulsets/status',
              'statefulsets/scale',
              'daemonsets',
              'daemonsets/status',
              'deployments',
              'deployments/status',
              'deployments/scale',
              'replicasets',
              'replicasets/status',
              'replicasets/scale',
            ],
          ),
          rule(
            read,
            ['autoscaling'],
            ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'],
          ),
          rule(read, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
          rule(read, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
          rule(read, ['networking.k8s.io'], ['networkpolicies', 'ingresses', 'ingresses/status']),
        ],
      },
    },
    {
      name: 'system:discovery',
      body: {
        rules: [
          urls(
            ['get'],
            [
              '/livez',
              '/readyz',
              '/healthz',
              '/version',
              '/version/',
              '/openapi',
              '/openapi/*',
              '/api',
              '/api/*',
              '/apis',
              '/apis/*',
            ],
          ),
        ],
      },
    },
    {
      name: 'system:basic-user',
      body: {
        rules: [
          rule(
            ['create'],
            ['authorization.k8s.io'],
            ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
          ),
          rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
        ],
      },
    },
    {
      name: 'system:public-info-viewer',
      body: {
        rules: [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])],
      },
    },
  ];
}

const group = (name: string) => ({
  kind: 'Group',
  apiGroup: 'rbac.authorization.k8s.io',
  name,
});

/** The ClusterRoleBindings of the bootstrap policy (and kubeadm's), as role name and subjects. */
function bindings(): { name: string; role: string; subjects: object[]; kubeadm?: boolean }[] {
  return [
    { name: 'cluster-admin', role: 'cluster-admin', subjects: [group('system:masters')] },
    {
      name: 'system:discovery',
      role: 'system:discovery',
      subjects: [group('system:authenticated')],
    },
    {
      name: 'system:basic-user',
      role: 'system:basic-user',
      subjects: [group('system:authenticated')],
    },
    {
      name: 'system:public-info-viewer',
      role: 'system:public-info-viewer',
      subjects: [group('system:authenticated'), group('system:unauthenticated')],
    },
    {
      name: 'kubeadm:cluster-admins',
      role: 'cluster-admin',
      subjects: [group('kubeadm:cluster-admins')],
      kubeadm: true,
    },
  ];
}

// addDefaultMetadata in policy.go.
const defaultLabels = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const defaultAnnotations = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };

/**
 * The bootstrap ClusterRoles as create bodies, in the order policy.go
 * lists them.
 *
 * @category Server
 */
export function bootstrapClusterRoles(): object[] {
  return roles().map(({ name, labels, body }) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name,
      labels: { ...defaultLabels, ...labels },
      annotations: { ...defaultAnnotations },
    },
    ...body,
  }));
}

/**
 * The bootstrap ClusterRoleBindings as create bodies; kubeadm's carries no
 * bootstrap metadata.
 *
 * @category Server
 */
export function bootstrapClusterRoleBindings(): object[] {
  return bindings().map(({ name, role, subjects, kubeadm }) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: kubeadm
      ? { name }
      : { name, labels: { ...defaultLabels }, annotations: { ...defaultAnnotations } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects,
  }));
}
