// Rolling updates and revision history: pkg/controller/daemon/update.go
// (rollingUpdate, findUpdatedPodsOnNode, constructHistory, cleanupHistory,
// maxRevision, dedupCurHistories, controlledHistories, Match, getPatch,
// snapshot, updatedDesiredNodeCounts, historiesByRevision).
//
// Go writes these as methods of the controller; here they are functions of
// a {@link DaemonSetUpdateHost}, the few things of the controller they use,
// so that this file does not import the controller's.
//
// Each version of a DaemonSet's pod template is kept as a ControllerRevision
// named `<ds>-<hash>`, labelled `controller-revision-hash: <hash>`, whose
// data is the strategic merge patch `{"spec":{"template":{...,"$patch":
// "replace"}}}`: applied to the DaemonSet it puts that template back, which
// is what `kubectl rollout undo daemonset` does.
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import {
  isAlreadyExists,
  labelSelectorAsSelector,
  newControllerRef,
  type Clock,
  type Logger,
} from '@kcm-ts/apimachinery';
import type { Lister } from '@kcm-ts/informer';
import {
  ControllerRevisionControllerRefManager,
  computeHash,
  isPodAvailable,
  recheckDeletionTimestamp,
  type ControllerRevisionControl,
} from '@kcm-ts/controller';
import type { DaemonSetsControllerClients } from './daemon-controller.js';
import {
  controllerRevisionHashLabelKey,
  isPodUpdated,
  surgeCount,
  templateGenerationOrUndefined,
  unavailableCount,
} from './daemonset-util.js';
import { daemonSetKind } from './types.js';

/**
 * What the update and history functions need of the controller.
 *
 * @internal
 */
export interface DaemonSetUpdateHost {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly client: DaemonSetsControllerClients;
  readonly historyLister: Lister<ControllerRevision>;
  readonly nodeLister: Lister<Node>;
  readonly podLister: Lister<Pod>;
  readonly crControl: ControllerRevisionControl;
  getDaemonPods(ds: DaemonSet, signal?: AbortSignal): Promise<Pod[]>;
  getNodesToDaemonPods(
    ds: DaemonSet,
    includeDeletedTerminal: boolean,
    signal?: AbortSignal,
  ): Promise<Map<string, Pod[]>>;
  nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): [shouldRun: boolean, shouldContinue: boolean];
  syncNodes(
    ds: DaemonSet,
    podsToDelete: readonly string[],
    nodesNeedingDaemonPods: readonly string[],
    hash: string,
    signal?: AbortSignal,
  ): Promise<void>;
}

const opts = (signal: AbortSignal | undefined) => (signal ? { signal } : {});
const nameOf = (o: { metadata?: { name?: string } }) => o.metadata?.name ?? '';

/**
 * The pods to delete and the nodes to create pods on for one step of a
 * rolling update, computed from the pods per node (every node that should
 * run a pod present, with an empty list if it has none). Go's
 * `rollingUpdate` up to its call of `syncNodes`.
 *
 * @internal
 */
export function rollingUpdatePlan(
  ds: DaemonSet,
  hash: string,
  nodeToDaemonPods: ReadonlyMap<string, readonly Pod[]>,
  counts: { maxSurge: number; maxUnavailable: number; desiredNumberScheduled: number },
  now: number,
  shouldRunOn: (nodeName: string) => boolean,
  podExists: (podName: string) => boolean = () => true,
  logger?: Logger,
): { podsToDelete: string[]; nodesToCreate: string[] } {
  const { maxSurge, maxUnavailable, desiredNumberScheduled } = counts;
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  const available = (pod: Pod) => isPodAvailable(pod, minReadySeconds, now);
  const dsRef = { daemonset: `${ds.metadata?.namespace ?? ''}/${nameOf(ds)}` };

  // Without surge: delete old pods, never more than maxUnavailable short;
  // manage creates their replacements.
  if (maxSurge === 0) {
    let numUnavailable = 0;
    const allowedReplacementPods: string[] = [];
    const candidatePodsToDelete: string[] = [];
    for (const [nodeName, pods] of nodeToDaemonPods) {
      const found = findUpdatedPodsOnNode(ds, pods, hash);
      if (found === undefined) {
        // Excess pods: manage prunes them; the node counts as unavailable.
        logger
          ?.v(3)
          .info('DaemonSet has excess pods on node, skipping to allow the core loop to process', {
            ...dsRef,
            node: nodeName,
          });
        numUnavailable++;
        continue;
      }
      const { newPod, oldPod } = found;
      if ((oldPod === undefined) === (newPod === undefined)) {
        // Nothing yet, or both: manage creates or prunes.
        numUnavailable++;
      } else if (newPod !== undefined) {
        if (!available(newPod)) numUnavailable++;
      } else if (oldPod !== undefined) {
        if (!available(oldPod)) {
          allowedReplacementPods.push(nameOf(oldPod));
          numUnavailable++;
        } else if (numUnavailable < maxUnavailable) {
          candidatePodsToDelete.push(nameOf(oldPod));
        }
      }
    }
    const remaining = Math.min(
      Math.max(maxUnavailable - numUnavailable, 0),
      candidatePodsToDelete.length,
    );
    logger?.v(5).info('DaemonSet allowing replacements', {
      ...dsRef,
      replacements: allowedReplacementPods.length,
      maxUnavailable,
      numUnavailable,
      candidates: candidatePodsToDelete.length,
    });
    return {
      podsToDelete: [...allowedReplacementPods, ...candidatePodsToDelete.slice(0, remaining)],
      nodesToCreate: [],
    };
  }

  // With surge: start a new pod beside an old one (at once where the old
  // one is unavailable, else up to maxSurge at a time), and delete the old
  // one once the new one is available.
  const oldPodsToDelete: string[] = [];
  const shouldNotRunPodsToDelete: string[] = [];
  const candidateNewNodes: string[] = [];
  const allowedNewNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  for (const [nodeName, pods] of nodeToDaemonPods) {
    const found = findUpdatedPodsOnNode(ds, pods, hash);
    if (found === undefined) {
      logger
        ?.v(3)
        .info('DaemonSet has excess pods on node, skipping to allow the core loop to process', {
          ...dsRef,
          node: nodeName,
        });
      numSurge++;
      continue;
    }
    const { newPod, oldPod } = found;
    if (oldPod !== undefined) {
      if (available(oldPod)) numAvailable++;
    } else if (newPod !== undefined && available(newPod)) {
      numAvailable++;
    }
    if (oldPod === undefined) continue;
    if (newPod === undefined) {
      if (!available(oldPod)) {
        if (!shouldRunOn(nodeName)) {
          oldPodsToDelete.push(nameOf(oldPod));
          continue;
        }
        allowedNewNodes.push(nodeName);
      } else {
        if (!shouldRunOn(nodeName)) {
          shouldNotRunPodsToDelete.push(nameOf(oldPod));
          continue;
        }
        if (numSurge >= maxSurge) continue;
        candidateNewNodes.push(nodeName);
      }
      continue;
    }
    // Surged here already: wait for the new pod, then retire the old one.
    if (!available(newPod)) {
      numSurge++;
      continue;
    }
    oldPodsToDelete.push(nameOf(oldPod));
  }
  logger?.v(5).info('DaemonSet allowing replacements', {
    ...dsRef,
    replacements: allowedNewNodes.length,
    maxSurge,
    numSurge,
    candidates: candidateNewNodes.length,
  });
  // A pod on a node the DaemonSet left goes only once enough pods are
  // available elsewhere: surge promises full availability.
  const deletable = Math.min(
    numAvailable - desiredNumberScheduled,
    shouldNotRunPodsToDelete.length,
  );
  for (const name of shouldNotRunPodsToDelete.slice(0, Math.max(deletable, 0))) {
    // One gone from the cache meanwhile needs no deletion.
    if (podExists(name)) oldPodsToDelete.push(name);
  }
  const remainingSurge = Math.min(Math.max(maxSurge - numSurge, 0), candidateNewNodes.length);
  return {
    podsToDelete: oldPodsToDelete,
    nodesToCreate: [...allowedNewNodes, ...candidateNewNodes.slice(0, remainingSurge)],
  };
}

/**
 * Deletes old pods, or creates new ones beside them, as far as `maxSurge`
 * and `maxUnavailable` allow. Go's `rollingUpdate`.
 *
 * @internal
 */
export async function rollingUpdate(
  host: DaemonSetUpdateHost,
  ds: DaemonSet,
  nodeList: readonly Node[],
  hash: string,
  signal?: AbortSignal,
): Promise<void> {
  let nodeToDaemonPods: Map<string, Pod[]>;
  try {
    nodeToDaemonPods = await host.getNodesToDaemonPods(ds, false, signal);
  } catch (err) {
    throw new Error(
      `couldn't get node to daemon pod mapping for daemon set ${JSON.stringify(nameOf(ds))}: ${messageOf(err)}`,
      { cause: err },
    );
  }
  let counts: ReturnType<typeof updatedDesiredNodeCounts>;
  try {
    counts = updatedDesiredNodeCounts(host, ds, nodeList, nodeToDaemonPods);
  } catch (err) {
    throw new Error(`couldn't get unavailable numbers: ${messageOf(err)}`, { cause: err });
  }
  const shouldRunOn = (nodeName: string): boolean => {
    const node = host.nodeLister.tryGet(nodeName);
    if (node === undefined) {
      throw new Error(`couldn't get node for nodeName ${JSON.stringify(nodeName)}: not found`);
    }
    return host.nodeShouldRunDaemonPod(node, ds)[0];
  };
  const plan = rollingUpdatePlan(
    ds,
    hash,
    nodeToDaemonPods,
    counts,
    host.clock.now(),
    shouldRunOn,
    (name) => host.podLister.byNamespace(ds.metadata?.namespace ?? '').tryGet(name) !== undefined,
    host.logger,
  );
  await host.syncNodes(ds, plan.podsToDelete, plan.nodesToCreate, hash, signal);
}

/**
 * The one updated and the one old pod among the pods of a node that are not
 * being deleted; `undefined` when there are more of either (manage prunes
 * those first). Go's `findUpdatedPodsOnNode`.
 *
 * @internal
 */
export function findUpdatedPodsOnNode(
  ds: DaemonSet,
  podsOnNode: readonly Pod[],
  hash: string,
): { newPod: Pod | undefined; oldPod: Pod | undefined } | undefined {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  const generation = templateGenerationOrUndefined(ds);
  for (const pod of podsOnNode) {
    if (pod.metadata?.deletionTimestamp) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod !== undefined) return undefined;
      newPod = pod;
    } else {
      if (oldPod !== undefined) return undefined;
      oldPod = pod;
    }
  }
  return { newPod, oldPod };
}

/**
 * How many nodes should run a pod, and the `maxSurge` and `maxUnavailable`
 * that makes; adds an empty entry to `nodeToDaemonPods` for each such node
 * without pods. When both come out 0 on a DaemonSet with nodes, allows one
 * unavailable pod. Go's `updatedDesiredNodeCounts`.
 *
 * @throws Error when `maxSurge` or `maxUnavailable` is invalid
 * @internal
 */
export function updatedDesiredNodeCounts(
  host: Pick<DaemonSetUpdateHost, 'nodeShouldRunDaemonPod' | 'logger'>,
  ds: DaemonSet,
  nodeList: readonly Node[],
  nodeToDaemonPods: Map<string, Pod[]>,
): { maxSurge: number; maxUnavailable: number; desiredNumberScheduled: number } {
  let desiredNumberScheduled = 0;
  for (const node of nodeList) {
    const [wantToRun] = host.nodeShouldRunDaemonPod(node, ds);
    if (!wantToRun) continue;
    desiredNumberScheduled++;
    const name = nameOf(node);
    if (!nodeToDaemonPods.has(name)) nodeToDaemonPods.set(name, []);
  }
  let maxUnavailable: number;
  try {
    maxUnavailable = unavailableCount(ds, desiredNumberScheduled);
  } catch (err) {
    throw new Error(`invalid value for MaxUnavailable: ${messageOf(err)}`, { cause: err });
  }
  let maxSurge: number;
  try {
    maxSurge = surgeCount(ds, desiredNumberScheduled);
  } catch (err) {
    throw new Error(`invalid value for MaxSurge: ${messageOf(err)}`, { cause: err });
  }
  if (desiredNumberScheduled > 0 && maxUnavailable === 0 && maxSurge === 0) {
    host.logger.info(
      'DaemonSet is not configured for surge or unavailability, defaulting to accepting unavailability',
      { daemonset: `${ds.metadata?.namespace ?? ''}/${nameOf(ds)}` },
    );
    maxUnavailable = 1;
  }
  return { maxSurge, maxUnavailable, desiredNumberScheduled };
}

/**
 * The data of a DaemonSet's ControllerRevision: a strategic merge patch
 * that replaces the DaemonSet's pod template.
 *
 * @category History
 */
export interface DaemonSetTemplatePatch {
  /** The part of the DaemonSet's spec the patch sets. */
  spec: {
    /** The pod template, with `"$patch": "replace"` so the whole template is replaced. */
    template: Record<string, unknown>;
  };
}

//#region get-patch
/**
 * The strategic merge patch that puts the DaemonSet's pod template back:
 * `{"spec":{"template":{...the template, "$patch":"replace"}}}`. Go's
 * `getPatch`.
 *
 * @category History
 */
export function getPatch(ds: DaemonSet): DaemonSetTemplatePatch {
  const template = structuredClone(ds.spec?.template ?? {}) as Record<string, unknown>;
  template['$patch'] = 'replace';
  return { spec: { template } };
}
//#endregion get-patch

/**
 * JSON with object keys sorted and `null` members left out, for comparing
 * revision data: Go compares the bytes it wrote, sorted the same way, and
 * writes `null` where a field of the template is unset (such as its
 * `creationTimestamp`), which the wire form drops.
 */
export function canonicalJSON(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    return `[${value.map((v: unknown) => (v === undefined ? 'null' : canonicalJSON(v))).join(',')}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined && v !== null)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJSON(v)}`).join(',')}}`;
}

/**
 * True when the revision holds the DaemonSet's current template. Go's
 * `Match`.
 *
 * @category History
 */
export function match(ds: DaemonSet, history: ControllerRevision): boolean {
  return canonicalJSON(getPatch(ds)) === canonicalJSON(history.data ?? null);
}

/** The highest revision number among `histories` (0 for none). Go's `maxRevision`. */
export function maxRevision(histories: readonly ControllerRevision[]): number {
  let max = 0;
  for (const h of histories) if (h.revision > max) max = h.revision;
  return max;
}

/**
 * The DaemonSet's ControllerRevisions, adopting the orphans its selector
 * matches and releasing those it no longer matches. Go's
 * `controlledHistories`.
 *
 * @internal
 */
export async function controlledHistories(
  host: DaemonSetUpdateHost,
  ds: DaemonSet,
  signal?: AbortSignal,
): Promise<ControllerRevision[]> {
  const selector = labelSelectorAsSelector(ds.spec?.selector);
  const namespace = ds.metadata?.namespace ?? '';
  const histories = host.historyLister.byNamespace(namespace).list();
  const canAdopt = recheckDeletionTimestamp(async () => {
    const fresh = await host.client.daemonSets.inNamespace(namespace).get(nameOf(ds), opts(signal));
    if (fresh.metadata?.uid !== ds.metadata?.uid) {
      throw new Error(
        `original DaemonSet ${namespace}/${nameOf(ds)} is gone: got uid ${fresh.metadata?.uid ?? ''}, wanted ${ds.metadata?.uid ?? ''}`,
      );
    }
    return fresh;
  });
  const cm = new ControllerRevisionControllerRefManager(
    host.crControl,
    ds,
    selector,
    daemonSetKind,
    canAdopt,
    host.logger,
  );
  return await cm.claimControllerRevisions(histories);
}

//#region construct-history
/**
 * The DaemonSet's current revision (made if missing, renumbered above the
 * old ones if needed, duplicates merged) and its old revisions. A revision
 * without the `controller-revision-hash` label gets its name as the label.
 * Go's `constructHistory`.
 *
 * @internal
 */
export async function constructHistory(
  host: DaemonSetUpdateHost,
  ds: DaemonSet,
  signal?: AbortSignal,
): Promise<{ cur: ControllerRevision; old: ControllerRevision[] }> {
  const revisions = host.client.controllerRevisions.inNamespace(ds.metadata?.namespace ?? '');
  const histories = await controlledHistories(host, ds, signal);
  const currentHistories: ControllerRevision[] = [];
  const old: ControllerRevision[] = [];
  for (let history of histories) {
    if (history.metadata?.labels?.[controllerRevisionHashLabelKey] === undefined) {
      const toUpdate = structuredClone(history);
      toUpdate.metadata = {
        ...toUpdate.metadata,
        labels: { ...toUpdate.metadata?.labels, [controllerRevisionHashLabelKey]: nameOf(history) },
      };
      history = await revisions.update(toUpdate, opts(signal));
    }
    if (match(ds, history)) currentHistories.push(history);
    else old.push(history);
  }
  const currRevision = maxRevision(old) + 1;
  let cur: ControllerRevision;
  if (currentHistories.length === 0) {
    cur = await snapshot(host, ds, currRevision, signal);
  } else {
    cur = await dedupCurHistories(host, ds, currentHistories, signal);
    if (cur.revision < currRevision) {
      const toUpdate = structuredClone(cur);
      toUpdate.revision = currRevision;
      await revisions.update(toUpdate, opts(signal));
    }
  }
  return { cur, old };
}
//#endregion construct-history

/**
 * Deletes old revisions, oldest first, beyond `revisionHistoryLimit`
 * (default 10), keeping those a pod still runs. Go's `cleanupHistory`.
 *
 * @internal
 */
export async function cleanupHistory(
  host: DaemonSetUpdateHost,
  ds: DaemonSet,
  old: readonly ControllerRevision[],
  signal?: AbortSignal,
): Promise<void> {
  let nodesToDaemonPods: Map<string, Pod[]>;
  try {
    // Deleted terminal pods count: their revision is still live.
    nodesToDaemonPods = await host.getNodesToDaemonPods(ds, true, signal);
  } catch (err) {
    throw new Error(
      `couldn't get node to daemon pod mapping for daemon set ${JSON.stringify(nameOf(ds))}: ${messageOf(err)}`,
      { cause: err },
    );
  }
  const toKeep = ds.spec?.revisionHistoryLimit ?? 10;
  let toKill = old.length - toKeep;
  if (toKill <= 0) return;
  const liveHashes = new Set<string>();
  for (const pods of nodesToDaemonPods.values()) {
    for (const pod of pods) {
      const hash = pod.metadata?.labels?.[controllerRevisionHashLabelKey] ?? '';
      if (hash !== '') liveHashes.add(hash);
    }
  }
  const sorted = [...old].sort((a, b) => a.revision - b.revision);
  const revisions = host.client.controllerRevisions.inNamespace(ds.metadata?.namespace ?? '');
  for (const history of sorted) {
    if (toKill <= 0) break;
    if (liveHashes.has(history.metadata?.labels?.[controllerRevisionHashLabelKey] ?? '')) continue;
    await revisions.delete(nameOf(history), opts(signal));
    toKill--;
  }
}

/**
 * Of several revisions holding the current template, keeps the one with
 * the highest revision number: relabels the pods of the others to its hash
 * (a merge patch) and deletes the others. Go's `dedupCurHistories`.
 *
 * @internal
 */
export async function dedupCurHistories(
  host: DaemonSetUpdateHost,
  ds: DaemonSet,
  curHistories: readonly ControllerRevision[],
  signal?: AbortSignal,
): Promise<ControllerRevision> {
  if (curHistories.length === 1) return curHistories[0]!;
  let maxRev = 0;
  let keepCur = curHistories[0]!;
  for (const cur of curHistories) {
    if (cur.revision >= maxRev) {
      keepCur = cur;
      maxRev = cur.revision;
    }
  }
  const keepHash = keepCur.metadata?.labels?.[controllerRevisionHashLabelKey] ?? '';
  const namespace = ds.metadata?.namespace ?? '';
  const pods = await host.getDaemonPods(ds, signal);
  for (const pod of pods) {
    if (pod.metadata?.labels?.[controllerRevisionHashLabelKey] !== keepHash) {
      await host.client.pods.inNamespace(namespace).patch(
        nameOf(pod),
        {
          type: 'merge',
          body: { metadata: { labels: { [controllerRevisionHashLabelKey]: keepHash } } },
        },
        opts(signal),
      );
    }
  }
  const revisions = host.client.controllerRevisions.inNamespace(namespace);
  for (const cur of curHistories) {
    if (nameOf(cur) === nameOf(keepCur)) continue;
    await revisions.delete(nameOf(cur), opts(signal));
  }
  return keepCur;
}

/**
 * Creates the revision of the DaemonSet's current template, named
 * `<ds>-<computeHash(template, collisionCount)>`. When the name is taken by
 * the same template, that revision is it; by another one, the DaemonSet's
 * `status.collisionCount` goes up by one (unless the count read was stale)
 * and the AlreadyExists error is rethrown so the sync is retried with the
 * next name. Go's `snapshot`.
 *
 * @internal
 */
export async function snapshot(
  host: DaemonSetUpdateHost,
  ds: DaemonSet,
  revision: number,
  signal?: AbortSignal,
): Promise<ControllerRevision> {
  const namespace = ds.metadata?.namespace ?? '';
  const hash = computeHash(ds.spec?.template ?? {}, ds.status?.collisionCount);
  const name = `${nameOf(ds)}-${hash}`;
  const history: ControllerRevision = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name,
      namespace,
      labels: { ...ds.spec?.template?.metadata?.labels, [controllerRevisionHashLabelKey]: hash },
      ...(ds.metadata?.annotations && { annotations: { ...ds.metadata.annotations } }),
      ownerReferences: [newControllerRef(ds, daemonSetKind)],
    },
    data: getPatch(ds),
    revision,
  };
  const revisions = host.client.controllerRevisions.inNamespace(namespace);
  try {
    return await revisions.create(history, opts(signal));
  } catch (outerErr) {
    if (!isAlreadyExists(outerErr)) throw outerErr;
    const existing = await revisions.get(name, opts(signal));
    if (match(ds, existing)) return existing;
    const dsClient = host.client.daemonSets.inNamespace(namespace);
    const currDS = await dsClient.get(nameOf(ds), opts(signal));
    const stale = currDS.status?.collisionCount ?? null;
    const seen = ds.status?.collisionCount ?? null;
    if (stale !== seen) {
      throw new Error(
        `found a stale collision count (${String(seen)}, expected ${String(stale)}) of DaemonSet ${JSON.stringify(nameOf(ds))} while processing; will retry until it is updated`,
      );
    }
    const collisionCount = (stale ?? 0) + 1;
    await dsClient.updateStatus(
      { ...currDS, status: { ...currDS.status!, collisionCount } },
      opts(signal),
    );
    host.logger
      .v(2)
      .info('Found a hash collision for DaemonSet - bumping collisionCount to resolve it', {
        daemonset: `${namespace}/${nameOf(ds)}`,
        collisionCount,
      });
    throw outerErr;
  }
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
