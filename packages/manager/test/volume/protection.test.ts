// The claim and volume protection controllers (pvc_protection_controller.go,
// pv_protection_controller.go) against an in-process sandbox on a fake
// clock: a claim being deleted stays while a scheduled pod names it and goes
// with the last one, an unscheduled pod holds nothing, a missing finalizer is
// put back; a volume being deleted stays while it is Bound. Then podUsesPVC's
// cases as a table (TestPVCProtectionController's pod shapes).
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { PVProtectionController } from '../../src/volume/pv-protection-controller.js';
import {
  PVCProtectionController,
  podPVCIndexFunc,
  podUsesPVC,
} from '../../src/volume/pvc-protection-controller.js';
import { gone, sandboxSource, until } from '../garbagecollector/helpers.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function start(): Promise<{ sandbox: Sandbox; clock: FakeClock }> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const sandbox = await startSandbox({ clock, insecureHttp: true });
  const source = sandboxSource(sandbox);
  const factory = new SharedInformerFactory(source, 0, { clock });
  const pvc = new PVCProtectionController({
    client: source,
    pvcInformer: factory.persistentVolumeClaims(),
    podInformer: factory.pods(),
    clock,
  });
  const pv = new PVProtectionController({
    client: source,
    pvInformer: factory.persistentVolumes(),
    clock,
  });
  const abort = new AbortController();
  factory.start(abort.signal);
  const running = Promise.all([pvc.run(1, abort.signal), pv.run(1, abort.signal)]);
  stops.push(async () => {
    await sandbox.stop();
  });
  stops.push(async () => {
    abort.abort();
    await running;
    await factory.shutdown();
  });
  return { sandbox, clock };
}

const claim = (name: string): PersistentVolumeClaim => ({
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
});

const podUsing = (name: string, claimName: string, nodeName?: string): Pod => ({
  metadata: { name },
  spec: {
    ...(nodeName ? { nodeName } : {}),
    containers: [{ name: 'c', image: 'nginx' }],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
  },
});

describe('the PVC protection controller', () => {
  it('keeps a claim being deleted while a scheduled pod names it, and lets it go with the pod', async () => {
    const { sandbox, clock } = await start();
    const claims = sandbox
      .client<PersistentVolumeClaim>('', 'persistentvolumeclaims')
      .inNamespace('default');
    const pods = sandbox.client<Pod>('', 'pods').inNamespace('default');
    await claims.create(claim('data'));
    await pods.create(podUsing('app', 'data', 'node-1'));
    // An unscheduled pod holds nothing: the kubelet would not start it now.
    await pods.create(podUsing('pending', 'data'));
    await claims.delete('data');
    await clock.advance(5_000);
    const kept = await claims.get('data');
    expect(kept.metadata?.deletionTimestamp).toBeDefined();
    expect(kept.metadata?.finalizers).toEqual(['kubernetes.io/pvc-protection']);

    await pods.delete('app', { gracePeriodSeconds: 0 });
    await until(clock, () => gone(claims, 'data'), 'the claim to go');
  });

  it('puts back a finalizer a claim lost', async () => {
    const { sandbox, clock } = await start();
    const claims = sandbox
      .client<PersistentVolumeClaim>('', 'persistentvolumeclaims')
      .inNamespace('default');
    const created = await claims.create(claim('bare'));
    await claims.update({ ...created, metadata: { ...created.metadata, finalizers: [] } });
    await until(
      clock,
      async () =>
        ((await claims.get('bare')).metadata?.finalizers ?? []).includes(
          'kubernetes.io/pvc-protection',
        ),
      'the finalizer to be back',
    );
  });
});

describe('the PV protection controller', () => {
  it('keeps a volume being deleted while it is Bound, and lets it go once it is not', async () => {
    const { sandbox, clock } = await start();
    const volumes = sandbox.client<PersistentVolume>('', 'persistentvolumes');
    await volumes.create({
      metadata: { name: 'pv-1' },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: '/mnt/pv-1' },
      },
    });
    const created = await volumes.get('pv-1');
    await volumes.updateStatus({ ...created, status: { phase: 'Bound' } });
    await volumes.delete('pv-1');
    await clock.advance(5_000);
    const kept = await volumes.get('pv-1');
    expect(kept.metadata?.finalizers).toEqual(['kubernetes.io/pv-protection']);
    await volumes.updateStatus({ ...kept, status: { phase: 'Released' } });
    await until(clock, () => gone(volumes, 'pv-1'), 'the volume to go');
  });
});

describe('podUsesPVC', () => {
  const pvc = (owner?: string): PersistentVolumeClaim => ({
    metadata: {
      name: 'pod-eph',
      namespace: 'default',
      ...(owner
        ? {
            ownerReferences: [
              { apiVersion: 'v1', kind: 'Pod', name: 'pod', uid: owner, controller: true },
            ],
          }
        : {}),
    },
  });
  const ephemeralPod = (extra: Partial<Pod['metadata']> = {}): Pod => ({
    metadata: { name: 'pod', namespace: 'default', uid: 'pod-uid', ...extra },
    spec: {
      nodeName: 'node-1',
      containers: [],
      volumes: [{ name: 'eph', ephemeral: { volumeClaimTemplate: { spec: {} } } }],
    },
  });

  it.each([
    ['a scheduled pod naming the claim', podUsing('p', 'claim', 'node-1'), 'claim', true],
    ['an unscheduled pod naming the claim', podUsing('p', 'claim'), 'claim', false],
    ['a scheduled pod naming another claim', podUsing('p', 'other', 'node-1'), 'claim', false],
  ])('%s', (_name, pod, claimName, uses) => {
    expect(podUsesPVC(pod, { metadata: { name: claimName, namespace: 'default' } })).toBe(uses);
  });

  it('counts an ephemeral volume only for the claim its own pod controls, while the pod runs', () => {
    expect(podUsesPVC(ephemeralPod(), pvc('pod-uid'))).toBe(true);
    expect(podUsesPVC(ephemeralPod(), pvc('someone-else'))).toBe(false);
    expect(podUsesPVC(ephemeralPod(), pvc())).toBe(false);
    const shutDown = ephemeralPod({
      deletionTimestamp: '2026-01-01T00:00:00Z',
      deletionGracePeriodSeconds: 0,
    });
    expect(podUsesPVC(shutDown, pvc('pod-uid'))).toBe(false);
  });

  it('indexes a pod by the claims of its volumes', () => {
    expect(podPVCIndexFunc({ ...ephemeralPod() })).toEqual(['default/pod-eph']);
    expect(
      podPVCIndexFunc({ ...podUsing('p', 'data', 'n'), metadata: { name: 'p', namespace: 'ns' } }),
    ).toEqual(['ns/data']);
  });
});
