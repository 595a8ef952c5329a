// The node IPAM controller with its flags: Go's
// pkg/controller/nodeipam/node_ipam_controller.go (NewNodeIpamController,
// Run) and the checks kube-controller-manager makes before it starts one
// (cmd/kube-controller-manager/app/core.go: newNodeIpamController,
// validateCIDRs, processCIDRs, setNodeCIDRMaskSizes). Only the range
// allocator is ported, the one kube-controller-manager runs without a
// cloud provider.
import type { Node } from 'kubernetes-types/core/v1.js';
import type { Clock, EventRecorder, Logger, ResourceClient } from '@kcm-ts/apimachinery';
import type { ResourceInformer } from '@kcm-ts/informer';
import { parseCIDR, type IPNet } from './cidr-set.js';
import { RangeAllocator } from './range-allocator.js';

/** The node CIDR prefix length for IPv4 unless a flag says otherwise: Go's `defaultNodeMaskCIDRIPv4`. */
export const defaultNodeMaskCIDRIPv4 = 24;

/** The node CIDR prefix length for IPv6 unless a flag says otherwise: Go's `defaultNodeMaskCIDRIPv6`. */
export const defaultNodeMaskCIDRIPv6 = 64;

/**
 * The flags of the node IPAM controller: kube-controller-manager's
 * `--cluster-cidr`, `--service-cluster-ip-range`,
 * `--secondary-service-cluster-ip-range` and the three
 * `--node-cidr-mask-size` flags (0 when unset).
 *
 * @category Node IPAM
 */
export interface NodeIpamFlags {
  /** `--cluster-cidr`: one CIDR, or two of different families, comma-separated. */
  clusterCIDR: string;
  /** `--service-cluster-ip-range`: the first Services range, or `''`. */
  serviceCIDR: string;
  /** `--secondary-service-cluster-ip-range`, or `''`. */
  secondaryServiceCIDR: string;
  /** `--node-cidr-mask-size`, single-stack only; 0 when unset. */
  nodeCIDRMaskSize: number;
  /** `--node-cidr-mask-size-ipv4`; 0 when unset. */
  nodeCIDRMaskSizeIPv4: number;
  /** `--node-cidr-mask-size-ipv6`; 0 when unset. */
  nodeCIDRMaskSizeIPv6: number;
}

/** The cluster CIDRs and node mask sizes the flags come to, with the Services ranges. */
export interface NodeIpamParams {
  /** One per IP family. */
  clusterCIDRs: IPNet[];
  /** The node prefix length for each cluster CIDR. */
  nodeCIDRMaskSizes: number[];
  /** The first Services range, if one was given and could be read. */
  serviceCIDR?: IPNet;
  /** The second, if given. */
  secondaryServiceCIDR?: IPNet;
  /** Warnings to log (a Services range that could not be read is skipped, as upstream). */
  warnings: string[];
}

function processCIDRs(list: string): IPNet[] {
  return list
    .trim()
    .split(',')
    .map((text) => {
      const cidr = parseCIDR(text.trim());
      if (cidr === undefined) throw new Error(`invalid CIDR address: ${text}`);
      return cidr;
    });
}

/** Go's `validateCIDRs`: at most two cluster CIDRs, and two only of different families. */
export function validateCIDRs(list: string): IPNet[] {
  const cidrs = processCIDRs(list);
  // Dual stack as k8s.io/utils/net says it: at least one of each family.
  const dualStack = cidrs.some((c) => c.bits === 32) && cidrs.some((c) => c.bits === 128);
  if (cidrs.length > 1 && !dualStack) {
    throw new Error(
      `len of ClusterCIDRs==${cidrs.length} and they are not configured as dual stack (at least one from each IPFamily`,
    );
  }
  if (cidrs.length > 2) {
    throw new Error(`length of clusterCIDRs is:${cidrs.length} more than max allowed of 2`);
  }
  return cidrs;
}

/** Go's `setNodeCIDRMaskSizes`: which prefix length each cluster CIDR is cut into. */
export function setNodeCIDRMaskSizes(flags: NodeIpamFlags, clusterCIDRs: IPNet[]): number[] {
  let v4 = defaultNodeMaskCIDRIPv4;
  let v6 = defaultNodeMaskCIDRIPv6;
  const sorted = () => clusterCIDRs.map((c) => (c.bits === 128 ? v6 : v4));
  if (clusterCIDRs.length > 1) {
    if (flags.nodeCIDRMaskSize !== 0) {
      throw new Error('usage of --node-cidr-mask-size is not allowed with dual-stack clusters');
    }
    if (flags.nodeCIDRMaskSizeIPv4 !== 0) v4 = flags.nodeCIDRMaskSizeIPv4;
    if (flags.nodeCIDRMaskSizeIPv6 !== 0) v6 = flags.nodeCIDRMaskSizeIPv6;
    return sorted();
  }
  const singleStackIPv6 = clusterCIDRs[0]?.bits === 128;
  if (flags.nodeCIDRMaskSize !== 0) {
    if (flags.nodeCIDRMaskSizeIPv4 !== 0 || flags.nodeCIDRMaskSizeIPv6 !== 0) {
      throw new Error(
        'usage of --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6 is not allowed if --node-cidr-mask-size is set. For dual-stack clusters please unset it and use IPFamily specific flags',
      );
    }
    v4 = v6 = flags.nodeCIDRMaskSize;
    return sorted();
  }
  if (flags.nodeCIDRMaskSizeIPv4 !== 0) {
    if (singleStackIPv6) {
      throw new Error(
        'usage of --node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster',
      );
    }
    v4 = flags.nodeCIDRMaskSizeIPv4;
  }
  if (flags.nodeCIDRMaskSizeIPv6 !== 0) {
    if (!singleStackIPv6) {
      throw new Error(
        'usage of --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster',
      );
    }
    v6 = flags.nodeCIDRMaskSizeIPv6;
  }
  return sorted();
}

/**
 * What kube-controller-manager derives from the flags before it starts the
 * controller, with its errors: no or bad cluster CIDRs, Services ranges of
 * one family, conflicting mask flags, a cluster prefix longer than the
 * node's.
 *
 * @category Node IPAM
 */
export function nodeIpamParams(flags: NodeIpamFlags): NodeIpamParams {
  if (flags.clusterCIDR.trim() === '') {
    throw new Error('Controller: Must specify --cluster-cidr if --allocate-node-cidrs is set');
  }
  const clusterCIDRs = validateCIDRs(flags.clusterCIDR);
  const warnings: string[] = [];
  const service = (text: string): IPNet | undefined => {
    if (text.trim() === '') return undefined;
    const cidr = parseCIDR(text.trim());
    if (cidr === undefined) warnings.push(`unsuccessful parsing of service CIDR ${text}`);
    return cidr;
  };
  const serviceCIDR = service(flags.serviceCIDR);
  const secondaryServiceCIDR = service(flags.secondaryServiceCIDR);
  if (serviceCIDR && secondaryServiceCIDR && serviceCIDR.bits === secondaryServiceCIDR.bits) {
    throw new Error(
      'serviceCIDR and secondaryServiceCIDR are not dualstack (from different IPfamiles)',
    );
  }
  const nodeCIDRMaskSizes = setNodeCIDRMaskSizes(flags, clusterCIDRs);
  clusterCIDRs.forEach((cidr, idx) => {
    if (cidr.prefix > (nodeCIDRMaskSizes[idx] ?? 0)) {
      throw new Error(
        'Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family',
      );
    }
  });
  return {
    clusterCIDRs,
    nodeCIDRMaskSizes,
    ...(serviceCIDR ? { serviceCIDR } : {}),
    ...(secondaryServiceCIDR ? { secondaryServiceCIDR } : {}),
    warnings,
  };
}

/**
 * What a {@link NodeIpamController} is made from.
 *
 * @category Node IPAM
 */
export interface NodeIpamControllerOptions {
  /** The shared node informer. */
  nodes: ResourceInformer<Node>;
  /** Patches nodes (upstream's client is `node-controller`'s). */
  client: { nodes: ResourceClient<Node> };
  /** From {@link nodeIpamParams}. */
  params: NodeIpamParams;
  /** Records `CIDRNotAvailable` and `CIDRAssignmentFailed` events. */
  recorder?: EventRecorder;
  /** Default: the real clock. */
  clock?: Clock;
  /** Default: no logs. */
  logger?: Logger;
}

/**
 * kube-controller-manager's `node-ipam-controller` with the range
 * allocator: every node gets a `spec.podCIDR` from the cluster CIDR. Go's
 * `nodeipam.Controller`.
 *
 * @category Node IPAM
 */
export class NodeIpamController {
  readonly #allocator: RangeAllocator;
  readonly #logger: Logger | undefined;

  /** @param opts - see {@link NodeIpamControllerOptions} */
  constructor(opts: NodeIpamControllerOptions) {
    const { params } = opts;
    this.#logger = opts.logger;
    for (const warning of params.warnings) opts.logger?.info(`Warning: ${warning}`);
    this.#allocator = new RangeAllocator({
      nodes: opts.nodes,
      client: opts.client,
      clusterCIDRs: params.clusterCIDRs,
      nodeCIDRMaskSizes: params.nodeCIDRMaskSizes,
      ...(params.serviceCIDR ? { serviceCIDR: params.serviceCIDR } : {}),
      ...(params.secondaryServiceCIDR ? { secondaryServiceCIDR: params.secondaryServiceCIDR } : {}),
      ...(opts.recorder ? { recorder: opts.recorder } : {}),
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
  }

  /** The allocator, for its pools. */
  get allocator(): RangeAllocator {
    return this.#allocator;
  }

  /** Runs the allocator until `signal` aborts; resolves once it has stopped. */
  async run(signal: AbortSignal): Promise<void> {
    this.#logger?.info('Starting IPAM controller');
    try {
      await this.#allocator.run(signal);
    } finally {
      this.#logger?.info('Shutting down IPAM controller');
    }
  }
}
