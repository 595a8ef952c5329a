// The range allocator of the node IPAM controller: Go's
// pkg/controller/nodeipam/ipam/range_allocator.go (NewCIDRRangeAllocator,
// syncNode, AllocateOrOccupyCIDR, ReleaseCIDR, filterOutServiceRange,
// updateCIDRsAllocation) with cidr_allocator.go's worker and retry counts,
// and component-helpers' PatchNodeCIDRs. Each node gets one block of each
// cluster CIDR in `spec.podCIDRs` (and the first in `spec.podCIDR`), which
// the kubelet then carves pod addresses from.
import type { Node } from 'kubernetes-types/core/v1.js';
import {
  isDeletedFinalStateUnknown,
  isServerTimeout,
  noopEventRecorder,
  noopLogger,
  realClock,
  type Clock,
  type EventRecorder,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { waitForNamedCacheSync, type ResourceInformer } from '@kcm-ts/informer';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import { recordNodeStatusChange } from '../nodelifecycle/node-controller-utils.js';
import { CidrSet, cidrsOverlap, formatCIDR, parseCIDR, type IPNet } from './cidr-set.js';

/** Workers that write nodes' CIDRs: Go's `cidrUpdateWorkers`. */
export const cidrUpdateWorkers = 30;

/** Tries at patching one node before giving its CIDRs back: Go's `cidrUpdateRetries`. */
export const cidrUpdateRetries = 3;

/**
 * What a {@link RangeAllocator} is made from: Go's `CIDRAllocatorParams`
 * with the informer and client.
 *
 * @category Node IPAM
 */
export interface RangeAllocatorOptions {
  /** The shared node informer, `factory.nodes()`. */
  nodes: ResourceInformer<Node>;
  /** Patches nodes' `spec.podCIDRs`. */
  client: { nodes: ResourceClient<Node> };
  /** The cluster CIDRs, one per IP family (`--cluster-cidr`). */
  clusterCIDRs: readonly IPNet[];
  /** The node CIDR prefix length for each cluster CIDR (`--node-cidr-mask-size`). */
  nodeCIDRMaskSizes: readonly number[];
  /** The Services' range, kept out of the pool when it overlaps (`--service-cluster-ip-range`). */
  serviceCIDR?: IPNet;
  /** The second family's Services range, if dual-stack. */
  secondaryServiceCIDR?: IPNet;
  /** Events `CIDRNotAvailable` and `CIDRAssignmentFailed`; upstream's source is `cidrAllocator`. */
  recorder?: EventRecorder;
  /** Default: the real clock. */
  clock?: Clock;
  /** Default: no logs. */
  logger?: Logger;
}

/**
 * Gives every node without `spec.podCIDRs` the next free block of each
 * cluster CIDR, marks the blocks of nodes that have them as used, and frees
 * a deleted node's blocks. Go's `rangeAllocator`.
 *
 * @category Node IPAM
 */
export class RangeAllocator {
  readonly #nodes: ResourceInformer<Node>;
  readonly #client: ResourceClient<Node>;
  readonly #clusterCIDRs: readonly IPNet[];
  readonly #sets: CidrSet[];
  readonly #queue: RateLimitingQueue<string>;
  readonly #recorder: EventRecorder;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /** @param opts - see {@link RangeAllocatorOptions} */
  constructor(opts: RangeAllocatorOptions) {
    this.#nodes = opts.nodes;
    this.#client = opts.client.nodes;
    this.#clusterCIDRs = opts.clusterCIDRs;
    this.#recorder = opts.recorder ?? noopEventRecorder;
    this.#clock = opts.clock ?? realClock;
    this.#logger = opts.logger ?? noopLogger;
    this.#sets = opts.clusterCIDRs.map(
      (cidr, i) => new CidrSet(cidr, opts.nodeCIDRMaskSizes[i] ?? cidr.prefix),
    );
    this.#queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(this.#clock), {
      name: 'cidrallocator_node',
      clock: this.#clock,
    });
    if (opts.serviceCIDR) this.#filterOutServiceRange(opts.serviceCIDR);
    else this.#logger.info('No Service CIDR provided. Skipping filtering out service addresses');
    if (opts.secondaryServiceCIDR) this.#filterOutServiceRange(opts.secondaryServiceCIDR);
    else {
      this.#logger.info(
        'No Secondary Service CIDR provided. Skipping filtering out secondary service addresses',
      );
    }
    const enqueue = (node: Node) => this.#queue.add(node.metadata?.name ?? '');
    this.#nodes.informer().addEventHandler({
      onAdd: enqueue,
      onUpdate: (_old, node) => enqueue(node),
      onDelete: (obj) => {
        // Nodes carry no finalizer, so a delete is the last word: free the
        // blocks from the object the informer last saw.
        const node = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
        if (node === undefined) return;
        try {
          this.releaseCIDR(node);
        } catch (err) {
          this.#logger.error(err, 'error while processing CIDR Release');
        }
        enqueue(node);
      },
    });
  }

  /** The pool of each cluster CIDR, in order (for tests and metrics). */
  get cidrSets(): readonly CidrSet[] {
    return this.#sets;
  }

  /**
   * Waits for the node informer, marks the blocks of every node that has
   * them as used (before any worker can hand them out again), then runs
   * {@link cidrUpdateWorkers} workers until `signal` aborts; resolves once
   * they have stopped.
   */
  async run(signal: AbortSignal): Promise<void> {
    const logger = this.#logger;
    const onAbort = () => this.#queue.shutDown();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const running: Promise<void>[] = [];
    logger.info('Starting range CIDR allocator');
    try {
      const informer = this.#nodes.informer();
      const synced = await waitForNamedCacheSync(
        'cidrallocator',
        signal,
        [() => informer.hasSynced()],
        { clock: this.#clock, logger },
      );
      if (!synced) return;
      // Go occupies these from a node list taken before its handlers run.
      for (const node of this.#nodes.lister().list()) {
        if ((node.spec?.podCIDRs ?? []).length === 0) continue;
        this.#occupyCIDRs(node);
      }
      for (let i = 0; i < cidrUpdateWorkers; i++) running.push(this.#worker(signal));
      await Promise.all(running);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#queue.shutDown();
      await Promise.all(running);
      logger.info('Shutting down range CIDR allocator');
    }
  }

  async #worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const [key, quit] = await this.#queue.get();
      if (quit) return;
      try {
        await this.#syncNode(key, signal);
        this.#queue.forget(key);
      } catch (err) {
        this.#queue.addRateLimited(key);
        if (!signal.aborted) this.#logger.error(err, `error syncing '${key}', requeuing`);
      } finally {
        this.#queue.done(key);
      }
    }
  }

  /** Go's `syncNode`. */
  async #syncNode(key: string, signal: AbortSignal): Promise<void> {
    const node = this.#nodes.lister().tryGet(key);
    if (node === undefined) {
      this.#logger.v(3).info('node has been deleted', { node: key });
      return;
    }
    if (node.metadata?.deletionTimestamp) {
      this.#logger.v(3).info('node is being deleted', { node: key });
      this.releaseCIDR(node);
      return;
    }
    await this.#allocateOrOccupyCIDR(node, signal);
  }

  #occupyCIDRs(node: Node): void {
    const name = node.metadata?.name ?? '';
    (node.spec?.podCIDRs ?? []).forEach((text, idx) => {
      const cidr = parseCIDR(text);
      if (cidr === undefined) {
        throw new Error(`failed to parse node ${name}, CIDR ${node.spec?.podCIDR ?? ''}`);
      }
      const set = this.#sets[idx];
      if (set === undefined) {
        throw new Error(
          `node:${name} has an allocated cidr: ${text} at index:${idx} that does not exist in cluster cidrs configuration`,
        );
      }
      try {
        set.occupy(cidr);
      } catch (err) {
        throw new Error(
          `failed to mark cidr[${text}] at idx [${idx}] as occupied for node: ${name}: ${(err as Error).message}`,
        );
      }
    });
  }

  /** Go's `AllocateOrOccupyCIDR`. */
  async #allocateOrOccupyCIDR(node: Node, signal: AbortSignal): Promise<void> {
    if ((node.spec?.podCIDRs ?? []).length > 0) {
      this.#occupyCIDRs(node);
      return;
    }
    const allocated: IPNet[] = [];
    for (const [idx, set] of this.#sets.entries()) {
      try {
        allocated.push(set.allocateNext());
      } catch (err) {
        // Blocks taken from the earlier sets stay taken, as upstream's do.
        recordNodeStatusChange(this.#recorder, this.#logger, node, 'CIDRNotAvailable', 'Warning');
        throw new Error(
          `failed to allocate cidr from cluster cidr at idx:${idx}: ${(err as Error).message}`,
        );
      }
    }
    await this.#updateCIDRsAllocation(node.metadata?.name ?? '', allocated, signal);
  }

  /**
   * Frees a node's blocks: Go's `ReleaseCIDR`. Throws when one of its
   * CIDRs cannot be read or lies outside the cluster CIDRs.
   */
  releaseCIDR(node: Node): void {
    const name = node.metadata?.name ?? '';
    (node.spec?.podCIDRs ?? []).forEach((text, idx) => {
      const cidr = parseCIDR(text);
      if (cidr === undefined) throw new Error(`failed to parse CIDR ${text} on Node ${name}`);
      const set = this.#sets[idx];
      if (set === undefined) {
        throw new Error(
          `node:${name} has an allocated cidr: ${text} at index:${idx} that does not exist in cluster cidrs configuration`,
        );
      }
      this.#logger.v(4).info('Release CIDR for node', { CIDR: text, node: name });
      try {
        set.release(cidr);
      } catch (err) {
        throw new Error(`error when releasing CIDR ${text}: ${(err as Error).message}`);
      }
    });
  }

  /** Keeps the Services' range out of the pool of an overlapping cluster CIDR. */
  #filterOutServiceRange(serviceCIDR: IPNet): void {
    this.#clusterCIDRs.forEach((cidr, idx) => {
      if (!cidrsOverlap(cidr, serviceCIDR)) return;
      try {
        this.#sets[idx]?.occupy(serviceCIDR);
      } catch (err) {
        this.#logger.error(err, 'Error filtering out service cidr out cluster cidr', {
          CIDR: formatCIDR(cidr),
          index: idx,
          serviceCIDR: formatCIDR(serviceCIDR),
        });
      }
    });
  }

  /** Go's `updateCIDRsAllocation`: patches the node, or gives the blocks back. */
  async #updateCIDRsAllocation(
    nodeName: string,
    allocated: readonly IPNet[],
    signal: AbortSignal,
  ): Promise<void> {
    const cidrs = allocated.map(formatCIDR);
    const node = this.#nodes.lister().tryGet(nodeName);
    if (node === undefined) {
      this.#releaseAll(allocated);
      throw new Error(`node "${nodeName}" not found`);
    }
    const current = node.spec?.podCIDRs ?? [];
    // The node already says what we chose: an earlier patch went through.
    if (current.length === cidrs.length && current.every((c, i) => c === cidrs[i])) return;
    if (current.length !== 0) {
      this.#logger.error(undefined, 'Node already has a CIDR allocated. Releasing the new one', {
        node: nodeName,
        podCIDRs: current,
      });
      this.#releaseAll(allocated);
      return;
    }
    let lastErr: unknown;
    for (let i = 0; i < cidrUpdateRetries; i++) {
      try {
        await this.#client.patch(
          nodeName,
          { type: 'strategic', body: { spec: { podCIDR: cidrs[0], podCIDRs: cidrs } } },
          { signal },
        );
        this.#logger.info('Set node PodCIDR', { node: nodeName, podCIDRs: cidrs });
        return;
      } catch (err) {
        lastErr = err;
        if (signal.aborted) break;
      }
    }
    this.#logger.error(lastErr, 'Failed to update node PodCIDR after multiple attempts', {
      node: nodeName,
      podCIDRs: cidrs,
    });
    recordNodeStatusChange(this.#recorder, this.#logger, node, 'CIDRAssignmentFailed', 'Warning');
    // After a timeout the patch may still land: keep the blocks rather than
    // hand them to a second node (a restart frees any leaked one).
    if (!isServerTimeout(lastErr)) this.#releaseAll(allocated);
    throw lastErr;
  }

  #releaseAll(allocated: readonly IPNet[]): void {
    allocated.forEach((cidr, idx) => {
      try {
        this.#sets[idx]?.release(cidr);
      } catch (err) {
        this.#logger.error(err, 'Error when releasing CIDR', {
          index: idx,
          CIDR: formatCIDR(cidr),
        });
      }
    });
  }
}
