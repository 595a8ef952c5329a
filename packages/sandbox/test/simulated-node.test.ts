import { FakeClock } from '@kcm-ts/apimachinery';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { ConfigMap, Event as CoreEvent, Node, Pod, Secret } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { podAnnotations, startSandbox, type Sandbox } from '../src/index.js';

/** Lets in-process I/O (informers, managers, status writes) run between clock steps. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 8; i++) await new Promise((r) => setTimeout(r, 0));
};

let sandbox: Sandbox | undefined;
let clock: FakeClock;

afterEach(async () => {
  await sandbox?.stop();
  // Nodes, kubelets, informers and managers leave no timer behind.
  expect(clock.hasWaiters()).toBe(false);
  sandbox = undefined;
});

async function start(nodes = 1, delays: { podStartDelay?: number; podReadyDelay?: number } = {}) {
  clock = new FakeClock();
  sandbox = await startSandbox({ clock, nodes, insecureHttp: true, ...delays });
  await settle();
  const s = sandbox;
  return {
    pods: s.client<Pod>('', 'pods').inNamespace('default'),
    configMaps: s.client<ConfigMap>('', 'configmaps').inNamespace('default'),
    secrets: s.client<Secret>('', 'secrets').inNamespace('default'),
    step: async (ms: number, by = 100) => {
      // In small steps, so that each timer's follow-up I/O runs at its time.
      for (let t = 0; t < ms; t += by) {
        await clock.advance(Math.min(by, ms - t));
        await settle();
      }
    },
    logs: async (name: string) => {
      const res = await fetch(`${s.url}/api/v1/namespaces/default/pods/${name}/log`, {
        headers: { authorization: `Bearer ${s.token}` },
      });
      expect(res.status).toBe(200);
      return res.text();
    },
    events: async (name: string) => {
      const list = await s.client<CoreEvent>('', 'events').inNamespace('default').list();
      return list.items
        .filter((e) => e.involvedObject.name === name)
        .map((e) => `${e.type} ${e.reason}: ${e.message}`);
    },
  };
}

const pod = (
  name: string,
  extra: Partial<Pod['spec']> = {},
  annotations?: Record<string, string>,
): Pod => ({
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...extra },
});

/** The first container's state, as `kubectl get pods` summarises it. */
async function summary(pods: { get(name: string): Promise<Pod> }, name: string): Promise<string> {
  const p = await pods.get(name);
  const c = p.status?.containerStatuses?.[0];
  const state =
    c?.state?.waiting?.reason ??
    (c?.state?.running ? 'Running' : c?.state?.terminated?.reason) ??
    '-';
  return `${p.status?.phase ?? '-'}/${state}/${c?.ready === true ? 'ready' : 'unready'}/${c?.restartCount ?? 0}`;
}

describe('the simulated node', () => {
  it('registers a Ready node and renews its Lease every 10 s', async () => {
    const { step } = await start(1);
    expect(sandbox!.nodes).toEqual(['node-1']);
    const node = await sandbox!.client<Node>('', 'nodes').get('node-1');
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'KubeletReady',
    });
    expect(node.status?.allocatable).toMatchObject({ pods: '110' });
    const leases = sandbox!
      .client<Lease>('coordination.k8s.io', 'leases')
      .inNamespace('kube-node-lease');
    const before = (await leases.get('node-1')).spec;
    expect(before).toMatchObject({ holderIdentity: 'node-1', leaseDurationSeconds: 40 });
    await step(10_000);
    expect((await leases.get('node-1')).spec?.renewTime).not.toBe(before?.renewTime);
  });

  it('runs a pod: scheduled, ContainerCreating, Running, then Ready', async () => {
    const { pods, step, events } = await start(1, { podStartDelay: 1_000, podReadyDelay: 2_000 });
    await pods.create(pod('web'));
    await step(100);
    expect((await pods.get('web')).spec?.nodeName).toBe('node-1');
    expect(await summary(pods, 'web')).toBe('Pending/ContainerCreating/unready/0');
    await step(1_000);
    expect(await summary(pods, 'web')).toBe('Running/Running/unready/0');
    const running = await pods.get('web');
    expect(running.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [app]',
    });
    expect(running.status?.podIP).toMatch(/^10\.244\.1\.\d+$/);
    await step(2_000);
    expect(await summary(pods, 'web')).toBe('Running/Running/ready/0');
    expect(
      (await pods.get('web')).status?.conditions?.find((c) => c.type === 'Ready')?.status,
    ).toBe('True');
    expect(await events('web')).toEqual([
      'Normal Scheduled: Successfully assigned default/web to node-1',
      'Normal Pulled: Container image "nginx:1.27" already present on machine',
      'Normal Created: Created container app',
      'Normal Started: Started container app',
    ]);
  });

  it('takes per-pod delays from annotations, and ignores a bad one', async () => {
    const { pods, step } = await start(1, { podStartDelay: 1_000, podReadyDelay: 1_000 });
    await pods.create(
      pod('slow', {}, { [podAnnotations.startDelay]: '5s', [podAnnotations.readyDelay]: '0s' }),
    );
    await pods.create(pod('odd', {}, { [podAnnotations.startDelay]: 'soon' }));
    await step(1_100);
    expect(await summary(pods, 'slow')).toBe('Pending/ContainerCreating/unready/0');
    expect(await summary(pods, 'odd')).toBe('Running/Running/unready/0');
    await step(4_000);
    expect(await summary(pods, 'slow')).toBe('Running/Running/ready/0');
  });

  it('fails to pull an image tagged :bad, and backs off 10 s, then 20 s', async () => {
    const { pods, step, events } = await start(1);
    await pods.create(pod('broken', { containers: [{ name: 'app', image: 'nginx:bad' }] }));
    await step(100);
    expect(await summary(pods, 'broken')).toBe('Pending/ErrImagePull/unready/0');
    expect((await pods.get('broken')).status?.containerStatuses?.[0]?.state?.waiting?.message).toBe(
      'Failed to pull image "nginx:bad": rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:bad": not found',
    );
    await step(1_000);
    expect(await summary(pods, 'broken')).toBe('Pending/ImagePullBackOff/unready/0');
    await step(9_000); // 10 s after the first pull: the second
    expect(await summary(pods, 'broken')).toBe('Pending/ErrImagePull/unready/0');
    await step(1_000);
    expect(await summary(pods, 'broken')).toBe('Pending/ImagePullBackOff/unready/0');
    await step(18_000); // 20 s after the second: still backing off just before it
    expect(await summary(pods, 'broken')).toBe('Pending/ImagePullBackOff/unready/0');
    await step(1_000);
    expect(await summary(pods, 'broken')).toBe('Pending/ErrImagePull/unready/0');
    expect(await events('broken')).toContain('Warning Failed: Error: ImagePullBackOff');
  });

  it('reports CreateContainerConfigError until the ConfigMap appears', async () => {
    const { pods, configMaps, step, events } = await start(1);
    await pods.create(
      pod('needs-cm', {
        containers: [
          { name: 'app', image: 'nginx', envFrom: [{ configMapRef: { name: 'settings' } }] },
        ],
      }),
    );
    await step(100);
    expect(await summary(pods, 'needs-cm')).toBe('Pending/CreateContainerConfigError/unready/0');
    expect(
      (await pods.get('needs-cm')).status?.containerStatuses?.[0]?.state?.waiting?.message,
    ).toBe('configmap "settings" not found');
    await step(5_000);
    expect(await summary(pods, 'needs-cm')).toBe('Pending/CreateContainerConfigError/unready/0');
    await configMaps.create({ metadata: { name: 'settings' }, data: { mode: 'fast' } });
    // The next retry (within 2 s) finds it; the container starts and is ready a second each later.
    await step(4_000);
    expect(await summary(pods, 'needs-cm')).toBe('Running/Running/ready/0');
    expect(await events('needs-cm')).toContain(
      'Warning Failed: Error: configmap "settings" not found',
    );
  });

  it('names a missing key, and lets optional references be absent', async () => {
    const { pods, configMaps, step } = await start(1);
    await configMaps.create({ metadata: { name: 'settings' }, data: { mode: 'fast' } });
    const env = (key: string, optional?: boolean) => [
      {
        name: 'X',
        valueFrom: {
          configMapKeyRef: { name: 'settings', key, ...(optional ? { optional } : {}) },
        },
      },
    ];
    await pods.create(
      pod('wrong-key', { containers: [{ name: 'app', image: 'nginx', env: env('speed') }] }),
    );
    await pods.create(
      pod('optional', {
        containers: [
          {
            name: 'app',
            image: 'nginx',
            envFrom: [{ secretRef: { name: 'absent', optional: true } }],
          },
        ],
      }),
    );
    await step(1_100);
    expect((await pods.get('wrong-key')).status?.containerStatuses?.[0]?.state?.waiting).toEqual({
      reason: 'CreateContainerConfigError',
      message: "couldn't find key speed in ConfigMap default/settings",
    });
    expect(await summary(pods, 'optional')).toBe('Running/Running/unready/0');
  });

  it('keeps a pod ContainerCreating while a Secret volume is missing', async () => {
    const { pods, secrets, step, events } = await start(1);
    await pods.create(pod('vol', { volumes: [{ name: 'creds', secret: { secretName: 'db' } }] }));
    await step(3_000);
    expect(await summary(pods, 'vol')).toBe('Pending/ContainerCreating/unready/0');
    expect(await events('vol')).toContain(
      'Warning FailedMount: MountVolume.SetUp failed for volume "creds" : secret "db" not found',
    );
    await secrets.create({ metadata: { name: 'db' }, stringData: { password: 'x' } });
    await step(4_000);
    expect(await summary(pods, 'vol')).toBe('Running/Running/ready/0');
  });

  it('restarts a crashing container with back-off, or fails the pod with restartPolicy Never', async () => {
    const { pods, step } = await start(1, { podStartDelay: 0, podReadyDelay: 0 });
    await pods.create(pod('crashy', {}, { [podAnnotations.crashAfter]: '5s' }));
    await pods.create(
      pod('once', { restartPolicy: 'Never' }, { [podAnnotations.crashAfter]: '5s' }),
    );
    await step(100);
    expect(await summary(pods, 'crashy')).toBe('Running/Running/ready/0');
    await step(5_000);
    expect(await summary(pods, 'crashy')).toBe('Running/CrashLoopBackOff/unready/1');
    const crashed = (await pods.get('crashy')).status?.containerStatuses?.[0];
    expect(crashed?.lastState?.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(crashed?.state?.waiting?.message).toMatch(
      /^back-off 10s restarting failed container=app pod=crashy_default\(/,
    );
    expect(await summary(pods, 'once')).toBe('Failed/Error/unready/0');
    await step(10_000);
    expect(await summary(pods, 'crashy')).toBe('Running/Running/ready/1');
    await step(5_000); // crashes again; the back-off doubles
    expect(await summary(pods, 'crashy')).toBe('Running/CrashLoopBackOff/unready/2');
    expect(
      (await pods.get('crashy')).status?.containerStatuses?.[0]?.state?.waiting?.message,
    ).toMatch(/^back-off 20s/);
  });

  it('removes a deleted pod once its containers stop, well within the grace period', async () => {
    const { pods, step, events } = await start(1, { podStartDelay: 0, podReadyDelay: 0 });
    await pods.create(pod('web', { terminationGracePeriodSeconds: 30 }));
    await step(100);
    expect(await summary(pods, 'web')).toBe('Running/Running/ready/0');
    await pods.delete('web');
    await step(100);
    expect((await pods.get('web')).metadata?.deletionTimestamp).toBeDefined();
    expect(await events('web')).toContain('Normal Killing: Stopping container app');
    // The default stop time is half a second, not the 30 s grace period.
    await step(300);
    expect((await pods.list()).items.map((p) => p.metadata?.name)).toEqual(['web']);
    await step(200);
    expect((await pods.list()).items).toEqual([]);
  });

  it('keeps a slow container (stop-delay annotation) until it stops or its grace period ends', async () => {
    const { pods, step } = await start(1, { podStartDelay: 0, podReadyDelay: 0 });
    await pods.create(
      pod('slow', { terminationGracePeriodSeconds: 30 }, { [podAnnotations.stopDelay]: '3s' }),
    );
    await pods.create(
      pod('stubborn', { terminationGracePeriodSeconds: 5 }, { [podAnnotations.stopDelay]: '1h' }),
    );
    await step(100);
    await pods.delete('slow');
    await pods.delete('stubborn');
    await step(2_900);
    expect((await pods.list()).items.map((p) => p.metadata?.name)).toEqual(['slow', 'stubborn']);
    await step(200);
    expect((await pods.list()).items.map((p) => p.metadata?.name)).toEqual(['stubborn']);
    await step(2_000); // the 5 s grace period is over: killed
    expect((await pods.list()).items).toEqual([]);
  });

  it('removes a deleted pod that never started at once', async () => {
    const { pods, step } = await start(1, { podStartDelay: 60_000 });
    await pods.create(pod('pending', { terminationGracePeriodSeconds: 30 }));
    await step(100);
    expect(await summary(pods, 'pending')).toBe('Pending/ContainerCreating/unready/0');
    await pods.delete('pending');
    await step(100);
    expect((await pods.list()).items).toEqual([]);
  });

  it('spreads pods over the workers, not the tainted control-plane node', async () => {
    const { pods, step } = await start(3);
    for (let i = 0; i < 6; i++) await pods.create(pod(`p${i}`));
    await step(100);
    const placed = (await pods.list()).items.map((p) => p.spec?.nodeName);
    expect(placed.filter((n) => n === 'node-1')).toHaveLength(0);
    expect(placed.filter((n) => n === 'node-2')).toHaveLength(3);
    expect(placed.filter((n) => n === 'node-3')).toHaveLength(3);
  });

  it('registers nodes as a kind cluster has them: labels, the control plane, capacity', async () => {
    await start(2);
    const nodes = sandbox!.client<Node>('', 'nodes');
    const first = await nodes.get('node-1');
    const second = await nodes.get('node-2');
    expect(first.metadata?.labels).toEqual({
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': 'node-1',
      'kubernetes.io/os': 'linux',
      'node-role.kubernetes.io/control-plane': '',
      'node.kubernetes.io/exclude-from-external-load-balancers': '',
    });
    expect(first.spec?.taints).toEqual([
      { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
    ]);
    expect(second.metadata?.labels).toEqual({
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': 'node-2',
      'kubernetes.io/os': 'linux',
    });
    expect(second.spec?.taints).toBeUndefined();
    const capacity = {
      cpu: '4',
      'ephemeral-storage': '104857600Ki',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: '16777216Ki',
      pods: '110',
    };
    expect(second.status?.capacity).toEqual(capacity);
    expect(second.status?.allocatable).toEqual(capacity);
    expect(second.status?.addresses).toEqual([
      { type: 'InternalIP', address: '172.18.0.3' },
      { type: 'Hostname', address: 'node-2' },
    ]);
    expect(second.status?.nodeInfo).toMatchObject({
      operatingSystem: 'linux',
      architecture: 'amd64',
      kubeletVersion: 'v1.32.0',
    });
    expect(second.status?.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual([
      'MemoryPressure=False',
      'DiskPressure=False',
      'PIDPressure=False',
      'Ready=True',
    ]);
  });

  it('keeps a single node untainted, as kind does without workers', async () => {
    await start(1);
    const only = await sandbox!.client<Node>('', 'nodes').get('node-1');
    expect(only.metadata?.labels?.['node-role.kubernetes.io/control-plane']).toBe('');
    expect(only.spec?.taints).toBeUndefined();
  });

  it('reports its status again every 5 minutes with new heartbeats', async () => {
    const { step } = await start(1);
    const nodes = sandbox!.client<Node>('', 'nodes');
    const ready = async () =>
      (await nodes.get('node-1')).status?.conditions?.find((c) => c.type === 'Ready');
    const first = await ready();
    await step(4 * 60_000, 10_000);
    expect(await ready()).toEqual(first);
    await step(60_000, 10_000);
    const later = await ready();
    expect(Date.parse(later!.lastHeartbeatTime!) - Date.parse(first!.lastHeartbeatTime!)).toBe(
      5 * 60_000,
    );
    // Still Ready: the transition is the first one.
    expect(later?.lastTransitionTime).toBe(first?.lastTransitionTime);
  });

  it('stops its kubelet in the fault lab: no status, no Lease renewal, no pod syncs, until it starts again', async () => {
    const { pods, step } = await start(3, { podStartDelay: 1_000, podReadyDelay: 1_000 });
    const nodes = sandbox!.client<Node>('', 'nodes');
    const leases = sandbox!
      .client<Lease>('coordination.k8s.io', 'leases')
      .inNamespace('kube-node-lease');
    const heartbeat = async () =>
      (await nodes.get('node-2')).status?.conditions?.find((c) => c.type === 'Ready')
        ?.lastHeartbeatTime;
    await pods.create(pod('before', { nodeName: 'node-2' }));
    await step(100);
    expect(await summary(pods, 'before')).toBe('Pending/ContainerCreating/unready/0');

    sandbox!.faults.stopKubelet('node-2');
    expect(sandbox!.faults.stoppedKubelets()).toEqual(['node-2']);
    const renewed = (await leases.get('node-2')).spec?.renewTime;
    const reported = await heartbeat();
    await pods.create(pod('after', { nodeName: 'node-2' }));
    await step(6 * 60_000, 5_000);
    expect((await leases.get('node-2')).spec?.renewTime).toBe(renewed);
    expect(await heartbeat()).toBe(reported);
    // The other nodes go on.
    expect((await leases.get('node-3')).spec?.renewTime).not.toBe(renewed);
    // Its pods are as they were: the one starting did not get further, the new one has no status.
    expect(await summary(pods, 'before')).toBe('Pending/ContainerCreating/unready/0');
    expect((await pods.get('after')).status?.containerStatuses).toBeUndefined();
    // A deleted pod waits for the kubelet.
    await pods.delete('before');
    await step(1_000);
    expect((await pods.get('before')).metadata?.deletionTimestamp).toBeDefined();

    await sandbox!.faults.startKubelet('node-2');
    expect(sandbox!.faults.stoppedKubelets()).toEqual([]);
    expect((await leases.get('node-2')).spec?.renewTime).not.toBe(renewed);
    expect(await heartbeat()).not.toBe(reported);
    await step(100);
    expect((await pods.list()).items.map((p) => p.metadata?.name)).toEqual(['after']);
    await step(2_000);
    expect(await summary(pods, 'after')).toBe('Running/Running/ready/0');
  });

  it('refuses to stop the kubelet of a node it does not have', async () => {
    await start(1);
    expect(() => sandbox!.faults.stopKubelet('node-9')).toThrow(
      'no simulated node "node-9"; the nodes are node-1',
    );
  });

  it('starts stopped kubelets again when the fault lab is cleared', async () => {
    const { step } = await start(1);
    sandbox!.faults.stopKubelet('node-1');
    sandbox!.faults.clear();
    await step(100);
    expect(sandbox!.faults.stoppedKubelets()).toEqual([]);
  });

  it('runs what a container’s command says: its output, its exit code, the pod’s phase', async () => {
    const { pods, step, logs } = await start(1, { podStartDelay: 0, podReadyDelay: 0 });
    const once = (name: string, script: string) =>
      pod(name, {
        restartPolicy: 'Never',
        containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', script] }],
      });
    await pods.create(once('fails', 'echo one; sleep 2; echo two >&2; exit 3'));
    await pods.create(once('works', 'echo done'));
    await step(100);
    expect(await summary(pods, 'fails')).toBe('Running/Running/ready/0');
    expect(await summary(pods, 'works')).toBe('Succeeded/Completed/unready/0');
    await step(2_000);
    expect(await summary(pods, 'fails')).toBe('Failed/Error/unready/0');
    const failed = await pods.get('fails');
    expect(failed.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 3,
      reason: 'Error',
    });
    expect(failed.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'PodFailed',
    });
    expect(await logs('fails')).toBe('one\ntwo\n');
    expect(await logs('works')).toBe('done\n');
  });

  it('restarts a finished container as its restartPolicy says', async () => {
    const { pods, step } = await start(1, { podStartDelay: 0, podReadyDelay: 0 });
    const run = (name: string, restartPolicy: string, script: string) =>
      pod(name, {
        restartPolicy,
        containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', script] }],
      });
    await pods.create(run('retry', 'OnFailure', 'sleep 1; exit 1'));
    await pods.create(run('done', 'OnFailure', 'sleep 1'));
    await pods.create(run('again', 'Always', 'sleep 1'));
    await step(1_100);
    // OnFailure restarts a failed container only; the pod stays Running.
    expect(await summary(pods, 'retry')).toBe('Running/CrashLoopBackOff/unready/1');
    expect(await summary(pods, 'done')).toBe('Succeeded/Completed/unready/0');
    // Always restarts even a container that succeeded, with the same back-off.
    expect(await summary(pods, 'again')).toBe('Running/CrashLoopBackOff/unready/1');
    const again = (await pods.get('again')).status?.containerStatuses?.[0];
    expect(again?.lastState?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    await step(10_000);
    expect(await summary(pods, 'retry')).toBe('Running/Running/ready/1');
  });

  it('prints π, reads its completion index and a mounted ConfigMap key', async () => {
    const { pods, configMaps, step, logs } = await start(1, { podStartDelay: 0, podReadyDelay: 0 });
    await configMaps.create({ metadata: { name: 'settings' }, data: { mode: 'fast' } });
    await pods.create(
      pod('pi', {
        restartPolicy: 'Never',
        containers: [
          {
            name: 'pi',
            image: 'perl:5.34.0',
            command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(30)'],
          },
        ],
      }),
    );
    await pods.create(
      pod(
        'worker-2',
        {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'app',
              image: 'busybox:1.36',
              command: ['sh', '-c', 'echo index $JOB_COMPLETION_INDEX; cat /etc/settings/mode'],
              env: [
                {
                  name: 'JOB_COMPLETION_INDEX',
                  valueFrom: {
                    fieldRef: {
                      fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']",
                    },
                  },
                },
              ],
              volumeMounts: [{ name: 'settings', mountPath: '/etc/settings' }],
            },
          ],
          volumes: [{ name: 'settings', configMap: { name: 'settings' } }],
        },
        { 'batch.kubernetes.io/job-completion-index': '2' },
      ),
    );
    await step(5_000);
    expect(await summary(pods, 'pi')).toBe('Succeeded/Completed/unready/0');
    expect(await logs('pi')).toBe('3.14159265358979323846264338328\n');
    expect(await summary(pods, 'worker-2')).toBe('Succeeded/Completed/unready/0');
    expect(await logs('worker-2')).toBe('index 2\nfast\n');
  });

  it('leaves pods Pending without nodes, and refuses a bad node count', async () => {
    clock = new FakeClock();
    sandbox = await startSandbox({ clock, insecureHttp: true });
    expect(sandbox.nodes).toEqual([]);
    const pods = sandbox.client<Pod>('', 'pods').inNamespace('default');
    await pods.create(pod('alone'));
    await settle();
    expect((await pods.get('alone')).spec?.nodeName).toBeUndefined();
    await expect(startSandbox({ nodes: -1, insecureHttp: true })).rejects.toThrow(
      'nodes must be a whole number of nodes, got -1',
    );
  });
});
