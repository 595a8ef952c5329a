// The canonical layout of an Endpoints object's subsets:
// pkg/api/v1/endpoints/util.go (RepackSubsets, addressKey,
// mapAddressesByPort, mapAddressByPort, hashAddresses, LessEndpointAddress,
// SortSubsets). Go orders ports and subsets by the MD5 of a dump of each;
// here they are ordered by a canonical JSON key instead, which is as stable
// (the same input always gives the same output) but not the same order.
import type { EndpointAddress, EndpointPort, EndpointSubset } from 'kubernetes-types/core/v1.js';

/** The port that stands for "no ports": a subset without ports is grouped under it. */
const noPort: EndpointPort = Object.freeze({ port: -1 });

const portKey = (p: EndpointPort): string =>
  JSON.stringify([p.name ?? '', p.port, p.protocol ?? '', p.appProtocol ?? null]);

/** An address's identity while repacking: its IP and its target's uid. Go's `addressKey`. */
const addressKey = (a: EndpointAddress): string => JSON.stringify([a.ip, a.targetRef?.uid ?? '']);

/** For each port, the addresses that serve it and whether each is ready. */
type PortAddresses = Map<string, { port: EndpointPort; addrs: Map<EndpointAddress, boolean> }>;

/**
 * Records that `addr` serves `port`, once per identity; not ready wins over
 * ready. Go's `mapAddressByPort`.
 */
function mapAddressByPort(
  addr: EndpointAddress,
  port: EndpointPort,
  ready: boolean,
  allAddrs: Map<string, EndpointAddress>,
  portToAddrReady: PortAddresses,
): void {
  const key = addressKey(addr);
  let existing = allAddrs.get(key);
  if (existing === undefined) {
    existing = structuredClone(addr);
    allAddrs.set(key, existing);
  }
  const pk = portKey(port);
  let entry = portToAddrReady.get(pk);
  if (entry === undefined) {
    entry = { port, addrs: new Map() };
    portToAddrReady.set(pk, entry);
  }
  const wasReady = entry.addrs.get(existing);
  if (wasReady === undefined || wasReady) entry.addrs.set(existing, ready);
}

/**
 * Whether address `a` sorts before `b`: by IP, then an address without a
 * target first, then by the target's uid. Go's `LessEndpointAddress`.
 *
 * @category Endpoints controller
 */
export function lessEndpointAddress(a: EndpointAddress, b: EndpointAddress): boolean {
  if (a.ip !== b.ip) return a.ip < b.ip;
  if (b.targetRef == null) return false;
  if (a.targetRef == null) return true;
  return (a.targetRef.uid ?? '') < (b.targetRef.uid ?? '');
}

const compareAddresses = (a: EndpointAddress, b: EndpointAddress): number =>
  lessEndpointAddress(a, b) ? -1 : lessEndpointAddress(b, a) ? 1 : 0;

/** The key that groups ports served by the same addresses in the same states. Go's `hashAddresses`. */
function hashAddresses(addrs: Map<EndpointAddress, boolean>): string {
  const pairs = [...addrs].sort(([a], [b]) => compareAddresses(a, b));
  return JSON.stringify(pairs.map(([a, ready]) => [a.ip, a.targetRef?.uid ?? '', ready]));
}

/** A canonical JSON text: object keys sorted, so that equal objects give equal text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : v,
  );
}

const byCanonical = <T>(a: T, b: T): number => {
  const ka = canonical(a);
  const kb = canonical(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

/**
 * Sorts subsets in place and returns them: the addresses of each by
 * {@link lessEndpointAddress}, its ports and the subsets themselves by a
 * canonical key. Go's `SortSubsets`.
 *
 * @category Endpoints controller
 */
export function sortSubsets(subsets: EndpointSubset[]): EndpointSubset[] {
  for (const ss of subsets) {
    ss.addresses?.sort(compareAddresses);
    ss.notReadyAddresses?.sort(compareAddresses);
    ss.ports?.sort(byCanonical);
  }
  subsets.sort(byCanonical);
  return subsets;
}

/**
 * Rewrites subsets into the canonical layout: every address once (by IP
 * and target uid), not ready if any subset lists it not ready for a port;
 * the ports served by exactly the same addresses in the same states in one
 * subset; addresses without ports in a subset without ports; everything
 * sorted. Equal sets of endpoints always repack to equal subsets, so that
 * they can be compared. The input is not changed. Go's `RepackSubsets`.
 *
 * @category Endpoints controller
 */
export function repackSubsets(subsets: readonly EndpointSubset[] | undefined): EndpointSubset[] {
  const allAddrs = new Map<string, EndpointAddress>();
  const portToAddrReady: PortAddresses = new Map();
  for (const subset of subsets ?? []) {
    const ports = subset.ports ?? [];
    for (const port of ports.length === 0 ? [noPort] : ports) {
      for (const addr of subset.addresses ?? []) {
        mapAddressByPort(addr, port, true, allAddrs, portToAddrReady);
      }
      for (const addr of subset.notReadyAddresses ?? []) {
        mapAddressByPort(addr, port, false, allAddrs, portToAddrReady);
      }
    }
  }

  const keyToAddrReady = new Map<string, Map<EndpointAddress, boolean>>();
  const keyToPorts = new Map<string, EndpointPort[]>();
  for (const { port, addrs } of portToAddrReady.values()) {
    const key = hashAddresses(addrs);
    keyToAddrReady.set(key, addrs);
    let ports = keyToPorts.get(key);
    if (ports === undefined) {
      ports = [];
      keyToPorts.set(key, ports);
    }
    if (port.port > 0) ports.push(structuredClone(port));
  }

  const final: EndpointSubset[] = [];
  for (const [key, ports] of keyToPorts) {
    const ready: EndpointAddress[] = [];
    const notReady: EndpointAddress[] = [];
    for (const [addr, isReady] of keyToAddrReady.get(key)!) {
      (isReady ? ready : notReady).push(addr);
    }
    const subset: EndpointSubset = {};
    if (ready.length > 0) subset.addresses = ready;
    if (notReady.length > 0) subset.notReadyAddresses = notReady;
    if (ports.length > 0) subset.ports = ports;
    final.push(subset);
  }
  return sortSubsets(final);
}
