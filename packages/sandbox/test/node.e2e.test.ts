// kubectl against a sandbox with a simulated node: a pod applied with
// kubectl is scheduled, runs and becomes Ready, and its deletion waits for
// the kubelet, which stops the containers long before the 30 s grace period;
// `kubectl cordon` keeps new pods off the node until `kubectl uncordon`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';
import { kubectlRunner, table, type KubectlRunner } from './kubectl-helpers.js';

let sandbox: Sandbox;
let dir: string;
let ok: KubectlRunner['ok'];

beforeAll(async () => {
  sandbox = await startSandbox({ nodes: 1, podStartDelay: 200, podReadyDelay: 300 });
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-node-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  await sandbox.writeKubeconfig(kubeconfig);
  ({ ok } = kubectlRunner(kubeconfig, dir));
});

afterAll(async () => {
  await sandbox.stop();
  await rm(dir, { recursive: true, force: true });
});

const podManifest = `apiVersion: v1
kind: Pod
metadata:
  name: hello
spec:
  containers:
    - name: app
      image: nginx:1.27
`;

describe('kubectl and the simulated node', () => {
  it('lists a Ready node', async () => {
    const rows = table(await ok(['get', 'nodes']));
    expect(rows[0]).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    // The one node of a kind cluster: its control plane, untainted.
    expect(rows[1]).toEqual([
      'node-1',
      'Ready',
      'control-plane',
      expect.stringMatching(/^\d+s$/),
      'v1.32.0',
    ]);
  });

  it('runs an applied pod until it is Ready, then deletes it', { timeout: 60_000 }, async () => {
    expect(await ok(['apply', '-f', '-'], { input: podManifest })).toBe('pod/hello created\n');
    expect(await ok(['wait', '--for=condition=Ready', 'pod/hello', '--timeout=30s'])).toBe(
      'pod/hello condition met\n',
    );
    const rows = table(await ok(['get', 'pod', 'hello', '-o', 'wide']));
    expect(rows[1]?.slice(0, 4)).toEqual(['hello', '1/1', 'Running', '0']);
    expect(rows[1]?.[6]).toBe('node-1');
    const events = await ok([
      'get',
      'events',
      '--field-selector',
      'involvedObject.name=hello',
      '-o',
      'jsonpath={.items[*].reason}',
    ]);
    expect(events.split(' ')).toEqual(['Scheduled', 'Pulled', 'Created', 'Started']);
    // kubectl delete waits until the kubelet has finished the graceful
    // deletion; with the default 30 s grace period, a wait over 10 s fails.
    expect(await ok(['delete', 'pod', 'hello', '--timeout=10s'])).toBe('pod "hello" deleted\n');
    expect(await ok(['get', 'pods', '-o', 'name'])).toBe('');
  });

  it(
    "cordons a node: new pods stay Pending with the scheduler's reason, until it is uncordoned",
    { timeout: 60_000 },
    async () => {
      expect(await ok(['cordon', 'node-1'])).toBe('node/node-1 cordoned\n');
      expect(table(await ok(['get', 'nodes']))[1]?.slice(0, 3)).toEqual([
        'node-1',
        'Ready,SchedulingDisabled',
        'control-plane',
      ]);
      await ok(['apply', '-f', '-'], { input: podManifest.replace('name: hello', 'name: waits') });
      const reason = async () =>
        ok([
          'get',
          'pod',
          'waits',
          '-o',
          'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}',
        ]);
      for (let i = 0; i < 50 && (await reason()) === ''; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(await reason()).toBe(
        '0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.',
      );
      const events = await ok([
        'get',
        'events',
        '--field-selector',
        'involvedObject.name=waits,reason=FailedScheduling',
        '-o',
        'jsonpath={.items[*].source.component}',
      ]);
      expect(events).toBe('default-scheduler');
      expect(await ok(['uncordon', 'node-1'])).toBe('node/node-1 uncordoned\n');
      expect(await ok(['wait', '--for=condition=PodScheduled', 'pod/waits', '--timeout=30s'])).toBe(
        'pod/waits condition met\n',
      );
      expect(await ok(['get', 'pod', 'waits', '-o', 'jsonpath={.spec.nodeName}'])).toBe('node-1');
      await ok(['delete', 'pod', 'waits', '--timeout=10s']);
    },
  );
});
