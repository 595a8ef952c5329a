// kubectl v1.32 and the apps/v1 workloads: apply (and apply again) a
// DaemonSet and a StatefulSet with a claim template, their tables, scale a
// StatefulSet through the scale subresource, and ControllerRevisions.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { kubectlRunner, table, type KubectlRunner } from './kubectl-helpers.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

let sandbox: Sandbox;
let dir: string;
let kubectl: KubectlRunner['kubectl'];
let ok: KubectlRunner['ok'];

const daemonSet = (image: string) => `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: fluentd
spec:
  selector:
    matchLabels:
      app: fluentd
  template:
    metadata:
      labels:
        app: fluentd
    spec:
      nodeSelector:
        kubernetes.io/os: linux
      containers:
        - name: fluentd
          image: ${image}
`;

const statefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: nginx
  replicas: 2
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
        - name: nginx
          image: registry.k8s.io/nginx-slim:0.24
  volumeClaimTemplates:
    - metadata:
        name: www
      spec:
        accessModes: ['ReadWriteOnce']
        resources:
          requests:
            storage: 1Gi
`;

beforeAll(async () => {
  sandbox = await startSandbox();
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-apps-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  await sandbox.writeKubeconfig(kubeconfig);
  ({ kubectl, ok } = kubectlRunner(kubeconfig, dir));
});

afterAll(async () => {
  await sandbox.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('kubectl and the apps/v1 workloads', () => {
  it('applies a DaemonSet, and applies it again with a new image', async () => {
    await writeFile(path.join(dir, 'ds.yaml'), daemonSet('fluentd:v1'));
    expect(await ok(['apply', '-f', path.join(dir, 'ds.yaml')])).toBe(
      'daemonset.apps/fluentd created\n',
    );
    await writeFile(path.join(dir, 'ds.yaml'), daemonSet('fluentd:v2'));
    expect(await ok(['apply', '-f', path.join(dir, 'ds.yaml')])).toBe(
      'daemonset.apps/fluentd configured\n',
    );
    const ds = JSON.parse(await ok(['get', 'ds', 'fluentd', '-o', 'json'])) as Json;
    expect(ds.spec.template.spec.containers[0].image).toBe('fluentd:v2');
    expect(ds.metadata.annotations['deprecated.daemonset.template.generation']).toBe('2');
    expect(table(await ok(['get', 'daemonsets', '-o', 'wide']))).toEqual([
      [
        'NAME',
        'DESIRED',
        'CURRENT',
        'READY',
        'UP-TO-DATE',
        'AVAILABLE',
        'NODE SELECTOR',
        'AGE',
        'CONTAINERS',
        'IMAGES',
        'SELECTOR',
      ],
      [
        'fluentd',
        '0',
        '0',
        '0',
        '0',
        '0',
        'kubernetes.io/os=linux',
        expect.stringMatching(/^\d+s$/),
        'fluentd',
        'fluentd:v2',
        'app=fluentd',
      ],
    ]);
  });

  it('creates a StatefulSet with a claim template, and scales it', async () => {
    await writeFile(path.join(dir, 'sts.yaml'), statefulSet);
    expect(await ok(['apply', '-f', path.join(dir, 'sts.yaml')])).toBe(
      'statefulset.apps/web created\n',
    );
    expect(await ok(['scale', 'sts', 'web', '--replicas=3'])).toBe('statefulset.apps/web scaled\n');
    const sts = JSON.parse(await ok(['get', 'sts', 'web', '-o', 'json'])) as Json;
    expect(sts.spec.replicas).toBe(3);
    expect(sts.spec.volumeClaimTemplates[0].status).toEqual({ phase: 'Pending' });
    expect(table(await ok(['get', 'statefulsets']))).toEqual([
      ['NAME', 'READY', 'AGE'],
      ['web', '0/3', expect.stringMatching(/^\d+s$/)],
    ]);
    const refused = await kubectl(['patch', 'sts', 'web', '-p', '{"spec":{"serviceName":"x"}}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    );
  });

  it('lists ControllerRevisions with their controller', async () => {
    const sts = JSON.parse(await ok(['get', 'sts', 'web', '-o', 'json'])) as Json;
    await ok(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: {
          name: 'web-6d4f7c9b8',
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'StatefulSet',
              name: 'web',
              uid: sts.metadata.uid,
              controller: true,
            },
          ],
        },
        data: { spec: { template: sts.spec.template } },
        revision: 1,
      }),
    });
    expect(table(await ok(['get', 'controllerrevisions']))).toEqual([
      ['NAME', 'CONTROLLER', 'REVISION', 'AGE'],
      ['web-6d4f7c9b8', 'statefulset.apps/web', '1', expect.stringMatching(/^\d+s$/)],
    ]);
  });
});
