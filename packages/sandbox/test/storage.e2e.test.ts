// kubectl v1.32 and the sandbox's storage on three nodes: kind's default
// StorageClass, a claim that waits for its first consumer and is then
// provisioned on that pod's node, a volume made by hand and bound to a claim
// that fits it, the protection finalizers, reclaiming when the claim goes,
// a pod whose claim is missing, and what validation refuses.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';
import { kubectlRunner, table, type KubectlRunner } from './kubectl-helpers.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

let sandbox: Sandbox;
let dir: string;
let kubectl: KubectlRunner['kubectl'];
let ok: KubectlRunner['ok'];

beforeAll(async () => {
  sandbox = await startSandbox({ nodes: 3, podStartDelay: 100, podReadyDelay: 100 });
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-storage-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  await sandbox.writeKubeconfig(kubeconfig);
  ({ kubectl, ok } = kubectlRunner(kubeconfig, dir));
});

afterAll(async () => {
  await sandbox.stop();
  await rm(dir, { recursive: true, force: true });
});

const claim = (name: string, extra = '') => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
${extra}`;

const podUsing = (name: string, claimName: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
    - name: app
      image: nginx:1.27
      volumeMounts:
        - name: data
          mountPath: /data
  volumes:
    - name: data
      persistentVolumeClaim:
        claimName: ${claimName}
`;

const json = async (args: string[]): Promise<Json> =>
  JSON.parse(await ok([...args, '-o', 'json'])) as Json;

/** Polls `read` until `done` holds of what it returns (the sandbox's clock is real here). */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await read();
    if (done(v) || i === 200) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('storage on a cluster of three nodes', () => {
  it("comes with kind's default StorageClass", async () => {
    const rows = table(await ok(['get', 'storageclass']));
    expect(rows[0]).toEqual([
      'NAME',
      'PROVISIONER',
      'RECLAIMPOLICY',
      'VOLUMEBINDINGMODE',
      'ALLOWVOLUMEEXPANSION',
      'AGE',
    ]);
    expect(rows[1]?.slice(0, 5)).toEqual([
      'standard (default)',
      'rancher.io/local-path',
      'Delete',
      'WaitForFirstConsumer',
      'false',
    ]);
  });

  it(
    'provisions a claim on the node of its first pod, and binds it',
    { timeout: 60_000 },
    async () => {
      expect(await ok(['apply', '-f', '-'], { input: claim('data') })).toBe(
        'persistentvolumeclaim/data created\n',
      );
      const pending = await json(['get', 'pvc', 'data']);
      expect(pending.spec.storageClassName).toBe('standard');
      expect(pending.spec.volumeMode).toBe('Filesystem');
      expect(pending.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
      expect(pending.status.phase).toBe('Pending');
      const waiting = await until(
        () =>
          ok([
            'get',
            'events',
            '--field-selector',
            'involvedObject.name=data',
            '-o',
            'jsonpath={.items[*].reason}',
          ]),
        (out) => out.includes('WaitForFirstConsumer'),
      );
      expect(waiting).toContain('WaitForFirstConsumer');

      await ok(['apply', '-f', '-'], { input: podUsing('app', 'data') });
      expect(await ok(['wait', '--for=condition=Ready', 'pod/app', '--timeout=30s'])).toBe(
        'pod/app condition met\n',
      );
      const pod = await json(['get', 'pod', 'app']);
      const node = pod.spec.nodeName as string;
      expect(['node-2', 'node-3']).toContain(node);

      const bound = await json(['get', 'pvc', 'data']);
      const pvName = `pvc-${bound.metadata.uid as string}`;
      expect(bound.spec.volumeName).toBe(pvName);
      expect(bound.status).toEqual({
        phase: 'Bound',
        accessModes: ['ReadWriteOnce'],
        capacity: { storage: '1Gi' },
      });
      expect(bound.metadata.annotations).toMatchObject({
        'pv.kubernetes.io/bind-completed': 'yes',
        'volume.kubernetes.io/selected-node': node,
        'volume.kubernetes.io/storage-provisioner': 'rancher.io/local-path',
      });
      const rows = table(await ok(['get', 'pvc', 'data']));
      expect(rows[1]?.slice(0, 7)).toEqual([
        'data',
        'Bound',
        pvName,
        '1Gi',
        'RWO',
        'standard',
        '<unset>',
      ]);

      const pv = await json(['get', 'pv', pvName]);
      expect(pv.spec.claimRef).toMatchObject({ namespace: 'default', name: 'data' });
      expect(pv.spec.nodeAffinity.required.nodeSelectorTerms).toEqual([
        { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] },
      ]);
      expect(pv.metadata.finalizers).toEqual(['kubernetes.io/pv-protection']);
      const pvRows = table(await ok(['get', 'pv']));
      expect(pvRows[1]?.slice(0, 8)).toEqual([
        pvName,
        '1Gi',
        'RWO',
        'Delete',
        'Bound',
        'default/data',
        'standard',
        '<unset>',
      ]);
      const events = await ok([
        'get',
        'events',
        '--field-selector',
        'involvedObject.name=data',
        '-o',
        'jsonpath={.items[*].reason}',
      ]);
      expect(events.split(' ')).toEqual(
        expect.arrayContaining(['WaitForFirstConsumer', 'Provisioning', 'ProvisioningSucceeded']),
      );
    },
  );

  it(
    'schedules a second pod of the claim only where its volume is',
    { timeout: 60_000 },
    async () => {
      const node = (await json(['get', 'pod', 'app'])).spec.nodeName as string;
      await ok(['apply', '-f', '-'], { input: podUsing('app-2', 'data') });
      await ok(['wait', '--for=condition=Ready', 'pod/app-2', '--timeout=30s']);
      expect((await json(['get', 'pod', 'app-2'])).spec.nodeName).toBe(node);
    },
  );

  it(
    'keeps a claim while it is deleted, and reclaims its volume once it is gone',
    { timeout: 60_000 },
    async () => {
      const pvName = (await json(['get', 'pvc', 'data'])).spec.volumeName as string;
      await ok(['delete', 'pod', 'app', 'app-2', '--timeout=20s']);
      expect(await ok(['delete', 'pvc', 'data', '--wait=false'])).toBe(
        'persistentvolumeclaim "data" deleted\n',
      );
      // No pvc-protection controller runs in the sandbox alone: the
      // finalizer holds the claim as it would on a cluster without one.
      expect(table(await ok(['get', 'pvc', 'data']))[1]?.[1]).toBe('Terminating');
      await ok(['patch', 'pvc', 'data', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
      const released = await until(
        () => kubectl(['get', 'pv', pvName, '-o', 'json']),
        (r) =>
          r.code === 0 && (JSON.parse(r.stdout) as Json).metadata.deletionTimestamp !== undefined,
      );
      const pv = JSON.parse(released.stdout) as Json;
      expect(pv.status.phase).toBe('Released');
      expect(pv.metadata.deletionTimestamp).toBeDefined();
    },
  );

  it('binds a claim to a volume made by hand that fits it', { timeout: 60_000 }, async () => {
    const manual = `apiVersion: v1
kind: PersistentVolume
metadata:
  name: manual
spec:
  capacity:
    storage: 5Gi
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  storageClassName: ""
  hostPath:
    path: /mnt/manual
`;
    await ok(['apply', '-f', '-'], { input: manual });
    const available = await until(
      () => json(['get', 'pv', 'manual']),
      (pv) => pv.status.phase === 'Available',
    );
    expect(available.spec.persistentVolumeReclaimPolicy).toBe('Retain');
    await ok(['apply', '-f', '-'], { input: claim('static', '  storageClassName: ""\n') });
    const bound = await until(
      () => json(['get', 'pvc', 'static']),
      (pvc) => pvc.status.phase === 'Bound',
    );
    expect(bound.spec.volumeName).toBe('manual');
    expect(bound.status.capacity).toEqual({ storage: '5Gi' });
    const pv = await json(['get', 'pv', 'manual']);
    expect(pv.status.phase).toBe('Bound');
    expect(pv.metadata.annotations['pv.kubernetes.io/bound-by-controller']).toBe('yes');
  });

  it("keeps a pod whose claim is missing Pending, with the scheduler's reason", async () => {
    await ok(['apply', '-f', '-'], { input: podUsing('orphan', 'nope') });
    const message = await until(
      () =>
        ok([
          'get',
          'events',
          '--field-selector',
          'involvedObject.name=orphan,reason=FailedScheduling',
          '-o',
          'jsonpath={.items[*].message}',
        ]),
      (out) => out !== '',
    );
    expect(message).toBe(
      '0/3 nodes are available: persistentvolumeclaim "nope" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
  });

  it('refuses what kube-apiserver refuses', async () => {
    const noModes = await kubectl(['apply', '-f', '-'], {
      input: `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: bad
spec:
  resources:
    requests:
      storage: 1Gi
`,
    });
    expect(noModes.code).toBe(1);
    expect(noModes.stderr).toContain(
      'spec.accessModes: Required value: at least 1 access mode is required',
    );
    const grow = await kubectl([
      'patch',
      'storageclass',
      'standard',
      '--type=merge',
      '-p',
      '{"reclaimPolicy":"Retain"}',
    ]);
    expect(grow.code).toBe(1);
    expect(grow.stderr).toContain(
      'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
    );
    const noSource = await kubectl(['apply', '-f', '-'], {
      input: `apiVersion: v1
kind: PersistentVolume
metadata:
  name: nowhere
spec:
  capacity:
    storage: 1Gi
  accessModes: [ReadWriteOnce]
`,
    });
    expect(noSource.code).toBe(1);
    expect(noSource.stderr).toContain('spec: Required value: must specify a volume type');
  });
});
