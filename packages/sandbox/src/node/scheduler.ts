// The simulated scheduler: binds each pending pod to the node running the
// fewest pods, through the pods/binding subresource as kube-scheduler does
// (pkg/scheduler/schedule_one.go, bind; pkg/scheduler/framework/plugins/
// defaultbinder). No filters or scores beyond that: the sandbox's nodes are
// all alike.
import {
  metaNamespaceKeyFunc,
  type Clock,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { ListWatch, SharedIndexInformer } from '@kcm-ts/informer';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { EventRecorder } from './events.js';
import type { Registry } from './registry.js';

/** How many pods that still run (not finished, not being deleted) each node has, in one pass over the store. */
function loads(registry: Registry): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of registry.storage.list('pods') as Pod[]) {
    const node = p.spec?.nodeName;
    if (!node || p.metadata?.deletionTimestamp) continue;
    if (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
    counts.set(node, (counts.get(node) ?? 0) + 1);
  }
  return counts;
}

export class SimulatedScheduler {
  readonly #informer: SharedIndexInformer<Pod>;
  #stopped = false;

  constructor(
    client: <T extends KubeObject>(group: string, resource: string) => ResourceClient<T>,
    private readonly registry: Registry,
    private readonly nodes: () => string[],
    private readonly events: EventRecorder,
    clock: Clock,
  ) {
    const unscheduled = ListWatch.filtered(client<Pod>('', 'pods'), (o) => {
      o.fieldSelector = 'spec.nodeName=';
    });
    this.#informer = new SharedIndexInformer<Pod>(unscheduled, {
      clock,
      objectDescription: 'unscheduled pods',
    });
    this.#informer.addEventHandler({
      onAdd: (pod) => this.#schedule(pod),
      onUpdate: (_old, pod) => this.#schedule(pod),
    });
  }

  async run(signal: AbortSignal): Promise<void> {
    signal.addEventListener('abort', () => (this.#stopped = true), { once: true });
    await this.#informer.run(signal);
  }

  #schedule(pod: Pod): void {
    if (this.#stopped) return;
    const meta = pod.metadata ?? {};
    if (meta.deletionTimestamp || pod.spec?.nodeName) return;
    const scheduler = pod.spec?.schedulerName ?? 'default-scheduler';
    if (scheduler !== 'default-scheduler') return;
    // The least loaded node, counted from the store so that pods bound a
    // moment ago count even before their kubelet has seen them.
    const counts = loads(this.registry);
    let node: { name: string; load: number } | undefined;
    for (const name of this.nodes()) {
      const l = counts.get(name) ?? 0;
      if (node === undefined || l < node.load) node = { name, load: l };
    }
    if (node === undefined) return;
    try {
      this.registry.bindPod(meta.namespace ?? '', meta.name ?? '', {
        kind: 'Binding',
        apiVersion: 'v1',
        metadata: { name: meta.name, namespace: meta.namespace, uid: meta.uid },
        target: { kind: 'Node', name: node.name },
      });
    } catch {
      return; // deleted or bound meanwhile: the informer will say
    }
    this.events.record(pod, {
      type: 'Normal',
      reason: 'Scheduled',
      message: `Successfully assigned ${metaNamespaceKeyFunc(pod)} to ${node.name}`,
      component: 'default-scheduler',
    });
  }
}
