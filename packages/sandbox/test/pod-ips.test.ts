// Pod addresses from the node's pod CIDR, as kind's host-local IPAM gives
// them (round-robin from the last reserved, gateway and broadcast never
// given), and nodes that wait, not Ready, for the controller manager's
// node-ipam-controller to give them a CIDR when the sandbox is told to.
import { FakeClock } from '@kcm-ts/apimachinery';
import type { Event as CoreEvent, Node, Pod } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';
import { PodIPAllocator } from '../src/node/pod-ips.js';

describe('PodIPAllocator', () => {
  it('gives .2 onward, round-robin, one address per pod, and reuses a freed one once the round comes back', () => {
    const ips = new PodIPAllocator();
    expect(ips.allocate('default/a')).toBeUndefined();
    ips.setRange('10.244.1.0/29');
    expect(['a', 'b', 'c'].map((p) => ips.allocate(`default/${p}`))).toEqual([
      '10.244.1.2',
      '10.244.1.3',
      '10.244.1.4',
    ]);
    expect(ips.allocate('default/a')).toBe('10.244.1.2');
    ips.release('default/a');
    expect(ips.allocate('default/d')).toBe('10.244.1.5');
    expect(ips.allocate('default/e')).toBe('10.244.1.6');
    // .7 is the broadcast address: the round comes back to the freed .2.
    expect(ips.allocate('default/f')).toBe('10.244.1.2');
    expect(ips.allocate('default/g')).toBeUndefined();
  });

  it('keeps an address a pod already reports, and refuses one taken or outside the range', () => {
    const ips = new PodIPAllocator();
    ips.setRange('10.244.2.0/24');
    expect(ips.reserve('default/a', '10.244.2.40')).toBe(true);
    expect(ips.reserve('default/b', '10.244.2.40')).toBe(false);
    expect(ips.reserve('default/b', '10.244.3.5')).toBe(false);
    expect(ips.reserve('default/b', '10.244.2.1')).toBe(false);
    expect(ips.allocate('default/a')).toBe('10.244.2.40');
    expect(() => ips.setRange('10.244.2.0')).toThrow('is not an IPv4 range');
    expect(() => ips.setRange('fd00::/64')).toThrow('is not an IPv4 range');
  });
});

const settle = async (): Promise<void> => {
  for (let i = 0; i < 8; i++) await new Promise((r) => setTimeout(r, 0));
};

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.stop();
  sandbox = undefined;
});

const pod = (name: string): Pod => ({
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
});

async function step(clock: FakeClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    await clock.advance(100);
    await settle();
  }
}

describe('pod addresses on simulated nodes', () => {
  it('gives pods addresses of their node’s range, and the node’s address as hostIP', async () => {
    const clock = new FakeClock();
    sandbox = await startSandbox({ clock, nodes: 2, insecureHttp: true });
    await settle();
    const pods = sandbox.client<Pod>('', 'pods').inNamespace('default');
    await pods.create({ ...pod('a'), spec: { ...pod('a').spec!, nodeName: 'node-2' } });
    await pods.create({ ...pod('b'), spec: { ...pod('b').spec!, nodeName: 'node-2' } });
    await step(clock, 2500);
    const a = await pods.get('a');
    const b = await pods.get('b');
    expect([a.status?.podIP, b.status?.podIP].sort()).toEqual(['10.244.2.2', '10.244.2.3']);
    expect(a.status?.podIPs).toEqual([{ ip: a.status?.podIP }]);
    expect(a.status?.hostIP).toBe('172.18.0.3');
    expect(a.status?.hostIPs).toEqual([{ ip: '172.18.0.3' }]);
  });

  it('waits, not Ready, for the controller manager to give the node its pod CIDR', async () => {
    const clock = new FakeClock();
    sandbox = await startSandbox({
      clock,
      nodes: 1,
      insecureHttp: true,
      podCIDRs: 'controller-manager',
    });
    await settle();
    const nodes = sandbox.client<Node>('', 'nodes');
    const pods = sandbox.client<Pod>('', 'pods').inNamespace('default');
    let node = await nodes.get('node-1');
    expect(node.spec?.podCIDR).toBeUndefined();
    const ready = (n: Node) => n.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready(node)).toMatchObject({
      status: 'False',
      reason: 'KubeletNotReady',
      message: expect.stringContaining('cni plugin not initialized'),
    });
    await pods.create({ ...pod('early'), spec: { ...pod('early').spec!, nodeName: 'node-1' } });
    await step(clock, 3000);
    expect((await pods.get('early')).status?.podIP).toBeUndefined();
    const events = await sandbox.client<CoreEvent>('', 'events').inNamespace('default').list();
    expect(events.items.map((e) => `${e.type} ${e.reason}`)).toContain('Warning NetworkNotReady');
    // What the node-ipam-controller's patch does.
    await nodes.patch('node-1', {
      type: 'strategic',
      body: { spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'] } },
    });
    await step(clock, 300);
    node = await nodes.get('node-1');
    expect(ready(node)).toMatchObject({ status: 'True', reason: 'KubeletReady' });
    await step(clock, 3000);
    expect((await pods.get('early')).status?.podIP).toBe('10.244.0.2');
  });

  it('refuses a podCIDRs option it does not know', async () => {
    await expect(
      startSandbox({ nodes: 1, podCIDRs: 'kubelet' as unknown as 'sandbox' }),
    ).rejects.toThrow("podCIDRs must be 'sandbox' or 'controller-manager', got \"kubelet\"");
  });
});

describe('a node’s pod CIDRs', () => {
  it('are set once, from empty, as kube-apiserver’s ValidateNodeUpdate allows', async () => {
    sandbox = await startSandbox({ insecureHttp: true });
    const nodes = sandbox.client<Node>('', 'nodes');
    await nodes.create({ metadata: { name: 'n' } });
    const set = (cidr: string) =>
      nodes.patch('n', { type: 'strategic', body: { spec: { podCIDR: cidr, podCIDRs: [cidr] } } });
    await set('10.244.0.0/24');
    await expect(set('10.244.1.0/24')).rejects.toThrow(
      'spec.podCIDR: Forbidden: node updates may not change podCIDR except from "" to valid',
    );
    expect((await nodes.get('n')).spec?.podCIDRs).toEqual(['10.244.0.0/24']);
  });
});
