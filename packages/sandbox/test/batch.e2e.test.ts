// kubectl v1.32 and batch/v1: `kubectl create job`, the Job's table, its
// field errors as kubectl prints them, an immutable field, a suspend,
// and a delete with background propagation.
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

beforeAll(async () => {
  sandbox = await startSandbox();
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-batch-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  await sandbox.writeKubeconfig(kubeconfig);
  ({ kubectl, ok } = kubectlRunner(kubeconfig, dir));
});

afterAll(async () => {
  await sandbox.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('kubectl and Jobs', () => {
  it('creates a Job with kubectl create job, defaulted and labelled by the server', async () => {
    expect(
      await ok([
        'create',
        'job',
        'pi',
        '--image=perl:5.34.0',
        '--',
        'perl',
        '-Mbignum=bpi',
        '-wle',
        'print bpi(2000)',
      ]),
    ).toBe('job.batch/pi created\n');
    const job = JSON.parse(await ok(['get', 'job', 'pi', '-o', 'json'])) as Json;
    const uid = job.metadata.uid as string;
    expect(job.spec).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
    });
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
    expect(job.spec.template.metadata.labels['batch.kubernetes.io/job-name']).toBe('pi');
  });

  it('prints kube’s table, wide too', async () => {
    expect(table(await ok(['get', 'jobs']))).toEqual([
      ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE'],
      ['pi', 'Running', '0/1', expect.stringMatching(/^\d+s$/)],
    ]);
    const wide = table(await ok(['get', 'job', 'pi', '-o', 'wide']));
    expect(wide[0]).toEqual([
      'NAME',
      'STATUS',
      'COMPLETIONS',
      'DURATION',
      'AGE',
      'CONTAINERS',
      'IMAGES',
      'SELECTOR',
    ]);
    expect(wide[1]?.slice(-3)).toEqual([
      'pi',
      'perl:5.34.0',
      expect.stringMatching(/^batch\.kubernetes\.io\/controller-uid=[0-9a-f-]{36}$/),
    ]);
  });

  it('says why a Job is refused, as kube-apiserver does', async () => {
    await writeFile(
      path.join(dir, 'bad.yaml'),
      `apiVersion: batch/v1
kind: Job
metadata:
  name: bad
spec:
  backoffLimit: -1
  template:
    spec:
      restartPolicy: Always
      containers:
        - name: c
          image: busybox:1.36
`,
    );
    const run = await kubectl(['apply', '-f', path.join(dir, 'bad.yaml')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The Job "bad" is invalid:');
    expect(run.stderr).toContain(
      'spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0',
    );
    expect(run.stderr).toContain(
      'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    );
    const patch = await kubectl([
      'patch',
      'job',
      'pi',
      '--type=merge',
      '-p',
      '{"spec":{"completions":4}}',
    ]);
    expect(patch.code).toBe(1);
    expect(patch.stderr).toContain('spec.completions: Invalid value: 4: field is immutable');
    // kubectl patch's default is a strategic merge patch, as kubectl apply sends.
    expect(await ok(['patch', 'job', 'pi', '-p', '{"spec":{"suspend":true}}'])).toBe(
      'job.batch/pi patched\n',
    );
    const manifest = (label: string) => `apiVersion: batch/v1
kind: Job
metadata:
  name: applied
  labels:
    team: ${label}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: busybox:1.36
          command: ['sh', '-c', 'echo hi']
`;
    await writeFile(path.join(dir, 'applied.yaml'), manifest('a'));
    expect(await ok(['apply', '-f', path.join(dir, 'applied.yaml')])).toBe(
      'job.batch/applied created\n',
    );
    await writeFile(path.join(dir, 'applied.yaml'), manifest('b'));
    expect(await ok(['apply', '-f', path.join(dir, 'applied.yaml')])).toBe(
      'job.batch/applied configured\n',
    );
    const applied = JSON.parse(await ok(['get', 'job', 'applied', '-o', 'json'])) as Json;
    expect(applied.metadata.labels).toEqual({ team: 'b' });
  });

  it('deletes a Job at once: kubectl asks for background propagation, not the orphaning default', async () => {
    // Orphaning would leave the Job behind with the `orphan` finalizer until
    // a garbage collector took it off; this sandbox runs none.
    expect(await ok(['delete', 'job', 'pi'])).toBe('job.batch "pi" deleted\n');
    const gone = await kubectl(['get', 'job', 'pi']);
    expect(gone.stderr.trim()).toBe('Error from server (NotFound): jobs.batch "pi" not found');
  });
});

describe('kubectl and CronJobs', () => {
  it('creates a CronJob, prints its table, and makes a Job from it with --from', async () => {
    expect(
      await ok([
        'create',
        'cronjob',
        'hello',
        '--image=busybox:1.36',
        '--schedule=*/1 * * * *',
        '--',
        'sh',
        '-c',
        'date; echo Hello from the sandbox',
      ]),
    ).toBe('cronjob.batch/hello created\n');
    expect(table(await ok(['get', 'cronjobs']))).toEqual([
      ['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE'],
      ['hello', '*/1 * * * *', '<none>', 'False', '0', '<none>', expect.stringMatching(/^\d+s$/)],
    ]);
    expect(await ok(['create', 'job', 'manual', '--from=cronjob/hello'])).toBe(
      'job.batch/manual created\n',
    );
    const job = JSON.parse(await ok(['get', 'job', 'manual', '-o', 'json'])) as Json;
    const cronJob = JSON.parse(await ok(['get', 'cronjob', 'hello', '-o', 'json'])) as Json;
    // kubectl marks the Job as made by hand and owned by the CronJob.
    expect(job.metadata.annotations).toEqual({ 'cronjob.kubernetes.io/instantiate': 'manual' });
    expect(job.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        name: 'hello',
        uid: cronJob.metadata.uid,
        controller: true,
      },
    ]);
    expect(job.spec.template.spec.containers[0].command).toEqual([
      'sh',
      '-c',
      'date; echo Hello from the sandbox',
    ]);
  });

  it('refuses a schedule robfig/cron cannot read', async () => {
    const run = await kubectl(['create', 'cronjob', 'bad', '--image=busybox', '--schedule=* * *']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]',
    );
  });
});
