// `kcm-ts up` as a user runs it, with kubectl v1.32 as the client: the
// seed's nginx Deployment rolls out, deletes cascade as each propagation
// policy says, a namespace with workloads finishes, the endpoints answer,
// and SIGTERM stops everything.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlRunner, type KubectlRunner } from '../../sandbox/test/kubectl-helpers.js';

const cli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const tsx = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

const nginx = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    app: nginx
spec:
  replicas: 3
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
        image: nginx:1.14.2
        ports:
        - containerPort: 80
`;

/** A free port on 127.0.0.1, for the manager's secure port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

let dir: string;
let child: ChildProcessWithoutNullStreams;
let k: KubectlRunner;
let ready: string;
let securePort: number;
let token: string;
let output = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-up-'));
  securePort = await freePort();
  child = spawn(
    process.execPath,
    [
      '--import',
      tsx,
      '--conditions=@kcm-ts/source',
      cli,
      'up',
      '--port=0',
      `--secure-port=${securePort}`,
      '--kubeconfig-out=kc/config',
    ],
    { cwd: dir },
  );
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  ready = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('kcm-ts ready')) resolve(out);
    });
    child.on('exit', (code) => reject(new Error(`exited ${String(code)}:\n${out}${output}`)));
  });
  const kubeconfig = path.join(dir, 'kc', 'config');
  k = kubectlRunner(kubeconfig, dir);
  token = /token: (\S+)/.exec(await readFile(kubeconfig, 'utf8'))?.[1] ?? '';
}, 120_000);

afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Polls `check` until it returns true (kubectl output changes as controllers act). */
async function eventually(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - start > ms)
      throw new Error(`${what} did not happen within ${ms} ms\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const names = async (kind: string, ns = 'default') =>
  (await k.ok(['-n', ns, 'get', kind, '-o', 'name'])).split('\n').filter(Boolean);

function get(pathname: string, auth?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: securePort,
        path: pathname,
        rejectUnauthorized: false,
        headers: auth ? { authorization: auth } : {},
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('kcm-ts up', () => {
  it('prints one ready line with the kubectl command and the metrics URL', () => {
    expect(ready).toMatch(
      /^kcm-ts ready: kubectl --kubeconfig kc\/config get pods .*metrics https:\/\/127\.0\.0\.1:\d+\/metrics\)\n$/,
    );
    expect(ready).toContain('replicaset-controller');
    expect(ready).toContain('garbage-collector-controller');
  });

  it('rolls out the nginx Deployment to three Ready pods', async () => {
    await k.ok(['apply', '-f', '-'], { input: nginx });
    await k.ok(['rollout', 'status', 'deployment/nginx-deployment', '--timeout=60s']);
    const deploy = JSON.parse(await k.ok(['get', 'deploy', 'nginx-deployment', '-o', 'json']));
    expect(deploy.status).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      updatedReplicas: 3,
    });
    const pods = JSON.parse(await k.ok(['get', 'pods', '-l', 'app=nginx', '-o', 'json'])).items;
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.metadata.ownerReferences[0]).toMatchObject({
        kind: 'ReplicaSet',
        controller: true,
      });
    }
  });

  it('deletes in the background: the ReplicaSet and pods follow the Deployment', async () => {
    await k.ok(['delete', 'deployment', 'nginx-deployment']);
    await eventually(
      'the dependents to be collected',
      async () => (await names('rs')).length === 0 && (await names('pods')).length === 0,
    );
  });

  it('orphans with --cascade=orphan: the ReplicaSet and pods stay, without a reference to the Deployment', async () => {
    await k.ok(['apply', '-f', '-'], { input: nginx });
    await k.ok(['rollout', 'status', 'deployment/nginx-deployment', '--timeout=60s']);
    await k.ok(['delete', 'deployment', 'nginx-deployment', '--cascade=orphan']);
    await eventually('the ReplicaSet to lose its owner', async () => {
      const rs = JSON.parse(await k.ok(['get', 'rs', '-o', 'json'])).items;
      return rs.length === 1 && (rs[0].metadata.ownerReferences ?? []).length === 0;
    });
    expect(await names('pods')).toHaveLength(3);
    expect(await names('deployments')).toEqual([]);
    // A new Deployment with the same selector adopts what was orphaned.
    await k.ok(['apply', '-f', '-'], { input: nginx });
    await eventually('the ReplicaSet to be adopted', async () => {
      const rs = JSON.parse(await k.ok(['get', 'rs', '-o', 'json'])).items;
      return rs.length === 1 && rs[0].metadata.ownerReferences?.[0]?.name === 'nginx-deployment';
    });
  });

  it('deletes in the foreground with --cascade=foreground: dependents first, the Deployment last', async () => {
    await k.ok(['rollout', 'status', 'deployment/nginx-deployment', '--timeout=60s']);
    await k.ok([
      'delete',
      'deployment',
      'nginx-deployment',
      '--cascade=foreground',
      '--timeout=60s',
    ]);
    expect(await names('deployments')).toEqual([]);
    expect(await names('rs')).toEqual([]);
    await eventually('the pods to go', async () => (await names('pods')).length === 0);
  });

  it('finishes a namespace with workloads in it', async () => {
    await k.ok(['apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: doomed\n',
    });
    await k.ok(['-n', 'doomed', 'apply', '-f', '-'], { input: nginx });
    await k.ok([
      '-n',
      'doomed',
      'rollout',
      'status',
      'deployment/nginx-deployment',
      '--timeout=60s',
    ]);
    await k.ok(['delete', 'namespace', 'doomed', '--timeout=90s']);
    const left = await k.kubectl(['get', 'namespace', 'doomed']);
    expect(left.stderr).toContain('NotFound');
  });

  it('serves /healthz and /readyz to anyone, /metrics only with a token the API server accepts', async () => {
    expect(await get('/healthz')).toEqual({ status: 200, body: 'ok' });
    const readyz = await get('/readyz?verbose');
    expect(readyz.status).toBe(200);
    expect(readyz.body).toContain('[+]leaderElection ok');
    expect(readyz.body).toContain('[+]replicaset-controller ok');
    expect(readyz.body).toContain('readyz check passed');
    expect((await get('/metrics')).status).toBe(403);
    expect((await get('/metrics', 'Bearer not-a-token')).status).toBe(401);
    const metrics = await get('/metrics', `Bearer ${token}`);
    expect(metrics.status).toBe(200);
    for (const name of [
      'workqueue_depth{name="replicaset"}',
      'workqueue_adds_total{name="deployment"}',
      'workqueue_queue_duration_seconds_bucket',
      'workqueue_work_duration_seconds_bucket',
      'workqueue_retries_total',
      'workqueue_unfinished_work_seconds',
      'workqueue_longest_running_processor_seconds',
      'leader_election_master_status{name="kube-controller-manager"} 1',
      'rest_client_requests_total{code="201",method="POST"',
      'process_cpu_seconds_total',
    ]) {
      expect(metrics.body, name).toContain(name);
    }
    const configz = JSON.parse((await get('/configz', `Bearer ${token}`)).body);
    expect(
      configz['kubecontrollermanager.config.k8s.io'].Generic.LeaderElection.LeaseDuration,
    ).toBe('15s');
  });

  it('stops on SIGTERM and exits 0', async () => {
    const lease = async () =>
      JSON.parse(
        await k.ok(['-n', 'kube-system', 'get', 'lease', 'kube-controller-manager', '-o', 'json']),
      );
    expect((await lease()).spec.holderIdentity).not.toBe('');
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
