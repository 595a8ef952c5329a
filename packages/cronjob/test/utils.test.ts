// Ports of pkg/controller/cronjob/utils_test.go (TestGetJobFromTemplate2,
// TestNextScheduleTime, TestByJobStartTime, TestMostRecentScheduleTime,
// TestNextScheduleTimeDuration), with cases of our own for time zones,
// formatSchedule and the small helpers.
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { FakeRecorder, parseStandard } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  byJobStartTime,
  cronJobScheduledTimestampAnnotation,
  deleteFromActiveList,
  formatRFC1123Z,
  formatRFC3339In,
  formatSchedule,
  getJobFromTemplate2,
  getRef,
  getTimeHashInMinutes,
  inActiveList,
  inActiveListByName,
  mostRecentScheduleTime,
  nextScheduleDelta,
  nextScheduleTime,
  nextScheduleTimeDuration,
  type MissedSchedules,
} from '../src/utils.js';
import {
  HOUR,
  MINUTE,
  SECOND,
  afterTopOfTheHour,
  cronJob,
  topOfTheHour,
  wire,
  mut,
} from './helpers.js';

describe('getJobFromTemplate2 (TestGetJobFromTemplate2)', () => {
  const base = (): CronJob => {
    const cj = cronJob();
    cj.spec!.jobTemplate = {
      metadata: { creationTimestamp: wire(topOfTheHour), labels: { a: 'b' } },
      spec: {
        activeDeadlineSeconds: 1,
        manualSelector: false,
        template: {
          metadata: { labels: { foo: 'bar' } },
          spec: { containers: [{ name: 'c', image: 'foo/bar' }] },
        },
      },
    };
    return cj;
  };
  const cases: {
    name: string;
    timeZone?: string;
    annotations: Record<string, string>;
    expectedTimestamp: string;
    expectedAnnotations: number;
  }[] = [
    {
      name: 'UTC timezone and one annotation',
      timeZone: 'UTC',
      annotations: { x: 'y' },
      expectedTimestamp: '2016-05-19T10:00:00Z',
      expectedAnnotations: 2,
    },
    {
      name: 'nil timezone and one annotation',
      annotations: { x: 'y' },
      expectedTimestamp: '2016-05-19T10:00:00Z',
      expectedAnnotations: 2,
    },
    {
      name: 'correct timezone and multiple annotation',
      timeZone: 'Europe/Rome',
      annotations: { x: 'y', z: 'x' },
      expectedTimestamp: '2016-05-19T12:00:00+02:00',
      expectedAnnotations: 3,
    },
    {
      name: 'a zone half an hour off the hour',
      timeZone: 'Asia/Kolkata',
      annotations: {},
      expectedTimestamp: '2016-05-19T15:30:00+05:30',
      expectedAnnotations: 1,
    },
    {
      name: 'a zone west of UTC',
      timeZone: 'America/New_York',
      annotations: {},
      expectedTimestamp: '2016-05-19T06:00:00-04:00',
      expectedAnnotations: 1,
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const cj = base();
      cj.spec!.jobTemplate.metadata!.annotations = tc.annotations;
      if (tc.timeZone !== undefined) cj.spec!.timeZone = tc.timeZone;
      const job = getJobFromTemplate2(cj, topOfTheHour);
      expect(job.metadata?.name).toBe('mycronjob-24394200');
      expect(job.metadata?.name?.startsWith('mycronjob-')).toBe(true);
      expect(Object.keys(job.metadata?.labels ?? {})).toHaveLength(1);
      expect(Object.keys(job.metadata?.annotations ?? {})).toHaveLength(tc.expectedAnnotations);
      expect(job.metadata?.annotations?.[cronJobScheduledTimestampAnnotation]).toBe(
        tc.expectedTimestamp,
      );
    });
  }

  it('owns the Job through a controller reference and copies the spec', () => {
    const cj = base();
    const job = getJobFromTemplate2(cj, topOfTheHour);
    expect(job.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        name: 'mycronjob',
        uid: '1a2b3c',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(job.metadata?.creationTimestamp).toBe('2016-05-19T10:00:00Z');
    expect(job.spec).toEqual(cj.spec!.jobTemplate.spec);
    job.spec!.template.metadata!.labels!.foo = 'changed';
    expect(cj.spec!.jobTemplate.spec!.template.metadata!.labels!.foo).toBe('bar');
  });

  it('refuses a time zone nobody knows', () => {
    const cj = base();
    cj.spec!.timeZone = 'Mars/Olympus_Mons';
    expect(() => getJobFromTemplate2(cj, topOfTheHour)).toThrow(
      'unknown time zone Mars/Olympus_Mons',
    );
  });
});

describe('nextScheduleTime (TestNextScheduleTime)', () => {
  // Hourly on the hour; T1 and T2 are two of its times.
  const sched = parseStandard('0 * * * ?');
  const T1 = topOfTheHour;
  const T2 = afterTopOfTheHour(HOUR);
  const make = (): CronJob => {
    const cj = cronJob();
    cj.metadata!.namespace = 'default';
    cj.spec!.schedule = '0 * * * ?';
    cj.spec!.jobTemplate = {};
    return cj;
  };

  it('case 1: no known start times, and none needed yet', () => {
    const cj = make();
    mut(cj.metadata!).creationTimestamp = wire(T1 - 10 * MINUTE);
    expect(nextScheduleTime(cj, T1 - 7 * MINUTE, sched)).toBeUndefined();
  });

  it('case 2: no known start times, and one needed', () => {
    const cj = make();
    mut(cj.metadata!).creationTimestamp = wire(T1 - 10 * MINUTE);
    expect(nextScheduleTime(cj, T1 + 2 * SECOND, sched)).toBe(T1);
  });

  it('case 3: known lastScheduleTime, no start needed', () => {
    const cj = make();
    mut(cj.metadata!).creationTimestamp = wire(T1 - 10 * MINUTE);
    cj.status = { lastScheduleTime: wire(T1) };
    expect(nextScheduleTime(cj, T1 + 2 * MINUTE, sched)).toBeUndefined();
  });

  it('case 4: known lastScheduleTime, a start needed', () => {
    const cj = make();
    mut(cj.metadata!).creationTimestamp = wire(T1 - 10 * MINUTE);
    cj.status = { lastScheduleTime: wire(T1) };
    expect(nextScheduleTime(cj, T2 + 5 * MINUTE, sched)).toBe(T2);
  });

  it('case 5: known lastScheduleTime, two starts needed', () => {
    const cj = make();
    mut(cj.metadata!).creationTimestamp = wire(T1 - 2 * HOUR);
    cj.status = { lastScheduleTime: wire(T1 - HOUR) };
    expect(nextScheduleTime(cj, T2 + 5 * MINUTE, sched)).toBe(T2);
  });

  it('case 6: now is way ahead of the last start time, and there is no deadline', () => {
    const cj = make();
    mut(cj.metadata!).creationTimestamp = wire(T1 - 2 * HOUR);
    cj.status = { lastScheduleTime: wire(T1 - HOUR) };
    const recorder = new FakeRecorder();
    const now = T2 + 10 * 24 * HOUR;
    expect(nextScheduleTime(cj, now, sched, recorder)).toBe(now);
    // 241 hours missed: more than 100.
    expect(recorder.events).toEqual([
      'Warning TooManyMissedTimes too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
    ]);
  });

  it('case 7: now is way ahead of the last start time, but there is a short deadline', () => {
    const cj = make();
    mut(cj.metadata!).creationTimestamp = wire(T1 - 2 * HOUR);
    cj.status = { lastScheduleTime: wire(T1 - HOUR) };
    cj.spec!.startingDeadlineSeconds = 2 * 60 * 60;
    const recorder = new FakeRecorder();
    const now = T2 + 10 * 24 * HOUR;
    expect(nextScheduleTime(cj, now, sched, recorder)).toBe(now);
    // Only the two hours of the deadline count: no warning.
    expect(recorder.events).toEqual([]);
  });

  it('case 8: the error of mostRecentScheduleTime comes through', () => {
    const cj = make();
    mut(cj.metadata!).creationTimestamp = wire(T1 + 10 * SECOND);
    expect(() =>
      nextScheduleTime(cj, afterTopOfTheHour(HOUR), parseStandard('59 23 31 2 *')),
    ).toThrow('time difference between two schedules is less than 1 second');
  });
});

describe('byJobStartTime (TestByJobStartTime)', () => {
  const now = wire(Date.UTC(2018, 0, 1, 2, 3, 4));
  const later = wire(Date.UTC(2019, 0, 1, 2, 3, 4));
  const job = (name: string, startTime?: string): Job => ({
    metadata: { name },
    status: startTime === undefined ? {} : { startTime },
  });
  const aNil = job('a');
  const bNil = job('b');
  const aSet = job('a', now);
  const bSet = job('b', now);
  const aSetLater = job('a', later);
  const cases: { name: string; input: Job[]; expected: Job[] }[] = [
    { name: 'both have nil start times', input: [bNil, aNil], expected: [aNil, bNil] },
    { name: 'only the first has a nil start time', input: [aNil, bSet], expected: [bSet, aNil] },
    { name: 'only the second has a nil start time', input: [aSet, bNil], expected: [aSet, bNil] },
    { name: 'both have non-nil, equal start time', input: [bSet, aSet], expected: [aSet, bSet] },
    {
      name: 'both have non-nil, different start time',
      input: [aSetLater, bSet],
      expected: [bSet, aSetLater],
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      expect([...tc.input].sort(byJobStartTime)).toEqual(tc.expected);
    });
  }
});

describe('mostRecentScheduleTime (TestMostRecentScheduleTime)', () => {
  const cases: {
    name: string;
    cj: CronJob;
    includeSDS?: boolean;
    now: number;
    expectedEarliestTime?: number;
    expectedRecentTime: number | undefined;
    expectedTooManyMissed?: MissedSchedules;
    wantErr?: boolean;
  }[] = [
    {
      name: 'now before next schedule',
      cj: { metadata: { creationTimestamp: wire(topOfTheHour) }, spec: sp('0 * * * *') },
      now: topOfTheHour + 30 * SECOND,
      expectedRecentTime: undefined,
      expectedEarliestTime: topOfTheHour,
    },
    {
      name: 'now just after next schedule',
      cj: { metadata: { creationTimestamp: wire(topOfTheHour) }, spec: sp('0 * * * *') },
      now: topOfTheHour + 61 * MINUTE,
      expectedRecentTime: afterTopOfTheHour(60 * MINUTE),
      expectedEarliestTime: topOfTheHour,
    },
    {
      name: 'missed 5 schedules',
      cj: {
        metadata: { creationTimestamp: wire(afterTopOfTheHour(10 * SECOND)) },
        spec: sp('0 * * * *'),
      },
      now: afterTopOfTheHour(301 * MINUTE),
      expectedRecentTime: afterTopOfTheHour(300 * MINUTE),
      expectedEarliestTime: afterTopOfTheHour(10 * SECOND),
      expectedTooManyMissed: 'few',
    },
    {
      name: 'complex schedule',
      cj: {
        metadata: { creationTimestamp: wire(topOfTheHour) },
        spec: sp('30 6-16/4 * * 1-5'),
        status: { lastScheduleTime: wire(afterTopOfTheHour(30 * MINUTE)) },
      },
      now: afterTopOfTheHour(24 * HOUR + 31 * MINUTE),
      expectedRecentTime: afterTopOfTheHour(24 * HOUR + 30 * MINUTE),
      expectedEarliestTime: afterTopOfTheHour(30 * MINUTE),
      expectedTooManyMissed: 'few',
    },
    {
      name: 'another complex schedule',
      cj: {
        metadata: { creationTimestamp: wire(topOfTheHour) },
        spec: sp('30 10,11,12 * * 1-5'),
        status: { lastScheduleTime: wire(afterTopOfTheHour(30 * MINUTE)) },
      },
      now: afterTopOfTheHour(30 * HOUR + 30 * MINUTE),
      expectedRecentTime: undefined,
      expectedEarliestTime: afterTopOfTheHour(30 * MINUTE),
      expectedTooManyMissed: 'few',
    },
    {
      name: 'complex schedule with longer diff between executions',
      cj: {
        metadata: { creationTimestamp: wire(topOfTheHour) },
        spec: sp('30 6-16/4 * * 1-5'),
        status: { lastScheduleTime: wire(afterTopOfTheHour(30 * MINUTE)) },
      },
      now: afterTopOfTheHour(96 * HOUR + 31 * MINUTE),
      expectedRecentTime: afterTopOfTheHour(96 * HOUR + 30 * MINUTE),
      expectedEarliestTime: afterTopOfTheHour(30 * MINUTE),
      expectedTooManyMissed: 'few',
    },
    {
      name: 'complex schedule with shorter diff between executions',
      cj: { metadata: { creationTimestamp: wire(topOfTheHour) }, spec: sp('30 6-16/4 * * 1-5') },
      now: afterTopOfTheHour(24 * HOUR + 31 * MINUTE),
      expectedRecentTime: afterTopOfTheHour(24 * HOUR + 30 * MINUTE),
      expectedEarliestTime: topOfTheHour,
      expectedTooManyMissed: 'few',
    },
    {
      name: '@every schedule',
      cj: {
        metadata: { creationTimestamp: wire(afterTopOfTheHour(-59 * MINUTE)) },
        spec: { ...sp('@every 1h'), startingDeadlineSeconds: 10 },
        status: { lastScheduleTime: wire(afterTopOfTheHour(MINUTE)) },
      },
      now: afterTopOfTheHour(7 * 24 * HOUR),
      expectedRecentTime: afterTopOfTheHour(6 * 24 * HOUR + 23 * HOUR + MINUTE),
      expectedEarliestTime: afterTopOfTheHour(MINUTE),
      expectedTooManyMissed: 'many',
    },
    {
      name: 'rogue cronjob',
      cj: {
        metadata: { creationTimestamp: wire(afterTopOfTheHour(10 * SECOND)) },
        spec: sp('59 23 31 2 *'),
      },
      now: afterTopOfTheHour(HOUR),
      expectedRecentTime: undefined,
      wantErr: true,
    },
    {
      name: 'earliestTime being CreationTimestamp and LastScheduleTime',
      cj: {
        metadata: { creationTimestamp: wire(topOfTheHour) },
        spec: sp('0 * * * *'),
        status: { lastScheduleTime: wire(topOfTheHour) },
      },
      now: afterTopOfTheHour(30 * SECOND),
      expectedEarliestTime: topOfTheHour,
      expectedRecentTime: undefined,
    },
    {
      name: 'earliestTime being LastScheduleTime',
      cj: {
        metadata: { creationTimestamp: wire(topOfTheHour) },
        spec: sp('*/5 * * * *'),
        status: { lastScheduleTime: wire(afterTopOfTheHour(30 * MINUTE)) },
      },
      now: afterTopOfTheHour(31 * MINUTE),
      expectedEarliestTime: afterTopOfTheHour(30 * MINUTE),
      expectedRecentTime: undefined,
    },
    {
      name: 'earliestTime being LastScheduleTime (within StartingDeadlineSeconds)',
      cj: {
        metadata: { creationTimestamp: wire(topOfTheHour) },
        spec: { ...sp('*/5 * * * *'), startingDeadlineSeconds: 60 },
        status: { lastScheduleTime: wire(afterTopOfTheHour(30 * MINUTE)) },
      },
      now: afterTopOfTheHour(31 * MINUTE),
      expectedEarliestTime: afterTopOfTheHour(30 * MINUTE),
      expectedRecentTime: undefined,
    },
    {
      name: 'earliestTime being LastScheduleTime (outside StartingDeadlineSeconds)',
      cj: {
        metadata: { creationTimestamp: wire(topOfTheHour) },
        spec: { ...sp('*/5 * * * *'), startingDeadlineSeconds: 60 },
        status: { lastScheduleTime: wire(afterTopOfTheHour(30 * MINUTE)) },
      },
      includeSDS: true,
      now: afterTopOfTheHour(32 * MINUTE),
      expectedEarliestTime: afterTopOfTheHour(31 * MINUTE),
      expectedRecentTime: undefined,
    },
    // Time zones, ours: the zone comes with the schedule, as formatSchedule
    // puts it there.
    {
      name: 'a schedule in a zone half an hour off UTC',
      cj: {
        metadata: { creationTimestamp: wire(Date.parse('2016-05-19T03:00:00Z')) },
        spec: { ...sp('30 9 * * *'), timeZone: 'Asia/Kolkata' },
      },
      now: Date.parse('2016-05-19T04:00:30Z'),
      // 09:30 in Kolkata is 04:00 UTC.
      expectedRecentTime: Date.parse('2016-05-19T04:00:00Z'),
      expectedEarliestTime: Date.parse('2016-05-19T03:00:00Z'),
    },
    {
      name: 'a zone west of UTC, three days missed',
      cj: {
        metadata: { creationTimestamp: wire(Date.parse('2016-05-16T00:00:00Z')) },
        spec: { ...sp('0 9 * * *'), timeZone: 'America/New_York' },
      },
      now: Date.parse('2016-05-19T14:00:00Z'),
      // 09:00 EDT is 13:00 UTC; the 16th, 17th, 18th and 19th were due.
      expectedRecentTime: Date.parse('2016-05-19T13:00:00Z'),
      expectedEarliestTime: Date.parse('2016-05-16T00:00:00Z'),
      expectedTooManyMissed: 'few',
    },
    {
      name: 'a time the clocks skip (New York springs forward) is not run that day',
      cj: {
        metadata: { creationTimestamp: wire(Date.parse('2016-03-11T00:00:00Z')) },
        spec: { ...sp('30 2 * * *'), timeZone: 'America/New_York' },
        // 02:30 EST on the 12th.
        status: { lastScheduleTime: wire(Date.parse('2016-03-12T07:30:00Z')) },
      },
      now: Date.parse('2016-03-14T07:00:00Z'),
      // The 13th has no 02:30; the 14th's is 02:30 EDT, 06:30 UTC.
      expectedRecentTime: Date.parse('2016-03-14T06:30:00Z'),
      expectedEarliestTime: Date.parse('2016-03-12T07:30:00Z'),
    },
    {
      name: 'a TZ prefix in the schedule itself',
      cj: {
        metadata: { creationTimestamp: wire(Date.parse('2016-05-19T00:00:00Z')) },
        spec: sp('CRON_TZ=Asia/Tokyo 0 12 * * *'),
      },
      now: Date.parse('2016-05-19T03:30:00Z'),
      // Noon in Tokyo is 03:00 UTC.
      expectedRecentTime: Date.parse('2016-05-19T03:00:00Z'),
      expectedEarliestTime: Date.parse('2016-05-19T00:00:00Z'),
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const sched = parseStandard(formatSchedule(tc.cj));
      if (tc.wantErr) {
        expect(() =>
          mostRecentScheduleTime(tc.cj, tc.now, sched, tc.includeSDS ?? false),
        ).toThrow();
        return;
      }
      const got = mostRecentScheduleTime(tc.cj, tc.now, sched, tc.includeSDS ?? false);
      expect(got.earliestTime).toBe(tc.expectedEarliestTime);
      expect(got.mostRecentTime).toBe(tc.expectedRecentTime);
      expect(got.missedSchedules).toBe(tc.expectedTooManyMissed ?? 'none');
    });
  }
});

function sp(schedule: string): NonNullable<CronJob['spec']> {
  return { schedule, jobTemplate: {} };
}

describe('nextScheduleTimeDuration (TestNextScheduleTimeDuration)', () => {
  const cases: { name: string; cj: CronJob; now: number; expectedDuration: number }[] = [
    {
      name: 'complex schedule skipping weekend',
      cj: {
        metadata: { creationTimestamp: wire(topOfTheHour) },
        spec: sp('30 6-16/4 * * 1-5'),
        status: { lastScheduleTime: wire(afterTopOfTheHour(30 * MINUTE)) },
      },
      now: afterTopOfTheHour(24 * HOUR + 31 * MINUTE),
      expectedDuration: 3 * HOUR + 59 * MINUTE + nextScheduleDelta,
    },
    {
      name: 'another complex schedule skipping weekend',
      cj: {
        metadata: { creationTimestamp: wire(topOfTheHour) },
        spec: sp('30 10,11,12 * * 1-5'),
        status: { lastScheduleTime: wire(afterTopOfTheHour(30 * MINUTE)) },
      },
      now: afterTopOfTheHour(30 * HOUR + 30 * MINUTE),
      expectedDuration: 66 * HOUR + nextScheduleDelta,
    },
    {
      name: 'once a week cronjob, missed two runs',
      cj: {
        metadata: { creationTimestamp: wire(topOfTheHour) },
        spec: sp('0 12 * * 4'),
        status: { lastScheduleTime: wire(afterTopOfTheHour(2 * HOUR)) },
      },
      now: afterTopOfTheHour(19 * 24 * HOUR + HOUR + 30 * MINUTE),
      expectedDuration: 48 * HOUR + 30 * MINUTE + nextScheduleDelta,
    },
    {
      name: 'no previous run of a cronjob',
      cj: { metadata: { creationTimestamp: wire(topOfTheHour) }, spec: sp('0 12 * * 5') },
      now: afterTopOfTheHour(6 * HOUR),
      expectedDuration: 20 * HOUR + nextScheduleDelta,
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const got = nextScheduleTimeDuration(tc.cj, tc.now, parseStandard(tc.cj.spec!.schedule));
      expect(got).toBeGreaterThanOrEqual(0);
      expect(got).toBe(tc.expectedDuration);
    });
  }

  it('aims for the next time after now when the schedule is broken', () => {
    const cj: CronJob = { metadata: { creationTimestamp: wire(topOfTheHour) }, spec: sp('') };
    // Feb 31st never comes: no time at all.
    expect(nextScheduleTimeDuration(cj, topOfTheHour, parseStandard('59 23 31 2 *'))).toBe(
      undefined,
    );
  });
});

describe('formatSchedule', () => {
  it('puts the time zone in front of the schedule', () => {
    const cj = cronJob();
    cj.spec!.schedule = '0 9 * * *';
    cj.spec!.timeZone = 'Asia/Kolkata';
    expect(formatSchedule(cj)).toBe('TZ=Asia/Kolkata 0 9 * * *');
  });

  it('leaves the schedule alone when the zone is unknown, or not set', () => {
    const cj = cronJob();
    cj.spec!.timeZone = 'bad timezone';
    expect(formatSchedule(cj)).toBe('* * * * ?');
    delete cj.spec!.timeZone;
    expect(formatSchedule(cj)).toBe('* * * * ?');
  });

  it('uses a TZ of the schedule as it is, with a warning', () => {
    const cj = cronJob();
    cj.spec!.schedule = 'TZ=UTC 0 * * * *';
    cj.spec!.timeZone = 'America/New_York';
    const recorder = new FakeRecorder();
    expect(formatSchedule(cj, recorder)).toBe('TZ=UTC 0 * * * *');
    expect(recorder.events).toEqual([
      'Warning UnsupportedSchedule CRON_TZ or TZ used in schedule "TZ=UTC 0 * * * *" is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details',
    ]);
    // Without a recorder (updateCronJob), no event.
    expect(formatSchedule(cj)).toBe('TZ=UTC 0 * * * *');
  });
});

describe('the active list and time helpers', () => {
  const job = (name: string, uid: string): Job => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'ns', uid, resourceVersion: '7' },
  });

  it('finds Jobs by uid and by name, and removes them by uid', () => {
    const cj = cronJob();
    cj.status = { active: [getRef(job('a', 'u1')), getRef(job('b', 'u2'))] };
    expect(cj.status.active?.[0]).toEqual({
      kind: 'Job',
      namespace: 'ns',
      name: 'a',
      uid: 'u1',
      apiVersion: 'batch/v1',
      resourceVersion: '7',
    });
    expect(inActiveList(cj, 'u2')).toBe(true);
    expect(inActiveList(cj, 'u3')).toBe(false);
    expect(inActiveListByName(cj, job('b', 'other'))).toBe(true);
    expect(inActiveListByName(cj, { metadata: { name: 'b', namespace: 'elsewhere' } })).toBe(false);
    deleteFromActiveList(cj, 'u1');
    expect(cj.status.active?.map((r) => r.name)).toEqual(['b']);
    deleteFromActiveList(cj, 'u2');
    // Empty is left out, as Go's omitempty writes it.
    expect(cj.status).toEqual({});
    deleteFromActiveList(undefined, 'u2');
  });

  it('names a time by its minute, and prints it as Go does', () => {
    expect(getTimeHashInMinutes(topOfTheHour)).toBe(24394200);
    expect(getTimeHashInMinutes(topOfTheHour + 59_999)).toBe(24394200);
    expect(getTimeHashInMinutes(topOfTheHour + 60_000)).toBe(24394201);
    expect(formatRFC1123Z(topOfTheHour)).toBe('Thu, 19 May 2016 10:00:00 +0000');
    expect(formatRFC3339In(topOfTheHour + 999, 'UTC')).toBe('2016-05-19T10:00:00Z');
    // London in winter: offset zero, so Go prints Z too.
    expect(formatRFC3339In(Date.parse('2016-01-19T10:00:00Z'), 'Europe/London')).toBe(
      '2016-01-19T10:00:00Z',
    );
    expect(formatRFC3339In(topOfTheHour, 'Europe/London')).toBe('2016-05-19T11:00:00+01:00');
  });
});
