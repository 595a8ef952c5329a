// The chapter's kubectl session, end to end and in real time: the experiment
// (sandbox + ReplicaSet controller) runs in this process on a free port, and
// kubectl v1.32 does what the chapter tells the reader to do.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifest, startExperiment, type Experiment } from './experiment.js';
import { eventually, kubectlIn, table } from './kubectl.js';

let dir: string;
let experiment: Experiment | undefined;
let kubectl: ReturnType<typeof kubectlIn>;
const printed: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-ch5-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  experiment = await startExperiment({
    port: 0,
    kubeconfigOut: kubeconfig,
    podStartDelay: 300,
    podReadyDelay: 300,
    log: (line) => printed.push(line),
  });
  kubectl = kubectlIn(kubeconfig, dir);
}, 60_000);

afterAll(async () => {
  await experiment?.stop();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

/** DESIRED, CURRENT and READY of `kubectl get rs web`, as printed. */
const counts = async (): Promise<string> => {
  const [header, row] = table(await kubectl.ok('get', 'rs', 'web'));
  expect(header).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE']);
  return row!.slice(1, 4).join('/');
};
const until = (want: string) =>
  eventually(`kubectl get rs web shows ${want}`, async () =>
    (await counts()) === want ? want : undefined,
  );
/** The pods kubectl lists as Running and 1/1 ready. */
const readyPods = async (): Promise<string[]> =>
  table(await kubectl.ok('get', 'pods', '--no-headers'))
    .filter((r) => r[1] === '1/1' && r[2] === 'Running')
    .map((r) => r[0]!);

describe('chapter 5 with kubectl v1.32', () => {
  it(
    'apply, scale, delete a pod, read the events, scale to zero',
    { timeout: 240_000 },
    async () => {
      const watching = kubectl.watch('get', 'pods', '-w');
      try {
        expect(await kubectl.ok('apply', '-f', manifest)).toBe('replicaset.apps/web created\n');
        await until('3/3/3');
        expect(await readyPods()).toHaveLength(3);

        expect(await kubectl.ok('scale', 'rs', 'web', '--replicas=5')).toBe(
          'replicaset.apps/web scaled\n',
        );
        await until('5/5/5');
        const before = await readyPods();
        expect(before).toHaveLength(5);

        // kubectl waits until the pod is gone; its replacement was created as
        // soon as it started terminating.
        const [victim] = before;
        expect(await kubectl.ok('delete', 'pod', victim!)).toBe(`pod "${victim}" deleted\n`);
        const after = await eventually('a replacement is ready', async () => {
          const pods = await readyPods();
          return pods.length === 5 && !pods.includes(victim!) ? pods : undefined;
        });
        expect(after.filter((p) => !before.includes(p))).toHaveLength(1);
        await until('5/5/5');

        expect(await kubectl.ok('scale', 'rs', 'web', '--replicas=0')).toBe(
          'replicaset.apps/web scaled\n',
        );
        await until('0/0/0');
        await eventually('no pods left', async () => {
          const r = await kubectl.run('get', 'pods');
          return r.stderr.includes('No resources found in default namespace.') ? true : undefined;
        });

        // The controller's events, as kubectl shows them.
        const events = await eventually('the events are written', async () => {
          const rows = table(await kubectl.ok('get', 'events')).filter(
            (r) => r[3] === 'replicaset/web',
          );
          const deleted = rows.filter((r) => r[2] === 'SuccessfulDelete');
          return deleted.length === 5 ? rows : undefined;
        });
        const created = events.filter((r) => r[2] === 'SuccessfulCreate');
        expect(created).toHaveLength(6); // 3, then 2, then the replacement
        for (const r of events) {
          expect(r[1]).toBe('Normal');
          expect(r[4]).toMatch(/^(Created|Deleted) pod: web-[a-z0-9]{5}$/);
        }
        // The controller printed the same events as it recorded them.
        expect(
          printed.filter((l) =>
            l.startsWith('Normal SuccessfulCreate replicaset/web: Created pod: web-'),
          ),
        ).toHaveLength(6);
        expect(
          printed.filter((l) =>
            l.startsWith('Normal SuccessfulDelete replicaset/web: Deleted pod: web-'),
          ),
        ).toHaveLength(5);
        // No sync failed. Scaling down a ReplicaSet that no Deployment owns logs
        // an error, as kube-controller-manager does (getReplicaSetsWithSameController).
        const errors = printed.filter((l) => l.startsWith('error'));
        expect(errors.length).toBeGreaterThan(0);
        for (const e of errors)
          expect(e).toBe('error: ReplicaSet has no controller {"replicaSet":"default/web"}');
      } finally {
        await watching.stop();
      }
      // `kubectl get pods -w` saw the deleted pod terminate while its replacement started.
      const lines = watching.output().split('\n');
      const victimLines = lines.filter((l) =>
        l.startsWith(`${/^\S+/.exec(lines[1] ?? '')?.[0] ?? '?'} `),
      );
      expect(lines[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
      expect(victimLines.length).toBeGreaterThan(0);
      expect(lines.some((l) => /\sTerminating\s/.test(l))).toBe(true);
      expect(lines.some((l) => /\sContainerCreating\s/.test(l))).toBe(true);
    },
  );
});

describe('npm start', () => {
  const script = fileURLToPath(new URL('./experiment.ts', import.meta.url));

  /** Runs the experiment's command, checks its ready line and kubectl, stops it with `signal`. */
  async function startAndStop(signal: 'SIGINT' | 'SIGTERM'): Promise<void> {
    const kubeconfig = path.join(dir, `kubeconfig-${signal}`);
    const child = spawn(
      process.execPath,
      [
        '--conditions=@kcm-ts/source',
        '--import',
        'tsx',
        script,
        '--port',
        '0',
        '--kubeconfig-out',
        kubeconfig,
      ],
      { env: { ...process.env, INIT_CWD: dir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    const lines: string[] = [];
    const ready = new Promise<string>((resolve) =>
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        if (lines.length === 1) resolve(line);
      }),
    );
    try {
      const line = await Promise.race([
        ready,
        exited.then(() => Promise.reject(new Error(stderr))),
      ]);
      expect(line).toMatch(
        /^kcm-ts sandbox with the ReplicaSet controller ready at https:\/\/127\.0\.0\.1:\d+: kubectl --kubeconfig kubeconfig-SIG\w+ apply -f \S+\/tutorials\/05-replicaset\/replicaset\.yaml$/,
      );
      const r = await kubectlIn(kubeconfig, dir).run('get', 'rs');
      expect(r.stderr).toBe('No resources found in default namespace.\n');
    } finally {
      child.kill(signal);
    }
    expect(await exited).toBe(0);
    expect(lines).toEqual([lines[0], 'stopping']);
  }

  it(
    'prints one ready line, serves kubectl, and stops on SIGINT and on SIGTERM',
    { timeout: 120_000 },
    async () => {
      await Promise.all([startAndStop('SIGINT'), startAndStop('SIGTERM')]);
    },
  );
});
