// The manager's run() against an in-process sandbox on a fake clock: the
// phases of kube-controller-manager's Run with the four controllers kcm-ts
// implements, leader election, and a clean stop.
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, type GroupVersionResource, type KubeObject } from '@kcm-ts/apimachinery';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { defaultConfiguration, type ControllerManagerConfiguration } from '../src/config.js';
import { run, type ApiServerConnection } from '../src/controller-manager.js';
import { newManagerMetrics } from '../src/metrics/prometheus.js';
import { TestDiscovery, memoryLogger } from './garbagecollector/helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function sandboxOnFakeClock(): Promise<{ sandbox: Sandbox; clock: FakeClock }> {
  const clock = new FakeClock();
  const sandbox = await startSandbox({
    clock,
    insecureHttp: true,
    nodes: 1,
    podStartDelay: 500,
    podReadyDelay: 500,
  });
  cleanups.push(() => sandbox.stop());
  return { sandbox, clock };
}

function connection(sandbox: Sandbox): ApiServerConnection {
  return {
    source: {
      resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
        sandbox.client<T>(gvr.group, gvr.resource),
    },
    discovery: new TestDiscovery(),
  };
}

function testConfig(edit: (c: ControllerManagerConfiguration) => void = () => {}) {
  const config = defaultConfiguration();
  config.secureServing.securePort = 0;
  config.generic.leaderElection.leaderElect = false;
  edit(config);
  return config;
}

function startManager(
  sandbox: Sandbox,
  clock: FakeClock,
  config: ControllerManagerConfiguration,
  identity = 'manager-1',
) {
  const abort = new AbortController();
  const logger = memoryLogger();
  let started: readonly string[] | undefined;
  const done = run(
    {
      config,
      apiServer: connection(sandbox),
      clock,
      random: () => 0.5,
      identity,
      logger,
      metrics: newManagerMetrics({ processMetrics: false }),
      onControllersStarted: (names) => (started = names),
    },
    abort.signal,
  );
  const stop = async () => {
    abort.abort();
    await done;
  };
  cleanups.push(stop);
  return { done, stop, logger, started: () => started };
}

const nginx = (replicas: number): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'nginx', namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'nginx' } },
    template: {
      metadata: { labels: { app: 'nginx' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
    },
  },
});

async function until(
  clock: FakeClock,
  what: string,
  done: () => Promise<boolean>,
  limitMs = 120_000,
): Promise<void> {
  for (let t = 0; t <= limitMs; t += 250) {
    if (await done()) return;
    await clock.advance(250);
  }
  throw new Error(`${what} did not happen within ${limitMs} ms of fake time`);
}

const readyPods = async (sandbox: Sandbox) =>
  (await sandbox.client<Pod>('', 'pods').inNamespace('default').list()).items.filter(
    (p) =>
      !p.metadata?.deletionTimestamp &&
      p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  );

describe('run', () => {
  it('starts the implemented controllers: a Deployment gets its ready pods, and deleting it cascades', async () => {
    const { sandbox, clock } = await sandboxOnFakeClock();
    const manager = startManager(sandbox, clock, testConfig());
    const deployments = sandbox.client<Deployment>('apps', 'deployments').inNamespace('default');
    await deployments.create(nginx(3));
    await until(clock, 'three ready pods', async () => (await readyPods(sandbox)).length === 3);
    expect(manager.started()).toEqual(
      expect.arrayContaining([
        'replicaset-controller',
        'deployment-controller',
        'garbage-collector-controller',
      ]),
    );
    await until(clock, 'the Deployment to report 3 available', async () => {
      const d = await deployments.get('nginx');
      return (
        d.status?.availableReplicas === 3 && d.status.observedGeneration === d.metadata?.generation
      );
    });

    await deployments.delete('nginx');
    await until(clock, 'the ReplicaSet and pods to be collected', async () => {
      const rs = await sandbox.client('apps', 'replicasets').inNamespace('default').list();
      const pods = await sandbox.client('', 'pods').inNamespace('default').list();
      return rs.items.length === 0 && pods.items.length === 0;
    });
    await manager.stop();
    expect(manager.logger.lines.some((l) => l.startsWith('Starting '))).toBe(true);
  });

  it('honours --controllers: a disabled controller does not start', async () => {
    const { sandbox, clock } = await sandboxOnFakeClock();
    const manager = startManager(
      sandbox,
      clock,
      testConfig((c) => (c.generic.controllers = ['*', '-deployment-controller'])),
    );
    await sandbox.client<Deployment>('apps', 'deployments').inNamespace('default').create(nginx(2));
    await until(clock, 'the controllers to start', () =>
      Promise.resolve(manager.started() !== undefined),
    );
    await clock.advance(10_000);
    expect(manager.started()).not.toContain('deployment-controller');
    expect(manager.started()).toContain('replicaset-controller');
    const rs = await sandbox.client('apps', 'replicasets').inNamespace('default').list();
    expect(rs.items).toHaveLength(0);
    expect(
      manager.logger.lines.some(
        (l) => l.includes('controller is disabled') && l.includes('deployment-controller'),
      ),
    ).toBe(true);
  });

  it('with leader election, only the holder of the Lease runs controllers; a stopped leader releases it at once', async () => {
    const { sandbox, clock } = await sandboxOnFakeClock();
    const config = testConfig((c) => (c.generic.leaderElection.leaderElect = true));
    const first = startManager(sandbox, clock, config, 'manager-1');
    await until(clock, 'manager-1 to lead', () => Promise.resolve(first.started() !== undefined));
    const second = startManager(sandbox, clock, config, 'manager-2');
    await clock.advance(20_000);
    expect(second.started()).toBeUndefined();
    const lease = await sandbox
      .client<Lease>('coordination.k8s.io', 'leases')
      .inNamespace('kube-system')
      .get('kube-controller-manager');
    expect(lease.spec?.holderIdentity).toBe('manager-1');

    await first.stop();
    const stoppedAt = clock.now();
    await until(
      clock,
      'manager-2 to lead',
      () => Promise.resolve(second.started() !== undefined),
      60_000,
    );
    const after = await sandbox
      .client<Lease>('coordination.k8s.io', 'leases')
      .inNamespace('kube-system')
      .get('kube-controller-manager');
    expect(after.spec?.holderIdentity).toBe('manager-2');
    // Released on stop: the other candidate needed only its next retry (at
    // most 1.2 × 2 s of fake time), not the 15 s lease.
    expect(clock.now() - stoppedAt).toBeLessThanOrEqual(2_500);
  });
});
