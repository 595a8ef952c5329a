// Ports of indexed_job_utils_test.go: TestCalculateSucceededIndexes,
// TestIsIndexFailed, TestCalculateFailedIndexes,
// TestGetPodsWithDelayedDeletionPerIndex, TestGetNewIndexFailureCountValue,
// TestIntervalsHaveIndex, TestFirstPendingIndexes,
// TestAppendDuplicatedIndexPodsForRemoval, TestPodGenerateNameWithIndex and
// TestGetIndexFailureCount, plus the status form of the intervals and the
// template changes an Indexed Job's pods get.
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { filterActivePods } from '@kcm-ts/controller';
import { describe, expect, it } from 'vitest';
import {
  OrderedIntervals,
  getCompletionIndex,
  jobTrackingFinalizer,
  parseIndexesFromString,
} from '../src/index.js';
import {
  addCompletionIndexEnvVariables,
  calculateFailedIndexes,
  calculateSucceededIndexes,
  firstPendingIndexes,
  getIndexFailureCount,
  getNewIndexFailureCounts,
  isIndexFailed,
  podGenerateNameWithIndex,
  addCompletionIndexAnnotation,
  addCompletionIndexLabel,
  addIndexFailureCountAnnotation,
  appendDuplicatedIndexPodsForRemoval,
  getPodsWithDelayedDeletionPerIndex,
} from '../src/indexed-job-utils.js';
import {
  buildPod,
  hollowPodsWithIndexPhase,
  mut,
  newJob,
  toIndexPhases,
  type IndexPhase,
} from './helpers.js';

const iv = (...pairs: [number, number][]) => pairs.map(([first, last]) => ({ first, last }));
const intervals = (...pairs: [number, number][]) => new OrderedIntervals(iv(...pairs));
const specJob = (
  completions: number,
  backoffLimitPerIndex?: number,
  extra: Partial<Job['spec']> = {},
): Job => ({
  spec: {
    completions,
    ...(backoffLimitPerIndex !== undefined && { backoffLimitPerIndex }),
    ...extra,
    template: {},
  },
});
const failedAt = (uid: string, index: string, count: string) =>
  buildPod().uid(uid).indexFailureCount(count).phase('Failed').index(index);

describe('TestCalculateSucceededIndexes', () => {
  const cases: Record<
    string,
    {
      prev?: string;
      pods?: IndexPhase[];
      completions: number;
      wantStatus?: [number, number][];
      want: [number, number][];
    }
  > = {
    'one index': { pods: [['1', 'Succeeded']], completions: 2, want: [[1, 1]] },
    'two separate': {
      pods: [
        ['2', 'Failed'],
        ['5', 'Succeeded'],
        ['5', 'Succeeded'],
        ['10', 'Failed'],
        ['10', 'Succeeded'],
      ],
      completions: 11,
      want: [
        [5, 5],
        [10, 10],
      ],
    },
    'two intervals': {
      pods: [
        ['0', 'Running'],
        ['1', 'Pending'],
        ['2', 'Succeeded'],
        ['3', 'Succeeded'],
        ['5', 'Succeeded'],
        ['6', 'Succeeded'],
        ['7', 'Succeeded'],
      ],
      completions: 8,
      want: [
        [2, 3],
        [5, 7],
      ],
    },
    'one index and one interval': {
      pods: [
        ['0', 'Succeeded'],
        ['1', 'Failed'],
        ['2', 'Succeeded'],
        ['3', 'Succeeded'],
        ['4', 'Succeeded'],
        ['5', 'Succeeded'],
        ['-', 'Succeeded'],
        ['-2', 'Succeeded'],
      ],
      completions: 6,
      want: [
        [0, 0],
        [2, 5],
      ],
    },
    'out of range': {
      pods: [
        ['0', 'Succeeded'],
        ['1', 'Succeeded'],
        ['2', 'Succeeded'],
        ['3', 'Failed'],
        ['4', 'Succeeded'],
        ['5', 'Succeeded'],
        ['-', 'Succeeded'],
        ['-2', 'Succeeded'],
      ],
      completions: 5,
      want: [
        [0, 2],
        [4, 4],
      ],
    },
    'prev interval out of range': {
      prev: '0-5,8-10',
      completions: 8,
      wantStatus: [[0, 5]],
      want: [[0, 5]],
    },
    'prev interval partially out of range': {
      prev: '0-5,8-10',
      completions: 10,
      wantStatus: [
        [0, 5],
        [8, 9],
      ],
      want: [
        [0, 5],
        [8, 9],
      ],
    },
    'prev and new separate': {
      prev: '0,4,5,10-12',
      pods: [
        ['2', 'Succeeded'],
        ['7', 'Succeeded'],
        ['8', 'Succeeded'],
      ],
      completions: 13,
      wantStatus: [
        [0, 0],
        [4, 5],
        [10, 12],
      ],
      want: [
        [0, 0],
        [2, 2],
        [4, 5],
        [7, 8],
        [10, 12],
      ],
    },
    'prev between new': {
      prev: '3,4,6',
      pods: [
        ['2', 'Succeeded'],
        ['7', 'Succeeded'],
        ['8', 'Succeeded'],
      ],
      completions: 9,
      wantStatus: [
        [3, 4],
        [6, 6],
      ],
      want: [
        [2, 4],
        [6, 8],
      ],
    },
    'new between prev': {
      prev: '2,7,8',
      pods: [
        ['3', 'Succeeded'],
        ['4', 'Succeeded'],
        ['6', 'Succeeded'],
      ],
      completions: 9,
      wantStatus: [
        [2, 2],
        [7, 8],
      ],
      want: [
        [2, 4],
        [6, 8],
      ],
    },
    'new within prev': {
      prev: '2-7',
      pods: [
        ['0', 'Succeeded'],
        ['3', 'Succeeded'],
        ['5', 'Succeeded'],
        ['9', 'Succeeded'],
      ],
      completions: 10,
      wantStatus: [[2, 7]],
      want: [
        [0, 0],
        [2, 7],
        [9, 9],
      ],
    },
    'corrupted interval': {
      prev: '0,1-foo,bar',
      pods: [['3', 'Succeeded']],
      completions: 4,
      wantStatus: [[0, 0]],
      want: [
        [0, 0],
        [3, 3],
      ],
    },
  };

  it.each(Object.entries(cases))('%s', (_name, tc) => {
    const job: Job = {
      spec: { completions: tc.completions, template: {} },
      status: { completedIndexes: tc.prev ?? '' },
    };
    const pods = hollowPodsWithIndexPhase(tc.pods ?? []);
    for (const p of pods) p.metadata!.finalizers = [jobTrackingFinalizer];
    const [prev, current] = calculateSucceededIndexes(job, pods);
    expect(prev.intervals).toEqual(iv(...(tc.wantStatus ?? [])));
    expect(current.intervals).toEqual(iv(...tc.want));
  });

  it('skips succeeded pods without the tracking finalizer: they are counted already', () => {
    const job: Job = { spec: { completions: 3, template: {} }, status: { completedIndexes: '0' } };
    const [, current] = calculateSucceededIndexes(
      job,
      hollowPodsWithIndexPhase([['2', 'Succeeded']]),
    );
    expect(current.toString()).toBe('0');
  });
});

describe('TestIsIndexFailed', () => {
  const cases: Record<string, [Job, Pod]> = {
    'failed pod exceeding backoffLimitPerIndex, when backoffLimitPerIndex=0': [
      specJob(2, 0),
      failedAt('a', '0', '0').trackingFinalizer().pod,
    ],
    'failed pod exceeding backoffLimitPerIndex, when backoffLimitPerIndex=1': [
      specJob(2, 1),
      failedAt('a', '1', '1').trackingFinalizer().pod,
    ],
    'matching FailIndex pod failure policy': [
      specJob(2, 1, {
        podFailurePolicy: {
          rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [3] } }],
        },
      }),
      buildPod()
        .indexFailureCount('0')
        .status({
          phase: 'Failed',
          containerStatuses: [{ state: { terminated: { exitCode: 3 } } } as never],
        })
        .index('0')
        .trackingFinalizer().pod,
    ],
  };
  it.each(Object.entries(cases))('%s', (_name, [job, pod]) => {
    expect(isIndexFailed(job, pod)).toBe(true);
  });

  it('a failure below the limit does not fail the index', () => {
    expect(isIndexFailed(specJob(2, 2), failedAt('a', '0', '1').pod)).toBe(false);
    expect(
      isIndexFailed(specJob(2, 2), buildPod().indexFailureCount('5').phase('Running').pod),
    ).toBe(false);
  });
});

describe('TestCalculateFailedIndexes', () => {
  const cases: Record<string, [Job, Pod[], [number, number][]]> = {
    'one new index failed': [
      specJob(2, 1),
      [
        failedAt('a', '0', '0').trackingFinalizer().pod,
        failedAt('b', '1', '1').trackingFinalizer().pod,
      ],
      [[1, 1]],
    ],
    'pod without finalizer is ignored': [specJob(2, 0), [failedAt('a', '0', '0').pod], []],
    'pod outside completions is ignored': [specJob(2, 0), [failedAt('a', '3', '0').pod], []],
    'extend the failed indexes': [
      { ...specJob(2, 0), status: { failedIndexes: '0' } },
      [failedAt('a', '1', '0').trackingFinalizer().pod],
      [[0, 1]],
    ],
    'prev failed indexes empty': [
      { ...specJob(2, 0), status: { failedIndexes: '' } },
      [failedAt('a', '1', '0').trackingFinalizer().pod],
      [[1, 1]],
    ],
    'prev failed indexes outside the completions': [
      { ...specJob(2, 0), status: { failedIndexes: '9' } },
      [failedAt('a', '1', '0').trackingFinalizer().pod],
      [[1, 1]],
    ],
  };
  it.each(Object.entries(cases))('%s', (_name, [job, pods, want]) => {
    expect(calculateFailedIndexes(job, pods).intervals).toEqual(iv(...want));
  });
});

describe('TestGetPodsWithDelayedDeletionPerIndex', () => {
  const now = Date.UTC(2026, 0, 1);
  const cases: Record<string, { job: Job; pods: Pod[]; rm?: string[]; want: string[] }> = {
    'failed pods are kept corresponding to non-failed indexes are kept': {
      job: specJob(3, 1),
      pods: [
        failedAt('a', '0', '0').trackingFinalizer().pod,
        failedAt('b', '1', '1').trackingFinalizer().pod,
        failedAt('c', '2', '0').trackingFinalizer().pod,
      ],
      want: ['a', 'c'],
    },
    "failed pod without finalizer; the pod's deletion is not delayed as it already started": {
      job: specJob(2, 0),
      pods: [failedAt('a', '0', '0').pod],
      want: [],
    },
    "failed pod with expected finalizer removal; the pod's deletion is not delayed as it already started":
      {
        job: specJob(2, 0),
        pods: [failedAt('a', '0', '0').trackingFinalizer().pod],
        rm: ['a'],
        want: [],
      },
    "failed pod with index outside of completions; the pod's deletion is not delayed": {
      job: specJob(2, 0),
      pods: [failedAt('a', '4', '0').trackingFinalizer().pod],
      want: [],
    },
    "failed pod for active index; the pod's deletion is not delayed as it is already replaced": {
      job: specJob(2, 1),
      pods: [
        failedAt('a1', '0', '0').trackingFinalizer().pod,
        buildPod().uid('a2').indexFailureCount('1').phase('Running').index('0').trackingFinalizer()
          .pod,
      ],
      want: [],
    },
    "failed pod for succeeded index; the pod's deletion is not delayed as it is already replaced": {
      job: specJob(2, 1),
      pods: [
        failedAt('a1', '0', '0').trackingFinalizer().pod,
        buildPod()
          .uid('a2')
          .indexFailureCount('1')
          .phase('Succeeded')
          .index('0')
          .trackingFinalizer().pod,
      ],
      want: [],
    },
    'multiple failed pods for index with different failure count; only the pod with highest failure count is kept':
      {
        job: specJob(2, 4),
        pods: [
          failedAt('a1', '0', '0').trackingFinalizer().pod,
          failedAt('a3', '0', '2').trackingFinalizer().pod,
          failedAt('a2', '0', '1').trackingFinalizer().pod,
        ],
        want: ['a3'],
      },
    'multiple failed pods for index with different finish times; only the last failed pod is kept':
      {
        job: specJob(2, 4),
        pods: [
          failedAt('a1', '0', '1')
            .customDeletionTimestamp(now - 1000)
            .trackingFinalizer().pod,
          failedAt('a3', '0', '1').customDeletionTimestamp(now).trackingFinalizer().pod,
          failedAt('a2', '0', '1')
            .customDeletionTimestamp(now - 2000)
            .trackingFinalizer().pod,
        ],
        want: ['a3'],
      },
  };

  it.each(Object.entries(cases))('%s', (_name, tc) => {
    const [, succeededIndexes] = calculateSucceededIndexes(tc.job, tc.pods);
    const got = getPodsWithDelayedDeletionPerIndex({
      job: tc.job,
      pods: tc.pods,
      activePods: filterActivePods(tc.pods),
      succeededIndexes,
      failedIndexes: calculateFailedIndexes(tc.job, tc.pods),
      expectedRmFinalizers: new Set(tc.rm ?? []),
    });
    expect([...got.values()].map((p) => p.metadata!.uid).sort()).toEqual(tc.want);
  });
});

describe('TestGetNewIndexFailureCountValue', () => {
  const ignoreDisruption: Job = specJob(1, undefined, {
    podFailurePolicy: {
      rules: [
        { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      ],
    },
  });
  const cases: Record<string, [Job, Pod | undefined, number, number]> = {
    'first pod created': [{}, undefined, 0, 0],
    'failed pod being replaced with 0 index failure count': [
      {},
      failedAt('a', '0', '0').trackingFinalizer().pod,
      1,
      0,
    ],
    'failed pod being replaced with >0 index failure count': [
      {},
      failedAt('a', '0', '3').trackingFinalizer().pod,
      4,
      0,
    ],
    'failed pod being replaced, matching the ignore rule': [
      ignoreDisruption,
      buildPod()
        .uid('a')
        .indexFailureCount('3')
        .status({ phase: 'Failed', conditions: [{ type: 'DisruptionTarget', status: 'True' }] })
        .index('3')
        .trackingFinalizer().pod,
      3,
      1,
    ],
  };
  it.each(Object.entries(cases))('%s', (_name, [job, pod, failures, ignored]) => {
    expect(getNewIndexFailureCounts(job, pod)).toEqual([failures, ignored]);
  });

  it('writes the counts on the new pod as annotations, the ignored one only when non-zero', () => {
    const template: PodTemplateSpec = {};
    addIndexFailureCountAnnotation(template, {}, failedAt('a', '0', '2').pod);
    expect(template.metadata?.annotations).toEqual({
      'batch.kubernetes.io/job-index-failure-count': '3',
    });
    const ignoredTemplate: PodTemplateSpec = {};
    addIndexFailureCountAnnotation(
      ignoredTemplate,
      ignoreDisruption,
      buildPod().status({
        phase: 'Failed',
        conditions: [{ type: 'DisruptionTarget', status: 'True' }],
      }).pod,
    );
    expect(ignoredTemplate.metadata?.annotations).toEqual({
      'batch.kubernetes.io/job-index-failure-count': '0',
      'batch.kubernetes.io/job-index-ignored-failure-count': '1',
    });
  });
});

describe('TestIntervalsHaveIndex', () => {
  const two = intervals([2, 4], [6, 8]);
  const cases: Record<string, [OrderedIntervals, number, boolean]> = {
    empty: [intervals(), 4, false],
    'before all': [intervals([2, 4], [5, 7]), 1, false],
    'after all': [two, 9, false],
    'in between': [two, 5, false],
    'in first': [two, 2, true],
    'in second': [two, 8, true],
  };
  it.each(Object.entries(cases))('%s', (_name, [set, ix, want]) => {
    expect(set.has(ix)).toBe(want);
  });
});

describe('TestFirstPendingIndexes', () => {
  const cases: Record<
    string,
    {
      cnt: number;
      completions: number;
      active?: IndexPhase[];
      succeeded?: [number, number][];
      failed?: [number, number][];
      want: number[];
    }
  > = {
    'cnt greater than completions': { cnt: 5, completions: 3, want: [0, 1, 2] },
    'cnt less than completions': { cnt: 2, completions: 5, want: [0, 1] },
    'first pods active': {
      active: [
        ['0', 'Running'],
        ['1', 'Pending'],
      ],
      cnt: 3,
      completions: 10,
      want: [2, 3, 4],
    },
    'last pods active or succeeded': {
      active: [['6', 'Pending']],
      succeeded: [[4, 5]],
      cnt: 6,
      completions: 6,
      want: [0, 1, 2, 3],
    },
    mixed: {
      active: [
        ['3', 'Pending'],
        ['5', 'Running'],
        ['8', 'Pending'],
        ['-', 'Running'],
        ['-3', 'Running'],
      ],
      succeeded: [
        [2, 4],
        [9, 9],
      ],
      cnt: 5,
      completions: 20,
      want: [0, 1, 6, 7, 10],
    },
    'with failed indexes': {
      active: [
        ['3', 'Pending'],
        ['9', 'Pending'],
      ],
      succeeded: [
        [1, 1],
        [5, 5],
        [9, 9],
      ],
      failed: [
        [2, 2],
        [6, 7],
      ],
      cnt: 5,
      completions: 20,
      want: [0, 4, 8, 10, 11],
    },
  };
  it.each(Object.entries(cases))('%s', (_name, tc) => {
    const job = newJob(1, 1, 1, 'Indexed');
    job.spec!.podReplacementPolicy = 'TerminatingOrFailed';
    const got = firstPendingIndexes(
      {
        job,
        pods: [],
        activePods: hollowPodsWithIndexPhase(tc.active ?? []),
        succeededIndexes: intervals(...(tc.succeeded ?? [])),
        failedIndexes: tc.failed ? intervals(...tc.failed) : undefined,
      },
      tc.cnt,
      tc.completions,
    );
    expect(got).toEqual(tc.want);
  });

  it('with podReplacementPolicy Failed, skips the indexes of pods still terminating', () => {
    const job = newJob(1, 1, 1, 'Indexed');
    job.spec!.podReplacementPolicy = 'Failed';
    const terminating = hollowPodsWithIndexPhase([['1', 'Running']]);
    terminating[0]!.metadata!.finalizers = [];
    mut(terminating[0]!.metadata!).deletionTimestamp = '2026-01-01T00:00:00Z';
    const got = firstPendingIndexes(
      {
        job,
        pods: terminating,
        activePods: [],
        succeededIndexes: intervals(),
        failedIndexes: undefined,
      },
      3,
      5,
    );
    expect(got).toEqual([0, 2, 3]);
  });
});

describe('TestAppendDuplicatedIndexPodsForRemoval', () => {
  const cases: Record<
    string,
    { pods: IndexPhase[]; wantRm: IndexPhase[]; wantLeft: IndexPhase[] }
  > = {
    'all unique': {
      pods: [
        ['-', 'Pending'],
        ['2', 'Pending'],
        ['5', 'Running'],
        ['6', 'Running'],
      ],
      wantRm: [
        ['-', 'Pending'],
        ['6', 'Running'],
      ],
      wantLeft: [
        ['2', 'Pending'],
        ['5', 'Running'],
      ],
    },
    'all with index': {
      pods: [
        ['5', 'Pending'],
        ['0', 'Running'],
        ['3', 'Pending'],
        ['0', 'Running'],
        ['3', 'Running'],
        ['0', 'Pending'],
        ['6', 'Running'],
        ['6', 'Pending'],
      ],
      wantRm: [
        ['0', 'Pending'],
        ['0', 'Running'],
        ['3', 'Pending'],
        ['6', 'Running'],
        ['6', 'Pending'],
      ],
      wantLeft: [
        ['0', 'Running'],
        ['3', 'Running'],
        ['5', 'Pending'],
      ],
    },
    mixed: {
      pods: [
        ['-', 'Pending'],
        ['invalid', 'Running'],
        ['-2', 'Running'],
        ['0', 'Pending'],
        ['1', 'Pending'],
        ['1', 'Pending'],
        ['1', 'Running'],
      ],
      wantRm: [
        ['-', 'Pending'],
        ['invalid', 'Running'],
        ['-2', 'Running'],
        ['1', 'Pending'],
        ['1', 'Pending'],
      ],
      wantLeft: [
        ['0', 'Pending'],
        ['1', 'Running'],
      ],
    },
  };
  it.each(Object.entries(cases))('%s', (_name, tc) => {
    const [rm, left] = appendDuplicatedIndexPodsForRemoval(
      [],
      [],
      hollowPodsWithIndexPhase(tc.pods),
      6,
    );
    expect(toIndexPhases(rm)).toEqual(tc.wantRm);
    expect(toIndexPhases(left)).toEqual(tc.wantLeft);
  });
});

describe('TestPodGenerateNameWithIndex', () => {
  it.each([
    ['short job name', 'indexed-job', 'indexed-job-1-'],
    [
      'job name exceeds MaxGeneneratedNameLength',
      'hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooo',
      'hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhh-1-',
    ],
    [
      'job name with index suffix exceeds MaxGeneratedNameLength',
      'hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhoo',
      'hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhh-1-',
    ],
  ])('%s', (_name, jobName, want) => {
    expect(podGenerateNameWithIndex(jobName, 1)).toBe(want);
  });
});

describe('TestGetIndexFailureCount', () => {
  it.each([
    ['no annotation', undefined, 0],
    ['valid value', '2', 2],
    ['valid maxint32 value', String(2 ** 31 - 1), 2 ** 31 - 1],
    ['too large value', String(2 ** 31), 0],
    ['negative value', '-1', 0],
    ['invalid int value', 'xyz', 0],
  ])('%s', (_name, value, want) => {
    const pod = value === undefined ? ({} as Pod) : buildPod().indexFailureCount(value).pod;
    expect(getIndexFailureCount(pod)).toBe(want);
  });
});

describe('the status form of index sets', () => {
  it.each([
    ['', []],
    ['0', [[0, 0]]],
    ['0,1', [[0, 1]]],
    ['0-2', [[0, 2]]],
    [
      '0-3,5',
      [
        [0, 3],
        [5, 5],
      ],
    ],
    [
      '1,3-5,7,8',
      [
        [1, 1],
        [3, 5],
        [7, 8],
      ],
    ],
  ] as [string, [number, number][]][])('%j round-trips', (text, pairs) => {
    expect(intervals(...pairs).toString()).toBe(text);
    expect(parseIndexesFromString(text, 100).intervals).toEqual(iv(...pairs));
  });

  it('joins adjacent single indexes when parsing and merging', () => {
    expect(parseIndexesFromString('1,2,3,5', 10).toString()).toBe('1-3,5');
    expect(intervals([0, 1]).withOrderedIndexes([2, 4]).toString()).toBe('0-2,4');
    expect(
      intervals([0, 0], [4, 4])
        .merge(intervals([1, 3]))
        .toString(),
    ).toBe('0-4');
    expect(intervals([0, 3], [5, 5]).total()).toBe(5);
  });

  it('reads a completion index only from a well-formed annotation', () => {
    const key = 'batch.kubernetes.io/job-completion-index';
    expect(getCompletionIndex({ [key]: '4' })).toBe(4);
    expect(getCompletionIndex({ [key]: '-1' })).toBe(-1);
    expect(getCompletionIndex({ [key]: 'x' })).toBe(-1);
    expect(getCompletionIndex(undefined)).toBe(-1);
  });
});

describe("an Indexed Job's pod template", () => {
  it('gets the index as annotation and label, and JOB_COMPLETION_INDEX in every container once', () => {
    const template: PodTemplateSpec = {
      spec: {
        initContainers: [{ name: 'init' }],
        containers: [
          { name: 'a', env: [{ name: 'X', value: '1' }] },
          { name: 'b', env: [{ name: 'JOB_COMPLETION_INDEX', value: 'mine' }] },
        ],
      },
    };
    addCompletionIndexEnvVariables(template);
    addCompletionIndexEnvVariables(template);
    addCompletionIndexAnnotation(template, 3);
    addCompletionIndexLabel(template, 3);
    const fromLabel = {
      name: 'JOB_COMPLETION_INDEX',
      valueFrom: {
        fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']" },
      },
    };
    expect(template.spec!.initContainers![0]!.env).toEqual([fromLabel]);
    expect(template.spec!.containers[0]!.env).toEqual([{ name: 'X', value: '1' }, fromLabel]);
    expect(template.spec!.containers[1]!.env).toEqual([
      { name: 'JOB_COMPLETION_INDEX', value: 'mine' },
    ]);
    expect(template.metadata?.annotations).toEqual({
      'batch.kubernetes.io/job-completion-index': '3',
    });
    expect(template.metadata?.labels).toEqual({ 'batch.kubernetes.io/job-completion-index': '3' });
  });
});
