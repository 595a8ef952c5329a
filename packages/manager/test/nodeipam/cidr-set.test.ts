// The CIDR pool and the flag checks of the node IPAM controller: cases of
// cidr_set_test.go (TestCIDRSetFullyAllocated, TestIndexToCIDRBlock,
// TestCIDRSet_RandomishAllocation, TestCIDRSet_AllocationOccupied,
// TestDoubleOccupyRelease, TestGetBitforCIDR's out-of-range cases) and of
// core.go's setNodeCIDRMaskSizes and validateCIDRs as
// controllermanager_test.go checks them.
import { describe, expect, it } from 'vitest';
import {
  CidrSet,
  errCIDRRangeNoCIDRsRemaining,
  errCIDRSetSubNetTooBig,
  formatCIDR,
  parseCIDR,
  type IPNet,
} from '../../src/nodeipam/cidr-set.js';
import { nodeIpamParams, type NodeIpamFlags } from '../../src/nodeipam/node-ipam-controller.js';

const cidr = (s: string): IPNet => {
  const parsed = parseCIDR(s);
  if (parsed === undefined) throw new Error(`bad test CIDR ${s}`);
  return parsed;
};

describe('parseCIDR and formatCIDR', () => {
  it.each([
    ['10.244.0.0/16', '10.244.0.0/16'],
    ['127.123.3.0/16', '127.123.0.0/16'],
    ['010.001.0.0/16', '10.1.0.0/16'],
    ['2001:0db8:1234:3::/48', '2001:db8:1234::/48'],
    ['beef:1234::/30', 'beef:1234::/30'],
    ['::ffff:10.0.0.0/120', '::ffff:a00:0/120'],
    ['2001:db8:0:0:1:0:0:1/128', '2001:db8::1:0:0:1/128'],
  ])('reads %s as the network %s', (input, network) => {
    expect(formatCIDR(cidr(input))).toBe(network);
  });

  it.each([
    '10.0.0.0',
    '10.0.0.0/33',
    '256.0.0.0/8',
    '1.2.3/8',
    'fe80:::1/64',
    '1::2::3/64',
    'x/8',
  ])('refuses %s', (input) => {
    expect(parseCIDR(input)).toBeUndefined();
  });
});

describe('CidrSet', () => {
  it.each([
    ['127.123.234.0/30', 30, '127.123.234.0/30'],
    ['beef:1234::/30', 30, 'beef:1234::/30'],
  ])(
    'hands out the one block of %s, then none, then it again once released',
    (cluster, size, block) => {
      const set = new CidrSet(cidr(cluster), size);
      const first = set.allocateNext();
      expect(formatCIDR(first)).toBe(block);
      expect(() => set.allocateNext()).toThrow(errCIDRRangeNoCIDRsRemaining);
      set.release(first);
      expect(formatCIDR(set.allocateNext())).toBe(block);
      expect(() => set.allocateNext()).toThrow(errCIDRRangeNoCIDRsRemaining);
    },
  );

  it.each([
    ['127.123.3.0/16', 24, 0, '127.123.0.0/24'],
    ['127.123.0.0/16', 24, 15, '127.123.15.0/24'],
    ['192.168.5.219/28', 32, 5, '192.168.5.213/32'],
    ['2001:0db8:1234::/48', 64, 15, '2001:db8:1234:f::/64'],
    ['2001:0db8:85a3::8a2e:0370:7334/50', 63, 6425, '2001:db8:85a3:3232::/63'],
    ['2001:0db8:85a3::8a2e:0370:7334/32', 48, 6425, '2001:db8:1919::/48'],
    ['2001:0db8:1234:ff00::0370:7334/56', 72, 6425, '2001:db8:1234:ff19:1900::/72'],
    ['2001:0db8:1234:ff00::0370:7334/80', 96, 6425, '2001:db8:1234:ff00:0:1919::/96'],
  ])('block %#: %s cut into /%i, index %i, is %s', (cluster, size, index, block) => {
    const set = new CidrSet(cidr(cluster), size);
    let last: IPNet | undefined;
    for (let i = 0; i <= index; i++) last = set.allocateNext();
    expect(last && formatCIDR(last)).toBe(block);
  });

  it.each(['127.123.234.0/16', 'beef:1234::/16'])(
    'gives %s back in the same order after releasing every block',
    (cluster) => {
      const set = new CidrSet(cidr(cluster), 24);
      const first = Array.from({ length: 256 }, () => formatCIDR(set.allocateNext()));
      expect(() => set.allocateNext()).toThrow(errCIDRRangeNoCIDRsRemaining);
      for (const c of first) set.release(cidr(c));
      const again = Array.from({ length: 256 }, () => formatCIDR(set.allocateNext()));
      expect(again).toEqual(first);
      expect(new Set(first).size).toBe(256);
    },
  );

  it.each(['127.123.234.0/16', 'beef:1234::/16'])(
    'skips occupied blocks of %s when allocating',
    (cluster) => {
      const set = new CidrSet(cidr(cluster), 24);
      const all = Array.from({ length: 256 }, () => set.allocateNext());
      for (const c of all) set.release(c);
      for (const c of all.slice(128)) set.occupy(c);
      set.occupy(all[128] as IPNet);
      const again = Array.from({ length: 128 }, () => set.allocateNext());
      expect(() => set.allocateNext()).toThrow(errCIDRRangeNoCIDRsRemaining);
      expect([...again, ...all.slice(128)].map(formatCIDR)).toEqual(all.map(formatCIDR));
    },
  );

  it('counts overlapping occupies and releases once per block', () => {
    const set = new CidrSet(cidr('10.42.0.0/16'), 24);
    const steps: [string, 'occupy' | 'release', number][] = [
      ['10.42.5.0/24', 'occupy', 1],
      ['10.42.9.0/24', 'occupy', 2],
      ['10.42.8.0/22', 'occupy', 5],
      ['10.42.9.0/24', 'occupy', 5],
      ['10.42.9.0/24', 'release', 4],
      ['10.42.9.0/24', 'release', 4],
      ['10.42.4.0/22', 'release', 3],
    ];
    for (const [c, op, count] of steps) {
      if (op === 'occupy') set.occupy(cidr(c));
      else set.release(cidr(c));
      expect(set.allocatedCIDRs).toBe(count);
    }
    for (let i = 0; i < 256 - 3; i++) set.allocateNext();
    expect(() => set.allocateNext()).toThrow(errCIDRRangeNoCIDRsRemaining);
  });

  it('refuses CIDRs outside its range, and IPv6 clusters cut too fine', () => {
    expect(() => new CidrSet(cidr('192.168.0.0/16'), 24).occupy(cidr('127.168.224.0/24'))).toThrow(
      'cidr 127.168.224.0/24 is out the range of cluster cidr 192.168.0.0/16',
    );
    expect(() => new CidrSet(cidr('beef::/16'), 24).release(cidr('2001:db00::/24'))).toThrow(
      'out the range',
    );
    expect(() => new CidrSet(cidr('beef::/16'), 24).occupy(cidr('10.0.0.0/24'))).toThrow(
      'out the range',
    );
    expect(() => new CidrSet(cidr('2001:db8::/32'), 64)).toThrow(errCIDRSetSubNetTooBig);
  });
});

describe('nodeIpamParams (the checks before the controller starts)', () => {
  const flags = (over: Partial<NodeIpamFlags>): NodeIpamFlags => ({
    clusterCIDR: '10.244.0.0/16',
    serviceCIDR: '',
    secondaryServiceCIDR: '',
    nodeCIDRMaskSize: 0,
    nodeCIDRMaskSizeIPv4: 0,
    nodeCIDRMaskSizeIPv6: 0,
    ...over,
  });

  it('cuts kind’s 10.244.0.0/16 into /24s by default, and dual stack into /24 and /64', () => {
    expect(nodeIpamParams(flags({})).nodeCIDRMaskSizes).toEqual([24]);
    const dual = nodeIpamParams(flags({ clusterCIDR: '10.244.0.0/16,fd00:10:244::/56' }));
    expect(dual.nodeCIDRMaskSizes).toEqual([24, 64]);
    expect(dual.clusterCIDRs.map(formatCIDR)).toEqual(['10.244.0.0/16', 'fd00:10:244::/56']);
  });

  it.each<[Partial<NodeIpamFlags>, string]>([
    [{ clusterCIDR: '' }, 'Must specify --cluster-cidr'],
    [{ clusterCIDR: '10.244.0.0/16,10.245.0.0/16' }, 'not configured as dual stack'],
    [{ clusterCIDR: '10.0.0.0/16,fd00::/56,10.1.0.0/16' }, 'more than max allowed of 2'],
    [{ clusterCIDR: '10.244.0.0/33' }, 'invalid CIDR address: 10.244.0.0/33'],
    [{ clusterCIDR: '10.0.0.0/8,fd00::/56', nodeCIDRMaskSize: 24 }, 'not allowed with dual-stack'],
    [
      { nodeCIDRMaskSize: 24, nodeCIDRMaskSizeIPv4: 24 },
      'is not allowed if --node-cidr-mask-size is set',
    ],
    [{ nodeCIDRMaskSizeIPv6: 64 }, 'not allowed for a single-stack IPv4 cluster'],
    [{ clusterCIDR: 'fd00::/56', nodeCIDRMaskSizeIPv4: 24 }, 'not allowed for a single-stack IPv6'],
    [{ nodeCIDRMaskSize: 12 }, 'mask size of cluster CIDR must be less than or equal'],
    [{ serviceCIDR: '10.96.0.0/12', secondaryServiceCIDR: '10.97.0.0/16' }, 'not dualstack'],
  ])('refuses %j: %s', (over, message) => {
    expect(() => nodeIpamParams(flags(over))).toThrow(message);
  });

  it('skips a Services range it cannot read, with a warning, as upstream', () => {
    const params = nodeIpamParams(flags({ serviceCIDR: 'ten/12' }));
    expect(params.serviceCIDR).toBeUndefined();
    expect(params.warnings).toEqual(['unsuccessful parsing of service CIDR ten/12']);
  });
});
