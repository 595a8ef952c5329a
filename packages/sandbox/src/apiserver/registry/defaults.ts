import { type Obj, isObj } from '../unstructured.js';
// Defaulting, as the API server applies it before validation: the generated
// defaulters of pkg/apis/apps/v1/defaults.go (SetDefaults_Deployment,
// SetDefaults_ReplicaSet) and pkg/apis/core/v1/defaults.go (SetDefaults_PodSpec,
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

/** Fills the defaults of a Pod, including those admission adds on a real cluster. */
export function defaultPod(obj: Obj): void {
  const spec = child(obj, 'spec');
  defaultPodSpec(spec);
  setDefault(spec, 'enableServiceLinks', true);
  setDefault(spec, 'priority', 0);
  setDefault(spec, 'preemptionPolicy', 'PreemptLowerPriority');
  setDefault(spec, 'serviceAccountName', 'default');
}
