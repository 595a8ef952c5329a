// ClusterIPs and NodePorts for Services, as kube-apiserver hands them out:
// pkg/registry/core/service/ipallocator (bitmap.go, AllocateNext with the
// static subrange of KEP-3070: dynamic IPs come from the upper part of the
// range first, the lower part is left for IPs asked for by name),
// pkg/registry/core/service/portallocator, and storage/alloc.go
// (allocateCreate, allocateUpdate, the "provided IP is already allocated"
// errors). What is taken is read from the stored Services, as the repair
// controllers rebuild the bitmaps, so nothing leaks when one is deleted and
// a restart from kept state knows every allocation.
import { GoLiteral, invalid } from '../field-errors.js';
import type { FieldError } from '../field-errors.js';
import { type Obj, obj } from '../../unstructured.js';

/** kube-apiserver's default `--service-cluster-ip-range`. */
export const serviceCIDR = '10.96.0.0/12';
/** kube-apiserver's default `--service-node-port-range`. */
export const nodePortRange = { base: 30000, size: 2768 } as const;

const [cidrBase = '', cidrBits = '32'] = serviceCIDR.split('/');

function ipToNumber(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return undefined;
    n = n * 256 + Number(part);
  }
  return n;
}

const numberToIp = (n: number): string =>
  [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

const rangeBase = ipToNumber(cidrBase) ?? 0;
const rangeSize = 2 ** (32 - Number(cidrBits));
// bitmap.go: the network and broadcast addresses are never handed out.
const firstOffset = 1;
const lastOffset = rangeSize - 2;
// KEP-3070: min(max(16, size/16), 256) addresses at the bottom of the range.
const staticBand = Math.min(Math.max(16, Math.floor(rangeSize / 16)), 256);

/** The first address of the range, the `kubernetes` Service's (10.96.0.1). */
export const kubernetesServiceIP = numberToIp(rangeBase + firstOffset);

/** True for a dotted IPv4 address (as `netip.ParseAddr` would take it, IPv4 only). */
export function isIPv4(ip: string): boolean {
  return ipToNumber(ip) !== undefined;
}

/** What the stored Services already hold: their ClusterIPs and NodePorts. */
export interface Allocated {
  clusterIPs: ReadonlySet<string>;
  nodePorts: ReadonlySet<number>;
}

/** The ClusterIPs and NodePorts of `services`, but those of `except` (the one being updated). */
export function allocatedBy(services: readonly Obj[], except?: Obj): Allocated {
  const clusterIPs = new Set<string>();
  const nodePorts = new Set<number>();
  const skip = except ? obj(except.metadata).uid : undefined;
  for (const svc of services) {
    if (skip !== undefined && obj(svc.metadata).uid === skip) continue;
    const spec = obj(svc.spec);
    const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [spec.clusterIP];
    for (const ip of ips) if (typeof ip === 'string' && isIPv4(ip)) clusterIPs.add(ip);
    for (const port of Array.isArray(spec.ports) ? spec.ports : []) {
      const nodePort = obj(port).nodePort;
      if (typeof nodePort === 'number') nodePorts.add(nodePort);
    }
  }
  return { clusterIPs, nodePorts };
}

/**
 * Picks a free ClusterIP: a random start in the dynamic band, scanning up
 * and wrapping round, then the static band (bitmap.go, AllocateNext).
 */
export function nextClusterIP(
  taken: ReadonlySet<string>,
  random: () => number,
): string | undefined {
  const bands: [number, number][] = [
    [staticBand, lastOffset],
    [firstOffset, staticBand - 1],
  ];
  for (const [lo, hi] of bands) {
    const size = hi - lo + 1;
    const start = Math.floor(random() * size);
    for (let i = 0; i < size; i++) {
      const ip = numberToIp(rangeBase + lo + ((start + i) % size));
      if (!taken.has(ip)) return ip;
    }
  }
  return undefined;
}

/** Checks an asked-for ClusterIP: in the range and free (alloc.go's errors). */
export function checkClusterIP(ip: string, taken: ReadonlySet<string>): FieldError | undefined {
  const field = 'spec.clusterIPs[0]';
  const n = ipToNumber(ip);
  if (n === undefined) {
    return invalid(field, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)');
  }
  // alloc.go reports allocation failures on the whole list.
  const ips = new GoLiteral(`[]string{${JSON.stringify(ip)}}`);
  const offset = n - rangeBase;
  if (offset < firstOffset || offset > lastOffset) {
    return invalid(
      'spec.clusterIPs',
      ips,
      `failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${serviceCIDR}`,
    );
  }
  if (taken.has(ip)) {
    return invalid(
      'spec.clusterIPs',
      ips,
      `failed to allocate IP ${ip}: provided IP is already allocated`,
    );
  }
  return undefined;
}

/** Picks a free NodePort, from a random start (portallocator's AllocateNext). */
export function nextNodePort(taken: ReadonlySet<number>, random: () => number): number | undefined {
  const start = Math.floor(random() * nodePortRange.size);
  for (let i = 0; i < nodePortRange.size; i++) {
    const port = nodePortRange.base + ((start + i) % nodePortRange.size);
    if (!taken.has(port)) return port;
  }
  return undefined;
}

/** Checks an asked-for NodePort: in the range and free. */
export function checkNodePort(
  field: string,
  port: number,
  taken: ReadonlySet<number>,
): FieldError | undefined {
  const last = nodePortRange.base + nodePortRange.size - 1;
  if (port < nodePortRange.base || port > last) {
    return invalid(
      field,
      port,
      `provided port is not in the valid range. The range of valid ports is ${nodePortRange.base}-${last}`,
    );
  }
  if (taken.has(port)) return invalid(field, port, 'provided port is already allocated');
  return undefined;
}
