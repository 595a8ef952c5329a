// What differs between kinds when the registry creates, updates and deletes
// them: kube-apiserver's REST strategies (pkg/registry/<group>/<kind>/strategy.go,
// PrepareForCreate, PrepareForUpdate, Validate, AllowCreateOnUpdate,
// AllowUnconditionalUpdate, GetAttrs/ToSelectableFields) and storage options
// (ReturnDeletedObject, graceful deletion for pods).
import {
  defaultCronJob,
  defaultDaemonSet,
  defaultDeployment,
  defaultJob,
  defaultPod,
  defaultReplicaSet,
  defaultReplicationController,
  defaultStatefulSet,
} from './defaults.js';
import {
  validateControllerRevision,
  validateControllerRevisionUpdate,
  validateDaemonSet,
  validateDaemonSetStatusUpdate,
  validateStatefulSet,
  validateStatefulSetStatusUpdate,
  validateStatefulSetUpdate,
} from './apps/validation.js';
import { sameJSON } from './semantic-equality.js';
import {
  jobSelectableFields,
  prepareCronJobForCreate,
  prepareJobForCreate,
} from './batch/storage.js';
import {
  validateCronJobSpec,
  validateJob,
  validateJobStatusUpdate,
  validateJobUpdate,
} from './batch/validation.js';
import {
  defaultEndpointSlice,
  defaultEndpoints,
  validateEndpointSlice,
  validateEndpointSliceUpdate,
  validateEndpoints,
} from './endpoints/validation.js';
import { forbidden, invalid, plain } from './field-errors.js';
import {
  defaultPersistentVolume,
  defaultPersistentVolumeClaim,
  defaultStorageClass,
  preparePersistentVolumeClaimForCreate,
  preparePersistentVolumeForCreate,
} from './volumes/storage.js';
import {
  validatePersistentVolume,
  validatePersistentVolumeClaim,
  validatePersistentVolumeClaimUpdate,
  validatePersistentVolumeUpdate,
  validateStorageClass,
  validateStorageClassUpdate,
} from './volumes/validation.js';
import {
  validateReplicationController,
  validateReplicationControllerStatusUpdate,
} from './core/replication-controller.js';
import {
  validatePodDisruptionBudget,
  validatePodDisruptionBudgetStatusUpdate,
} from './policy/validation.js';
import {
  defaultBinding,
  rbacNameProblems,
  validateBindingUpdate,
  validateClusterRole,
  validateClusterRoleBinding,
  validateRole,
  validateRoleBinding,
} from './rbac/validation.js';
import { allocateService, defaultService, initialServiceStatus } from './service/storage.js';
import { isDNS1035Label, validateService, validateServiceUpdate } from './service/validation.js';
import type { FieldError } from './field-errors.js';
import {
  validateConfigMap,
  validateDeployment,
  validateLease,
  validateObjectMeta,
  validatePod,
  validateReplicaSet,
  validateSecretData,
  validateSelectorImmutable,
} from './validation.js';
import { type Obj, obj } from '../unstructured.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Per-kind rules the generic registry consults. */
export interface Strategy {
  /** Names must be DNS-1123 labels (namespaces) rather than subdomains. */
  readonly nameIsLabel: boolean;
  /** The kind's own name rule, when it is neither (Services: DNS-1035 labels). */
  readonly checkName?: (name: string) => string[];
  /** The kind has `metadata.generation`, set to 1 on create. */
  readonly hasGeneration: boolean;
  /** Annotation changes bump generation too (Deployments). */
  readonly generationOnAnnotations: boolean;
  /**
   * What bumps the generation: `spec` changes (the default), or `content`:
   * any change outside metadata, and label changes (EndpointSlices, which
   * have no spec).
   */
  readonly generationOn?: 'spec' | 'content';
  /** Writes to the main resource keep the stored status; `/status` writes keep the stored spec. */
  readonly statusSubresource: boolean;
  /** `/status` writes also keep the stored labels (Deployments). */
  readonly statusKeepsLabels: boolean;
  /** A PUT of a missing object creates it (Leases). */
  readonly allowCreateOnUpdate: boolean;
  /** A PUT without `metadata.resourceVersion` is accepted (last write wins). */
  readonly allowUnconditionalUpdate: boolean;
  /** An immediate delete answers with the deleted object rather than a Status (Pods). */
  readonly returnDeletedObject: boolean;
  /** Fields that must be MicroTime (six fractional digits), as paths. */
  readonly microTimeFields: readonly (readonly string[])[];
  /** Defaults and status reset on create. */
  prepareForCreate(o: Obj): void;
  /** Defaults on update (the same defaulting runs on every write). */
  prepareForUpdate(o: Obj, old: Obj): void;
  /**
   * Validation of the whole object, after defaulting; on an update `old` is
   * the stored object (some rules depend on what was there).
   */
  validate(o: Obj, old?: Obj): FieldError[];
  /** Extra validation of an update. */
  validateUpdate(next: Obj, old: Obj): FieldError[];
  /**
   * Validation of a `/status` write instead of the kind's own (its status
   * strategy's ValidateUpdate); when unset, status writes are validated as
   * any update.
   */
  validateStatusUpdate?(next: Obj, old: Obj): FieldError[];
  /**
   * A delete that names no propagation policy (and finds no garbage
   * collector finalizer) orphans the dependents: the strategy's
   * DefaultGarbageCollectionPolicy is OrphanDependents, as batch/v1 Jobs'.
   */
  readonly orphanDependentsByDefault?: boolean;
  /** The fields a field selector may use besides `metadata.name` and `metadata.namespace`. */
  selectableFields(o: Obj): Record<string, string>;
  /** The default grace period of a delete, in seconds; undefined for kinds deleted at once. */
  gracePeriod(o: Obj): number | undefined;
  /**
   * Hands out what the kind allocates before it is validated (Service
   * ClusterIPs and NodePorts), given every stored object of its storage and
   * the stored version on an update; returns the allocation errors.
   */
  allocate?(
    o: Obj,
    old: Obj | undefined,
    stored: readonly Obj[],
    random: () => number,
  ): FieldError[];
}

const base: Strategy = {
  nameIsLabel: false,
  hasGeneration: false,
  generationOnAnnotations: false,
  statusSubresource: false,
  statusKeepsLabels: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  microTimeFields: [],
  prepareForCreate: () => undefined,
  prepareForUpdate: () => undefined,
  validate: () => [],
  validateUpdate: () => [],
  selectableFields: () => ({}),
  gracePeriod: () => undefined,
};

function podQOSClass(pod: Obj): string {
  // pkg/apis/core/v1/helper/qos/qos.go, GetPodQOS (requests and limits of cpu and memory).
  const containers = [
    ...(Array.isArray(obj(pod.spec).containers) ? (obj(pod.spec).containers as unknown[]) : []),
    ...(Array.isArray(obj(pod.spec).initContainers)
      ? (obj(pod.spec).initContainers as unknown[])
      : []),
  ].map(obj);
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const res = obj(c.resources);
    const requests = obj(res.requests);
    const limits = obj(res.limits);
    for (const r of ['cpu', 'memory']) {
      if (requests[r] !== undefined || limits[r] !== undefined) any = true;
      if (limits[r] === undefined) guaranteed = false;
      else if (requests[r] !== undefined && plain(requests[r]) !== plain(limits[r])) {
        guaranteed = false;
      }
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

const namespaces: Strategy = {
  ...base,
  nameIsLabel: true,
  statusSubresource: true,
  prepareForCreate(o) {
    const meta = obj(o.metadata);
    meta.labels = { ...obj(meta.labels), 'kubernetes.io/metadata.name': str(meta.name) };
    o.metadata = meta;
    const spec = obj(o.spec);
    if (!Array.isArray(spec.finalizers)) spec.finalizers = ['kubernetes'];
    o.spec = spec;
    o.status = { phase: 'Active' };
  },
  prepareForUpdate(o) {
    const meta = obj(o.metadata);
    meta.labels = { ...obj(meta.labels), 'kubernetes.io/metadata.name': str(meta.name) };
    o.metadata = meta;
  },
  selectableFields: (o) => ({ 'status.phase': str(obj(o.status).phase) }),
  // ValidateNamespaceStatusUpdate: the phase follows the deletionTimestamp.
  validateStatusUpdate(next) {
    // An empty phase is defaulted to Active (SetDefaults_NamespaceStatus).
    const phase = obj(next.status).phase ?? 'Active';
    if (obj(next.metadata).deletionTimestamp === undefined) {
      return phase === 'Active'
        ? []
        : [invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
    }
    return phase === 'Terminating'
      ? []
      : [
          invalid(
            'status.Phase',
            phase,
            "may only be 'Terminating' if `deletionTimestamp` is not empty",
          ),
        ];
  },
};

const pods: Strategy = {
  ...base,
  statusSubresource: true,
  returnDeletedObject: true,
  prepareForCreate(o) {
    defaultPod(o);
    o.status = { phase: 'Pending', qosClass: podQOSClass(o) };
  },
  prepareForUpdate: (o) => defaultPod(o),
  validate: validatePod,
  selectableFields(o) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    return {
      'spec.nodeName': str(spec.nodeName),
      'spec.restartPolicy': str(spec.restartPolicy),
      'spec.schedulerName': str(spec.schedulerName),
      'spec.serviceAccountName': str(spec.serviceAccountName),
      'spec.hostNetwork': String(spec.hostNetwork === true),
      'status.phase': str(status.phase),
      'status.podIP': str(status.podIP),
      'status.nominatedNodeName': str(status.nominatedNodeName),
    };
  },
  gracePeriod(o) {
    // pkg/registry/core/pod/strategy.go, CheckGracefulDelete: unscheduled and
    // finished pods go at once.
    const spec = obj(o.spec);
    const phase = str(obj(o.status).phase);
    if (!str(spec.nodeName) || phase === 'Succeeded' || phase === 'Failed') return 0;
    const grace = spec.terminationGracePeriodSeconds;
    return typeof grace === 'number' ? grace : 30;
  },
};

const deployments: Strategy = {
  ...base,
  hasGeneration: true,
  generationOnAnnotations: true,
  statusSubresource: true,
  statusKeepsLabels: true,
  prepareForCreate(o) {
    defaultDeployment(o);
    o.status = {};
  },
  prepareForUpdate: (o) => defaultDeployment(o),
  validate: validateDeployment,
  validateUpdate: validateSelectorImmutable,
};

const replicasets: Strategy = {
  ...base,
  hasGeneration: true,
  statusSubresource: true,
  prepareForCreate(o) {
    defaultReplicaSet(o);
    o.status = { replicas: 0 };
  },
  prepareForUpdate: (o) => defaultReplicaSet(o),
  validate: validateReplicaSet,
  validateUpdate: validateSelectorImmutable,
  selectableFields: (o) => ({ 'status.replicas': plain(obj(o.status).replicas ?? 0) }),
};

// The apps/v1 form of the internal spec.templateGeneration
// (pkg/apis/apps/v1/conversion.go), which pod-template-generation labels follow.
const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';

function setTemplateGeneration(o: Obj, generation: number): void {
  const meta = obj(o.metadata);
  meta.annotations = {
    ...obj(meta.annotations),
    [templateGenerationAnnotation]: String(generation),
  };
  o.metadata = meta;
}

// pkg/registry/apps/daemonset/strategy.go: templateGeneration starts at 1
// and moves on with every change of the pod template.
const daemonsets: Strategy = {
  ...base,
  hasGeneration: true,
  statusSubresource: true,
  prepareForCreate(o) {
    defaultDaemonSet(o);
    setTemplateGeneration(o, 1);
    o.status = {
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    };
  },
  prepareForUpdate(o, old) {
    defaultDaemonSet(o);
    const before = Number(obj(obj(old.metadata).annotations)[templateGenerationAnnotation] ?? 1);
    const changed = !sameJSON(obj(o.spec).template ?? null, obj(old.spec).template ?? null);
    setTemplateGeneration(o, changed ? before + 1 : before);
  },
  validate: validateDaemonSet,
  validateUpdate: validateSelectorImmutable,
  validateStatusUpdate: validateDaemonSetStatusUpdate,
};

// pkg/registry/apps/statefulset/strategy.go; names are DNS labels, since
// each pod is named `<set>-<ordinal>` and keeps the set's name as hostname.
const statefulsets: Strategy = {
  ...base,
  nameIsLabel: true,
  hasGeneration: true,
  statusSubresource: true,
  prepareForCreate(o) {
    defaultStatefulSet(o);
    o.status = { replicas: 0, availableReplicas: 0 };
  },
  prepareForUpdate: (o) => defaultStatefulSet(o),
  validate: validateStatefulSet,
  validateUpdate: (next, old) => [
    ...validateSelectorImmutable(next, old),
    ...validateStatefulSetUpdate(next, old),
  ],
  validateStatusUpdate: validateStatefulSetStatusUpdate,
};

const controllerrevisions: Strategy = {
  ...base,
  validate: validateControllerRevision,
  validateUpdate: validateControllerRevisionUpdate,
};

const leases: Strategy = {
  ...base,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  microTimeFields: [
    ['spec', 'acquireTime'],
    ['spec', 'renewTime'],
  ],
  validate: validateLease,
};

const coreEvents: Strategy = {
  ...base,
  microTimeFields: [['eventTime'], ['series', 'lastObservedTime']],
  selectableFields(o) {
    const io = obj(o.involvedObject);
    const source = obj(o.source);
    return {
      'involvedObject.kind': str(io.kind),
      'involvedObject.namespace': str(io.namespace),
      'involvedObject.name': str(io.name),
      'involvedObject.uid': str(io.uid),
      'involvedObject.apiVersion': str(io.apiVersion),
      'involvedObject.resourceVersion': str(io.resourceVersion),
      'involvedObject.fieldPath': str(io.fieldPath),
      reason: str(o.reason),
      reportingComponent: str(o.reportingComponent),
      source: str(source.component),
      type: str(o.type),
    };
  },
};

// ValidateNodeUpdate: a node's pod CIDRs are set once, from empty; the node
// IPAM controller relies on it (a second allocation's patch is refused and
// its block given back).
function validateNodeUpdate(next: Obj, old: Obj): FieldError[] {
  const before = obj(old.spec);
  const after = obj(next.spec);
  const errs: FieldError[] = [];
  const message = 'node updates may not change podCIDR except from "" to valid';
  if (before.podCIDR && after.podCIDR !== before.podCIDR) {
    errs.push(forbidden('spec.podCIDR', message));
  }
  const oldCIDRs = Array.isArray(before.podCIDRs) ? before.podCIDRs : [];
  if (oldCIDRs.length > 0 && !sameJSON(after.podCIDRs, before.podCIDRs)) {
    errs.push(forbidden('spec.podCIDRs', message));
  }
  return errs;
}

const nodes: Strategy = {
  ...base,
  statusSubresource: true,
  validateUpdate: validateNodeUpdate,
  selectableFields: (o) => ({ 'spec.unschedulable': String(obj(o.spec).unschedulable === true) }),
};

/**
 * A Secret as stored: type Opaque by default, and `stringData` (write-only)
 * merged into `data` as base64, overriding keys it shares with it, as the
 * v1 to internal conversion does (Convert_v1_Secret_To_core_Secret). Values
 * that are not strings were refused when the body was decoded.
 */
function prepareSecret(o: Obj): void {
  if (typeof o.type !== 'string' || o.type === '') o.type = 'Opaque';
  if (o.stringData === undefined || o.stringData === null) {
    delete o.stringData;
    return;
  }
  const data = { ...obj(o.data) };
  for (const [key, value] of Object.entries(obj(o.stringData))) {
    if (typeof value === 'string')
      data[key] = btoa(
        Array.from(new TextEncoder().encode(value), (b) => String.fromCharCode(b)).join(''),
      );
  }
  o.data = data;
  delete o.stringData;
}

const secrets: Strategy = {
  ...base,
  prepareForCreate: prepareSecret,
  prepareForUpdate: prepareSecret,
  validate: validateSecretData,
  selectableFields: (o) => ({ type: str(o.type) }),
};

const services: Strategy = {
  ...base,
  checkName: isDNS1035Label,
  statusSubresource: true,
  prepareForCreate(o) {
    defaultService(o);
    o.status = initialServiceStatus();
  },
  prepareForUpdate: defaultService,
  validate: validateService,
  validateUpdate: validateServiceUpdate,
  allocate: allocateService,
};

const jobs: Strategy = {
  ...base,
  hasGeneration: true,
  statusSubresource: true,
  prepareForCreate: prepareJobForCreate,
  prepareForUpdate: (o) => defaultJob(o),
  validate: (o, old) => validateJob(o, old),
  validateUpdate: validateJobUpdate,
  validateStatusUpdate: validateJobStatusUpdate,
  selectableFields: jobSelectableFields,
  orphanDependentsByDefault: true,
};

const cronjobs: Strategy = {
  ...base,
  hasGeneration: true,
  statusSubresource: true,
  prepareForCreate: prepareCronJobForCreate,
  prepareForUpdate: (o) => defaultCronJob(o),
  validate: (o, old) => validateCronJobSpec(o, old),
};

// pkg/registry/core/persistentvolumeclaim/strategy.go; the admission
// plugins (admission/storage.ts) have named the class and put the
// protection finalizer on by then.
const persistentvolumeclaims: Strategy = {
  ...base,
  statusSubresource: true,
  prepareForCreate: preparePersistentVolumeClaimForCreate,
  prepareForUpdate: (o) => defaultPersistentVolumeClaim(o),
  validate: validatePersistentVolumeClaim,
  validateUpdate: validatePersistentVolumeClaimUpdate,
  validateStatusUpdate: () => [],
};

// pkg/registry/core/persistentvolume/strategy.go.
const persistentvolumes: Strategy = {
  ...base,
  statusSubresource: true,
  prepareForCreate: preparePersistentVolumeForCreate,
  prepareForUpdate: (o) => defaultPersistentVolume(o),
  validate: validatePersistentVolume,
  validateUpdate: validatePersistentVolumeUpdate,
  validateStatusUpdate: () => [],
};

// pkg/registry/storage/storageclass/strategy.go.
const storageclasses: Strategy = {
  ...base,
  prepareForCreate: defaultStorageClass,
  prepareForUpdate: (o) => defaultStorageClass(o),
  validate: validateStorageClass,
  validateUpdate: validateStorageClassUpdate,
};

// pkg/registry/core/endpoint/strategy.go.
const endpoints: Strategy = {
  ...base,
  prepareForCreate: defaultEndpoints,
  prepareForUpdate: (o) => defaultEndpoints(o),
  validate: validateEndpoints,
};

// pkg/registry/discovery/endpointslice/strategy.go; a slice has a
// generation, bumped by any change outside metadata or to its labels
// (PrepareForUpdate), which the EndpointSlice controller's tracker reads.
const endpointslices: Strategy = {
  ...base,
  hasGeneration: true,
  generationOn: 'content',
  prepareForCreate: defaultEndpointSlice,
  prepareForUpdate: (o) => defaultEndpointSlice(o),
  validate: validateEndpointSlice,
  validateUpdate: validateEndpointSliceUpdate,
};

// pkg/registry/core/replicationcontroller/strategy.go: a generation, the
// status kept apart, the selector a plain map that may change.
const replicationcontrollers: Strategy = {
  ...base,
  hasGeneration: true,
  statusSubresource: true,
  prepareForCreate(o) {
    defaultReplicationController(o);
    o.status = { replicas: 0 };
  },
  prepareForUpdate: (o) => defaultReplicationController(o),
  validate: validateReplicationController,
  validateStatusUpdate: validateReplicationControllerStatusUpdate,
  selectableFields: (o) => ({ 'status.replicas': plain(obj(o.status).replicas ?? 0) }),
};

// pkg/registry/policy/poddisruptionbudget/strategy.go: a generation that
// spec changes move on, and a status only the disruption controller (and
// the eviction subresource) writes. Go writes the status counts even at 0.
const poddisruptionbudgets: Strategy = {
  ...base,
  hasGeneration: true,
  statusSubresource: true,
  prepareForCreate(o) {
    o.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  },
  validate: validatePodDisruptionBudget,
  validateStatusUpdate: validatePodDisruptionBudgetStatusUpdate,
};

// pkg/registry/rbac/*/strategy.go: names are path segments, bindings keep
// their roleRef.
const rbacBase: Strategy = { ...base, checkName: rbacNameProblems };
const rbacBinding = (validate: Strategy['validate']): Strategy => ({
  ...rbacBase,
  prepareForCreate: defaultBinding,
  prepareForUpdate: (o) => defaultBinding(o),
  validate,
  validateUpdate: validateBindingUpdate,
});

const strategies: Record<string, Strategy> = {
  namespaces,
  pods,
  configmaps: { ...base, validate: validateConfigMap },
  secrets,
  events: coreEvents,
  nodes,
  services,
  endpoints,
  persistentvolumeclaims,
  persistentvolumes,
  serviceaccounts: base,
  replicationcontrollers,
  'poddisruptionbudgets.policy': poddisruptionbudgets,
  'roles.rbac.authorization.k8s.io': { ...rbacBase, validate: validateRole },
  'clusterroles.rbac.authorization.k8s.io': { ...rbacBase, validate: validateClusterRole },
  'rolebindings.rbac.authorization.k8s.io': rbacBinding(validateRoleBinding),
  'clusterrolebindings.rbac.authorization.k8s.io': rbacBinding(validateClusterRoleBinding),
  'deployments.apps': deployments,
  'replicasets.apps': replicasets,
  'daemonsets.apps': daemonsets,
  'statefulsets.apps': statefulsets,
  'controllerrevisions.apps': controllerrevisions,
  'jobs.batch': jobs,
  'cronjobs.batch': cronjobs,
  'leases.coordination.k8s.io': leases,
  'storageclasses.storage.k8s.io': storageclasses,
  'endpointslices.discovery.k8s.io': endpointslices,
};

/** The strategy of a storage (see `ResourceInfo.storage`). */
export function strategyFor(storage: string): Strategy {
  return strategies[storage] ?? base;
}

/** Metadata validation plus the kind's own. */
export function validateObject(strategy: Strategy, o: Obj, old?: Obj): FieldError[] {
  return [
    ...validateObjectMeta(obj(o.metadata), strategy.nameIsLabel, strategy.checkName),
    ...strategy.validate(o, old),
  ];
}
