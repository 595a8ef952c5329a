// Pod addresses from the node's pod CIDR, as kind's CNI plugin hands them
// out: kindnet configures the host-local IPAM plugin with the node's
// `spec.podCIDR` (containernetworking/plugins, plugins/ipam/host-local:
// allocator.go's round-robin from the last address reserved). The network
// address and the gateway (the first host address) are never given to a
// pod, nor is the broadcast address; an address freed by a pod that went
// is given again once the round comes back to it.

function parseIPv4(s: string): number | undefined {
  const parts = s.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) {
    return undefined;
  }
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function formatIPv4(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

/** One node's pod addresses: a host-local range over its pod CIDR. */
export class PodIPAllocator {
  #cidr = '';
  #first = 0;
  #last = -1;
  #lastReserved = -1;
  readonly #byPod = new Map<string, number>();
  readonly #used = new Set<number>();

  /** The CIDR addresses come from; `''` until {@link setRange}. */
  get range(): string {
    return this.#cidr;
  }

  /**
   * Takes addresses from `cidr` (an IPv4 `a.b.c.d/n`, 8 ≤ n ≤ 30) from now
   * on. Addresses already given keep their pods. Throws on anything else.
   */
  setRange(cidr: string): void {
    if (cidr === this.#cidr) return;
    const [addr = '', prefixText = ''] = cidr.split('/');
    const ip = parseIPv4(addr);
    const prefix = /^\d{1,2}$/.test(prefixText) ? Number(prefixText) : NaN;
    if (ip === undefined || !(prefix >= 8 && prefix <= 30)) {
      throw new Error(`pod CIDR ${JSON.stringify(cidr)} is not an IPv4 range from /8 to /30`);
    }
    const size = 2 ** (32 - prefix);
    const network = ip - (ip % size);
    this.#cidr = cidr;
    // The gateway is the first host address; the last is broadcast.
    this.#first = network + 2;
    this.#last = network + size - 2;
    this.#lastReserved = this.#first - 1;
  }

  /** The address of `pod` (a namespace/name key), given once; undefined when the range is full or unset. */
  allocate(pod: string): string | undefined {
    const held = this.#byPod.get(pod);
    if (held !== undefined) return formatIPv4(held);
    const span = this.#last - this.#first + 1;
    for (let i = 1; i <= span; i++) {
      const candidate = this.#first + ((this.#lastReserved - this.#first + i) % span);
      if (this.#used.has(candidate)) continue;
      this.#used.add(candidate);
      this.#byPod.set(pod, candidate);
      this.#lastReserved = candidate;
      return formatIPv4(candidate);
    }
    return undefined;
  }

  /** Keeps `ip` for `pod`, as after a restart that finds the pod running with it. False when it is taken or outside the range. */
  reserve(pod: string, ip: string): boolean {
    const n = parseIPv4(ip);
    if (n === undefined || n < this.#first || n > this.#last) return false;
    if (this.#used.has(n) && this.#byPod.get(pod) !== n) return false;
    this.#used.add(n);
    this.#byPod.set(pod, n);
    return true;
  }

  /** Gives `pod`'s address back. */
  release(pod: string): void {
    const n = this.#byPod.get(pod);
    if (n === undefined) return;
    this.#byPod.delete(pod);
    this.#used.delete(n);
  }
}
