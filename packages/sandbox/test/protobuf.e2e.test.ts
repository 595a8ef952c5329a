// kubectl v1.32's `create <kind>` generators and `kubectl run` send their
// object as application/vnd.kubernetes.protobuf. Each is checked against the
// same command with `--dry-run=client -o json`, which prints the very object
// kubectl would have sent: what the sandbox stored must hold all of it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { kubectlRunner } from './kubectl-helpers.js';
import type { KubectlRunner } from './kubectl-helpers.js';

let sandbox: Sandbox;
let dir: string;
let kubectl: KubectlRunner['kubectl'];
let ok: KubectlRunner['ok'];

beforeAll(async () => {
  sandbox = await startSandbox();
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-protobuf-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  await sandbox.writeKubeconfig(kubeconfig);
  ({ kubectl, ok } = kubectlRunner(kubeconfig, dir));
});

afterAll(async () => {
  await sandbox.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The object as kubectl prints it before sending, less what Go writes for a zero value. */
function sent(json: string): Record<string, unknown> {
  const object = JSON.parse(json) as Record<string, unknown>;
  return JSON.parse(
    JSON.stringify(object, (key, value: unknown) =>
      key === 'creationTimestamp' && value === null ? undefined : value,
    ),
  ) as Record<string, unknown>;
}

/** Runs a create command for real and as a client dry run; returns what was stored and what was sent. */
async function create(args: string[], get: string[]) {
  // Flags go before a `--`, after which kubectl passes words to the container.
  const end = args.includes('--') ? args.indexOf('--') : args.length;
  const dryRun = sent(
    await ok([...args.slice(0, end), '--dry-run=client', '-o', 'json', ...args.slice(end)]),
  );
  await ok(args);
  const stored = JSON.parse(await ok(['get', ...get, '-o', 'json'])) as Record<string, unknown>;
  return { dryRun, stored };
}

describe('kubectl create <kind>, which sends protobuf', () => {
  it.each([
    [
      ['create', 'namespace', 'team'],
      ['namespace', 'team'],
    ],
    [
      ['create', 'configmap', 'settings', '--from-literal=mode=fast', '--from-literal=empty='],
      ['configmap', 'settings'],
    ],
    [
      ['create', 'secret', 'generic', 'login', '--from-literal=user=admin', '--type=Opaque'],
      ['secret', 'login'],
    ],
    [
      [
        'create',
        'secret',
        'docker-registry',
        'pull',
        '--docker-server=registry.example',
        '--docker-username=u',
        '--docker-password=p',
      ],
      ['secret', 'pull'],
    ],
    [
      ['create', 'service', 'nodeport', 'edge', '--tcp=443:8443'],
      ['service', 'edge'],
    ],
    [
      ['create', 'service', 'externalname', 'docs', '--external-name=docs.example'],
      ['service', 'docs'],
    ],
    [
      ['create', 'service', 'loadbalancer', 'front', '--tcp=80:8080'],
      ['service', 'front'],
    ],
    [
      ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3', '--port=80'],
      ['deployment', 'web'],
    ],
    [
      ['create', 'deployment', 'none', '--image=nginx:1.27', '--replicas=0'],
      ['deployment', 'none'],
    ],
    [
      [
        'run',
        'shell',
        '--image=busybox',
        '--labels=app=shell,tier=debug',
        '--port=8080',
        '--env=A=1',
        '--',
        'sleep',
        '3600',
      ],
      ['pod', 'shell'],
    ],
  ])('kubectl %j stores what it sent', async (args, get) => {
    const { dryRun, stored } = await create(args, get);
    expect(stored).toMatchObject(dryRun);
  });

  it.each([
    [
      ['create', 'deployment', 'same', '--image=nginx:1.27', '--replicas=2', '--port=80'],
      'deployment',
    ],
    [['run', 'same', '--image=busybox', '--port=8080', '--env=A=1', '--', 'sleep', '1'], 'pod'],
    [['create', 'configmap', 'same', '--from-literal=a=', '--from-literal=b=1'], 'configmap'],
  ])('stores from %j exactly what the same object sent as JSON stores', async (args, kind) => {
    await ok(['create', 'namespace', `proto-${kind}`]);
    await ok(['create', 'namespace', `json-${kind}`]);
    const end = args.includes('--') ? args.indexOf('--') : args.length;
    const flags = (ns: string) => [...args.slice(0, end), '-n', ns];
    await ok([...flags(`proto-${kind}`), ...args.slice(end)]);
    const manifest = await ok([
      ...flags(`json-${kind}`),
      '--dry-run=client',
      '-o',
      'json',
      ...args.slice(end),
    ]);
    await ok(['apply', '-f', '-'], { input: manifest });
    const stored = async (ns: string) => {
      const object = JSON.parse(await ok(['get', kind, 'same', '-n', ns, '-o', 'json']));
      // What differs between any two objects, and the apply's own annotation.
      for (const field of [
        'uid',
        'resourceVersion',
        'creationTimestamp',
        'namespace',
        'managedFields',
        'annotations',
      ])
        delete object.metadata[field];
      delete object.status;
      return object;
    };
    expect(await stored(`proto-${kind}`)).toEqual(await stored(`json-${kind}`));
  });

  it('keeps binary files as binaryData and zero replicas as zero', async () => {
    const file = path.join(dir, 'blob.bin');
    await writeFile(file, Buffer.from([0, 1, 2, 0xff, 0xfe]));
    await ok(['create', 'configmap', 'blob', `--from-file=${file}`]);
    const cm = JSON.parse(await ok(['get', 'configmap', 'blob', '-o', 'json']));
    expect(cm.binaryData).toEqual({
      'blob.bin': Buffer.from([0, 1, 2, 0xff, 0xfe]).toString('base64'),
    });
    const none = JSON.parse(await ok(['get', 'deployment', 'none', '-o', 'json']));
    expect(none.spec.replicas).toBe(0);
  });

  it('answers a protobuf create with the API server’s own errors', async () => {
    const again = await kubectl(['create', 'namespace', 'team']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('namespaces "team" already exists');
    const bad = await kubectl(['create', 'configmap', 'Bad_Name', '--from-literal=a=b']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('ConfigMap "Bad_Name" is invalid');
  });
});
