// kubectl v1.32 against the new kinds and RBAC: `create` generators (which
// send protobuf), `scale rc`, `get pdb`, `create token`, `auth can-i --as`
// and `auth whoami`, printing what they print against a real cluster.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { kubectlRunner, table, type KubectlRunner } from './kubectl-helpers.js';

let sandbox: Sandbox;
let dir: string;
let kubectl: KubectlRunner['kubectl'];
let ok: KubectlRunner['ok'];

const rc = `apiVersion: v1
kind: ReplicationController
metadata:
  name: web
spec:
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
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-rbac-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  await sandbox.writeKubeconfig(kubeconfig);
  ({ kubectl, ok } = kubectlRunner(kubeconfig, dir));
});

afterAll(async () => {
  await sandbox.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('kubectl with ServiceAccounts, RCs, PDBs and RBAC', () => {
  it('scales an rc and prints rc and pdb tables', async () => {
    await ok(['apply', '-f', '-'], { input: rc });
    expect(await ok(['scale', 'rc', 'web', '--replicas=3'])).toBe(
      'replicationcontroller/web scaled\n',
    );
    expect(table(await ok(['get', 'rc']))).toEqual([
      ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE'],
      ['web', '3', '0', '0', expect.stringMatching(/^\d+s$/)],
    ]);
    await ok(['create', 'pdb', 'web', '--selector=app=web', '--min-available=2']);
    expect(table(await ok(['get', 'pdb']))).toEqual([
      ['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE'],
      ['web', '2', 'N/A', '0', expect.stringMatching(/^\d+s$/)],
    ]);
  });

  it('issues a token, and answers can-i and whoami as the service account', async () => {
    await ok(['create', 'serviceaccount', 'x']);
    const token = (await ok(['create', 'token', 'x'])).trim();
    expect(token.length).toBeGreaterThan(20);
    const as = ['--as=system:serviceaccount:default:x'];
    const no = await kubectl(['auth', 'can-i', 'list', 'pods', ...as]);
    expect([no.code, no.stdout.trim()]).toEqual([1, 'no']);
    await ok(['create', 'role', 'reader', '--verb=list', '--resource=pods']);
    await ok(['create', 'rolebinding', 'x-reads', '--role=reader', '--serviceaccount=default:x']);
    expect((await ok(['auth', 'can-i', 'list', 'pods', ...as])).trim()).toBe('yes');
    const denied = await kubectl(['get', 'deploy', `--token=${token}`]);
    expect(denied.stderr.trim()).toBe(
      'Error from server (Forbidden): deployments.apps is forbidden: User "system:serviceaccount:default:x" cannot list resource "deployments" in API group "apps" in the namespace "default"',
    );
    const whoami = table(await ok(['auth', 'whoami', `--token=${token}`]));
    expect(whoami[1]).toEqual(['Username', 'system:serviceaccount:default:x']);
  });
});
