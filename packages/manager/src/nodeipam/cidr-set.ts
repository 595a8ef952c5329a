// The pool of node CIDRs the range allocator hands out: Go's
// pkg/controller/nodeipam/ipam/cidrset/cidr_set.go (CidrSet, NewCIDRSet,
// AllocateNext, Occupy, Release, getBeginningAndEndIndices) with the CIDR
// parsing of k8s.io/utils/net (ParseCIDRSloppy). A cluster CIDR such as
// 10.244.0.0/16 cut into /24s is a bitmap of 256 blocks; allocation scans
// from the block after the last one handed out, so a released block is
// reused only once the scan comes round to it again.

/** An IPv4 or IPv6 network: its first address, family width and prefix length. */
export interface IPNet {
  /** The address as a number, masked to the prefix. */
  readonly ip: bigint;
  /** 32 for IPv4, 128 for IPv6. */
  readonly bits: 32 | 128;
  /** The prefix length, 0 to `bits`. */
  readonly prefix: number;
}

/** The error Go's `ErrCIDRRangeNoCIDRsRemaining` carries. */
export const errCIDRRangeNoCIDRsRemaining =
  'CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range';

/** The error Go's `ErrCIDRSetSubNetTooBig` carries. */
export const errCIDRSetSubNetTooBig = 'New CIDR set failed; the node CIDR size is too big';

// An IPv6 cluster may be cut into at most 2^16 node CIDRs, as upstream's
// uncompressed bitmap allows (clusterSubnetMaxDiff).
const clusterSubnetMaxDiff = 16;

function parseIPv4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let out = 0n;
  for (const p of parts) {
    // Sloppy parsing, as ParseCIDRSloppy: leading zeros are decimal.
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out = (out << 8n) | BigInt(n);
  }
  return out;
}

function parseIPv6(s: string): bigint | undefined {
  let text = s;
  // An IPv4 tail (::ffff:1.2.3.4) becomes two groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string | undefined) => (h ? h.split(':') : []);
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  let out = 0n;
  for (const g of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    out = (out << 16n) | BigInt(parseInt(g, 16));
  }
  return out;
}

/**
 * Parses `a.b.c.d/n` or an IPv6 CIDR, masking the address to its prefix as
 * Go's `ParseCIDRSloppy` returns the network. Undefined when it is not one.
 */
export function parseCIDR(s: string): IPNet | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const addr = s.slice(0, slash);
  const prefixText = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const v4 = addr.includes(':') ? undefined : parseIPv4(addr);
  const v6 = addr.includes(':') ? parseIPv6(addr) : undefined;
  const bits = v4 !== undefined ? 32 : 128;
  const ip = v4 ?? v6;
  if (ip === undefined || prefix > bits) return undefined;
  return { ip: ip & maskOf(bits, prefix), bits, prefix };
}

function maskOf(bits: 32 | 128, prefix: number): bigint {
  const all = (1n << BigInt(bits)) - 1n;
  return (all >> BigInt(bits - prefix)) << BigInt(bits - prefix);
}

function formatIP(ip: bigint, bits: 32 | 128): string {
  if (bits === 32) {
    return [24n, 16n, 8n, 0n].map((s) => ((ip >> s) & 0xffn).toString()).join('.');
  }
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((ip >> BigInt(i * 16)) & 0xffffn));
  // RFC 5952: the longest run of two or more zero groups becomes '::'.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** Writes a network as Go's `IPNet.String` does: `10.244.1.0/24`. */
export function formatCIDR(net: IPNet): string {
  return `${formatIP(net.ip, net.bits)}/${net.prefix}`;
}

/** True when the two networks overlap (one contains the other's first address). */
export function cidrsOverlap(a: IPNet, b: IPNet): boolean {
  if (a.bits !== b.bits) return false;
  return (b.ip & maskOf(a.bits, a.prefix)) === a.ip || (a.ip & maskOf(b.bits, b.prefix)) === b.ip;
}

/**
 * The node CIDRs of one cluster CIDR, as a bitmap of blocks of
 * `nodeMaskSize`: Go's `CidrSet`.
 *
 * @category Node IPAM
 */
export class CidrSet {
  readonly #cluster: IPNet;
  readonly #nodeMaskSize: number;
  readonly #maxCIDRs: number;
  readonly #used: Uint8Array;
  #allocated = 0;
  #nextCandidate = 0;

  /**
   * Go's `NewCIDRSet`: throws {@link errCIDRSetSubNetTooBig} when an IPv6
   * cluster would be cut into more than 2^16 blocks. The caller checks that
   * `nodeMaskSize` is not shorter than the cluster's prefix.
   */
  constructor(clusterCIDR: IPNet, nodeMaskSize: number) {
    const diff = nodeMaskSize - clusterCIDR.prefix;
    if (clusterCIDR.bits === 128 && diff > clusterSubnetMaxDiff) {
      throw new Error(errCIDRSetSubNetTooBig);
    }
    if (diff < 0) {
      throw new Error(
        `the node CIDR mask size ${nodeMaskSize} is shorter than the cluster CIDR's /${clusterCIDR.prefix}`,
      );
    }
    // IPv4 allows more than 16 bits of difference upstream; the bitmap here
    // is a byte per block, so cap it where memory stays small.
    if (diff > 24) throw new Error(errCIDRSetSubNetTooBig);
    this.#cluster = clusterCIDR;
    this.#nodeMaskSize = nodeMaskSize;
    this.#maxCIDRs = 2 ** diff;
    this.#used = new Uint8Array(this.#maxCIDRs);
  }

  /** How many node CIDRs the cluster CIDR holds. */
  get maxCIDRs(): number {
    return this.#maxCIDRs;
  }

  /** How many are in use. */
  get allocatedCIDRs(): number {
    return this.#allocated;
  }

  #block(index: number): IPNet {
    const shift = BigInt(this.#cluster.bits - this.#nodeMaskSize);
    return {
      ip: this.#cluster.ip | (BigInt(index) << shift),
      bits: this.#cluster.bits,
      prefix: this.#nodeMaskSize,
    };
  }

  /** The next free block, now marked used: Go's `AllocateNext`. */
  allocateNext(): IPNet {
    if (this.#allocated === this.#maxCIDRs) throw new Error(errCIDRRangeNoCIDRsRemaining);
    let candidate = this.#nextCandidate;
    for (let i = 0; i < this.#maxCIDRs; i++) {
      if (this.#used[candidate] === 0) break;
      candidate = (candidate + 1) % this.#maxCIDRs;
    }
    this.#nextCandidate = (candidate + 1) % this.#maxCIDRs;
    this.#used[candidate] = 1;
    this.#allocated++;
    return this.#block(candidate);
  }

  #indexOf(ip: bigint): number {
    const shift = BigInt(this.#cluster.bits - this.#nodeMaskSize);
    const index = (this.#cluster.ip ^ ip) >> shift;
    if (index >= BigInt(this.#maxCIDRs)) {
      throw new Error(
        `CIDR: ${formatIP(ip, this.#cluster.bits)}/${this.#nodeMaskSize} is out of the range of CIDR allocator`,
      );
    }
    return Number(index);
  }

  /** The blocks `cidr` covers: Go's `getBeginningAndEndIndices`. */
  #range(cidr: IPNet): [number, number] {
    if (cidr.bits !== this.#cluster.bits || !cidrsOverlap(cidr, this.#cluster)) {
      throw new Error(
        `cidr ${formatCIDR(cidr)} is out the range of cluster cidr ${formatCIDR(this.#cluster)}`,
      );
    }
    if (this.#cluster.prefix >= cidr.prefix) return [0, this.#maxCIDRs - 1];
    const nodeMask = maskOf(cidr.bits, this.#nodeMaskSize);
    const last = cidr.ip | (~maskOf(cidr.bits, cidr.prefix) & ((1n << BigInt(cidr.bits)) - 1n));
    return [this.#indexOf(cidr.ip & nodeMask), this.#indexOf(last & nodeMask)];
  }

  /** Marks every block of `cidr` free again: Go's `Release`. */
  release(cidr: IPNet): void {
    const [begin, end] = this.#range(cidr);
    for (let i = begin; i <= end; i++) {
      if (this.#used[i] !== 0) {
        this.#used[i] = 0;
        this.#allocated--;
      }
    }
  }

  /** Marks every block of `cidr` used, even if it already was: Go's `Occupy`. */
  occupy(cidr: IPNet): void {
    const [begin, end] = this.#range(cidr);
    for (let i = begin; i <= end; i++) {
      if (this.#used[i] === 0) {
        this.#used[i] = 1;
        this.#allocated++;
      }
    }
  }
}
