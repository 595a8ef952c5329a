// A port of pkg/api/v1/endpoints/util_test.go's TestPackSubsets (as
// upstream, the expected subsets go through sortSubsets before comparing),
// with the newer rule that addresses without ports keep a subset without
// ports, and of TestLessEndpointAddress's ordering.
import type { EndpointAddress, EndpointSubset } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { lessEndpointAddress, repackSubsets, sortSubsets } from '../src/index.js';

const podRef = (uid: string) => ({ uid });
const a = (ip: string, uid?: string): EndpointAddress =>
  uid === undefined ? { ip } : { ip, targetRef: podRef(uid) };

const cases: [string, EndpointSubset[], EndpointSubset[]][] = [
  ['empty everything', [{ addresses: [], ports: [] }], []],
  ['empty addresses', [{ addresses: [], ports: [{ port: 111 }] }], []],
  [
    'empty ports: the addresses keep a subset without ports',
    [{ addresses: [a('1.2.3.4')], ports: [] }],
    [{ addresses: [a('1.2.3.4')] }],
  ],
  [
    'empty ports, not ready',
    [{ notReadyAddresses: [a('1.2.3.4')] }],
    [{ notReadyAddresses: [a('1.2.3.4')] }],
  ],
  [
    'one set, one ip, one port',
    [{ addresses: [a('1.2.3.4')], ports: [{ port: 111 }] }],
    [{ addresses: [a('1.2.3.4')], ports: [{ port: 111 }] }],
  ],
  [
    'one set, one ip, one port (IPv6)',
    [{ addresses: [a('beef::1:2:3:4')], ports: [{ port: 111 }] }],
    [{ addresses: [a('beef::1:2:3:4')], ports: [{ port: 111 }] }],
  ],
  [
    'one set, one notReady ip, one UID, one port',
    [{ notReadyAddresses: [a('1.2.3.4', 'uid-1')], ports: [{ port: 111 }] }],
    [{ notReadyAddresses: [a('1.2.3.4', 'uid-1')], ports: [{ port: 111 }] }],
  ],
  [
    'one set, one ip, empty UID, one port',
    [{ addresses: [a('1.2.3.4', '')], ports: [{ port: 111 }] }],
    [{ addresses: [a('1.2.3.4', '')], ports: [{ port: 111 }] }],
  ],
  [
    'one set, two mixed ips, one port',
    [{ addresses: [a('1.2.3.4')], notReadyAddresses: [a('5.6.7.8')], ports: [{ port: 111 }] }],
    [{ addresses: [a('1.2.3.4')], notReadyAddresses: [a('5.6.7.8')], ports: [{ port: 111 }] }],
  ],
  [
    'one set, two duplicate ips, one port, notReady is covered by ready',
    [{ addresses: [a('1.2.3.4')], notReadyAddresses: [a('1.2.3.4')], ports: [{ port: 111 }] }],
    [{ notReadyAddresses: [a('1.2.3.4')], ports: [{ port: 111 }] }],
  ],
  [
    'one set, one ip, two ports',
    [{ addresses: [a('1.2.3.4')], ports: [{ port: 111 }, { port: 222 }] }],
    [{ addresses: [a('1.2.3.4')], ports: [{ port: 111 }, { port: 222 }] }],
  ],
  [
    'one set, dup ips, one port',
    [{ addresses: [a('1.2.3.4'), a('1.2.3.4')], ports: [{ port: 111 }] }],
    [{ addresses: [a('1.2.3.4')], ports: [{ port: 111 }] }],
  ],
  [
    'one set, dup mixed ips with target-refs, one port: the first reference stays',
    [
      {
        addresses: [{ ip: '1.2.3.4', targetRef: { name: 'foo' } }],
        notReadyAddresses: [{ ip: '1.2.3.4', targetRef: { name: 'bar' } }],
        ports: [{ port: 111 }],
      },
    ],
    [
      {
        notReadyAddresses: [{ ip: '1.2.3.4', targetRef: { name: 'foo' } }],
        ports: [{ port: 111 }],
      },
    ],
  ],
  [
    'one set, one ip, dup ports',
    [{ addresses: [a('1.2.3.4')], ports: [{ port: 111 }, { port: 111 }] }],
    [{ addresses: [a('1.2.3.4')], ports: [{ port: 111 }] }],
  ],
  [
    'two sets, dup mixed ip, dup port',
    [
      { addresses: [a('1.2.3.4')], ports: [{ port: 111 }] },
      { notReadyAddresses: [a('1.2.3.4')], ports: [{ port: 111 }] },
    ],
    [{ notReadyAddresses: [a('1.2.3.4')], ports: [{ port: 111 }] }],
  ],
  [
    'two sets, dup ip, two ports',
    [
      { addresses: [a('1.2.3.4')], ports: [{ port: 111 }] },
      { addresses: [a('1.2.3.4')], ports: [{ port: 222 }] },
    ],
    [{ addresses: [a('1.2.3.4')], ports: [{ port: 111 }, { port: 222 }] }],
  ],
  [
    'two sets, dup mixed ip, dup uids, two ports',
    [
      { addresses: [a('1.2.3.4', 'uid-1')], ports: [{ port: 111 }] },
      { notReadyAddresses: [a('1.2.3.4', 'uid-1')], ports: [{ port: 222 }] },
    ],
    [
      { addresses: [a('1.2.3.4', 'uid-1')], ports: [{ port: 111 }] },
      { notReadyAddresses: [a('1.2.3.4', 'uid-1')], ports: [{ port: 222 }] },
    ],
  ],
  [
    'two set, dup ip, with and without uid, dup ports',
    [
      { addresses: [a('1.2.3.4')], ports: [{ port: 111 }] },
      { addresses: [a('1.2.3.4', 'uid-2')], ports: [{ port: 111 }] },
    ],
    [{ addresses: [a('1.2.3.4'), a('1.2.3.4', 'uid-2')], ports: [{ port: 111 }] }],
  ],
  [
    'two sets, two mixed ips, two dup ip with uid, dup port, wrong order, ends up with split addresses',
    [
      { addresses: [a('5.6.7.8')], ports: [{ port: 111 }] },
      { notReadyAddresses: [a('5.6.7.8', 'uid-1')], ports: [{ port: 111 }] },
      { notReadyAddresses: [a('1.2.3.4', 'uid-1')], ports: [{ port: 111 }] },
      { notReadyAddresses: [a('1.2.3.4')], ports: [{ port: 111 }] },
    ],
    [
      {
        addresses: [a('5.6.7.8')],
        notReadyAddresses: [a('1.2.3.4'), a('1.2.3.4', 'uid-1'), a('5.6.7.8', 'uid-1')],
        ports: [{ port: 111 }],
      },
    ],
  ],
  [
    'four sets, three ips, three ports, jumbled',
    [
      { addresses: [a('1.2.3.4')], ports: [{ port: 111 }] },
      { addresses: [a('1.2.3.5')], ports: [{ port: 222 }] },
      { addresses: [a('1.2.3.6')], ports: [{ port: 111 }] },
      { addresses: [a('1.2.3.5')], ports: [{ port: 333 }] },
    ],
    [
      { addresses: [a('1.2.3.4'), a('1.2.3.6')], ports: [{ port: 111 }] },
      { addresses: [a('1.2.3.5')], ports: [{ port: 222 }, { port: 333 }] },
    ],
  ],
];

describe('repackSubsets (TestPackSubsets)', () => {
  it.each(cases)('%s', (_name, given, want) => {
    const before = structuredClone(given);
    expect(repackSubsets(given)).toEqual(sortSubsets(structuredClone(want)));
    expect(given).toEqual(before); // the input is left alone
  });

  it('gives the same result whatever the order of its input', () => {
    const given = cases.at(-1)![1];
    expect(repackSubsets([...given].reverse())).toEqual(repackSubsets(given));
  });
});

describe('lessEndpointAddress', () => {
  it('orders by IP, then no target first, then by uid', () => {
    expect(lessEndpointAddress(a('1.2.3.4'), a('1.2.3.5'))).toBe(true);
    expect(lessEndpointAddress(a('1.2.3.4'), a('1.2.3.4', 'x'))).toBe(true);
    expect(lessEndpointAddress(a('1.2.3.4', 'x'), a('1.2.3.4'))).toBe(false);
    expect(lessEndpointAddress(a('1.2.3.4', 'a'), a('1.2.3.4', 'b'))).toBe(true);
    expect(lessEndpointAddress(a('1.2.3.4', 'a'), a('1.2.3.4', 'a'))).toBe(false);
  });
});
