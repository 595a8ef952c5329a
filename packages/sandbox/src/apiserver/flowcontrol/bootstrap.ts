// The priority levels and flow schemas kube-apiserver starts with
// (staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go:
// the mandatory exempt and catch-all, and the suggested configuration), in
// the shape of flowcontrol.apiserver.k8s.io/v1 objects. Requests are
// classified by the first flow schema, in matching precedence, whose rules
// match them, and wait for seats of that schema's priority level.

/** Who a rule matches: a user, a group, or a service account (`*` for any name). */
export type Subject =
  | { kind: 'User'; user: { name: string } }
  | { kind: 'Group'; group: { name: string } }
  | { kind: 'ServiceAccount'; serviceAccount: { namespace: string; name: string } };

/** What a resource rule matches (`*` matches any verb, group or resource). */
export interface ResourcePolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  /** Namespaces, `*` for every one; a cluster-scoped request matches only `clusterScope`. */
  namespaces?: string[];
  clusterScope?: boolean;
}

/** What a non-resource rule matches: verbs and URL paths (`*`, or a prefix ending `/*`). */
export interface NonResourcePolicyRule {
  verbs: string[];
  nonResourceURLs: string[];
}

/** One rule of a flow schema: subjects, and the requests of theirs it covers. */
export interface PolicyRulesWithSubjects {
  subjects: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

/** A FlowSchema's spec. */
export interface FlowSchemaSpec {
  priorityLevelConfiguration: { name: string };
  matchingPrecedence: number;
  /** How requests are told apart into flows: by user, by namespace, or not at all. */
  distinguisherMethod?: { type: 'ByUser' | 'ByNamespace' };
  rules: PolicyRulesWithSubjects[];
}

/** A flowcontrol.apiserver.k8s.io/v1 FlowSchema, as far as classification reads it. */
export interface FlowSchema {
  metadata: { name: string };
  spec: FlowSchemaSpec;
}

/** A queuing priority level's limits. */
export interface LimitedPriorityLevel {
  /** Its share of the server's concurrency. */
  nominalConcurrencyShares: number;
  /** Requests over its seats queue (Queue) or are refused at once (Reject). */
  limitResponse:
    | { type: 'Reject' }
    | { type: 'Queue'; queuing: { queues: number; handSize: number; queueLengthLimit: number } };
}

/** A flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration. */
export interface PriorityLevelConfiguration {
  metadata: { name: string };
  spec: { type: 'Exempt' } | { type: 'Limited'; limited: LimitedPriorityLevel };
}

const all: ResourcePolicyRule = {
  verbs: ['*'],
  apiGroups: ['*'],
  resources: ['*'],
  namespaces: ['*'],
  clusterScope: true,
};
const allNonResource: NonResourcePolicyRule = { verbs: ['*'], nonResourceURLs: ['*'] };

const users = (...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'User', user: { name } }));
const groups = (...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'Group', group: { name } }));
const kubeSystemServiceAccounts: Subject[] = [
  { kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } },
];

function limited(
  name: string,
  nominalConcurrencyShares: number,
  queuing?: { queues: number; handSize: number; queueLengthLimit: number },
): PriorityLevelConfiguration {
  return {
    metadata: { name },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares,
        limitResponse: queuing ? { type: 'Queue', queuing } : { type: 'Reject' },
      },
    },
  };
}

function schema(
  name: string,
  priorityLevel: string,
  matchingPrecedence: number,
  distinguisher: 'ByUser' | 'ByNamespace' | undefined,
  ...rules: PolicyRulesWithSubjects[]
): FlowSchema {
  return {
    metadata: { name },
    spec: {
      priorityLevelConfiguration: { name: priorityLevel },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules,
    },
  };
}

const everything = (subjects: Subject[]): PolicyRulesWithSubjects => ({
  subjects,
  resourceRules: [all],
  nonResourceRules: [allNonResource],
});

/** The priority levels: the mandatory two and the suggested six. */
export const defaultPriorityLevels: readonly PriorityLevelConfiguration[] = [
  { metadata: { name: 'exempt' }, spec: { type: 'Exempt' } },
  limited('catch-all', 5),
  limited('system', 30, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
  limited('node-high', 40, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
  limited('leader-election', 10, { queues: 16, handSize: 4, queueLengthLimit: 50 }),
  limited('workload-high', 40, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
  limited('workload-low', 100, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
  limited('global-default', 20, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
];

const leaderElectionRules = (namespacesOfEndpoints: string[]): ResourcePolicyRule[] => [
  {
    verbs: ['get', 'create', 'update'],
    apiGroups: [''],
    resources: ['endpoints', 'configmaps'],
    namespaces: namespacesOfEndpoints,
  },
  {
    verbs: ['get', 'create', 'update'],
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    namespaces: ['*'],
  },
];

/** The flow schemas: the mandatory two and the suggested ones. */
export const defaultFlowSchemas: readonly FlowSchema[] = [
  schema('exempt', 'exempt', 1, undefined, everything(groups('system:masters'))),
  schema('probes', 'exempt', 2, undefined, {
    subjects: groups('system:unauthenticated', 'system:authenticated'),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  schema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [
      ...users('system:kube-controller-manager', 'system:kube-scheduler'),
      ...kubeSystemServiceAccounts,
    ],
    resourceRules: leaderElectionRules(['kube-system']),
  }),
  schema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [
      ...users('system:kube-controller-manager'),
      ...['endpoint-controller', 'endpointslicemirroring-controller'].map((name): Subject => ({
        kind: 'ServiceAccount',
        serviceAccount: { namespace: 'kube-system', name },
      })),
    ],
    resourceRules: [
      {
        verbs: ['get', 'create', 'update'],
        apiGroups: [''],
        resources: ['endpoints'],
        namespaces: ['*'],
      },
    ],
  }),
  schema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: kubeSystemServiceAccounts,
    resourceRules: leaderElectionRules(['*']),
  }),
  schema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups('system:nodes'),
    resourceRules: [
      {
        verbs: ['*'],
        apiGroups: [''],
        resources: ['nodes', 'nodes/status'],
        namespaces: ['*'],
        clusterScope: true,
      },
      {
        verbs: ['*'],
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        namespaces: ['*'],
      },
    ],
  }),
  schema('system-nodes', 'system', 500, 'ByUser', everything(groups('system:nodes'))),
  schema(
    'kube-controller-manager',
    'workload-high',
    800,
    'ByNamespace',
    everything(users('system:kube-controller-manager')),
  ),
  schema(
    'kube-scheduler',
    'workload-high',
    800,
    'ByNamespace',
    everything(users('system:kube-scheduler')),
  ),
  schema(
    'kube-system-service-accounts',
    'workload-high',
    900,
    'ByNamespace',
    everything(kubeSystemServiceAccounts),
  ),
  schema(
    'service-accounts',
    'workload-low',
    9000,
    'ByUser',
    everything(groups('system:serviceaccounts')),
  ),
  schema(
    'global-default',
    'global-default',
    9900,
    'ByUser',
    everything(groups('system:unauthenticated', 'system:authenticated')),
  ),
  schema(
    'catch-all',
    'catch-all',
    10000,
    'ByUser',
    everything(groups('system:unauthenticated', 'system:authenticated')),
  ),
];
