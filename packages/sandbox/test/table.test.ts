import { isStatusError } from '@kcm-ts/apimachinery';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  humanDuration,
  parseIncludeObject,
  podStatus,
  shortHumanDuration,
  toTable,
  translateTimestampSince,
  wantsTable,
} from '../src/printers/index.js';
import type { Table } from '../src/printers/index.js';

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;
const year = 365 * day;

const now = Date.parse('2026-01-02T03:04:05Z');
/** An RFC 3339 timestamp `ms` before `now`, at second precision as the server stores it. */
const ago = (ms: number): string => new Date(now - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

const kubectlAccept =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

function table(resource: string, group: string, objects: object[], extra: object = {}): Table {
  return toTable(resource, group, objects, {
    now,
    resourceVersion: '42',
    ...extra,
  });
}

/** The cells of a one-row table, keyed by column name. */
function cellsOf(resource: string, group: string, obj: object): Record<string, unknown> {
  const t = table(resource, group, [obj]);
  expect(t.rows).toHaveLength(1);
  const cells = t.rows[0]!.cells;
  expect(cells).toHaveLength(t.columnDefinitions.length);
  return Object.fromEntries(t.columnDefinitions.map((c, i) => [c.name, cells[i]]));
}

/** `[name, type, priority]` of each column. */
function columnsOf(resource: string, group: string): [string, string, number][] {
  return table(resource, group, []).columnDefinitions.map((c) => [c.name, c.type, c.priority]);
}

describe('wantsTable', () => {
  it.each([
    [kubectlAccept, true],
    ['application/json;as=Table;v=v1;g=meta.k8s.io', true],
    ['Application/JSON; AS=Table; V=v1; G=meta.k8s.io', true],
    ['application/json; as="Table"; v="v1"; g="meta.k8s.io"', true],
    ['application/json ; as = Table ; v = v1 ; g = meta.k8s.io', true],
    ['*/*;as=Table;v=v1;g=meta.k8s.io', true],
    // A transformation the sandbox does not offer is skipped, not refused.
    ['application/json;as=Widget;v=v1;g=meta.k8s.io,' + kubectlAccept, true],
    ['application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json', false],
    ['application/json;as=Table;v=v1', false],
    // One it does offer wins when it comes first: metadata, or a v1beta1 Table.
    ['application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,' + kubectlAccept, false],
    ['application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json', true],
    // Preference: q first, then order.
    ['application/json;q=0.5,application/json;as=Table;v=v1;g=meta.k8s.io', true],
    ['application/json,application/json;as=Table;v=v1;g=meta.k8s.io', false],
    ['application/json', false],
    ['*/*', false],
    [
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
      false,
    ],
    ['', false],
    [undefined, false],
  ])('%s → %s', (accept, expected) => {
    expect(wantsTable(accept)).toBe(expected);
  });
});

describe('parseIncludeObject', () => {
  it('defaults to Metadata when absent or empty, as kube-apiserver does', () => {
    expect(parseIncludeObject(null)).toBe('Metadata');
    expect(parseIncludeObject('')).toBe('Metadata');
  });

  it.each(['None', 'Metadata', 'Object'] as const)('accepts %s', (value) => {
    expect(parseIncludeObject(value)).toBe(value);
  });

  it.each(['Everything', 'metadata', 'object '])(
    'rejects %j with a 400 naming the choices',
    (v) => {
      let caught: unknown;
      try {
        parseIncludeObject(v);
      } catch (err) {
        caught = err;
      }
      expect(isStatusError(caught)).toBe(true);
      if (!isStatusError(caught)) return;
      expect(caught.code).toBe(400);
      expect(caught.reason).toBe('BadRequest');
      expect(caught.message).toBe(
        `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`,
      );
    },
  );
});

describe('humanDuration (duration_test.go)', () => {
  it.each([
    // TestHumanDuration
    [second, '1s'],
    [70 * second, '70s'],
    [190 * second, '3m10s'],
    [70 * minute, '70m'],
    [47 * hour, '47h'],
    [49 * hour, '2d1h'],
    [(8 * 24 + 2) * hour, '8d'],
    [367 * day, '367d'],
    [(365 * 2 * 24 + 25) * hour, '2y1d'],
    [(365 * 8 * 24 + 2) * hour, '8y'],
    // TestHumanDurationBoundaries (nanosecond offsets become milliseconds)
    [-2 * second, '<invalid>'],
    [-2 * second + 1, '0s'],
    [0, '0s'],
    [second - 1, '0s'],
    [2 * minute - 1, '119s'],
    [2 * minute, '2m'],
    [2 * minute + second, '2m1s'],
    [10 * minute - 1, '9m59s'],
    [10 * minute, '10m'],
    [10 * minute + second, '10m'],
    [3 * hour - 1, '179m'],
    [3 * hour, '3h'],
    [3 * hour + minute, '3h1m'],
    [8 * hour - 1, '7h59m'],
    [8 * hour, '8h'],
    [8 * hour + 59 * minute, '8h'],
    [2 * day - 1, '47h'],
    [2 * day, '2d'],
    [2 * day + hour, '2d1h'],
    [8 * day - 1, '7d23h'],
    [8 * day, '8d'],
    [8 * day + 23 * hour, '8d'],
    [2 * year - 1, '729d'],
    [2 * year, '2y'],
    [2 * year + 23 * hour, '2y'],
    [2 * year + 23 * hour + 59 * minute, '2y'],
    [2 * year + day - 1, '2y'],
    [2 * year + day, '2y1d'],
    [3 * year, '3y'],
    [4 * year, '4y'],
    [5 * year, '5y'],
    [6 * year, '6y'],
    [7 * year, '7y'],
    [8 * year - 1, '7y364d'],
    [8 * year, '8y'],
    [8 * year + 364 * day, '8y'],
    [9 * year, '9y'],
  ])('%d ms → %s', (ms, expected) => {
    expect(humanDuration(ms)).toBe(expected);
  });
});

describe('shortHumanDuration (duration_test.go)', () => {
  it.each([
    [-2 * second, '<invalid>'],
    [-2 * second + 1, '0s'],
    [0, '0s'],
    [second - 1, '0s'],
    [second, '1s'],
    [2 * second - 1, '1s'],
    [minute - 1, '59s'],
    [minute, '1m'],
    [2 * minute - 1, '1m'],
    [hour - 1, '59m'],
    [hour, '1h'],
    [2 * hour - 1, '1h'],
    [day - 1, '23h'],
    [day, '1d'],
    [2 * day - 1, '1d'],
    [year - 1, '364d'],
    [year, '1y'],
    [2 * year - 1, '1y'],
    [2 * year, '2y'],
  ])('%d ms → %s', (ms, expected) => {
    expect(shortHumanDuration(ms)).toBe(expected);
  });
});

describe('translateTimestampSince', () => {
  it('is the human duration since the timestamp', () => {
    expect(translateTimestampSince(ago(190 * second), now)).toBe('3m10s');
    expect(translateTimestampSince('2026-01-02T04:04:05.5+01:00', now)).toBe('0s');
  });

  it('is <unknown> for an unset or zero timestamp', () => {
    expect(translateTimestampSince(undefined, now)).toBe('<unknown>');
    expect(translateTimestampSince(null, now)).toBe('<unknown>');
    expect(translateTimestampSince('0001-01-01T00:00:00Z', now)).toBe('<unknown>');
  });
});

describe('pods', () => {
  const running = { running: { startedAt: ago(minute) } };
  const pod = (spec: Partial<NonNullable<Pod['spec']>>, status: Pod['status'], meta = {}): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', creationTimestamp: ago(11 * second), ...meta },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
    status,
  });

  it('has the columns of kube-apiserver 1.32', () => {
    expect(columnsOf('pods', '')).toEqual([
      ['Name', 'string', 0],
      ['Ready', 'string', 0],
      ['Status', 'string', 0],
      ['Restarts', 'string', 0],
      ['Age', 'string', 0],
      ['IP', 'string', 1],
      ['Node', 'string', 1],
      ['Nominated Node', 'string', 1],
      ['Readiness Gates', 'string', 1],
    ]);
    const [name] = table('pods', '', []).columnDefinitions;
    expect(name).toMatchObject({ format: 'name', priority: 0 });
    expect(name?.description).toBe('Name of the object, unique within its namespace.');
  });

  it('prints a running pod with its wide cells', () => {
    const p = pod(
      { nodeName: 'node-1', readinessGates: [{ conditionType: 'example.com/gate' }] },
      {
        phase: 'Running',
        podIP: '10.0.0.7',
        podIPs: [{ ip: '10.0.0.7' }],
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'example.com/gate', status: 'True' },
        ],
        containerStatuses: [
          { name: 'c', image: 'nginx', imageID: '', ready: true, restartCount: 0, state: running },
        ],
      },
    );
    expect(cellsOf('pods', '', p)).toEqual({
      Name: 'p',
      Ready: '1/1',
      Status: 'Running',
      Restarts: '0',
      Age: '11s',
      IP: '10.0.0.7',
      Node: 'node-1',
      'Nominated Node': '<none>',
      'Readiness Gates': '1/1',
    });
  });

  it('fills unset wide cells with <none>', () => {
    const cells = cellsOf('pods', '', pod({}, { phase: 'Pending' }));
    expect([cells.IP, cells.Node, cells['Nominated Node'], cells['Readiness Gates']]).toEqual([
      '<none>',
      '<none>',
      '<none>',
      '<none>',
    ]);
  });

  const waiting = (reason: string): NonNullable<Pod['status']> => ({
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'c',
        image: 'nginx',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { waiting: { reason } },
      },
    ],
  });

  it.each<[string, Pod, string, string]>([
    ['Pending', pod({}, { phase: 'Pending' }), 'Pending', '0/1'],
    ['ContainerCreating', pod({}, waiting('ContainerCreating')), 'ContainerCreating', '0/1'],
    ['ErrImagePull', pod({}, waiting('ErrImagePull')), 'ErrImagePull', '0/1'],
    ['ImagePullBackOff', pod({}, waiting('ImagePullBackOff')), 'ImagePullBackOff', '0/1'],
    [
      'Completed',
      pod(
        {},
        {
          phase: 'Succeeded',
          containerStatuses: [
            {
              name: 'c',
              image: 'nginx',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 0, reason: 'Completed' } },
            },
          ],
        },
      ),
      'Completed',
      '0/1',
    ],
    [
      'Error',
      pod(
        {},
        {
          phase: 'Failed',
          containerStatuses: [
            {
              name: 'c',
              image: 'nginx',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 1, reason: 'Error' } },
            },
          ],
        },
      ),
      'Error',
      '0/1',
    ],
    [
      'ExitCode without a reason',
      pod(
        {},
        {
          phase: 'Failed',
          containerStatuses: [
            {
              name: 'c',
              image: 'nginx',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 137 } },
            },
          ],
        },
      ),
      'ExitCode:137',
      '0/1',
    ],
    [
      'Terminating',
      pod(
        {},
        {
          phase: 'Running',
          containerStatuses: [
            {
              name: 'c',
              image: 'nginx',
              imageID: '',
              ready: true,
              restartCount: 0,
              state: running,
            },
          ],
        },
        { deletionTimestamp: ago(0) },
      ),
      'Terminating',
      '1/1',
    ],
    [
      'a deleted Succeeded pod keeps its status',
      pod({}, { phase: 'Succeeded' }, { deletionTimestamp: ago(0) }),
      'Succeeded',
      '0/1',
    ],
    [
      'NodeLost',
      pod({}, { phase: 'Running', reason: 'NodeLost' }, { deletionTimestamp: ago(0) }),
      'Unknown',
      '0/1',
    ],
    ['Evicted (status.reason)', pod({}, { phase: 'Failed', reason: 'Evicted' }), 'Evicted', '0/1'],
    [
      'SchedulingGated',
      pod(
        {},
        {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }],
        },
      ),
      'SchedulingGated',
      '0/1',
    ],
    [
      'Init:0/1',
      pod(
        { initContainers: [{ name: 'init', image: 'busybox' }] },
        {
          phase: 'Pending',
          conditions: [{ type: 'Initialized', status: 'False' }],
          initContainerStatuses: [
            {
              name: 'init',
              image: 'busybox',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: running,
            },
          ],
          containerStatuses: [
            {
              name: 'c',
              image: 'nginx',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { waiting: { reason: 'PodInitializing' } },
            },
          ],
        },
      ),
      'Init:0/1',
      '0/1',
    ],
    [
      'Init:ErrImagePull',
      pod(
        { initContainers: [{ name: 'init', image: 'busybox' }] },
        {
          phase: 'Pending',
          initContainerStatuses: [
            {
              name: 'init',
              image: 'busybox',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { waiting: { reason: 'ErrImagePull' } },
            },
          ],
        },
      ),
      'Init:ErrImagePull',
      '0/1',
    ],
    [
      'Init:Error',
      pod(
        {
          initContainers: [
            { name: 'a', image: 'busybox' },
            { name: 'b', image: 'busybox' },
          ],
        },
        {
          phase: 'Pending',
          initContainerStatuses: [
            {
              name: 'a',
              image: 'busybox',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 0, reason: 'Completed' } },
            },
            {
              name: 'b',
              image: 'busybox',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 2, reason: 'Error' } },
            },
          ],
        },
      ),
      'Init:Error',
      '0/1',
    ],
    [
      'a started sidecar counts towards Ready and does not hold the pod in Init',
      pod(
        { initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always' }] },
        {
          phase: 'Running',
          conditions: [
            { type: 'Initialized', status: 'True' },
            { type: 'Ready', status: 'True' },
          ],
          initContainerStatuses: [
            {
              name: 'proxy',
              image: 'envoy',
              imageID: '',
              ready: true,
              started: true,
              restartCount: 0,
              state: running,
            },
          ],
          containerStatuses: [
            {
              name: 'c',
              image: 'nginx',
              imageID: '',
              ready: true,
              restartCount: 0,
              state: running,
            },
          ],
        },
      ),
      'Running',
      '2/2',
    ],
  ])('%s', (_, p, status, ready) => {
    const cells = cellsOf('pods', '', p);
    expect(cells.Status).toBe(status);
    expect(cells.Ready).toBe(ready);
  });

  it('shows CrashLoopBackOff with the restarts and how long ago the last one was', () => {
    const p = pod(
      {},
      {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'c',
            image: 'nginx',
            imageID: '',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: {
              terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(5 * minute) },
            },
          },
        ],
      },
    );
    expect(podStatus(p, now)).toEqual({
      ready: '0/1',
      status: 'CrashLoopBackOff',
      restarts: '3 (5m ago)',
    });
  });

  it('shows restarts without a suffix when no termination time is known', () => {
    const p = pod(
      {},
      {
        phase: 'Running',
        containerStatuses: [
          { name: 'c', image: 'nginx', imageID: '', ready: true, restartCount: 2, state: running },
        ],
      },
    );
    expect(podStatus(p, now).restarts).toBe('2');
  });

  it('turns Completed back into Running or NotReady while another container runs', () => {
    const statuses = [
      {
        name: 'a',
        image: 'x',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode: 0, reason: 'Completed' } },
      },
      { name: 'b', image: 'x', imageID: '', ready: true, restartCount: 0, state: running },
    ];
    const two = { containers: [{ name: 'a' }, { name: 'b' }] };
    const ready = pod(two, {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: statuses,
    });
    const notReady = pod(two, { phase: 'Running', containerStatuses: statuses });
    expect(podStatus(ready, now)).toMatchObject({ status: 'Running', ready: '1/2' });
    expect(podStatus(notReady, now)).toMatchObject({ status: 'NotReady', ready: '1/2' });
  });

  it('marks finished pods with a Completed row condition', () => {
    const ok = table('pods', '', [pod({}, { phase: 'Succeeded' })]).rows[0];
    const bad = table('pods', '', [pod({}, { phase: 'Failed' })]).rows[0];
    const live = table('pods', '', [pod({}, { phase: 'Running' })]).rows[0];
    expect(ok?.conditions).toEqual([
      {
        type: 'Completed',
        status: 'True',
        reason: 'Succeeded',
        message: 'The pod has completed successfully.',
      },
    ]);
    expect(bad?.conditions).toEqual([
      { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
    ]);
    expect(live).not.toHaveProperty('conditions');
  });
});

describe('workloads', () => {
  const template = {
    metadata: { labels: { app: 'web' } },
    spec: {
      containers: [
        { name: 'web', image: 'nginx:1.27' },
        { name: 'log', image: 'busybox:1.36' },
      ],
    },
  };

  it('prints a Deployment like `kubectl get deploy -o wide`', () => {
    expect(columnsOf('deployments', 'apps')).toEqual([
      ['Name', 'string', 0],
      ['Ready', 'string', 0],
      ['Up-to-date', 'string', 0],
      ['Available', 'string', 0],
      ['Age', 'string', 0],
      ['Containers', 'string', 1],
      ['Images', 'string', 1],
      ['Selector', 'string', 1],
    ]);
    const d = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', creationTimestamp: ago(11 * second) },
      spec: {
        replicas: 3,
        selector: {
          matchLabels: { app: 'web' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }],
        },
        template,
      },
      status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    expect(table('deployments', 'apps', [d]).rows[0]?.cells).toEqual([
      'web',
      '2/3',
      3,
      2,
      '11s',
      'web,log',
      'nginx:1.27,busybox:1.36',
      'app=web,tier in (a,b)',
    ]);
  });

  it('prints a new Deployment with zero counts and an empty selector as ""', () => {
    const d = { metadata: { name: 'x' }, spec: { replicas: 1, selector: {}, template } };
    expect(cellsOf('deployments', 'apps', d)).toMatchObject({
      Ready: '0/1',
      'Up-to-date': 0,
      Available: 0,
      Age: '<unknown>',
      Selector: '',
    });
  });

  it('prints a ReplicaSet like `kubectl get rs -o wide`', () => {
    expect(columnsOf('replicasets', 'apps')).toEqual([
      ['Name', 'string', 0],
      ['Desired', 'integer', 0],
      ['Current', 'integer', 0],
      ['Ready', 'integer', 0],
      ['Age', 'string', 0],
      ['Containers', 'string', 1],
      ['Images', 'string', 1],
      ['Selector', 'string', 1],
    ]);
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-5d4f', creationTimestamp: ago(3 * hour + 2 * minute) },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web', 'pod-template-hash': '5d4f' } },
        template,
      },
      status: { replicas: 2, readyReplicas: 1 },
    };
    expect(table('replicasets', 'apps', [rs]).rows[0]?.cells).toEqual([
      'web-5d4f',
      2,
      2,
      1,
      '3h2m',
      'web,log',
      'nginx:1.27,busybox:1.36',
      'app=web,pod-template-hash=5d4f',
    ]);
  });

  it('prints an empty ReplicaSet selector as <none> and a bad one as <error>', () => {
    const rs = (selector: object) => ({ metadata: { name: 'r' }, spec: { selector, template } });
    expect(cellsOf('replicasets', 'apps', rs({})).Selector).toBe('<none>');
    expect(
      cellsOf('replicasets', 'apps', rs({ matchExpressions: [{ key: 'a', operator: 'Bad' }] }))
        .Selector,
    ).toBe('<error>');
    expect(cellsOf('replicasets', 'apps', rs({})).Desired).toBe(0);
  });
});

describe('leases', () => {
  it('shows the holder, or an empty cell for a free lease', () => {
    expect(columnsOf('leases', 'coordination.k8s.io')).toEqual([
      ['Name', 'string', 0],
      ['Holder', 'string', 0],
      ['Age', 'string', 0],
    ]);
    const lease = (spec: object) => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'kcm', creationTimestamp: ago(49 * hour) },
      spec,
    });
    expect(
      table('leases', 'coordination.k8s.io', [lease({ holderIdentity: 'kcm-0_abc' })]).rows[0]
        ?.cells,
    ).toEqual(['kcm', 'kcm-0_abc', '2d1h']);
    expect(cellsOf('leases', 'coordination.k8s.io', lease({})).Holder).toBe('');
  });
});

describe('events', () => {
  const columns: [string, string, number][] = [
    ['Last Seen', 'string', 0],
    ['Type', 'string', 0],
    ['Reason', 'string', 0],
    ['Object', 'string', 0],
    ['Subobject', 'string', 1],
    ['Source', 'string', 1],
    ['Message', 'string', 0],
    ['First Seen', 'string', 1],
    ['Count', 'string', 1],
    ['Name', 'string', 1],
  ];

  it('prints a core Event with every column, the Name last', () => {
    expect(columnsOf('events', '')).toEqual(columns);
    expect(table('events', '', []).columnDefinitions.at(-1)?.format).toBe('name');
    const ev = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web.17f2', namespace: 'default' },
      involvedObject: { kind: 'Deployment', name: 'web', fieldPath: 'spec.template' },
      reason: 'ScalingReplicaSet',
      message: '  Scaled up replica set web-5d4f to 3\n',
      type: 'Normal',
      source: { component: 'deployment-controller' },
      firstTimestamp: ago(10 * minute),
      lastTimestamp: ago(30 * second),
      count: 4,
    };
    expect(table('events', '', [ev]).rows[0]?.cells).toEqual([
      '30s',
      'Normal',
      'ScalingReplicaSet',
      'deployment/web',
      'spec.template',
      'deployment-controller',
      'Scaled up replica set web-5d4f to 3',
      '10m',
      4,
      'web.17f2',
    ]);
  });

  it('falls back to eventTime, reporting fields and a count of 1', () => {
    const ev = {
      metadata: { name: 'e' },
      involvedObject: { kind: 'Node' },
      eventTime: '2026-01-02T03:03:05.000000Z',
      reportingComponent: 'kubelet',
      reportingInstance: 'node-1',
      reason: 'Starting',
      message: 'Starting kubelet.',
      type: 'Normal',
    };
    expect(cellsOf('events', '', ev)).toMatchObject({
      'Last Seen': '60s',
      'First Seen': '60s',
      Object: 'node',
      Source: 'kubelet, node-1',
      Count: 1,
    });
  });

  it('prints an events.k8s.io/v1 Event the same way, its series winning', () => {
    expect(columnsOf('events', 'events.k8s.io')).toEqual(columns);
    const ev = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'p.1' },
      eventTime: '2026-01-02T02:04:05.000000Z',
      series: { count: 7, lastObservedTime: '2026-01-02T03:02:05.000000Z' },
      regarding: { kind: 'Pod', name: 'p', fieldPath: 'spec.containers{c}' },
      note: 'Back-off restarting failed container',
      reason: 'BackOff',
      type: 'Warning',
      reportingController: 'kubelet',
      reportingInstance: 'node-1',
      action: 'Restarting',
    };
    expect(cellsOf('events', 'events.k8s.io', ev)).toEqual({
      'Last Seen': '2m',
      Type: 'Warning',
      Reason: 'BackOff',
      Object: 'pod/p',
      Subobject: 'spec.containers{c}',
      Source: 'kubelet, node-1',
      Message: 'Back-off restarting failed container',
      'First Seen': '60m',
      Count: 7,
      Name: 'p.1',
    });
  });
});

describe('the other core printers', () => {
  it('namespaces: Name, Status, Age', () => {
    expect(columnsOf('namespaces', '')).toEqual([
      ['Name', 'string', 0],
      ['Status', 'string', 0],
      ['Age', 'string', 0],
    ]);
    const ns = {
      metadata: { name: 'default', creationTimestamp: ago(8 * day) },
      status: { phase: 'Active' },
    };
    expect(table('namespaces', '', [ns]).rows[0]?.cells).toEqual(['default', 'Active', '8d']);
  });

  it('configmaps: Name, Data (data + binaryData keys), Age', () => {
    expect(columnsOf('configmaps', '')).toEqual([
      ['Name', 'string', 0],
      ['Data', 'string', 0],
      ['Age', 'string', 0],
    ]);
    const cm = {
      metadata: { name: 'cfg', creationTimestamp: ago(70 * second) },
      data: { a: '1', b: '2' },
      binaryData: { c: 'AA==' },
    };
    expect(table('configmaps', '', [cm]).rows[0]?.cells).toEqual(['cfg', 3, '70s']);
  });

  it('secrets: Name, Type, Data, Age', () => {
    expect(columnsOf('secrets', '')).toEqual([
      ['Name', 'string', 0],
      ['Type', 'string', 0],
      ['Data', 'string', 0],
      ['Age', 'string', 0],
    ]);
    const s = {
      metadata: { name: 's', creationTimestamp: ago(second) },
      type: 'Opaque',
      data: { user: 'YQ==', pass: 'Yg==' },
    };
    expect(table('secrets', '', [s]).rows[0]?.cells).toEqual(['s', 'Opaque', 2, '1s']);
  });

  it('nodes: Status with SchedulingDisabled, sorted Roles, and the wide columns', () => {
    expect(columnsOf('nodes', '')).toEqual([
      ['Name', 'string', 0],
      ['Status', 'string', 0],
      ['Roles', 'string', 0],
      ['Age', 'string', 0],
      ['Version', 'string', 0],
      ['Internal-IP', 'string', 1],
      ['External-IP', 'string', 1],
      ['OS-Image', 'string', 1],
      ['Kernel-Version', 'string', 1],
      ['Container-Runtime', 'string', 1],
    ]);
    const node = {
      metadata: {
        name: 'n1',
        creationTimestamp: ago(5 * hour),
        labels: {
          'node-role.kubernetes.io/worker': '',
          'node-role.kubernetes.io/control-plane': '',
          'node-role.kubernetes.io/': '',
          'kubernetes.io/role': 'infra',
        },
      },
      spec: { unschedulable: true },
      status: {
        conditions: [
          { type: 'MemoryPressure', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
        addresses: [{ type: 'InternalIP', address: '192.168.0.2' }],
        nodeInfo: { kubeletVersion: 'v1.32.4', osImage: 'Debian GNU/Linux 12' },
      },
    };
    expect(table('nodes', '', [node]).rows[0]?.cells).toEqual([
      'n1',
      'Ready,SchedulingDisabled',
      'control-plane,infra,worker',
      '5h',
      'v1.32.4',
      '192.168.0.2',
      '<none>',
      'Debian GNU/Linux 12',
      '<unknown>',
      '<unknown>',
    ]);
    const bare = cellsOf('nodes', '', { metadata: { name: 'n2' } });
    expect([bare.Status, bare.Roles]).toEqual(['Unknown', '<none>']);
    const down = {
      metadata: { name: 'n3' },
      status: { conditions: [{ type: 'Ready', status: 'Unknown' }] },
    };
    expect(cellsOf('nodes', '', down).Status).toBe('NotReady');
  });
});

describe('toTable', () => {
  const cm = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'cfg',
      namespace: 'default',
      uid: 'u-1',
      resourceVersion: '7',
      labels: { app: 'x' },
      creationTimestamp: ago(minute),
    },
    data: { k: 'v' },
  };

  it('is a meta.k8s.io/v1 Table with the list metadata', () => {
    const t = table('configmaps', '', [cm], { continue: 'tok', remainingItemCount: 3 });
    expect(t.kind).toBe('Table');
    expect(t.apiVersion).toBe('meta.k8s.io/v1');
    expect(t.metadata).toEqual({ resourceVersion: '42', continue: 'tok', remainingItemCount: 3 });
    expect(table('configmaps', '', [], { resourceVersion: '' }).metadata).toEqual({});
    expect(table('configmaps', '', []).rows).toEqual([]);
  });

  it('embeds PartialObjectMetadata by default, with the full metadata', () => {
    const row = table('configmaps', '', [cm]).rows[0];
    expect(row?.object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: cm.metadata,
    });
    expect(row?.object).not.toHaveProperty('data');
    expect(table('configmaps', '', [cm], { includeObject: 'Metadata' }).rows[0]).toEqual(row);
  });

  it('embeds the whole object for Object and nothing for None', () => {
    expect(table('configmaps', '', [cm], { includeObject: 'Object' }).rows[0]?.object).toEqual(cm);
    expect(table('configmaps', '', [cm], { includeObject: 'None' }).rows[0]).not.toHaveProperty(
      'object',
    );
  });

  it('serializes column definitions with every field, format "" included', () => {
    const json = JSON.parse(JSON.stringify(table('configmaps', '', [cm]))) as Table;
    expect(Object.keys(json.columnDefinitions[1]!)).toEqual([
      'name',
      'type',
      'format',
      'description',
      'priority',
    ]);
    expect(json.columnDefinitions[1]).toMatchObject({ name: 'Data', format: '', priority: 0 });
  });

  it('gives a resource without a printer the default Name and Age (date) columns', () => {
    const t = table('widgets', 'example.com', [
      {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w', creationTimestamp: ago(190 * second) },
      },
    ]);
    expect(t.columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['Age', 'date', '', 0],
    ]);
    expect(t.columnDefinitions[1]?.description).toBe('How long ago the server created the object.');
    expect(t.rows[0]?.cells).toEqual(['w', '3m10s']);
    // The same resource name in another group is not a core resource.
    expect(table('pods', 'example.com', []).columnDefinitions).toHaveLength(2);
  });

  it('returns fresh column definitions each time', () => {
    const a = table('pods', '', []);
    a.columnDefinitions[0]!.name = 'changed';
    expect(table('pods', '', []).columnDefinitions[0]?.name).toBe('Name');
  });
});
