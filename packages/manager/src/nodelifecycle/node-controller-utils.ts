// What the node lifecycle and taint eviction controllers share, ported from
// the helpers they call: pkg/controller/util/node/controller_utils.go
// (MarkPodsNotReady, RecordNodeEvent, RecordNodeStatusChange,
// SwapNodeControllerTaint, AddOrUpdateLabelsOnNode, GetNodeCondition),
// pkg/controller/controller_utils.go (AddOrUpdateTaintOnNode,
// RemoveTaintOffNode, PatchNodeTaints, AddOrUpdateLabelsOnNode and the
// UpdateTaintBackoff they retry with), pkg/util/taints/taints.go
// (TaintExists, TaintSetDiff, TaintSetFilter, AddOrUpdateTaint,
// RemoveTaint), pkg/api/v1/pod/util.go (UpdatePodCondition),
// pkg/apis/core/v1/helper/helpers.go (GetMatchingTolerations with
// Toleration.ToleratesTaint) and k8s.io/component-helpers/node/topology
// (GetZoneKey).
import type {
  Node,
  NodeCondition,
  NodeStatus,
  ObjectReference,
  Pod,
  PodCondition,
  PodStatus,
  Taint,
  Toleration,
} from 'kubernetes-types/core/v1.js';
import {
  formatTime,
  isConflict,
  isNotFound,
  type Clock,
  type EventRecorder,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { Indexer, SharedIndexInformer } from '@kcm-ts/informer';

/** Go's `v1.TaintNodeNotReady`. */
export const taintNodeNotReady = 'node.kubernetes.io/not-ready';
/** Go's `v1.TaintNodeUnreachable`. */
export const taintNodeUnreachable = 'node.kubernetes.io/unreachable';
/** Go's `v1.TaintNodeUnschedulable`. */
export const taintNodeUnschedulable = 'node.kubernetes.io/unschedulable';
/** Go's `v1.TaintNodeMemoryPressure`. */
export const taintNodeMemoryPressure = 'node.kubernetes.io/memory-pressure';
/** Go's `v1.TaintNodeDiskPressure`. */
export const taintNodeDiskPressure = 'node.kubernetes.io/disk-pressure';
/** Go's `v1.TaintNodeNetworkUnavailable`. */
export const taintNodeNetworkUnavailable = 'node.kubernetes.io/network-unavailable';
/** Go's `v1.TaintNodePIDPressure`. */
export const taintNodePIDPressure = 'node.kubernetes.io/pid-pressure';

/**
 * The name of the pod informer's index by `spec.nodeName`, which both
 * controllers read a node's pods from. Go's `nodeNameKeyIndex`.
 */
export const nodeNameKeyIndex = 'spec.nodeName';

/**
 * Adds the {@link nodeNameKeyIndex} index to a shared pod informer unless
 * another controller on the same factory added it already.
 */
export function addNodeNameIndexer(
  podInformer: Pick<SharedIndexInformer<Pod>, 'getIndexer' | 'addIndexers'>,
): void {
  if (nodeNameKeyIndex in podInformer.getIndexer().getIndexers()) return;
  podInformer.addIndexers({
    [nodeNameKeyIndex]: (pod: Pod) => {
      const nodeName = pod.spec?.nodeName ?? '';
      return nodeName === '' ? [] : [nodeName];
    },
  });
}

/** The pods bound to `nodeName`, from the {@link nodeNameKeyIndex} index. */
export function podsAssignedToNode(
  indexer: Pick<Indexer<Pod>, 'byIndex'>,
  nodeName: string,
): Pod[] {
  return indexer.byIndex(nodeNameKeyIndex, nodeName);
}

/** The condition of `type` in `status`, if any. Go's `GetNodeCondition`. */
export function getNodeCondition(
  status: NodeStatus | undefined,
  type: string,
): NodeCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/**
 * The zone a node is in, from its region and zone labels: empty when it has
 * neither (one zone for the whole cluster), otherwise the region and the
 * zone joined by `:\0:`. Go's `nodetopology.GetZoneKey`.
 */
export function getZoneKey(node: Node): string {
  const labels = node.metadata?.labels ?? {};
  const region =
    labels['topology.kubernetes.io/region'] ?? labels['failure-domain.beta.kubernetes.io/region'];
  const zone =
    labels['topology.kubernetes.io/zone'] ?? labels['failure-domain.beta.kubernetes.io/zone'];
  if ((region ?? '') === '' && (zone ?? '') === '') return '';
  return `${region ?? ''}:\x00:${zone ?? ''}`;
}

/** Same key and effect. Go's `Taint.MatchTaint`. */
export function matchTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

/** Whether `taints` holds one with the key and effect of `taint`. Go's `TaintExists`. */
export function taintExists(taints: readonly Taint[] | undefined, taint: Taint): boolean {
  return (taints ?? []).some((t) => matchTaint(t, taint));
}

/** The taints of `taints` that `filter` keeps. Go's `TaintSetFilter`. */
export function taintSetFilter(
  taints: readonly Taint[] | undefined,
  filter: (t: Taint) => boolean,
): Taint[] {
  return (taints ?? []).filter(filter);
}

/**
 * What to add to `current` and remove from it to reach `wanted`, taints
 * compared by key and effect. Go's `TaintSetDiff`.
 */
export function taintSetDiff(
  wanted: readonly Taint[],
  current: readonly Taint[],
): [toAdd: Taint[], toRemove: Taint[]] {
  const toAdd = wanted.filter((t) => !taintExists(current, t));
  const toRemove = current.filter((t) => !taintExists(wanted, t));
  return [toAdd, toRemove];
}

function sameTaint(a: Taint, b: Taint): boolean {
  return (
    a.key === b.key &&
    a.effect === b.effect &&
    (a.value ?? '') === (b.value ?? '') &&
    (a.timeAdded ?? '') === (b.timeAdded ?? '')
  );
}

/**
 * The taints with `taint` added, or put in place of the one with its key
 * and effect; `undefined` when that one is the same already. Go's
 * `AddOrUpdateTaint`.
 */
export function addOrUpdateTaint(taints: readonly Taint[], taint: Taint): Taint[] | undefined {
  const out: Taint[] = [];
  let updated = false;
  for (const t of taints) {
    if (matchTaint(taint, t)) {
      if (sameTaint(taint, t)) return undefined;
      out.push(taint);
      updated = true;
    } else {
      out.push(t);
    }
  }
  if (!updated) out.push(taint);
  return out;
}

/**
 * The taints without the one with the key and effect of `taint`;
 * `undefined` when there is none. Go's `RemoveTaint`.
 */
export function removeTaint(taints: readonly Taint[], taint: Taint): Taint[] | undefined {
  if (!taintExists(taints, taint)) return undefined;
  return taints.filter((t) => !matchTaint(t, taint));
}

/** The retries of taint updates on conflict: 5 steps of 100 ms with full jitter. Go's `UpdateTaintBackoff`. */
const updateTaintBackoff = { steps: 5, duration: 100, jitter: 1.0 };

/**
 * Runs `fn` until it does not fail with a conflict, sleeping the taint
 * backoff in between, at most `updateTaintBackoff.steps` times. Go's
 * `retry.RetryOnConflict`.
 */
async function retryOnConflict(
  clock: Clock,
  random: () => number,
  fn: () => Promise<void>,
): Promise<void> {
  for (let step = 1; ; step++) {
    try {
      await fn();
      return;
    } catch (err) {
      if (!isConflict(err) || step >= updateTaintBackoff.steps) throw err;
    }
    const { duration, jitter } = updateTaintBackoff;
    await clock.sleep(duration + random() * jitter * duration);
  }
}

/** What the taint and label helpers write with. */
export interface NodeWriter {
  /** The cluster's nodes. */
  readonly nodes: ResourceClient<Node>;
  /** The clock the retries sleep on. */
  readonly clock: Clock;
  /** The jitter of the retries. Default `Math.random`. */
  readonly random?: () => number;
}

/**
 * Writes the node's taints as `taints`: a strategic merge patch of
 * `spec.taints` (a list replaced whole) carrying the node's
 * resourceVersion, so that a write over a newer node fails with a conflict.
 * Go's `PatchNodeTaints`.
 */
async function patchNodeTaints(w: NodeWriter, old: Node, taints: Taint[]): Promise<void> {
  const body: Record<string, unknown> = {
    spec: { taints: taints.length === 0 ? null : taints },
  };
  const rv = old.metadata?.resourceVersion;
  if (rv !== undefined && rv !== '') body.metadata = { resourceVersion: rv };
  await w.nodes.patch(old.metadata?.name ?? '', { type: 'strategic', body });
}

/**
 * Adds `taints` to the node, or updates the ones with their keys and
 * effects, reading the node first from the API server's cache and then,
 * after a conflict, fresh. Go's `AddOrUpdateTaintOnNode`.
 */
export async function addOrUpdateTaintOnNode(
  w: NodeWriter,
  nodeName: string,
  ...taints: Taint[]
): Promise<void> {
  if (taints.length === 0) return;
  let firstTry = true;
  await retryOnConflict(w.clock, w.random ?? Math.random, async () => {
    const old = await w.nodes.get(nodeName, firstTry ? { resourceVersion: '0' } : {});
    firstTry = false;
    let current = old.spec?.taints ?? [];
    let updated = false;
    for (const taint of taints) {
      const next = addOrUpdateTaint(current, taint);
      if (next !== undefined) {
        current = next;
        updated = true;
      }
    }
    if (updated) await patchNodeTaints(w, old, current);
  });
}

/**
 * Removes `taints` (matched by key and effect) from the node. When `node`
 * is given and has none of them, nothing is sent. Go's `RemoveTaintOffNode`.
 */
export async function removeTaintOffNode(
  w: NodeWriter,
  nodeName: string,
  node: Node | undefined,
  ...taints: Taint[]
): Promise<void> {
  if (taints.length === 0) return;
  if (node !== undefined && !taints.some((t) => taintExists(node.spec?.taints, t))) return;
  let firstTry = true;
  await retryOnConflict(w.clock, w.random ?? Math.random, async () => {
    const old = await w.nodes.get(nodeName, firstTry ? { resourceVersion: '0' } : {});
    firstTry = false;
    let current = old.spec?.taints ?? [];
    let updated = false;
    for (const taint of taints) {
      const next = removeTaint(current, taint);
      if (next !== undefined) {
        current = next;
        updated = true;
      }
    }
    if (updated) await patchNodeTaints(w, old, current);
  });
}

/**
 * Adds `toAdd` (stamped with the time they were added) and then removes
 * `toRemove`; resolves false, after logging why, when either write failed.
 * Go's `SwapNodeControllerTaint`.
 */
export async function swapNodeControllerTaint(
  w: NodeWriter,
  logger: Logger,
  toAdd: readonly Taint[],
  toRemove: readonly Taint[],
  node: Node,
): Promise<boolean> {
  const nodeName = node.metadata?.name ?? '';
  const now = formatTime(w.clock.now());
  const stamped = toAdd.map((t) => ({ ...t, timeAdded: now }));
  try {
    await addOrUpdateTaintOnNode(w, nodeName, ...stamped);
  } catch (err) {
    logger.error(
      err,
      `unable to taint ${JSON.stringify(stamped)} unresponsive Node ${JSON.stringify(nodeName)}`,
    );
    return false;
  }
  logger.v(4).info('Added taint to node', { taint: stamped, node: nodeName });
  try {
    await removeTaintOffNode(w, nodeName, node, ...toRemove);
  } catch (err) {
    logger.error(
      err,
      `unable to remove ${JSON.stringify(toRemove)} unneeded taint from unresponsive Node ${JSON.stringify(nodeName)}`,
    );
    return false;
  }
  logger.v(4).info('Made sure that node has no taint', { node: nodeName, taint: toRemove });
  return true;
}

/**
 * Sets `labels` on the node with a strategic merge patch, retrying
 * conflicts; resolves false, after logging why, when it failed. Go's
 * `AddOrUpdateLabelsOnNode` (both of them).
 */
export async function addOrUpdateLabelsOnNode(
  w: NodeWriter,
  logger: Logger,
  labels: Readonly<Record<string, string>>,
  node: Node,
): Promise<boolean> {
  const nodeName = node.metadata?.name ?? '';
  try {
    await retryOnConflict(w.clock, w.random ?? Math.random, async () => {
      await w.nodes.patch(nodeName, {
        type: 'strategic',
        body: { metadata: { labels: { ...labels } } },
      });
    });
  } catch (err) {
    logger.error(
      err,
      `unable to update labels ${JSON.stringify(labels)} for Node ${JSON.stringify(nodeName)}`,
    );
    return false;
  }
  logger.v(4).info('Updated labels to node', { label: labels, node: nodeName });
  return true;
}

/** A reference to a node, for its events. */
function nodeRef(nodeName: string, uid: string | undefined): ObjectReference {
  return { apiVersion: 'v1', kind: 'Node', name: nodeName, namespace: '', uid: uid ?? '' };
}

/** A reference to a pod, for its events. */
export function podRef(pod: Pod): ObjectReference {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    name: pod.metadata?.name ?? '',
    namespace: pod.metadata?.namespace ?? '',
    ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
    ...(pod.metadata?.resourceVersion ? { resourceVersion: pod.metadata.resourceVersion } : {}),
  };
}

/** Records an event about a node: `Node <name> event: <message>`. Go's `RecordNodeEvent`. */
export function recordNodeEvent(
  recorder: EventRecorder,
  logger: Logger,
  nodeName: string,
  nodeUID: string | undefined,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
): void {
  logger.v(2).info('Recording event message for node', { event: message, node: nodeName });
  recorder.event(nodeRef(nodeName, nodeUID), type, reason, `Node ${nodeName} event: ${message}`);
}

/**
 * Records that a node's status changed to `newStatus` (such as
 * `NodeNotReady`): `Node <name> status is now: <newStatus>`, a Normal
 * event unless `eventType` says Warning. Go's `RecordNodeStatusChange`.
 */
export function recordNodeStatusChange(
  recorder: EventRecorder,
  logger: Logger,
  node: Node,
  newStatus: string,
  eventType: 'Normal' | 'Warning' = 'Normal',
): void {
  const name = node.metadata?.name ?? '';
  logger
    .v(2)
    .info('Recording status change event message for node', { status: newStatus, node: name });
  recorder.event(
    nodeRef(name, node.metadata?.uid),
    eventType,
    newStatus,
    `Node ${name} status is now: ${newStatus}`,
  );
}

/**
 * Puts `condition` into `status`, keeping the old transition time when its
 * status did not change; true when anything changed. Go's
 * `UpdatePodCondition`.
 */
export function updatePodCondition(
  status: PodStatus,
  condition: PodCondition,
  now: number,
): boolean {
  const next: PodCondition = { ...condition, lastTransitionTime: formatTime(now) };
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === condition.type);
  const old = conditions[i];
  if (old === undefined) {
    conditions.push(next);
    return true;
  }
  if (next.status === old.status) {
    if (old.lastTransitionTime === undefined) delete next.lastTransitionTime;
    else next.lastTransitionTime = old.lastTransitionTime;
  }
  const equal =
    next.status === old.status &&
    (next.reason ?? '') === (old.reason ?? '') &&
    (next.message ?? '') === (old.message ?? '') &&
    (next.lastProbeTime ?? '') === (old.lastProbeTime ?? '') &&
    (next.lastTransitionTime ?? '') === (old.lastTransitionTime ?? '');
  conditions[i] = next;
  return !equal;
}

/** What {@link markPodsNotReady} writes with. */
export interface PodWriter {
  /** The cluster's pods. */
  readonly pods: ResourceClient<Pod>;
  /** The clock of the condition's transition time. */
  readonly clock: Clock;
}

/**
 * Sets the `Ready` condition of each of `pods` on `nodeName` to `False`
 * (a status update per pod that has a `Ready` condition still `True`), and
 * records a `NodeNotReady` warning on each. Rejects with the failures
 * (pods already gone are skipped). Go's `MarkPodsNotReady`.
 */
export async function markPodsNotReady(
  w: PodWriter,
  recorder: EventRecorder,
  logger: Logger,
  pods: readonly Pod[],
  nodeName: string,
): Promise<void> {
  logger.v(2).info('Update ready status of pods on node', { node: nodeName });
  const errors: unknown[] = [];
  for (const original of pods) {
    if ((original.spec?.nodeName ?? '') !== nodeName) continue;
    const pod: { -readonly [K in keyof Pod]: Pod[K] } = structuredClone(original);
    const status = (pod.status ??= {});
    const ready = status.conditions?.find((c) => c.type === 'Ready');
    if (ready === undefined) continue;
    if (!updatePodCondition(status, { ...ready, status: 'False' }, w.clock.now())) continue;
    const ref = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    logger.v(2).info('Updating ready status of pod to false', { pod: ref });
    try {
      await w.pods.inNamespace(pod.metadata?.namespace ?? '').updateStatus(pod);
    } catch (err) {
      if (isNotFound(err)) continue;
      logger.info('Failed to update status for pod', { pod: ref, err: String(err) });
      errors.push(err);
    }
    recorder.event(podRef(pod), 'Warning', 'NodeNotReady', 'Node is not ready');
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) {
    throw new AggregateError(
      errors,
      `[${errors.map((e) => (e instanceof Error ? e.message : String(e))).join(', ')}]`,
    );
  }
}

/**
 * Whether `toleration` tolerates `taint`: effects match (an empty one
 * matches all), keys match (an empty one matches all, with `Exists`), and
 * the operator holds (`Equal`, the default, compares values; `Exists`
 * ignores them). Go's `Toleration.ToleratesTaint`.
 */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if ((toleration.effect ?? '') !== '' && toleration.effect !== taint.effect) return false;
  if ((toleration.key ?? '') !== '' && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/**
 * Whether every taint is tolerated, with the tolerations used to tolerate
 * them (each once per taint it matches). Go's `GetMatchingTolerations`.
 */
export function getMatchingTolerations(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
): [allTolerated: boolean, used: Toleration[]] {
  if (taints.length === 0) return [true, []];
  if (tolerations.length === 0) return [false, []];
  const used: Toleration[] = [];
  for (const taint of taints) {
    let tolerated = false;
    for (const toleration of tolerations) {
      if (toleratesTaint(toleration, taint)) {
        used.push(toleration);
        tolerated = true;
      }
    }
    if (!tolerated) return [false, []];
  }
  return [true, used];
}
