// kubectl v1.32 with Services: `kubectl expose` (which sends JSON) and
// `kubectl create service` (which sends protobuf) both work, and so does
// kubectl's own manifest piped to `kubectl apply -f -`. `kubectl get svc`
// prints kube's table.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { kubectlRunner, table } from './kubectl-helpers.js';
import type { KubectlRunner } from './kubectl-helpers.js';

let sandbox: Sandbox;
let dir: string;
let kubectl: KubectlRunner['kubectl'];
let ok: KubectlRunner['ok'];

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: c
          image: nginx:1.27
`;

beforeAll(async () => {
  sandbox = await startSandbox();
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-svc-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  await sandbox.writeKubeconfig(kubeconfig);
  ({ kubectl, ok } = kubectlRunner(kubeconfig, dir));
  await ok(['apply', '-f', '-'], { input: deployment });
});

afterAll(async () => {
  await sandbox.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('kubectl and Services', () => {
  it('exposes a deployment', async () => {
    expect(await ok(['expose', 'deployment', 'web', '--port=80', '--target-port=8080'])).toBe(
      'service/web exposed\n',
    );
    const svc = JSON.parse(await ok(['get', 'svc', 'web', '-o', 'json']));
    expect(svc.spec).toMatchObject({
      type: 'ClusterIP',
      selector: { app: 'web' },
      ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }],
    });
    expect(svc.spec.clusterIP).toMatch(/^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);
  });

  it('creates a service with kubectl create service, or from the manifest it writes', async () => {
    expect(await ok(['create', 'service', 'clusterip', 'api', '--tcp=80:8080'])).toBe(
      'service/api created\n',
    );
    const api = JSON.parse(await ok(['get', 'svc', 'api', '-o', 'json']));
    expect(api.spec).toMatchObject({
      type: 'ClusterIP',
      selector: { app: 'api' },
      ports: [{ name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 }],
    });

    const nodePort = await ok([
      'create',
      'service',
      'nodeport',
      'edge',
      '--tcp=443:8443',
      '--node-port=30443',
      '--dry-run=client',
      '-o',
      'yaml',
    ]);
    expect(await ok(['apply', '-f', '-'], { input: nodePort })).toBe('service/edge created\n');
    const first = JSON.parse(await ok(['get', 'svc', 'edge', '-o', 'json']));
    // Applied again: kubectl patches `creationTimestamp: null` (it says
    // "configured", as against any server), which changes nothing, and the
    // allocated ClusterIP stays.
    await ok(['apply', '-f', '-'], { input: nodePort });
    const again = JSON.parse(await ok(['get', 'svc', 'edge', '-o', 'json']));
    expect(again.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect(again.spec.clusterIP).toBe(first.spec.clusterIP);
    expect(again.spec.ports[0].nodePort).toBe(30443);
  });

  it('prints services as kube-apiserver’s table, wide with the selector', async () => {
    const ips = JSON.parse(await ok(['get', 'svc', '-o', 'json'])).items.map(
      (s: { metadata: { name: string }; spec: { clusterIP: string } }) => [
        s.metadata.name,
        s.spec.clusterIP,
      ],
    );
    const ip = new Map<string, string>(ips);
    const rows = table(await ok(['get', 'svc', '-o', 'wide'])).map((r) =>
      r.filter((_, i) => i !== 5),
    );
    expect(rows).toEqual([
      ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'SELECTOR'],
      ['api', 'ClusterIP', ip.get('api'), '<none>', '80/TCP', 'app=api'],
      ['edge', 'NodePort', ip.get('edge'), '<none>', '443:30443/TCP', 'app=edge'],
      ['kubernetes', 'ClusterIP', '10.96.0.1', '<none>', '443/TCP', '<none>'],
      ['web', 'ClusterIP', ip.get('web'), '<none>', '80/TCP', 'app=web'],
    ]);
    const all = await ok(['get', 'all', '-o', 'name']);
    expect(all).toContain('service/kubernetes\n');
    expect(table(await ok(['api-resources']))).toContainEqual([
      'services',
      'svc',
      'v1',
      'true',
      'Service',
    ]);
  });

  it('reports kube-apiserver’s field errors', async () => {
    const moved = await kubectl([
      'patch',
      'svc',
      'web',
      '-p',
      '{"spec":{"clusterIP":"10.96.9.9","clusterIPs":["10.96.9.9"]}}',
    ]);
    expect(moved.code).toBe(1);
    expect(moved.stderr.trim()).toBe(
      'The Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.9.9"}: may not change once set',
    );
    const taken = await kubectl(['apply', '-f', '-'], {
      input:
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: clash\nspec:\n  clusterIP: 10.96.0.1\n  ports:\n    - port: 80\n',
    });
    expect(taken.stderr.trim()).toBe(
      'The Service "clash" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated',
    );
    expect(await ok(['delete', 'svc', 'web'])).toBe('service "web" deleted\n');
  });
});
