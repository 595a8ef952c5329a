// batch/v1 Jobs as kube-apiserver stores them: the defaults, the generated
// selector and pod labels, kube's field errors on create, update and status,
// the pod template that may not change, orphaning as the batch/v1 default
// on delete, and the Table kubectl prints.
import { isInvalid } from '@kcm-ts/apimachinery';
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { describe, expect, it } from 'vitest';
import { toTable } from '../src/printers/index.js';
import { newRegistry } from './helpers.js';

const podSpec = (extra: object = {}) => ({
  restartPolicy: 'Never',
  containers: [{ name: 'pi', image: 'perl:5.34.0', command: ['perl', '-e', 'print 1'] }],
  ...extra,
});

const job = (name: string, spec: object = {}, podExtra: object = {}): KubeObject =>
  ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: { template: { spec: podSpec(podExtra) }, ...spec },
  }) as KubeObject;

function setup() {
  const { registry, clock } = newRegistry();
  const info = registry.resource('batch', 'jobs');
  const create = (o: KubeObject) => registry.create(info, 'default', o) as Job;
  const causes = (fn: () => unknown): string[] => {
    try {
      fn();
    } catch (err) {
      expect(isInvalid(err)).toBe(true);
      const details = (err as { details?: { causes?: { field?: string; message?: string }[] } })
        .details;
      return (details?.causes ?? []).map((c) => `${c.field ?? ''}: ${c.message ?? ''}`);
    }
    throw new Error('expected 422 Invalid');
  };
  return { registry, clock, info, create, causes };
}

describe('Jobs', () => {
  it('are defaulted, and get a selector on their uid and labels on their pods', () => {
    const { create } = setup();
    const out = create(job('pi'));
    const uid = out.metadata?.uid ?? '';
    expect(uid).not.toBe('');
    expect(out.spec).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      manualSelector: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
    });
    const generated = {
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': uid,
      'job-name': 'pi',
    };
    expect(out.spec?.template.metadata?.labels).toEqual(generated);
    // The Job's own labels default to its template's.
    expect(out.metadata?.labels).toEqual(generated);
    expect(out.metadata?.generation).toBe(1);
    expect(out.status).toEqual({});
    // The pod template is defaulted as a pod's is.
    expect(out.spec?.template.spec?.containers[0]).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePolicy: 'File',
    });
  });

  it('keep labels they were given, and default parallelism apart from completions', () => {
    const { create } = setup();
    const out = create({
      ...job('work', { parallelism: 3 }),
      metadata: { name: 'work', labels: { team: 'a' } },
    });
    expect(out.metadata?.labels).toEqual({ team: 'a' });
    // Only when both are unset is completions defaulted.
    expect(out.spec?.completions).toBeUndefined();
    expect(out.spec?.parallelism).toBe(3);
    const indexed = create(job('idx', { completionMode: 'Indexed', completions: 5 }));
    expect(indexed.spec?.parallelism).toBe(1);
    // With a podFailurePolicy the only replacement policy is Failed.
    const pfp = create(
      job('pfp', {
        podFailurePolicy: {
          rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [42] } }],
        },
      }),
    );
    expect(pfp.spec?.podReplacementPolicy).toBe('Failed');
  });

  it('are validated with kube-apiserver’s field errors', () => {
    const { create, causes } = setup();
    expect(causes(() => create(job('a', {}, { restartPolicy: undefined })))).toEqual([
      'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    ]);
    expect(causes(() => create(job('a', {}, { restartPolicy: 'Always' })))).toEqual([
      'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    ]);
    expect(
      causes(() =>
        create(
          job('b', {
            parallelism: -1,
            completions: -2,
            backoffLimit: -1,
            activeDeadlineSeconds: -5,
            ttlSecondsAfterFinished: -1,
            completionMode: 'Bad',
          }),
        ),
      ),
    ).toEqual([
      'spec.parallelism: Invalid value: -1: must be greater than or equal to 0',
      'spec.completions: Invalid value: -2: must be greater than or equal to 0',
      'spec.activeDeadlineSeconds: Invalid value: -5: must be greater than or equal to 0',
      'spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0',
      'spec.ttlSecondsAfterFinished: Invalid value: -1: must be greater than or equal to 0',
      'spec.completionMode: Unsupported value: "Bad": supported values: "NonIndexed", "Indexed"',
    ]);
    expect(causes(() => create(job('c', { maxFailedIndexes: 2 })))).toEqual([
      'spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified',
      'spec.maxFailedIndexes: Invalid value: 2: requires indexed completion mode',
    ]);
    // Indexed pods are named `<job>-<index>`: the longest must be a DNS label.
    expect(
      causes(() => create(job('x'.repeat(60), { completionMode: 'Indexed', completions: 1000 }))),
    ).toEqual([
      `metadata.name: Invalid value: "${'x'.repeat(60)}": will not able to create pod with invalid DNS label: ${'x'.repeat(60)}-999`,
    ]);
  });

  it('refuse a selector that was not generated, unless manualSelector is set', () => {
    const { create, causes } = setup();
    expect(causes(() => create(job('m', { manualSelector: true })))).toEqual([
      'spec.selector: Required value',
    ]);
    const errs = causes(() => create(job('s', { selector: { matchLabels: { app: 's' } } })));
    expect(errs).toHaveLength(2);
    expect(errs[0]).toMatch(/^spec\.selector: Invalid value: .*: `selector` not auto-generated$/);
    expect(errs[1]).toMatch(
      /^spec\.template\.metadata\.labels: Invalid value: .*: `selector` does not match template `labels`$/,
    );
    const manual = create({
      ...job('manual', { manualSelector: true, selector: { matchLabels: { app: 'pi' } } }),
      spec: {
        manualSelector: true,
        selector: { matchLabels: { app: 'pi' } },
        template: { metadata: { labels: { app: 'pi' } }, spec: podSpec() },
      },
    } as KubeObject);
    expect(manual.spec?.selector).toEqual({ matchLabels: { app: 'pi' } });
    expect(manual.spec?.template.metadata?.labels).toEqual({ app: 'pi' });
  });

  it('keep their pod template and completions, but may be suspended and resized', () => {
    const { registry, info, create, causes } = setup();
    create(job('pi'));
    const patch = (body: object) =>
      registry.patch(info, 'default', 'pi', { type: 'merge', body }).object as Job;
    const errs = causes(() =>
      patch({ spec: { template: { spec: { containers: [{ name: 'pi', image: 'perl:5.36' }] } } } }),
    );
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^spec\.template: Invalid value: .*: field is immutable$/);
    expect(causes(() => patch({ spec: { completions: 3 } }))).toEqual([
      'spec.completions: Invalid value: 3: field is immutable',
    ]);
    const suspended = patch({ spec: { suspend: true, parallelism: 4 } });
    expect(suspended.spec).toMatchObject({ suspend: true, parallelism: 4 });
    expect(suspended.metadata?.generation).toBe(2);
  });

  it('take status only through /status, checked against the conditions it already has', () => {
    const { registry, info, create, clock, causes } = setup();
    create(job('pi'));
    const now = new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    const status = (s: object, spec?: object) => {
      const current = registry.get(info, 'default', 'pi') as Job;
      const next = { ...current, spec: { ...current.spec, ...spec }, status: s };
      return registry.update(info, 'default', 'pi', next, {
        subresource: 'status',
      }).object as Job;
    };
    // A spec change sent to /status is dropped; the status is kept.
    const running = status(
      { active: 1, startTime: now, ready: 0, terminating: 0 },
      { parallelism: 9 },
    );
    expect(running.status).toMatchObject({ active: 1, startTime: now });
    expect(running.spec?.parallelism).toBe(1);
    expect(causes(() => status({ active: -1, startTime: now }))).toEqual([
      'status.active: Invalid value: -1: must be greater than or equal to 0',
    ]);
    const done = status({
      active: 0,
      startTime: now,
      succeeded: 1,
      completionTime: now,
      conditions: [
        { type: 'SuccessCriteriaMet', status: 'True' },
        { type: 'Complete', status: 'True' },
      ],
    });
    expect(done.status?.succeeded).toBe(1);
    // A finished Job stays finished, and its counters do not go back.
    expect(
      causes(() => status({ startTime: now, succeeded: 0, completionTime: now, conditions: [] })),
    ).toEqual([
      `status.completionTime: Invalid value: "${now}": cannot set completionTime when there is no Complete=True condition`,
      'status.conditions: Invalid value: cannot disable the terminal Complete=True condition',
      'status.succeeded: Invalid value: 0: cannot decrease the succeeded counter',
      'status.conditions: Invalid value: cannot disable the SuccessCriteriaMet=True condition',
    ]);
  });

  it('keep their start time while running, and take a new one on resume', () => {
    const { registry, info, create, clock, causes } = setup();
    create(job('pi'));
    const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
    const t0 = clock.now();
    const write = (status: object, spec: object = {}) => {
      const current = registry.get(info, 'default', 'pi') as Job;
      if (Object.keys(spec).length > 0) {
        registry.patch(info, 'default', 'pi', { type: 'merge', body: { spec } });
      }
      const fresh = registry.get(info, 'default', 'pi') as Job;
      return registry.update(
        info,
        'default',
        'pi',
        { ...fresh, status: { ...current.status, ...status } },
        { subresource: 'status' },
      ).object as Job;
    };
    write({ startTime: at(t0), active: 1 });
    expect(causes(() => write({ startTime: at(t0 + 5_000) }))).toEqual([
      `status.startTime: Invalid value: "${at(t0 + 5_000)}": field is immutable for unsuspended job once set`,
    ]);
    const suspended = { type: 'Suspended', status: 'True', reason: 'JobSuspended' };
    write({ active: 0, conditions: [suspended] }, { suspend: true });
    const resumed = write(
      {
        startTime: at(t0 + 60_000),
        conditions: [{ ...suspended, status: 'False', reason: 'JobResumed' }],
      },
      { suspend: false },
    );
    expect(resumed.status?.startTime).toBe(at(t0 + 60_000));
  });

  it('orphan their pods on a batch/v1 delete that names no propagation policy', () => {
    const { registry, info, create } = setup();
    create(job('pi'));
    const deleted = registry.delete(info, 'default', 'pi') as unknown as Job;
    expect(deleted.metadata?.finalizers).toEqual(['orphan']);
    expect(deleted.metadata?.deletionTimestamp).toBeDefined();
    create(job('bg'));
    expect(() => registry.get(info, 'default', 'bg')).not.toThrow();
    registry.delete(info, 'default', 'bg', { propagationPolicy: 'Background' });
    expect(() => registry.get(info, 'default', 'bg')).toThrow(/not found/);
  });

  it('are selectable by status.successful', () => {
    const { registry, info, create } = setup();
    create(job('one'));
    create(job('two'));
    const list = registry.list(info, 'default', { fieldSelector: 'status.successful=0' });
    expect(list.items.map((j) => j.metadata?.name)).toEqual(['one', 'two']);
  });
});

describe('CronJobs', () => {
  const cronJob = (name: string, spec: object = {}): KubeObject =>
    ({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name },
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: { spec: { template: { spec: podSpec({ restartPolicy: 'OnFailure' }) } } },
        ...spec,
      },
    }) as KubeObject;

  it('are defaulted, and validated with kube-apiserver’s field errors', () => {
    const { registry, causes } = setup();
    const info = registry.resource('batch', 'cronjobs');
    const create = (o: KubeObject) => registry.create(info, 'default', o) as CronJob;
    expect(create(cronJob('hello')).spec).toMatchObject({
      concurrencyPolicy: 'Allow',
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    });
    const refused = (spec: object, name = 'x') => causes(() => create(cronJob(name, spec)));
    expect(refused({ schedule: '61 * * * *' })).toEqual([
      'spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61',
    ]);
    expect(refused({ schedule: 'CRON_TZ=UTC 0 * * *' })).toEqual([
      'spec.schedule: Invalid value: "CRON_TZ=UTC 0 * * *": expected exactly 5 fields, found 4: [0 * * *]',
      'spec.schedule: Invalid value: "CRON_TZ=UTC 0 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ]);
    expect(refused({ schedule: '@hourly', timeZone: 'Mars/Olympus_Mons' })).toEqual([
      'spec.timeZone: Invalid value: "Mars/Olympus_Mons": unknown time zone Mars/Olympus_Mons',
    ]);
    expect(refused({ schedule: '@hourly', timeZone: 'Local' })).toEqual([
      'spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
    ]);
    expect(refused({ concurrencyPolicy: 'Sometimes', startingDeadlineSeconds: -1 })).toEqual([
      'spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0',
      'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
    ]);
    // Job names are `<cronjob>-<minutes>`: 11 characters more than the CronJob's.
    expect(refused({}, 'n'.repeat(53))).toEqual([
      `metadata.name: Invalid value: "${'n'.repeat(53)}": must be no more than 52 characters`,
    ]);
    expect(
      create(cronJob('in-rome', { schedule: '0 9 * * 1-5', timeZone: 'Europe/Rome' })).spec,
    ).toMatchObject({ timeZone: 'Europe/Rome' });
  });
});

describe('the Tables of Jobs and CronJobs', () => {
  const now = Date.parse('2026-01-02T03:04:05Z');
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const cells = (resource: string, o: object) => {
    const t = toTable(resource, 'batch', [o], { now, resourceVersion: '1' });
    return Object.fromEntries(t.columnDefinitions.map((c, i) => [c.name, t.rows[0]!.cells[i]]));
  };

  it('print a Job’s status, completions and duration as kubectl get jobs does', () => {
    const base = job('pi') as Job;
    base.metadata = { name: 'pi', creationTimestamp: iso(now - 125_000) };
    base.spec = { ...base.spec!, completions: 3, selector: { matchLabels: { a: 'b' } } };
    expect(
      cells('jobs', { ...base, status: { startTime: iso(now - 65_000), succeeded: 1 } }),
    ).toEqual({
      Name: 'pi',
      Status: 'Running',
      Completions: '1/3',
      Duration: '65s',
      Age: '2m5s',
      Containers: 'pi',
      Images: 'perl:5.34.0',
      Selector: 'a=b',
    });
    const done = {
      ...base,
      status: {
        startTime: iso(now - 65_000),
        completionTime: iso(now - 30_000),
        succeeded: 3,
        conditions: [{ type: 'Complete', status: 'True' }],
      },
    };
    expect(cells('jobs', done)).toMatchObject({
      Status: 'Complete',
      Completions: '3/3',
      Duration: '35s',
    });
    const workQueue = { ...base, spec: { ...base.spec, completions: undefined, parallelism: 4 } };
    expect(cells('jobs', workQueue)).toMatchObject({ Completions: '0/1 of 4', Duration: '' });
    expect(
      cells('jobs', { ...base, status: { conditions: [{ type: 'Suspended', status: 'True' }] } }),
    ).toMatchObject({ Status: 'Suspended' });
  });

  it('print a CronJob’s schedule, time zone and last schedule', () => {
    const cj: CronJob = {
      metadata: { name: 'hello', creationTimestamp: iso(now - 3_600_000) },
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: { spec: { template: { spec: podSpec() } } },
      },
      status: { lastScheduleTime: iso(now - 120_000), active: [{ name: 'hello-1' }] },
    };
    expect(cells('cronjobs', cj)).toEqual({
      Name: 'hello',
      Schedule: '*/5 * * * *',
      Timezone: '<none>',
      Suspend: '<unset>',
      Active: 1,
      'Last Schedule': '2m',
      Age: '60m',
      Containers: 'pi',
      Images: 'perl:5.34.0',
      Selector: '<none>',
    });
    expect(cells('cronjobs', { ...cj, spec: { ...cj.spec, suspend: true } })).toMatchObject({
      Suspend: 'True',
    });
  });
});
