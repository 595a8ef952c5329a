// The few IP helpers the Endpoints and mirroring controllers need:
// k8s.io/utils/net (ParseIPSloppy, IsIPv6String) and Go's net.IP methods
// (To4, String). An address is kept as Go keeps it, 16 bytes, IPv4 ones
// mapped into ::ffff:0:0/96.

/**
 * An IP address as 16 bytes, IPv4 addresses in their IPv4-mapped IPv6 form.
 * Go's `net.IP`.
 *
 * @internal
 */
export type IPBytes = Uint8Array;

/** Parses dotted decimal, where leading zeros are decimal digits (not octal). */
function parseIPv4Sloppy(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return bytes;
}

function parseIPv6Sloppy(s: string): number[] | undefined {
  if (s.length === 0) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const fields = part.split(':');
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      if (i === fields.length - 1 && f.includes('.')) {
        const v4 = parseIPv4Sloppy(f);
        if (v4 === undefined) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(f)) return undefined;
      out.push(parseInt(f, 16));
    }
    return out;
  };
  const head = groups(halves[0]!);
  if (head === undefined) return undefined;
  let all: number[];
  if (halves.length === 2) {
    const tail = groups(halves[1]!);
    if (tail === undefined) return undefined;
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return undefined;
    all = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else {
    all = head;
  }
  if (all.length !== 8) return undefined;
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/**
 * Parses an IPv4 or IPv6 address, reading IPv4 octets with leading zeros as
 * decimal; undefined when `s` is not an address. Go's `netutils.ParseIPSloppy`.
 *
 * @internal
 */
export function parseIPSloppy(s: string): IPBytes | undefined {
  if (s.includes(':')) {
    const v6 = parseIPv6Sloppy(s);
    return v6 === undefined ? undefined : Uint8Array.from(v6);
  }
  const v4 = parseIPv4Sloppy(s);
  if (v4 === undefined) return undefined;
  return Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4]);
}

/**
 * The four IPv4 bytes of an address, or undefined for an IPv6 one. Go's
 * `net.IP.To4`.
 *
 * @internal
 */
export function to4(ip: IPBytes): IPBytes | undefined {
  for (let i = 0; i < 10; i++) if (ip[i] !== 0) return undefined;
  if (ip[10] !== 0xff || ip[11] !== 0xff) return undefined;
  return ip.subarray(12, 16);
}

/**
 * The canonical text of an address: dotted decimal for IPv4, RFC 5952 for
 * IPv6 (lowercase, the first longest run of two or more zero groups as
 * `::`). Go's `net.IP.String`.
 *
 * @internal
 */
export function ipToString(ip: IPBytes): string {
  const v4 = to4(ip);
  if (v4 !== undefined) return Array.from(v4).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((ip[i]! << 8) | ip[i + 1]!);
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
  const hex = (g: number) => g.toString(16);
  if (bestStart < 0) return groups.map(hex).join(':');
  const head = groups.slice(0, bestStart).map(hex).join(':');
  const tail = groups
    .slice(bestStart + bestLen)
    .map(hex)
    .join(':');
  return `${head}::${tail}`;
}

/**
 * Whether `s` is an IPv6 address (an IPv4-mapped one counts as IPv4). Go's
 * `netutils.IsIPv6String`.
 *
 * @internal
 */
export function isIPv6String(s: string): boolean {
  const ip = parseIPSloppy(s);
  return ip !== undefined && to4(ip) === undefined;
}
