// What a DaemonSet's pods look like and which one is current:
// pkg/controller/daemon/util/daemonset_util.go (GetTemplateGeneration,
// AddOrUpdateDaemonPodTolerations, CreatePodTemplate, AllowsSurge,
// SurgeCount, UnavailableCount, IsPodUpdated,
// ReplaceDaemonSetPodNodeNameNodeAffinity, GetTargetNodeName), with
// pkg/apis/core/v1/helper's AddOrUpdateTolerationInPodSpec, core/v1's
// Toleration.MatchToleration, and k8s.io/apimachinery's
// intstr.GetScaledValueFromIntOrPercent for maxSurge and maxUnavailable.
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type {
  Affinity,
  NodeSelectorRequirement,
  Pod,
  PodSpec,
  PodTemplateSpec,
  Toleration,
} from 'kubernetes-types/core/v1.js';

/**
 * The label on every pod and ControllerRevision of a DaemonSet that names
 * the revision of its template (`controller-revision-hash`): Go's
 * `apps.DefaultDaemonSetUniqueLabelKey`, which is
 * `apps.ControllerRevisionHashLabelKey`.
 *
 * @category DaemonSet util
 */
export const controllerRevisionHashLabelKey = 'controller-revision-hash';

/**
 * The label that gave a pod its DaemonSet's template generation before
 * revisions had hashes (`pod-template-generation`): Go's
 * `extensions.DaemonSetTemplateGenerationKey`, still written for old
 * clients.
 *
 * @category DaemonSet util
 */
export const daemonSetTemplateGenerationKey = 'pod-template-generation';

/**
 * The annotation of a DaemonSet holding its template generation
 * (`deprecated.daemonset.template.generation`), set by the API server on
 * each template change: Go's `apps.DeprecatedTemplateGeneration`.
 *
 * @category DaemonSet util
 */
export const deprecatedTemplateGenerationAnnotation = 'deprecated.daemonset.template.generation';

/** The taint keys of k8s.io/api/core/v1's well_known_taints.go that DaemonSet pods tolerate. */
export const taintNodeNotReady = 'node.kubernetes.io/not-ready';
/** The node controller's taint of a node it cannot reach. */
export const taintNodeUnreachable = 'node.kubernetes.io/unreachable';
/** The taint of a node under disk pressure. */
export const taintNodeDiskPressure = 'node.kubernetes.io/disk-pressure';
/** The taint of a node under memory pressure. */
export const taintNodeMemoryPressure = 'node.kubernetes.io/memory-pressure';
/** The taint of a node under process id pressure. */
export const taintNodePIDPressure = 'node.kubernetes.io/pid-pressure';
/** The taint of a cordoned node (`spec.unschedulable`). */
export const taintNodeUnschedulable = 'node.kubernetes.io/unschedulable';
/** The taint of a node whose network is not configured yet. */
export const taintNodeNetworkUnavailable = 'node.kubernetes.io/network-unavailable';

const int64Pattern = /^[+-]?[0-9]+$/;

/**
 * The template generation in the DaemonSet's
 * `deprecated.daemonset.template.generation` annotation: `undefined` when
 * there is none. Go's `GetTemplateGeneration`.
 *
 * @throws Error when the annotation is not a base-10 int64
 * @category DaemonSet util
 */
export function getTemplateGeneration(ds: DaemonSet): bigint | undefined {
  const annotation = ds.metadata?.annotations?.[deprecatedTemplateGenerationAnnotation];
  if (annotation === undefined) return undefined;
  if (!int64Pattern.test(annotation)) {
    throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(annotation)}: invalid syntax`);
  }
  const n = BigInt(annotation);
  if (n < -(2n ** 63n) || n >= 2n ** 63n) {
    throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(annotation)}: value out of range`);
  }
  return n;
}

/** {@link getTemplateGeneration}, with `undefined` for an annotation that does not parse (the controller then relies on the hash). */
export function templateGenerationOrUndefined(ds: DaemonSet): bigint | undefined {
  try {
    return getTemplateGeneration(ds);
  } catch {
    return undefined;
  }
}

/** Same key, operator, value and effect: core/v1's `Toleration.MatchToleration`. */
function matchToleration(a: Toleration, b: Toleration): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') &&
    (a.effect ?? '') === (b.effect ?? '') &&
    (a.operator ?? '') === (b.operator ?? '') &&
    (a.value ?? '') === (b.value ?? '')
  );
}

function sameToleration(a: Toleration, b: Toleration): boolean {
  return matchToleration(a, b) && (a.tolerationSeconds ?? null) === (b.tolerationSeconds ?? null);
}

/**
 * Adds `toleration` to the spec's tolerations, replacing one with the same
 * key, operator, value and effect; returns false when an identical one is
 * there already. Go's `AddOrUpdateTolerationInPodSpec`.
 */
function addOrUpdateTolerationInPodSpec(spec: PodSpec, toleration: Toleration): boolean {
  const next: Toleration[] = [];
  let updated = false;
  for (const t of spec.tolerations ?? []) {
    if (matchToleration(toleration, t)) {
      if (sameToleration(toleration, t)) return false;
      next.push({ ...toleration });
      updated = true;
      continue;
    }
    next.push(t);
  }
  if (!updated) next.push({ ...toleration });
  spec.tolerations = next;
  return true;
}

//#region daemon-tolerations
/**
 * Adds (in place) the tolerations every DaemonSet pod gets: `Exists` for
 * the not-ready and unreachable `NoExecute` taints (so the node lifecycle
 * controller never evicts them), and for the disk-pressure,
 * memory-pressure, pid-pressure and unschedulable `NoSchedule` taints;
 * network-unavailable `NoSchedule` too for a pod on the host network. Go's
 * `AddOrUpdateDaemonPodTolerations`.
 *
 * @category DaemonSet util
 */
export function addOrUpdateDaemonPodTolerations(spec: PodSpec): void {
  const exists = (key: string, effect: string): Toleration => ({
    key,
    operator: 'Exists',
    effect,
  });
  addOrUpdateTolerationInPodSpec(spec, exists(taintNodeNotReady, 'NoExecute'));
  addOrUpdateTolerationInPodSpec(spec, exists(taintNodeUnreachable, 'NoExecute'));
  addOrUpdateTolerationInPodSpec(spec, exists(taintNodeDiskPressure, 'NoSchedule'));
  addOrUpdateTolerationInPodSpec(spec, exists(taintNodeMemoryPressure, 'NoSchedule'));
  addOrUpdateTolerationInPodSpec(spec, exists(taintNodePIDPressure, 'NoSchedule'));
  addOrUpdateTolerationInPodSpec(spec, exists(taintNodeUnschedulable, 'NoSchedule'));
  if (spec.hostNetwork === true) {
    addOrUpdateTolerationInPodSpec(spec, exists(taintNodeNetworkUnavailable, 'NoSchedule'));
  }
}
//#endregion daemon-tolerations

/**
 * A copy of `template` with the daemon tolerations added, the
 * `pod-template-generation` label when `generation` is given and the
 * `controller-revision-hash` label when `hash` is not empty. Go's
 * `CreatePodTemplate`.
 *
 * @category DaemonSet util
 */
export function createPodTemplate(
  template: PodTemplateSpec | undefined,
  generation: bigint | undefined,
  hash: string,
): PodTemplateSpec {
  const copy: PodTemplateSpec = structuredClone(template ?? {});
  copy.spec ??= { containers: [] };
  addOrUpdateDaemonPodTolerations(copy.spec);
  copy.metadata ??= {};
  copy.metadata.labels = { ...copy.metadata.labels };
  if (generation !== undefined) {
    copy.metadata.labels[daemonSetTemplateGenerationKey] = generation.toString();
  }
  if (hash !== '') copy.metadata.labels[controllerRevisionHashLabelKey] = hash;
  return copy;
}

/**
 * A count or a percentage of `total` (rounded up or down): Go's
 * `intstr.GetScaledValueFromIntOrPercent`.
 *
 * @throws Error when the value is missing or a string that is not `<int>%`
 */
export function getScaledValueFromIntOrPercent(
  intOrPercent: number | string | null | undefined,
  total: number,
  roundUp: boolean,
): number {
  if (intOrPercent === null || intOrPercent === undefined) {
    throw new Error('nil value for IntOrString');
  }
  if (typeof intOrPercent === 'number') return Math.trunc(intOrPercent);
  if (!intOrPercent.endsWith('%')) {
    throw new Error('invalid type: string is not a percentage');
  }
  const digits = intOrPercent.slice(0, -1);
  if (!/^[+-]?[0-9]+$/.test(digits)) {
    throw new Error(`invalid value ${JSON.stringify(intOrPercent)}: invalid syntax`);
  }
  const value = Number(digits);
  return roundUp ? Math.ceil((value * total) / 100) : Math.floor((value * total) / 100);
}

/**
 * True when the DaemonSet may run more than one pod on a node during an
 * update: a rolling update with a `maxSurge` above 0. Go's `AllowsSurge`.
 *
 * @category DaemonSet util
 */
export function allowsSurge(ds: DaemonSet): boolean {
  try {
    return surgeCount(ds, 1) > 0;
  } catch {
    return false;
  }
}

/**
 * How many extra pods a rolling update may create out of
 * `numberToSchedule`: `maxSurge` scaled (rounded up); 0 for `OnDelete` or
 * without `maxSurge`. Go's `SurgeCount`, with the DaemonSetUpdateSurge gate
 * on (it is GA).
 *
 * @throws Error when `maxSurge` is not a count or a percentage
 * @category DaemonSet util
 */
export function surgeCount(ds: DaemonSet, numberToSchedule: number): number {
  const strategy = ds.spec?.updateStrategy;
  if ((strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return 0;
  const r = strategy?.rollingUpdate;
  if (r === undefined || r.maxSurge === undefined || r.maxSurge === null) return 0;
  return getScaledValueFromIntOrPercent(r.maxSurge, numberToSchedule, true);
}

/**
 * How many pods a rolling update may make unavailable out of
 * `numberToSchedule`: `maxUnavailable` scaled (rounded up); 0 for `OnDelete`
 * or without a `rollingUpdate`. Go's `UnavailableCount`.
 *
 * @throws Error when `maxUnavailable` is missing, or not a count or a percentage
 * @category DaemonSet util
 */
export function unavailableCount(ds: DaemonSet, numberToSchedule: number): number {
  const strategy = ds.spec?.updateStrategy;
  if ((strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return 0;
  const r = strategy?.rollingUpdate;
  if (r === undefined) return 0;
  return getScaledValueFromIntOrPercent(r.maxUnavailable, numberToSchedule, true);
}

/**
 * True when the pod runs the current template: its `controller-revision-hash`
 * label is `hash`, or its `pod-template-generation` label is the
 * DaemonSet's template generation. Go's `IsPodUpdated`.
 *
 * @category DaemonSet util
 */
export function isPodUpdated(
  pod: Pod,
  hash: string,
  dsTemplateGeneration: bigint | undefined,
): boolean {
  const labels = pod.metadata?.labels ?? {};
  const templateMatches =
    dsTemplateGeneration !== undefined &&
    labels[daemonSetTemplateGenerationKey] === dsTemplateGeneration.toString();
  const hashMatches = hash.length > 0 && labels[controllerRevisionHashLabelKey] === hash;
  return hashMatches || templateMatches;
}

//#region node-name-affinity
/**
 * Pins a pod to `nodeName`: the required node affinity of `affinity`
 * becomes the single term `matchFields: metadata.name In [nodeName]`
 * (preferred terms and other affinities are kept). Changes `affinity` in
 * place when given, and returns it. Go's
 * `ReplaceDaemonSetPodNodeNameNodeAffinity`.
 *
 * @category DaemonSet util
 */
export function replaceDaemonSetPodNodeNameNodeAffinity(
  affinity: Affinity | undefined,
  nodeName: string,
): Affinity {
  const requirement: NodeSelectorRequirement = {
    key: 'metadata.name',
    operator: 'In',
    values: [nodeName],
  };
  const nodeSelector = { nodeSelectorTerms: [{ matchFields: [requirement] }] };
  if (affinity === undefined) {
    return { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: nodeSelector } };
  }
  if (affinity.nodeAffinity === undefined) {
    affinity.nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution: nodeSelector };
    return affinity;
  }
  const nodeAffinity = affinity.nodeAffinity;
  if (nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution === undefined) {
    nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = nodeSelector;
    return affinity;
  }
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms =
    nodeSelector.nodeSelectorTerms;
  return affinity;
}
//#endregion node-name-affinity

/**
 * The node a DaemonSet pod is for: `spec.nodeName` once scheduled, else the
 * one value of a `metadata.name In` field requirement of its required node
 * affinity. Go's `GetTargetNodeName`.
 *
 * @throws Error when the pod names no node
 * @category DaemonSet util
 */
export function getTargetNodeName(pod: Pod): string {
  const nodeName = pod.spec?.nodeName ?? '';
  if (nodeName !== '') return nodeName;
  const ns = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required === undefined || required === null) {
    throw new Error(
      `no spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution for pod ${ns}/${name}`,
    );
  }
  const terms = required.nodeSelectorTerms ?? [];
  if (terms.length < 1) {
    throw new Error(
      `no nodeSelectorTerms in requiredDuringSchedulingIgnoredDuringExecution of pod ${ns}/${name}`,
    );
  }
  for (const term of terms) {
    for (const exp of term.matchFields ?? []) {
      if (exp.key === 'metadata.name' && exp.operator === 'In') {
        if (exp.values?.length !== 1) {
          throw new Error(
            `the matchFields value of 'metadata.name' is not unique for pod ${ns}/${name}`,
          );
        }
        return exp.values[0]!;
      }
    }
  }
  throw new Error(`no node name found for pod ${ns}/${name}`);
}
