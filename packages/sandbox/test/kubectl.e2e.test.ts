// kubectl v1.32 as a real client of the sandbox: every command must succeed
// and print what it prints against a real cluster.
import { spawn } from 'node:child_process';
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
let kubeconfig: string;

let kubectl: KubectlRunner['kubectl'];
let ok: KubectlRunner['ok'];

const manifest = `apiVersion: v1
kind: Namespace
metadata:
  name: demo
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: demo
data:
  mode: fast
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: demo
spec:
  replicas: 2
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
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-kubectl-'));
  kubeconfig = path.join(dir, 'kubeconfig');
  await sandbox.writeKubeconfig(kubeconfig);
  ({ kubectl, ok } = kubectlRunner(kubeconfig, dir));
  await writeFile(path.join(dir, 'demo.yaml'), manifest);
});

afterAll(async () => {
  await sandbox.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('kubectl v1.32 against the sandbox', () => {
  it('talks to a 1.32 server', async () => {
    const out = JSON.parse(await ok(['version', '-o', 'json'])) as {
      serverVersion: { major: string; minor: string };
    };
    expect(out.serverVersion).toMatchObject({ major: '1', minor: '32' });
  });

  it('applies a manifest with a namespace, a configmap and a deployment', async () => {
    const out = await ok(['apply', '-f', path.join(dir, 'demo.yaml')]);
    expect(out.trim().split('\n')).toEqual([
      'namespace/demo created',
      'configmap/settings created',
      'deployment.apps/web created',
    ]);
    const again = await ok(['apply', '-f', path.join(dir, 'demo.yaml')]);
    expect(again.trim().split('\n')).toEqual([
      'namespace/demo unchanged',
      'configmap/settings unchanged',
      'deployment.apps/web unchanged',
    ]);
  });

  it('prints tables for each kind', async () => {
    expect(table(await ok(['get', 'namespace', 'demo']))).toEqual([
      ['NAME', 'STATUS', 'AGE'],
      ['demo', 'Active', expect.stringMatching(/^\d+s$/)],
    ]);
    expect(table(await ok(['get', 'deployments', '-n', 'demo']))).toEqual([
      ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'],
      ['web', '0/2', '0', '0', expect.stringMatching(/^\d+s$/)],
    ]);
    expect(table(await ok(['get', 'configmaps', '-n', 'demo']))).toEqual([
      ['NAME', 'DATA', 'AGE'],
      ['settings', '1', expect.stringMatching(/^\d+s$/)],
    ]);
    const none = await kubectl(['get', 'pods', '-n', 'demo']);
    expect(none.code).toBe(0);
    expect(none.stderr.trim()).toBe('No resources found in demo namespace.');
    const wide = table(await ok(['get', 'deploy', 'web', '-n', 'demo', '-o', 'wide']));
    expect(wide[0]).toEqual([
      'NAME',
      'READY',
      'UP-TO-DATE',
      'AVAILABLE',
      'AGE',
      'CONTAINERS',
      'IMAGES',
      'SELECTOR',
    ]);
    expect(wide[1]?.slice(5)).toEqual(['c', 'nginx:1.27', 'app=web']);
  });

  it('prints the stored object with -o json', async () => {
    const d = JSON.parse(await ok(['get', 'deploy', 'web', '-n', 'demo', '-o', 'json'])) as Json;
    expect(d.metadata.generation).toBe(1);
    expect(d.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain(
      '"replicas":2',
    );
    expect(d.spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
    });
  });

  it('patches (strategic and merge), scales, sets the image and labels', async () => {
    expect(
      await ok([
        'patch',
        'deploy',
        'web',
        '-n',
        'demo',
        '-p',
        '{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:1.28"}]}}}}',
      ]),
    ).toBe('deployment.apps/web patched\n');
    expect(
      await ok([
        'patch',
        'deploy',
        'web',
        '-n',
        'demo',
        '--type',
        'merge',
        '-p',
        '{"spec":{"minReadySeconds":1}}',
      ]),
    ).toBe('deployment.apps/web patched\n');
    expect(await ok(['scale', 'deploy', 'web', '-n', 'demo', '--replicas', '3'])).toBe(
      'deployment.apps/web scaled\n',
    );
    expect(await ok(['set', 'image', 'deploy/web', '-n', 'demo', 'c=nginx:1.29'])).toBe(
      'deployment.apps/web image updated\n',
    );
    expect(await ok(['label', 'configmap', 'settings', '-n', 'demo', 'tier=web'])).toBe(
      'configmap/settings labeled\n',
    );
    const d = JSON.parse(await ok(['get', 'deploy', 'web', '-n', 'demo', '-o', 'json'])) as Json;
    expect(d.spec.replicas).toBe(3);
    expect(d.spec.minReadySeconds).toBe(1);
    expect(d.spec.template.spec.containers).toEqual([
      expect.objectContaining({ name: 'c', image: 'nginx:1.29' }),
    ]);
    expect(d.metadata.generation).toBe(5);
    expect(await ok(['get', 'cm', '-n', 'demo', '-l', 'tier=web', '-o', 'name'])).toBe(
      'configmap/settings\n',
    );
  });

  it('sees a later change with get -w', async () => {
    const child = spawn(
      'kubectl',
      [
        '--kubeconfig',
        kubeconfig,
        '--cache-dir',
        path.join(dir, 'cache'),
        'get',
        'configmap',
        'settings',
        '-n',
        'demo',
        '-w',
        '-o',
        'name',
      ],
      {
        env: { ...process.env, HOME: dir },
      },
    );
    let out = '';
    const waiting: { n: number; resolve: () => void }[] = [];
    const count = () => out.split('\n').filter(Boolean).length;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      for (const w of waiting.filter((w) => count() >= w.n)) w.resolve();
    });
    const lines = (n: number) =>
      count() >= n
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.push({ n, resolve }));
    try {
      await lines(1);
      await ok(['annotate', 'configmap', 'settings', '-n', 'demo', 'seen=yes']);
      await lines(2);
      expect(out.split('\n').filter(Boolean)).toEqual(['configmap/settings', 'configmap/settings']);
    } finally {
      child.kill();
    }
  });

  it('lists the served resources', async () => {
    const rows = table(await ok(['api-resources']));
    expect(rows[0]).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
    expect(rows).toContainEqual(['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
    expect(rows).toContainEqual(['leases', 'coordination.k8s.io/v1', 'true', 'Lease']);
    expect(rows).toContainEqual(['namespaces', 'ns', 'v1', 'false', 'Namespace']);
  });

  it('reports errors as a real server does', async () => {
    const missing = await kubectl(['get', 'deploy', 'nope', '-n', 'demo']);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe(
      'Error from server (NotFound): deployments.apps "nope" not found',
    );
    expect(await ok(['create', 'configmap', 'imperative', '-n', 'demo'])).toBe(
      'configmap/imperative created\n',
    );
    const again = await kubectl(['create', 'configmap', 'imperative', '-n', 'demo']);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(
      'error: failed to create configmap: configmaps "imperative" already exists',
    );
  });

  it('refuses unknown fields under --validate=strict (the default), warns and drops them otherwise', async () => {
    const typo = `apiVersion: v1
kind: ConfigMap
metadata:
  name: typo
  namespace: demo
  labelz: {a: b}
data:
  k: v
`;
    const strict = await kubectl(['apply', '-f', '-'], { input: typo });
    expect(strict.code).toBe(1);
    expect(strict.stderr.trim()).toBe(
      'Error from server (BadRequest): error when creating "STDIN": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.labelz"',
    );
    const warned = await kubectl(['apply', '--validate=warn', '-f', '-'], { input: typo });
    expect(warned.code).toBe(0);
    expect(warned.stderr).toBe('Warning: unknown field "metadata.labelz"\n');
    expect(warned.stdout).toBe('configmap/typo created\n');
    const stored = JSON.parse(await ok(['get', 'cm', 'typo', '-n', 'demo', '-o', 'json'])) as Json;
    expect(Object.keys(stored.metadata as Json)).not.toContain('labelz');
    // kubectl patch sends no fieldValidation: the server's default, Warn, applies.
    const patched = await kubectl([
      'patch',
      'cm',
      'typo',
      '-n',
      'demo',
      '--type=merge',
      '-p',
      '{"dat":{"k":"w"}}',
    ]);
    expect(patched.stderr).toBe('Warning: unknown field "dat"\n');
    expect(patched.code).toBe(0);
    expect(await ok(['get', 'cm', 'typo', '-n', 'demo', '-o', 'jsonpath={.data.k}'])).toBe('v');
    // create -f and replace -f validate the same way.
    const created = await kubectl(['create', '-f', '-'], { input: typo });
    expect(created.stderr).toContain('error when creating "STDIN": ConfigMap in version "v1"');
    const replaced = await kubectl(['replace', '-f', '-'], { input: typo });
    expect(replaced.code).toBe(1);
    expect(replaced.stderr.trim()).toBe(
      'Error from server (BadRequest): error when replacing "STDIN": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.labelz"',
    );
    expect(await ok(['delete', 'cm', 'typo', '-n', 'demo'])).toBe('configmap "typo" deleted\n');
  });

  it('applies server-side, and refuses unknown fields there too', async () => {
    const cm = (value: string, extra = '') => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa
  namespace: demo
data:
  k: ${value}
${extra}`;
    expect(await ok(['apply', '--server-side', '-f', '-'], { input: cm('one') })).toBe(
      'configmap/ssa serverside-applied\n',
    );
    expect(await ok(['apply', '--server-side', '-f', '-'], { input: cm('two') })).toBe(
      'configmap/ssa serverside-applied\n',
    );
    expect(await ok(['get', 'cm', 'ssa', '-n', 'demo', '-o', 'jsonpath={.data.k}'])).toBe('two');
    const typo = await kubectl(['apply', '--server-side', '-f', '-'], {
      input: cm('three', 'dat: {}\n'),
    });
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('.dat: field not declared in schema');
    expect(await ok(['get', 'cm', 'ssa', '-n', 'demo', '-o', 'jsonpath={.data.k}'])).toBe('two');
    expect(await ok(['delete', 'cm', 'ssa', '-n', 'demo'])).toBe('configmap "ssa" deleted\n');
  });

  it('deletes, waiting until the object is gone, then the namespace with what is left in it', async () => {
    expect(await ok(['delete', 'configmap', 'settings', '-n', 'demo'])).toBe(
      'configmap "settings" deleted\n',
    );
    expect(await ok(['delete', 'namespace', 'demo'])).toBe('namespace "demo" deleted\n');
    const gone = await kubectl(['get', 'deploy', '-n', 'demo']);
    expect(gone.stderr.trim()).toBe('No resources found in demo namespace.');
  });
});
