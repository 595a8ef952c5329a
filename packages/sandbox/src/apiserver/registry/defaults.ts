import { type Obj, isObj, obj } from '../unstructured.js';
// Defaulting, as the API server applies it before validation: the generated
// defaulters of pkg/apis/apps/v1/defaults.go (SetDefaults_Deployment,
// SetDefaults_ReplicaSet, SetDefaults_DaemonSet, SetDefaults_StatefulSet),
// pkg/apis/batch/v1/defaults.go (SetDefaults_Job,
// SetDefaults_CronJob, SetDefaults_PodFailurePolicyOnPodConditionsPattern)
// and pkg/apis/core/v1/defaults.go (SetDefaults_ReplicationController, SetDefaults_PodSpec,
// SetDefaults_Container, SetDefaults_Probe, SetDefaults_ContainerPort). Objects
// are plain JSON, so these work on loose records and fill only what is unset.

function child(obj: Obj, key: string): Obj {
  const v = obj[key];
  if (isObj(v)) return v;
  const fresh: Obj = {};
  obj[key] = fresh;
  return fresh;
}

function setDefault(obj: Obj, key: string, value: unknown): void {
  if (obj[key] === undefined || obj[key] === null) obj[key] = value;
}

function imageTag(image: string): string | undefined {
  // The tag follows the last ':' after the last '/', unless pinned by digest.
  if (image.includes('@')) return undefined;
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash ? image.slice(colon + 1) : undefined;
}

function defaultProbe(probe: unknown): void {
  if (!isObj(probe)) return;
  setDefault(probe, 'timeoutSeconds', 1);
  setDefault(probe, 'periodSeconds', 10);
  setDefault(probe, 'successThreshold', 1);
  setDefault(probe, 'failureThreshold', 3);
}

function defaultContainer(c: unknown): void {
  if (!isObj(c)) return;
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  if (typeof c.image === 'string') {
    const tag = imageTag(c.image);
    setDefault(
      c,
      'imagePullPolicy',
      tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent',
    );
  }
  setDefault(c, 'resources', {});
  if (Array.isArray(c.ports))
    for (const p of c.ports) if (isObj(p)) setDefault(p, 'protocol', 'TCP');
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  // SetDefaults_ObjectFieldSelector: a fieldRef reads the v1 Pod.
  if (Array.isArray(c.env)) {
    for (const e of c.env) {
      if (isObj(e) && isObj(e.valueFrom) && isObj(e.valueFrom.fieldRef)) {
        setDefault(e.valueFrom.fieldRef, 'apiVersion', 'v1');
      }
    }
  }
}

/** Fills the defaults of a PodSpec. */
export function defaultPodSpec(spec: Obj): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  for (const list of ['containers', 'initContainers']) {
    const containers = spec[list];
    if (Array.isArray(containers)) containers.forEach(defaultContainer);
  }
}

function defaultPodTemplate(spec: Obj): void {
  const template = child(spec, 'template');
  // Go prints the zero time of an unset template creationTimestamp as null.
  const meta = child(template, 'metadata');
  if (!('creationTimestamp' in meta)) meta.creationTimestamp = null;
  defaultPodSpec(child(template, 'spec'));
}

/** Fills the defaults of an apps/v1 Deployment. */
export function defaultDeployment(obj: Obj): void {
  const spec = child(obj, 'spec');
  setDefault(spec, 'replicas', 1);
  const strategy = child(spec, 'strategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = child(strategy, 'rollingUpdate');
    setDefault(ru, 'maxUnavailable', '25%');
    setDefault(ru, 'maxSurge', '25%');
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  setDefault(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplate(spec);
}

/** Fills the defaults of an apps/v1 ReplicaSet. */
export function defaultReplicaSet(obj: Obj): void {
  const spec = child(obj, 'spec');
  setDefault(spec, 'replicas', 1);
  defaultPodTemplate(spec);
}

/**
 * Fills the defaults of a core/v1 ReplicationController
 * (SetDefaults_ReplicationController): with template labels, an empty
 * selector and empty object labels take them; replicas 1.
 */
export function defaultReplicationController(obj: Obj): void {
  const spec = child(obj, 'spec');
  const template = spec.template;
  const labels = isObj(template) && isObj(template.metadata) ? template.metadata.labels : undefined;
  if (isObj(labels)) {
    if (!isObj(spec.selector) || Object.keys(spec.selector).length === 0) {
      spec.selector = { ...labels };
    }
    const meta = child(obj, 'metadata');
    if (!isObj(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = { ...labels };
  }
  setDefault(spec, 'replicas', 1);
  // A core/v1 template is a pointer: only one that is there is defaulted.
  if (isObj(template)) defaultPodTemplate(spec);
}

/** Fills the defaults of a Pod, including those admission adds on a real cluster. */
export function defaultPod(obj: Obj): void {
  const spec = child(obj, 'spec');
  // SetDefaults_Pod (not templates): a resource with a limit and no request
  // requests its limit.
  for (const list of ['containers', 'initContainers']) {
    const containers = spec[list];
    if (!Array.isArray(containers)) continue;
    for (const c of containers) {
      if (!isObj(c) || !isObj(c.resources) || !isObj(c.resources.limits)) continue;
      const requests = child(c.resources, 'requests');
      for (const [k, v] of Object.entries(c.resources.limits)) {
        if (!Object.hasOwn(requests, k)) requests[k] = v;
      }
    }
  }
  defaultPodSpec(spec);
  setDefault(spec, 'enableServiceLinks', true);
  setDefault(spec, 'priority', 0);
  setDefault(spec, 'preemptionPolicy', 'PreemptLowerPriority');
  setDefault(spec, 'serviceAccountName', 'default');
}

const maxInt32 = 2 ** 31 - 1;

/**
 * Fills the defaults of a batch/v1 JobSpec: completions and parallelism 1
 * when neither is set, parallelism 1, backoffLimit 6 (or no limit beside a
 * per-index one), NonIndexed completion, not suspended, the pod replacement
 * policy that fits the failure policy, no manual selector; and those of its
 * pod template.
 */
function defaultJobSpec(spec: Obj): void {
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, 'parallelism', 1);
  setDefault(spec, 'backoffLimit', spec.backoffLimitPerIndex != null ? maxInt32 : 6);
  setDefault(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  defaultPodFailurePolicyConditions(spec);
  setDefault(
    spec,
    'podReplacementPolicy',
    spec.podFailurePolicy != null ? 'Failed' : 'TerminatingOrFailed',
  );
  setDefault(spec, 'manualSelector', false);
  defaultPodTemplate(spec);
}

/** Fills the defaults of a batch/v1 Job; its labels are its template's when it has none. */
export function defaultJob(obj: Obj): void {
  const spec = child(obj, 'spec');
  defaultJobSpec(spec);
  copyTemplateLabels(obj);
}

/**
 * SetDefaults_Job's last step, which kube-apiserver also applies when it
 * reads a Job back from storage: a Job without labels takes its template's
 * (the selector labels generated at create included).
 */
export function copyTemplateLabels(job: Obj): void {
  const meta = child(job, 'metadata');
  const labels = obj(obj(obj(job.spec).template).metadata).labels;
  const own = meta.labels;
  if (isObj(labels) && (!isObj(own) || Object.keys(own).length === 0)) meta.labels = { ...labels };
}

/**
 * Fills the defaults of a batch/v1 CronJob: concurrency Allow, not
 * suspended, 3 successful and 1 failed Jobs kept; and those of the pod
 * template of its Job template (not of the JobSpec itself, which has no
 * defaulter of its own).
 */
export function defaultCronJob(obj: Obj): void {
  const spec = child(obj, 'spec');
  if (spec.concurrencyPolicy === undefined || spec.concurrencyPolicy === '') {
    spec.concurrencyPolicy = 'Allow';
  }
  setDefault(spec, 'suspend', false);
  setDefault(spec, 'successfulJobsHistoryLimit', 3);
  setDefault(spec, 'failedJobsHistoryLimit', 1);
  const jobSpec = child(child(spec, 'jobTemplate'), 'spec');
  defaultPodFailurePolicyConditions(jobSpec);
  defaultPodTemplate(jobSpec);
}

function defaultPodFailurePolicyConditions(spec: Obj): void {
  const policy = spec.podFailurePolicy;
  if (!isObj(policy) || !Array.isArray(policy.rules)) return;
  for (const rule of policy.rules) {
    if (!isObj(rule) || !Array.isArray(rule.onPodConditions)) continue;
    for (const pattern of rule.onPodConditions) {
      if (isObj(pattern) && (pattern.status === undefined || pattern.status === '')) {
        pattern.status = 'True';
      }
    }
  }
}

/**
 * Fills the defaults of a core/v1 PersistentVolumeClaim spec: the
 * Filesystem volume mode. SetDefaults_PersistentVolumeClaimSpec.
 */
export function defaultPersistentVolumeClaimSpec(spec: Obj): void {
  setDefault(spec, 'volumeMode', 'Filesystem');
}

/**
 * Fills the defaults of an apps/v1 DaemonSet: a RollingUpdate strategy with
 * maxUnavailable 1 and maxSurge 0, 10 revisions kept; and those of its pod
 * template. SetDefaults_DaemonSet.
 */
export function defaultDaemonSet(obj: Obj): void {
  const spec = child(obj, 'spec');
  const strategy = child(spec, 'updateStrategy');
  if (strategy.type === undefined || strategy.type === '') strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = child(strategy, 'rollingUpdate');
    setDefault(ru, 'maxUnavailable', 1);
    setDefault(ru, 'maxSurge', 0);
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(spec);
}

/**
 * Fills the defaults of an apps/v1 StatefulSet: OrderedReady pods, a
 * RollingUpdate strategy at partition 0, claims retained when the set is
 * deleted or scaled, 1 replica, 10 revisions kept; those of its pod
 * template and of each volume claim template (a Pending claim of
 * Filesystem volume mode, its apiVersion and kind written out as the API
 * returns embedded objects). SetDefaults_StatefulSet and
 * SetDefaults_PersistentVolumeClaim.
 */
export function defaultStatefulSet(obj: Obj): void {
  const spec = child(obj, 'spec');
  if (spec.podManagementPolicy === undefined || spec.podManagementPolicy === '') {
    spec.podManagementPolicy = 'OrderedReady';
  }
  const strategy = child(spec, 'updateStrategy');
  if (strategy.type === undefined || strategy.type === '') {
    strategy.type = 'RollingUpdate';
    setDefault(strategy, 'rollingUpdate', {});
  }
  if (strategy.type === 'RollingUpdate' && isObj(strategy.rollingUpdate)) {
    setDefault(strategy.rollingUpdate, 'partition', 0);
  }
  const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
  if (!retention.whenDeleted) retention.whenDeleted = 'Retain';
  if (!retention.whenScaled) retention.whenScaled = 'Retain';
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(spec);
  if (Array.isArray(spec.volumeClaimTemplates)) {
    for (const claim of spec.volumeClaimTemplates) {
      if (!isObj(claim)) continue;
      setDefault(claim, 'apiVersion', 'v1');
      setDefault(claim, 'kind', 'PersistentVolumeClaim');
      const meta = child(claim, 'metadata');
      if (!('creationTimestamp' in meta)) meta.creationTimestamp = null;
      defaultPersistentVolumeClaimSpec(child(claim, 'spec'));
      const status = child(claim, 'status');
      setDefault(status, 'phase', 'Pending');
    }
  }
}
