// The scheduler's cache (pkg/scheduler/backend/cache/cache.go): a NodeInfo
// per node with the pods bound to it, kept from the informers' events, plus
// the pods the scheduler has just bound and the informer has not shown
// bound yet (AssumePod, FinishBinding, ForgetPod), so that pods bound one
// after the other see each other. Finished pods (Succeeded, Failed) hold
// nothing: kube-scheduler's pod informer leaves them out.
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { NodeInfo, newPodInfo } from './framework.js';

const finished = (pod: Pod): boolean =>
  pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** Natural order of names: `node-2` before `node-10` (one collator: building one per compare is slow). */
const collator = new Intl.Collator('en', { numeric: true });
const byName = (a: NodeInfo, b: NodeInfo): number => collator.compare(a.name, b.name);

export class SchedulerCache {
  /** Node name → its NodeInfo; one without a Node while only pods bound to it are known. */
  readonly #nodes = new Map<string, NodeInfo>();
  /** Pod uid → the node it counts on, and whether it is only assumed. */
  readonly #pods = new Map<string, { node: string; assumed: boolean }>();
  /** The nodes with a Node, sorted; dropped when that set changes (kube-scheduler keeps its node tree the same way). */
  #sorted: NodeInfo[] | undefined;

  #info(name: string): NodeInfo {
    let info = this.#nodes.get(name);
    if (info === undefined) this.#nodes.set(name, (info = new NodeInfo()));
    return info;
  }

  /** AddNode and UpdateNode. */
  setNode(node: Node): void {
    const name = node.metadata?.name ?? '';
    const info = this.#info(name);
    if (info.node === undefined) this.#sorted = undefined;
    info.setNode(node);
  }

  /** RemoveNode: the node goes; its pods, if any, stay counted until they go too. */
  removeNode(name: string): void {
    const info = this.#nodes.get(name);
    if (info === undefined) return;
    this.#sorted = undefined;
    if (info.pods.size === 0) this.#nodes.delete(name);
    else info.setNode(undefined);
  }

  /**
   * AddPod and UpdatePod for a pod the informer shows bound to a node: it
   * counts there (in place of its assumed self), or no longer once it has
   * finished.
   */
  setPod(pod: Pod): void {
    const info = newPodInfo(pod);
    this.removePod(info.uid);
    if (finished(pod) || !pod.spec?.nodeName) return;
    this.#info(pod.spec.nodeName).addPod(info);
    this.#pods.set(info.uid, { node: pod.spec.nodeName, assumed: false });
  }

  /** RemovePod (and ForgetPod): the pod no longer counts anywhere. */
  removePod(uid: string): void {
    const where = this.#pods.get(uid);
    if (where === undefined) return;
    this.#pods.delete(uid);
    const info = this.#nodes.get(where.node);
    info?.removePod(uid);
    if (info !== undefined && info.node === undefined && info.pods.size === 0) {
      this.#nodes.delete(where.node);
    }
  }

  /** AssumePod: `pod`, which the scheduler is binding to `node`, counts there from now on. */
  assumePod(pod: Pod, node: string): string {
    const bound: Pod = { ...pod, spec: { ...pod.spec!, nodeName: node } };
    const info = newPodInfo(bound);
    this.removePod(info.uid);
    this.#info(node).addPod(info);
    this.#pods.set(info.uid, { node, assumed: true });
    return info.uid;
  }

  /** Whether the pod with this uid is assumed and not yet seen bound. */
  isAssumed(uid: string): boolean {
    return this.#pods.get(uid)?.assumed === true;
  }

  /** The nodes with a Node object, in the order the scheduler looks at them (by name). */
  nodeInfos(): NodeInfo[] {
    this.#sorted ??= [...this.#nodes.values()].filter((n) => n.node !== undefined).sort(byName);
    return [...this.#sorted];
  }

  /** The NodeInfo of `name`, if the node is known. */
  nodeInfo(name: string): NodeInfo | undefined {
    return this.#nodes.get(name);
  }
}
