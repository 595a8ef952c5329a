// What a strategic merge patch needs to know about a kind: which lists merge,
// by which key, and which fields carry a strategy of their own. kube-apiserver
// reads this from the `patchStrategy` and `patchMergeKey` struct tags of the
// Go types (k8s.io/api v0.32.9 core/v1 and apps/v1 types.go, apimachinery
// meta/v1 types.go, and batch/v1 and storage/v1). Here each Go type's tags are written down once, as a
// constant named after the type, and shared wherever Go embeds that type.

/**
 * The Go `patchStrategy` tag of a field.
 *
 * - `'merge'`: a list merges with the object's list instead of replacing it,
 *   item by item on {@link FieldPatchMeta.mergeKey} for a list of objects, as
 *   a union for a list of primitives.
 * - `'replace'`: the patch's value replaces the object's, even for a map.
 * - `'retainKeys'`: only tells clients to send `$retainKeys`; on the server
 *   it merges like a field without a strategy.
 * - `'merge,retainKeys'`: both.
 *
 * @category Patches
 */
export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';

/**
 * How one field of an object type behaves in a strategic merge patch.
 *
 * @category Patches
 */
export interface FieldPatchMeta {
  /** The Go `patchStrategy` tag. Unset: a map merges, a list is replaced whole. */
  readonly strategy?: PatchStrategy;
  /** The Go `patchMergeKey` tag: the field of a list item that identifies it. */
  readonly mergeKey?: string;
  /** The fields of the value: of the map, or of each item for a list of objects. */
  readonly meta?: PatchMeta;
}

/**
 * The strategic merge patch schema of an object type: a tree mirroring the
 * Go type, holding only the fields that behave differently from a JSON merge
 * patch (and the fields leading to them). Fields it does not describe merge
 * like fields without Go tags: maps merge, lists are replaced whole.
 *
 * @example
 * ```ts
 * const meta: PatchMeta = {
 *   fields: {
 *     metadata: { meta: { fields: { finalizers: { strategy: 'merge' } } } },
 *     spec: { meta: { fields: { ports: { strategy: 'merge', mergeKey: 'port' } } } },
 *   },
 * };
 * ```
 *
 * @category Patches
 */
export interface PatchMeta {
  /** The fields with a strategy, or with such fields below them. */
  readonly fields?: Readonly<Record<string, FieldPatchMeta>>;
  /**
   * For a Go map from names to objects (`map[string]T`): the schema of each
   * value. A key that {@link PatchMeta.fields} also names uses that entry.
   */
  readonly values?: PatchMeta;
}

const nested = (meta: PatchMeta): FieldPatchMeta => ({ meta });
const byKey = (mergeKey: string, meta?: PatchMeta): FieldPatchMeta =>
  meta ? { strategy: 'merge', mergeKey, meta } : { strategy: 'merge', mergeKey };
const byKeyRetainingKeys = (mergeKey: string): FieldPatchMeta => ({
  strategy: 'merge,retainKeys',
  mergeKey,
});
const union: FieldPatchMeta = { strategy: 'merge' };
const conditions = byKey('type');

// meta/v1 ObjectMeta. Labels and annotations are maps and merge anyway.
const objectMeta: PatchMeta = {
  fields: { ownerReferences: byKey('uid'), finalizers: union },
};

// core/v1 Container, and EphemeralContainerCommon, which has the same tags.
// envFrom, resizePolicy, command and args have none: replaced whole.
const container: PatchMeta = {
  fields: {
    ports: byKey('containerPort'),
    env: byKey('name'),
    volumeMounts: byKey('mountPath'),
    volumeDevices: byKey('devicePath'),
  },
};

// core/v1 PodSpec. tolerations and readinessGates have no tags: replaced whole.
const podSpec: PatchMeta = {
  fields: {
    volumes: byKeyRetainingKeys('name'),
    initContainers: byKey('name', container),
    containers: byKey('name', container),
    ephemeralContainers: byKey('name', container),
    imagePullSecrets: byKey('name'),
    hostAliases: byKey('ip'),
    topologySpreadConstraints: byKey('topologyKey'),
    schedulingGates: byKey('name'),
    resourceClaims: byKeyRetainingKeys('name'),
  },
};

// core/v1 PodStatus. The container status lists have no tags.
const podStatus: PatchMeta = {
  fields: {
    conditions,
    hostIPs: byKey('ip'),
    podIPs: byKey('ip'),
    resourceClaimStatuses: byKeyRetainingKeys('name'),
  },
};

// core/v1 PodTemplateSpec, as Deployment and ReplicaSet embed it.
const podTemplateSpec: PatchMeta = {
  fields: { metadata: nested(objectMeta), spec: nested(podSpec) },
};

// core/v1 NodeSpec and NodeStatus. taints, images and volumesAttached have no tags.
const nodeSpec: PatchMeta = { fields: { podCIDRs: union } };
const nodeStatus: PatchMeta = { fields: { conditions, addresses: byKey('type') } };

// core/v1 NamespaceStatus. NamespaceSpec.finalizers has no tag: replaced whole.
const namespaceStatus: PatchMeta = { fields: { conditions } };

// apps/v1 DeploymentSpec, DeploymentStatus, ReplicaSetSpec, ReplicaSetStatus.
const deploymentSpec: PatchMeta = {
  fields: { strategy: { strategy: 'retainKeys' }, template: nested(podTemplateSpec) },
};
const deploymentStatus: PatchMeta = { fields: { conditions } };
const replicaSetSpec: PatchMeta = { fields: { template: nested(podTemplateSpec) } };
const replicaSetStatus: PatchMeta = { fields: { conditions } };

// apps/v1 DaemonSetSpec and StatefulSetSpec embed a pod template;
// volumeClaimTemplates and the update strategies have no tags.
const templated: PatchMeta = { fields: { template: nested(podTemplateSpec) } };
const withConditions: PatchMeta = { fields: { conditions } };

// batch/v1 JobSpec (podFailurePolicy and successPolicy have no tags), and
// CronJobSpec's JobTemplateSpec. CronJobStatus.active has none.
const jobTemplateSpec: PatchMeta = {
  fields: { metadata: nested(objectMeta), spec: nested(templated) },
};
const cronJobSpec: PatchMeta = { fields: { jobTemplate: nested(jobTemplateSpec) } };

// core/v1 ServiceSpec.ports merges by port (listMapKeys port and protocol).
const serviceSpec: PatchMeta = { fields: { ports: byKey('port') } };

// A top-level kind: ObjectMeta plus its own fields.
const kind = (fields: Record<string, FieldPatchMeta> = {}): PatchMeta => ({
  fields: { metadata: nested(objectMeta), ...fields },
});

// Keyed by `apiVersion/kind`. ConfigMap, Secret, both Events, Lease, Scale,
// Endpoints, EndpointSlice and the RBAC kinds have no tags beyond
// ObjectMeta's (their lists are atomic).
const kinds: ReadonlyMap<string, PatchMeta> = new Map([
  ['v1/Pod', kind({ spec: nested(podSpec), status: nested(podStatus) })],
  ['v1/Namespace', kind({ status: nested(namespaceStatus) })],
  ['v1/Node', kind({ spec: nested(nodeSpec), status: nested(nodeStatus) })],
  ['v1/ConfigMap', kind()],
  ['v1/Secret', kind()],
  ['v1/Event', kind()],
  ['events.k8s.io/v1/Event', kind()],
  ['coordination.k8s.io/v1/Lease', kind()],
  ['autoscaling/v1/Scale', kind()],
  ['apps/v1/Deployment', kind({ spec: nested(deploymentSpec), status: nested(deploymentStatus) })],
  ['apps/v1/ReplicaSet', kind({ spec: nested(replicaSetSpec), status: nested(replicaSetStatus) })],
  ['v1/Service', kind({ spec: nested(serviceSpec), status: nested(withConditions) })],
  ['v1/PersistentVolumeClaim', kind({ status: nested(withConditions) })],
  ['v1/PersistentVolume', kind()],
  ['apps/v1/DaemonSet', kind({ spec: nested(templated), status: nested(withConditions) })],
  ['apps/v1/StatefulSet', kind({ spec: nested(templated), status: nested(withConditions) })],
  ['apps/v1/ControllerRevision', kind()],
  ['batch/v1/Job', kind({ spec: nested(templated), status: nested(withConditions) })],
  ['batch/v1/CronJob', kind({ spec: nested(cronJobSpec) })],
  ['storage.k8s.io/v1/StorageClass', kind()],
  ['v1/Endpoints', kind()],
  ['discovery.k8s.io/v1/EndpointSlice', kind()],
  ['v1/ServiceAccount', kind({ secrets: byKey('name') })],
  ['v1/ReplicationController', kind({ spec: nested(templated), status: nested(withConditions) })],
  ['policy/v1/PodDisruptionBudget', kind({ status: nested(withConditions) })],
  ['rbac.authorization.k8s.io/v1/Role', kind()],
  ['rbac.authorization.k8s.io/v1/ClusterRole', kind()],
  ['rbac.authorization.k8s.io/v1/RoleBinding', kind()],
  ['rbac.authorization.k8s.io/v1/ClusterRoleBinding', kind()],
]);

/**
 * The strategic merge patch schema of a built-in kind, such as
 * `patchMetaForKind('apps/v1', 'Deployment')`, as kube-apiserver derives it
 * from the Go types of k8s.io/api v0.32.9. Knows v1 Pod, Namespace, Node,
 * ConfigMap, Secret, Event, Service, PersistentVolumeClaim and
 * PersistentVolume; apps/v1 Deployment, ReplicaSet, DaemonSet, StatefulSet
 * and ControllerRevision; batch/v1 Job and CronJob; coordination.k8s.io/v1
 * Lease; events.k8s.io/v1 Event; storage.k8s.io/v1 StorageClass;
 * autoscaling/v1 Scale; v1 Endpoints, ServiceAccount and
 * ReplicationController; discovery.k8s.io/v1 EndpointSlice; policy/v1
 * PodDisruptionBudget; rbac.authorization.k8s.io/v1 Role, ClusterRole,
 * RoleBinding and ClusterRoleBinding.
 *
 * @returns the schema, or `undefined` for any other kind (kube-apiserver
 *   answers a strategic merge patch to a custom resource with 415).
 *
 * @category Patches
 */
export function patchMetaForKind(apiVersion: string, kind: string): PatchMeta | undefined {
  return kinds.get(`${apiVersion}/${kind}`);
}
