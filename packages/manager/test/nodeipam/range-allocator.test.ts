// The node IPAM controller's range allocator against an in-process sandbox
// without simulated nodes, on a fake clock, with the situations of
// range_allocator_test.go: nodes without podCIDRs get the next free block
// (TestAllocateOrOccupyCIDRSuccess), nodes that have one keep it and hold
// it (the initial occupy), the Services range is kept out
// (TestAllocateOrOccupyCIDRSuccess's filtered cases), a full pool records
// CIDRNotAvailable (TestAllocateOrOccupyCIDRFailure), and a deleted node's
// block goes back (TestReleaseCIDRSuccess).
import type { Node } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, FakeRecorder, type ResourceClient } from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox } from '@kcm-ts/sandbox';
import {
  NodeIpamController,
  nodeIpamParams,
  type NodeIpamFlags,
} from '../../src/nodeipam/node-ipam-controller.js';
import { sandboxSource, until } from '../garbagecollector/helpers.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

interface Harness {
  clock: FakeClock;
  nodes: ResourceClient<Node>;
  recorder: FakeRecorder;
  controller: NodeIpamController;
  start(): void;
  podCIDRs(name: string): Promise<string[] | undefined>;
}

async function harness(flags: Partial<NodeIpamFlags>): Promise<Harness> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const sandbox = await startSandbox({ clock, insecureHttp: true });
  stops.push(() => sandbox.stop());
  const source = sandboxSource(sandbox);
  const nodes = sandbox.client<Node>('', 'nodes');
  const factory = new SharedInformerFactory(source, 0, { clock });
  const recorder = new FakeRecorder();
  const controller = new NodeIpamController({
    nodes: factory.nodes(),
    client: { nodes },
    params: nodeIpamParams({
      clusterCIDR: '10.244.0.0/16',
      serviceCIDR: '',
      secondaryServiceCIDR: '',
      nodeCIDRMaskSize: 0,
      nodeCIDRMaskSizeIPv4: 0,
      nodeCIDRMaskSizeIPv6: 0,
      ...flags,
    }),
    recorder,
    clock,
  });
  return {
    clock,
    nodes,
    recorder,
    controller,
    start() {
      const abort = new AbortController();
      factory.start(abort.signal);
      const running = controller.run(abort.signal);
      stops.push(async () => {
        abort.abort();
        await running;
        await factory.shutdown();
      });
    },
    async podCIDRs(name) {
      const node = await nodes.get(name);
      return node.spec?.podCIDRs;
    },
  };
}

const node = (name: string, podCIDRs?: string[]): Node => ({
  metadata: { name },
  ...(podCIDRs ? { spec: { podCIDR: podCIDRs[0], podCIDRs } } : {}),
});

describe('the range allocator', () => {
  it('gives each new node the next /24 of the cluster CIDR, in spec.podCIDR and spec.podCIDRs', async () => {
    const h = await harness({});
    h.start();
    await h.nodes.create(node('a'));
    await until(h.clock, async () => (await h.podCIDRs('a')) !== undefined, 'a CIDR for a');
    await h.nodes.create(node('b'));
    await until(h.clock, async () => (await h.podCIDRs('b')) !== undefined, 'a CIDR for b');
    const b = await h.nodes.get('b');
    expect(await h.podCIDRs('a')).toEqual(['10.244.0.0/24']);
    expect(b.spec?.podCIDRs).toEqual(['10.244.1.0/24']);
    expect(b.spec?.podCIDR).toBe('10.244.1.0/24');
    expect(h.controller.allocator.cidrSets[0]?.allocatedCIDRs).toBe(2);
  });

  it('holds the blocks nodes already have, so a new node never gets one of them', async () => {
    const h = await harness({});
    await h.nodes.create(node('old-0', ['10.244.0.0/24']));
    await h.nodes.create(node('old-2', ['10.244.2.0/24']));
    h.start();
    await h.nodes.create(node('new-1'));
    await h.nodes.create(node('new-2'));
    await until(
      h.clock,
      async () =>
        (await h.podCIDRs('new-1')) !== undefined && (await h.podCIDRs('new-2')) !== undefined,
      'CIDRs for the new nodes',
    );
    const given = [(await h.podCIDRs('new-1'))?.[0], (await h.podCIDRs('new-2'))?.[0]].sort();
    expect(given).toEqual(['10.244.1.0/24', '10.244.3.0/24']);
    expect(await h.podCIDRs('old-2')).toEqual(['10.244.2.0/24']);
  });

  it('keeps an overlapping Services range out of the pool', async () => {
    const h = await harness({
      clusterCIDR: '127.123.234.0/24',
      nodeCIDRMaskSize: 30,
      serviceCIDR: '127.123.234.0/26',
    });
    h.start();
    await h.nodes.create(node('a'));
    await until(h.clock, async () => (await h.podCIDRs('a')) !== undefined, 'a CIDR for a');
    expect(await h.podCIDRs('a')).toEqual(['127.123.234.64/30']);
  });

  it('records CIDRNotAvailable on a node when the pool is spent, and gives a deleted node’s block to the next', async () => {
    const h = await harness({ clusterCIDR: '10.0.0.0/24', nodeCIDRMaskSize: 25 });
    h.start();
    await h.nodes.create(node('a'));
    await h.nodes.create(node('b'));
    await until(
      h.clock,
      async () => (await h.podCIDRs('a')) !== undefined && (await h.podCIDRs('b')) !== undefined,
      'CIDRs for a and b',
    );
    await h.nodes.create(node('c'));
    await until(
      h.clock,
      () => h.recorder.events.some((e) => e.includes('CIDRNotAvailable')),
      'the CIDRNotAvailable event',
    );
    expect(h.recorder.events).toContain(
      'Warning CIDRNotAvailable Node c status is now: CIDRNotAvailable',
    );
    expect(await h.podCIDRs('c')).toBeUndefined();
    const freed = (await h.podCIDRs('a'))?.[0];
    await h.nodes.delete('a');
    // The retry with backoff finds the freed block.
    await until(h.clock, async () => (await h.podCIDRs('c')) !== undefined, 'a CIDR for c', {
      step: 1000,
      maxSteps: 600,
    });
    expect(await h.podCIDRs('c')).toEqual([freed]);
  });

  it('gives a dual-stack node one block of each family', async () => {
    const h = await harness({ clusterCIDR: '10.244.0.0/16,fd00:10:244::/56' });
    h.start();
    await h.nodes.create(node('a'));
    await until(h.clock, async () => (await h.podCIDRs('a')) !== undefined, 'CIDRs for a');
    expect(await h.podCIDRs('a')).toEqual(['10.244.0.0/24', 'fd00:10:244::/64']);
  });
});
