// Ports of pkg/controller/endpoint/endpoints_controller_test.go:
// TestSyncEndpointsItemsPreserveNoSelector, TestSyncEndpointsExistingNilSubsets,
// TestSyncEndpointsExistingEmptySubsets,
// TestSyncEndpointsWithPodResourceVersionUpdateOnly,
// TestSyncEndpointsNewNoSubsets, TestCheckLeftoverEndpoints,
// TestSyncEndpointsProtocolTCP/UDP/SCTP, TestSyncEndpointsHeadlessServiceLabel,
// TestSyncServiceExternalNameType, TestSyncEndpointsItemsEmptySelectorSelectsAll
// (and NotReady, Mixed), TestSyncEndpointsItemsPreexisting(Identical),
// TestSyncEndpointsItems(WithLabels), TestSyncEndpointsItemsPreexistingLabelsChange,
// TestSyncEndpointsHeadlessService, TestSyncEndpointsItemsExcludeNotReadyPods*,
// TestSyncEndpointsHeadlessWithoutPort, TestPodToEndpointAddressForService,
// TestLastTriggerChangeTimeAnnotation (and _AnnotationOverridden, _Cleared),
// TestPodUpdatesBatching / TestPodAddsBatching / TestPodDeleteBatching on the
// fake clock, TestSyncEndpointsServiceNotFound, TestSyncServiceOverCapacity,
// TestTruncateEndpoints, TestEndpointPortFromServicePort,
// TestMultipleServiceChanges, TestMultiplePodChanges, TestSyncServiceAddresses,
// TestEndpointsDeletionEvents, TestEndpointSubsetsEqualIgnoreResourceVersion;
// plus hostnames, named target ports per pod, failed writes and run().
import type {
  EndpointAddress,
  EndpointSubset,
  Endpoints,
  Pod,
  Service,
  ServiceSpec,
} from 'kubernetes-types/core/v1.js';
import { FakeClock, FakeRecorder, StatusError, newInternalError } from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { describe, expect, it } from 'vitest';
import {
  EndpointsController,
  capacityAnnotationSetCorrectly,
  endpointPortFromServicePort,
  endpointSubsetsEqualIgnoreResourceVersion,
  endpointsOverCapacity,
  isHeadlessServiceLabel,
  leaderElectionRecordAnnotationKey,
  maxCapacity,
  podToEndpointAddressForService,
  truncateEndpoints,
} from '../src/index.js';
import {
  addPods,
  endpointsFixture,
  ipv4ipv6,
  ipv4only,
  ipv6ipv4,
  ipv6only,
  testPod,
  type IPFamily,
} from './endpoints-helpers.js';
import { mut, settle } from './helpers.js';
import { MemoryAPI } from './memory-api.js';

const headless = { [isHeadlessServiceLabel]: '' };
const triggerTime = Date.UTC(2018, 0, 1);
const triggerTimeString = '2018-01-01T00:00:00Z';
const oldTriggerTimeString = '2017-12-31T23:00:00Z';

function service(ns: string, spec: ServiceSpec, meta: Partial<Service['metadata']> = {}): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'foo', namespace: ns, ...meta },
    spec,
  };
}

const existing = (ns: string, subsets: EndpointSubset[] | undefined, meta = {}): Endpoints => ({
  metadata: { name: 'foo', namespace: ns, ...meta },
  ...(subsets !== undefined && { subsets }),
});

const podAddr = (ns: string, ip: string, pod: string): EndpointAddress => ({
  ip,
  nodeName: '',
  targetRef: { kind: 'Pod', name: pod, namespace: ns },
});

describe('syncService writes nothing when nothing changes', () => {
  it('leaves the Endpoints of a Service without a selector alone (TestSyncEndpointsItemsPreserveNoSelector)', async () => {
    const fx = endpointsFixture();
    await fx.seed(
      existing('default', [
        { addresses: [{ ip: '6.7.8.9', nodeName: '' }], ports: [{ port: 1000 }] },
      ]),
    );
    fx.serviceIndexer.add(service('default', { ports: [{ port: 80 }] }));
    await fx.controller.syncService('default/foo');
    expect(fx.writes()).toEqual([]);
  });

  it.each([
    ['nil subsets (TestSyncEndpointsExistingNilSubsets)', undefined],
    ['empty subsets (TestSyncEndpointsExistingEmptySubsets)', []],
  ])('keeps existing Endpoints with %s for a Service without pods', async (_name, subsets) => {
    const fx = endpointsFixture();
    await fx.seed(existing('default', subsets));
    fx.serviceIndexer.add(service('default', { selector: { foo: 'bar' }, ports: [{ port: 80 }] }));
    await fx.controller.syncService('default/foo');
    expect(fx.writes()).toEqual([]);
  });

  it('ignores the pods’ resourceVersions (TestSyncEndpointsWithPodResourceVersionUpdateOnly)', async () => {
    const fx = endpointsFixture();
    const pod0 = testPod('default', 0, 1, true);
    const pod1 = testPod('default', 1, 1, false);
    await fx.seed(
      existing('default', [
        {
          addresses: [
            {
              ip: '1.2.3.4',
              nodeName: '',
              targetRef: { kind: 'Pod', name: 'pod0', namespace: 'default', resourceVersion: '1' },
            },
          ],
          notReadyAddresses: [
            {
              ip: '1.2.3.5',
              nodeName: '',
              targetRef: { kind: 'Pod', name: 'pod1', namespace: 'default', resourceVersion: '2' },
            },
          ],
          ports: [{ port: 8080, protocol: 'TCP' }],
        },
      ]),
    );
    fx.serviceIndexer.add(
      service('default', {
        selector: { foo: 'bar' },
        ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }],
      }),
    );
    mut(pod0.metadata!).resourceVersion = '3';
    mut(pod1.metadata!).resourceVersion = '4';
    fx.podIndexer.add(pod0);
    fx.podIndexer.add(pod1);
    await fx.controller.syncService('default/foo');
    expect(fx.writes()).toEqual([]);
  });

  it('does not drop the headless label it set (TestSyncEndpointsHeadlessServiceLabel)', async () => {
    const fx = endpointsFixture();
    await fx.seed(existing('default', [], { labels: headless }));
    fx.serviceIndexer.add(service('default', { selector: { foo: 'bar' }, ports: [{ port: 80 }] }));
    await fx.controller.syncService('default/foo');
    expect(fx.writes()).toEqual([]);
  });

  it('rewrites nothing for identical subsets (TestSyncEndpointsItemsPreexistingIdentical)', async () => {
    const fx = endpointsFixture();
    await fx.seed(
      existing('default', [
        {
          addresses: [podAddr('default', '1.2.3.4', 'pod0')],
          ports: [{ port: 8080, protocol: 'TCP' }],
        },
      ]),
    );
    addPods(fx.podIndexer, 'default', 1, 1, 0);
    fx.serviceIndexer.add(
      service('default', {
        selector: { foo: 'bar' },
        ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }],
      }),
    );
    await fx.controller.syncService('default/foo');
    expect(fx.writes()).toEqual([]);
  });

  it.each([
    ['with a selector and ports', { selector: { foo: 'bar' }, ports: [{ port: 80 }] }],
    ['with ports', { ports: [{ port: 80 }] }],
    ['with a selector', { selector: { foo: 'bar' } }],
    ['without selector and ports', {}],
  ] as [string, ServiceSpec][])(
    'gives an ExternalName Service %s no Endpoints (TestSyncServiceExternalNameType)',
    async (_name, spec) => {
      const fx = endpointsFixture();
      fx.serviceIndexer.add({
        metadata: { name: 'testing-1', namespace: 'default' },
        spec: { ...spec, type: 'ExternalName' },
      });
      addPods(fx.podIndexer, 'default', 1, 1, 0);
      await fx.controller.syncService('default/testing-1');
      expect(fx.writes()).toEqual([]);
    },
  );
});

describe('syncService writes the subsets', () => {
  it('creates Endpoints for a new Service without pods (TestSyncEndpointsNewNoSubsets)', async () => {
    const fx = endpointsFixture();
    fx.serviceIndexer.add(service('default', { selector: { foo: 'bar' }, ports: [{ port: 80 }] }));
    await fx.controller.syncService('default/foo');
    expect(fx.writes()).toEqual(['create endpoints default/foo']);
    const ep = await fx.get('default', 'foo');
    expect(ep.subsets ?? []).toEqual([]);
    expect(ep.metadata!.labels).toEqual(headless);
  });

  it.each(['TCP', 'UDP', 'SCTP'])(
    'replaces the subsets with the pod on its %s port (TestSyncEndpointsProtocol*)',
    async (protocol) => {
      const fx = endpointsFixture();
      await fx.seed(
        existing('other', [
          { addresses: [{ ip: '6.7.8.9', nodeName: '' }], ports: [{ port: 1000, protocol }] },
        ]),
      );
      addPods(fx.podIndexer, 'other', 1, 1, 0);
      fx.serviceIndexer.add(
        service('other', { selector: {}, ports: [{ port: 80, targetPort: 8080, protocol }] }),
      );
      await fx.controller.syncService('other/foo');
      expect(fx.writes()).toEqual(['update endpoints other/foo']);
      const ep = await fx.get('other', 'foo');
      expect(ep.metadata!.labels).toEqual(headless);
      expect(ep.subsets).toEqual([
        { addresses: [podAddr('other', '1.2.3.4', 'pod0')], ports: [{ port: 8080, protocol }] },
      ]);
    },
  );

  it.each([
    ['ready (TestSyncEndpointsItemsEmptySelectorSelectsAll)', 1, 0],
    ['not ready (…NotReady)', 0, 1],
    ['mixed (…Mixed)', 1, 1],
  ])('an empty selector selects every pod: %s', async (_name, nReady, nNotReady) => {
    const fx = endpointsFixture();
    await fx.seed(existing('other', []));
    addPods(fx.podIndexer, 'other', nReady, 1, nNotReady);
    fx.serviceIndexer.add(
      service('other', {
        selector: {},
        ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }],
      }),
    );
    await fx.controller.syncService('other/foo');
    const ep = await fx.get('other', 'foo');
    const subset: EndpointSubset = { ports: [{ port: 8080, protocol: 'TCP' }] };
    if (nReady > 0) subset.addresses = [podAddr('other', '1.2.3.4', 'pod0')];
    if (nNotReady > 0)
      subset.notReadyAddresses = [podAddr('other', `1.2.3.${4 + nReady}`, `pod${nReady}`)];
    expect(ep.subsets).toEqual([subset]);
  });

  it('replaces stale subsets (TestSyncEndpointsItemsPreexisting)', async () => {
    const fx = endpointsFixture();
    await fx.seed(
      existing('bar', [{ addresses: [{ ip: '6.7.8.9', nodeName: '' }], ports: [{ port: 1000 }] }]),
    );
    addPods(fx.podIndexer, 'bar', 1, 1, 0);
    fx.serviceIndexer.add(
      service('bar', {
        selector: { foo: 'bar' },
        ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }],
      }),
    );
    await fx.controller.syncService('bar/foo');
    expect(fx.writes()).toEqual(['update endpoints bar/foo']);
    expect((await fx.get('bar', 'foo')).subsets).toEqual([
      { addresses: [podAddr('bar', '1.2.3.4', 'pod0')], ports: [{ port: 8080, protocol: 'TCP' }] },
    ]);
  });

  it('packs three pods on two ports into one subset, in its namespace only (TestSyncEndpointsItems, …WithLabels)', async () => {
    const fx = endpointsFixture();
    addPods(fx.podIndexer, 'other', 3, 2, 0);
    addPods(fx.podIndexer, 'blah', 5, 2, 0); // not selected: another namespace
    fx.serviceIndexer.add(
      service(
        'other',
        {
          selector: { foo: 'bar' },
          ports: [
            { name: 'port0', port: 80, protocol: 'TCP', targetPort: 8080 },
            { name: 'port1', port: 88, protocol: 'TCP', targetPort: 8088 },
          ],
        },
        { labels: { foo: 'bar' } },
      ),
    );
    await fx.controller.syncService('other/foo');
    expect(fx.writes()).toEqual(['create endpoints other/foo']);
    const ep = await fx.get('other', 'foo');
    expect(ep.metadata!.labels).toEqual({ foo: 'bar', ...headless });
    expect(ep.subsets).toEqual([
      {
        addresses: [
          podAddr('other', '1.2.3.4', 'pod0'),
          podAddr('other', '1.2.3.5', 'pod1'),
          podAddr('other', '1.2.3.6', 'pod2'),
        ],
        ports: [
          { name: 'port0', port: 8080, protocol: 'TCP' },
          { name: 'port1', port: 8088, protocol: 'TCP' },
        ],
      },
    ]);
  });

  it('replaces the labels with the Service’s (TestSyncEndpointsItemsPreexistingLabelsChange)', async () => {
    const fx = endpointsFixture();
    await fx.seed(
      existing('bar', [{ addresses: [{ ip: '6.7.8.9', nodeName: '' }], ports: [{ port: 1000 }] }], {
        labels: { foo: 'bar' },
      }),
    );
    addPods(fx.podIndexer, 'bar', 1, 1, 0);
    fx.serviceIndexer.add(
      service(
        'bar',
        { selector: { foo: 'bar' }, ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }] },
        { labels: { baz: 'blah' } },
      ),
    );
    await fx.controller.syncService('bar/foo');
    expect((await fx.get('bar', 'foo')).metadata!.labels).toEqual({ baz: 'blah', ...headless });
  });

  it('a Service given a cluster IP keeps the headless label until something else changes, as upstream compares without it', async () => {
    const fx = endpointsFixture();
    await fx.seed(existing('bar', [], { labels: { ...headless } }));
    fx.serviceIndexer.add(
      service('bar', { selector: { foo: 'bar' }, clusterIP: '10.0.0.1', ports: [{ port: 80 }] }),
    );
    await fx.controller.syncService('bar/foo');
    expect(fx.writes()).toEqual([]);
    addPods(fx.podIndexer, 'bar', 1, 1, 0);
    await fx.controller.syncService('bar/foo');
    expect(fx.writes()).toEqual(['update endpoints bar/foo']);
    expect((await fx.get('bar', 'foo')).metadata!.labels).toEqual({});
  });

  it('a headless Service with an empty port list gets an address without ports (TestSyncEndpointsHeadlessService)', async () => {
    const fx = endpointsFixture();
    await fx.seed(
      existing('headless', [
        { addresses: [{ ip: '6.7.8.9', nodeName: '' }], ports: [{ port: 1000, protocol: 'TCP' }] },
      ]),
    );
    addPods(fx.podIndexer, 'headless', 1, 1, 0);
    const svc = service(
      'headless',
      { selector: {}, clusterIP: 'None', ports: [] },
      { labels: { a: 'b' } },
    );
    const original = structuredClone(svc);
    fx.serviceIndexer.add(svc);
    await fx.controller.syncService('headless/foo');
    expect(svc).toEqual(original); // the sync did not touch the Service
    const ep = await fx.get('headless', 'foo');
    expect(ep.metadata!.labels).toEqual({ a: 'b', ...headless });
    expect(ep.subsets).toEqual([{ addresses: [podAddr('headless', '1.2.3.4', 'pod0')] }]);
  });

  it('a headless Service without ports gets its pods (TestSyncEndpointsHeadlessWithoutPort)', async () => {
    const fx = endpointsFixture();
    fx.serviceIndexer.add(service('default', { selector: { foo: 'bar' }, clusterIP: 'None' }));
    addPods(fx.podIndexer, 'default', 1, 1, 0);
    await fx.controller.syncService('default/foo');
    expect(fx.writes()).toEqual(['create endpoints default/foo']);
    expect((await fx.get('default', 'foo')).subsets).toEqual([
      { addresses: [podAddr('default', '1.2.3.4', 'pod0')] },
    ]);
  });

  it('a Service with a cluster IP but no ports gets no addresses', async () => {
    const fx = endpointsFixture();
    fx.serviceIndexer.add(service('default', { selector: { foo: 'bar' }, clusterIP: '10.0.0.1' }));
    addPods(fx.podIndexer, 'default', 1, 1, 0);
    await fx.controller.syncService('default/foo');
    expect((await fx.get('default', 'foo')).subsets ?? []).toEqual([]);
  });

  it.each([
    ['Never', 'Failed'],
    ['Never', 'Succeeded'],
    ['OnFailure', 'Succeeded'],
  ])(
    'leaves out not-ready pods with restartPolicy %s in phase %s (TestSyncEndpointsItemsExcludeNotReadyPods*)',
    async (restartPolicy, phase) => {
      const fx = endpointsFixture();
      await fx.seed(existing('other', [], { labels: { foo: 'bar' } }));
      const pod = testPod('other', 0, 1, false);
      pod.spec!.restartPolicy = restartPolicy;
      pod.status!.phase = phase;
      fx.podIndexer.add(pod);
      fx.serviceIndexer.add(
        service('other', {
          selector: { foo: 'bar' },
          ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }],
        }),
      );
      await fx.controller.syncService('other/foo');
      const ep = await fx.get('other', 'foo');
      expect(ep.subsets ?? []).toEqual([]);
      expect(ep.metadata!.labels).toEqual(headless);
    },
  );

  it('sets hostnames for pods whose subdomain is the Service, and resolves named target ports per pod', async () => {
    const fx = endpointsFixture();
    const a = testPod('default', 0, 1, true);
    a.spec!.hostname = 'a';
    a.spec!.subdomain = 'foo';
    const b = testPod('default', 1, 0, true);
    b.spec!.hostname = 'b'; // another subdomain: no hostname
    b.spec!.containers[0]!.ports = [{ name: 'port0', containerPort: 9090 }];
    fx.podIndexer.add(a);
    fx.podIndexer.add(b);
    fx.serviceIndexer.add(
      service('default', {
        selector: { foo: 'bar' },
        ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'port0' }],
      }),
    );
    await fx.controller.syncService('default/foo');
    expect((await fx.get('default', 'foo')).subsets).toEqual([
      {
        addresses: [{ ...podAddr('default', '1.2.3.4', 'pod0'), hostname: 'a' }],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
      {
        addresses: [podAddr('default', '1.2.3.5', 'pod1')],
        ports: [{ name: 'http', port: 9090, protocol: 'TCP' }],
      },
    ]);
  });

  it('deletes the Endpoints of a Service that is gone (TestSyncEndpointsServiceNotFound)', async () => {
    const fx = endpointsFixture();
    await fx.seed(existing('default', undefined));
    await fx.controller.syncService('default/foo');
    expect(fx.writes()).toEqual(['delete endpoints default/foo']);
    await fx.controller.syncService('default/foo'); // already gone: no error
  });
});

describe('podToEndpointAddressForService (TestPodToEndpointAddressForService)', () => {
  const cases: [string, IPFamily[], ServiceSpec, IPFamily | 'error'][] = [
    ['v4 service, in a single stack cluster', ipv4only, { clusterIP: '10.0.0.1' }, 'IPv4'],
    ['v4 service, in a dual stack cluster', ipv4ipv6, { clusterIP: '10.0.0.1' }, 'IPv4'],
    [
      'v4 service, in a dual stack ipv6-primary cluster',
      ipv6ipv4,
      { clusterIP: '10.0.0.1' },
      'IPv4',
    ],
    ['v4 headless service, in a single stack cluster', ipv4only, { clusterIP: 'None' }, 'IPv4'],
    [
      'v4 headless service, in a dual stack cluster',
      ipv4ipv6,
      { clusterIP: 'None', ipFamilies: ['IPv4'] },
      'IPv4',
    ],
    [
      'v4 legacy headless service, in a dual stack cluster',
      ipv4ipv6,
      { clusterIP: 'None' },
      'IPv4',
    ],
    [
      'v4 legacy headless service, in a dual stack ipv6-primary cluster',
      ipv6ipv4,
      { clusterIP: 'None' },
      'IPv6',
    ],
    ['v6 service, in a dual stack cluster', ipv4ipv6, { clusterIP: '3000::1' }, 'IPv6'],
    ['v6 headless service, in a single stack cluster', ipv6only, { clusterIP: 'None' }, 'IPv6'],
    [
      'v6 headless service, in a dual stack cluster',
      ipv4ipv6,
      { clusterIP: 'None', ipFamilies: ['IPv6'] },
      'IPv6',
    ],
    [
      'v6 legacy headless service, in a dual stack cluster',
      ipv4ipv6,
      { clusterIP: 'None' },
      'IPv4',
    ],
    ['v6 service, in a v4 only cluster', ipv4only, { clusterIP: '3000::1' }, 'error'],
  ];
  it.each(cases)('%s', (_name, families, spec, want) => {
    const pod = testPod('test', 0, 1, true, families);
    mut(pod.metadata!).uid = 'uid-0';
    const epa = podToEndpointAddressForService({ spec }, pod);
    if (want === 'error') {
      expect(epa).toBeInstanceOf(Error);
      return;
    }
    if (epa instanceof Error) throw epa;
    expect(epa.ip.includes(':')).toBe(want === 'IPv6');
    expect(epa.nodeName).toBe('');
    expect(epa.targetRef).toEqual({ kind: 'Pod', namespace: 'test', name: 'pod0', uid: 'uid-0' });
  });
});

describe('the last-change-trigger-time annotation', () => {
  const setup = async (annotation?: string, created?: number) => {
    const fx = endpointsFixture();
    await fx.seed(
      existing(
        'other',
        [
          {
            addresses: [{ ip: '6.7.8.9', nodeName: '' }],
            ports: [{ port: 1000, protocol: 'TCP' }],
          },
        ],
        annotation
          ? { annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': annotation } }
          : {},
      ),
    );
    addPods(fx.podIndexer, 'other', 1, 1, 0);
    fx.serviceIndexer.add(
      service(
        'other',
        { selector: {}, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] },
        created === undefined
          ? {}
          : { creationTimestamp: new Date(created).toISOString().replace('.000', '') },
      ),
    );
    await fx.controller.syncService('other/foo');
    expect(fx.writes()).toEqual(['update endpoints other/foo']);
    return (await fx.get('other', 'foo')).metadata!.annotations ?? {};
  };

  it('is set from the Service’s creation (TestLastTriggerChangeTimeAnnotation)', async () => {
    expect(await setup(undefined, triggerTime)).toEqual({
      'endpoints.kubernetes.io/last-change-trigger-time': triggerTimeString,
    });
  });

  it('overrides an older value (…_AnnotationOverridden)', async () => {
    expect(await setup(oldTriggerTimeString, triggerTime)).toEqual({
      'endpoints.kubernetes.io/last-change-trigger-time': triggerTimeString,
    });
  });

  it('is cleared when neither pod nor Service has a trigger time (…_AnnotationCleared)', async () => {
    expect(await setup(triggerTimeString)).toEqual({});
  });
});

describe('batching (TestPodUpdatesBatching, TestPodAddsBatching, TestPodDeleteBatching)', () => {
  type Step = { delay: number; pod: number };
  const cases: [string, number, Step[], number][] = [
    [
      'three changes with no batching',
      0,
      [
        { delay: 200, pod: 0 },
        { delay: 100, pod: 1 },
        { delay: 100, pod: 2 },
      ],
      3,
    ],
    [
      'three changes in one batch',
      1000,
      [
        { delay: 200, pod: 0 },
        { delay: 100, pod: 1 },
        { delay: 100, pod: 2 },
      ],
      1,
    ],
    [
      'three changes in two batches',
      1000,
      [
        { delay: 200, pod: 0 },
        { delay: 100, pod: 1 },
        { delay: 1000, pod: 2 },
      ],
      2,
    ],
  ];

  /** Runs the steps on the fake clock, syncing whatever is due as time passes. */
  async function play(
    batchPeriod: number,
    steps: Step[],
    change: (fx: ReturnType<typeof endpointsFixture>, pod: number, rv: number) => void,
    podsCount: number,
  ): Promise<number> {
    const fx = endpointsFixture({ batchPeriod });
    addPods(fx.podIndexer, 'other', podsCount, 1, 0);
    fx.serviceIndexer.add(service('other', { selector: { foo: 'bar' }, ports: [{ port: 80 }] }));
    fx.controller.onServiceUpdate(service('other', {}));
    await fx.controller.processNextWorkItem();
    fx.api.writes.length = 0;
    const drain = async () => {
      await settle(2);
      while (fx.controller.queue.len() > 0) await fx.controller.processNextWorkItem();
    };
    let rv = 100;
    for (const step of steps) {
      for (let t = 0; t < step.delay; t += 50) {
        await fx.clock.advance(50);
        await drain();
      }
      change(fx, step.pod, ++rv);
      await drain();
    }
    for (let t = 0; t < 3000; t += 50) {
      await fx.clock.advance(50);
      await drain();
    }
    return fx.writes().length;
  }

  it.each(cases)('updates: %s', async (_name, batch, steps, want) => {
    const writes = await play(
      batch,
      steps,
      (fx, i, rv) => {
        const old = fx.podIndexer.getByKey(`other/pod${i}`)!;
        const cur = structuredClone(old);
        cur.status!.podIP = `10.0.0.${i}`;
        cur.status!.podIPs = [{ ip: `10.0.0.${i}` }];
        mut(cur.metadata!).resourceVersion = String(rv);
        fx.podIndexer.update(cur);
        fx.controller.updatePod(old, cur);
      },
      10,
    );
    expect(writes).toBe(want);
  });

  it.each(cases)('adds: %s', async (_name, batch, steps, want) => {
    const writes = await play(
      batch,
      steps,
      (fx, i) => {
        const p = testPod('other', i, 1, true);
        fx.podIndexer.add(p);
        fx.controller.addPod(p);
      },
      0,
    );
    expect(writes).toBe(want);
  });

  it.each(cases)('deletes: %s', async (_name, batch, steps, want) => {
    const writes = await play(
      batch,
      steps,
      (fx, i) => {
        const old = fx.podIndexer.getByKey(`other/pod${i}`)!;
        fx.podIndexer.delete(old);
        fx.controller.deletePod(old);
      },
      10,
    );
    expect(writes).toBe(want);
  });
});

describe('capacity (TestSyncServiceOverCapacity)', () => {
  const cases: [string, string | undefined, number, number, number, number, number, boolean][] = [
    ['empty', undefined, 0, 0, 0, 0, 0, false],
    [
      'annotation added past capacity, < than maxCapacity of Ready Addresses',
      undefined,
      maxCapacity - 1,
      maxCapacity - 3,
      4,
      maxCapacity - 3,
      3,
      true,
    ],
    [
      'annotation added past capacity, maxCapacity of Ready Addresses',
      undefined,
      maxCapacity - 1,
      maxCapacity,
      10,
      maxCapacity,
      0,
      true,
    ],
    [
      'annotation removed below capacity',
      'truncated',
      maxCapacity - 1,
      maxCapacity - 1,
      0,
      maxCapacity - 1,
      0,
      false,
    ],
    [
      'annotation was set to warning previously, annotation removed at capacity',
      'warning',
      maxCapacity,
      maxCapacity,
      0,
      maxCapacity,
      0,
      false,
    ],
    [
      'annotation was set to warning previously but still over capacity',
      'warning',
      maxCapacity + 1,
      maxCapacity + 1,
      0,
      maxCapacity,
      0,
      true,
    ],
    [
      'annotation removed at capacity',
      'truncated',
      maxCapacity,
      maxCapacity,
      0,
      maxCapacity,
      0,
      false,
    ],
    [
      'no endpoints change, annotation value corrected',
      'invalid',
      maxCapacity + 1,
      maxCapacity + 1,
      0,
      maxCapacity,
      0,
      true,
    ],
  ];
  it.each(cases)(
    '%s',
    async (
      _name,
      startingAnnotation,
      numExisting,
      numDesired,
      numDesiredNotReady,
      wantReady,
      wantNotReady,
      wantAnnotation,
    ) => {
      const fx = endpointsFixture();
      addPods(fx.podIndexer, 'test', numDesired, 1, numDesiredNotReady);
      const svc = service('test', { selector: { foo: 'bar' }, ports: [{ port: 80 }] });
      fx.serviceIndexer.add(svc);
      const pods = fx.podIndexer.list();
      const addresses: EndpointAddress[] = [];
      for (let i = 0; i < numExisting; i++) {
        addresses.push(podToEndpointAddressForService(svc, pods[i]!) as EndpointAddress);
      }
      await fx.seed(
        existing('test', [{ addresses }], {
          annotations:
            startingAnnotation === undefined ? {} : { [endpointsOverCapacity]: startingAnnotation },
        }),
      );
      await fx.controller.syncService('test/foo');
      const ep = await fx.get('test', 'foo');
      expect(ep.metadata!.annotations?.[endpointsOverCapacity]).toBe(
        wantAnnotation ? 'truncated' : undefined,
      );
      const count = (f: 'addresses' | 'notReadyAddresses') =>
        (ep.subsets ?? []).reduce((n, s) => n + (s[f] ?? []).length, 0);
      expect(count('addresses')).toBe(wantReady);
      expect(count('notReadyAddresses')).toBe(wantNotReady);
    },
  );

  it('capacityAnnotationSetCorrectly wants no annotation under capacity, and never holds over it', () => {
    const many = [
      { addresses: Array.from({ length: maxCapacity + 1 }, () => ({ ip: '1.1.1.1' })) },
    ];
    expect(capacityAnnotationSetCorrectly({}, [])).toBe(true);
    expect(capacityAnnotationSetCorrectly({ [endpointsOverCapacity]: 'truncated' }, [])).toBe(
      false,
    );
    expect(capacityAnnotationSetCorrectly({ [endpointsOverCapacity]: 'truncated' }, many)).toBe(
      false,
    );
  });
});

describe('truncateEndpoints (TestTruncateEndpoints)', () => {
  const cases: [string, number[], number[], number[], number[]][] = [
    ['empty', [], [], [], []],
    [
      'total endpoints < max capacity',
      [50, 100, 100, 100, 100],
      [50, 100, 100, 100, 100],
      [50, 100, 100, 100, 100],
      [50, 100, 100, 100, 100],
    ],
    [
      'total endpoints = max capacity',
      [100, 100, 100, 100, 100],
      [100, 100, 100, 100, 100],
      [100, 100, 100, 100, 100],
      [100, 100, 100, 100, 100],
    ],
    [
      'total ready endpoints < max capacity, but total endpoints > max capacity',
      [90, 110, 50, 10, 20],
      [101, 200, 200, 201, 298],
      [90, 110, 50, 10, 20],
      [73, 144, 144, 145, 214],
    ],
    [
      'total ready endpoints > max capacity',
      [205, 400, 402, 400, 693],
      [100, 200, 200, 200, 300],
      [98, 191, 192, 191, 328],
      [0, 0, 0, 0, 0],
    ],
  ];
  it.each(cases)('%s', (_name, ready, notReady, wantReady, wantNotReady) => {
    const endpoints: Endpoints = {
      subsets: ready.map((n, i) => ({
        addresses: Array.from({ length: n }, () => ({ ip: '' })),
        notReadyAddresses: Array.from({ length: notReady[i]! }, () => ({ ip: '' })),
      })),
    };
    truncateEndpoints(endpoints);
    expect(endpoints.subsets!.map((s) => (s.addresses ?? []).length)).toEqual(wantReady);
    expect(endpoints.subsets!.map((s) => (s.notReadyAddresses ?? []).length)).toEqual(wantNotReady);
  });
});

describe('endpointPortFromServicePort (TestEndpointPortFromServicePort)', () => {
  it.each([
    ['empty app protocol', undefined],
    ['http app protocol', 'http'],
  ])('%s', (_name, appProtocol) => {
    const epp = endpointPortFromServicePort({ name: 'test', port: 1, appProtocol }, 80);
    expect(epp.appProtocol).toBe(appProtocol);
    expect(epp).toMatchObject({ name: 'test', port: 80 });
  });
});

describe('a lagging cache', () => {
  it('a Service deleted and re-added while its Endpoints’ deletion is still on its way gets them back (TestMultipleServiceChanges)', async () => {
    const fx = endpointsFixture({ watch: 'lag' });
    addPods(fx.podIndexer, 'default', 1, 1, 0);
    const svc = service('default', { selector: { foo: 'bar' }, clusterIP: 'None' });
    fx.serviceIndexer.add(svc);
    fx.controller.onServiceUpdate(svc);
    await fx.controller.processNextWorkItem();
    fx.deliver(); // the creation reaches the cache
    fx.serviceIndexer.delete(svc);
    fx.controller.onServiceDelete(svc);
    await fx.controller.processNextWorkItem(); // deletes; the cache still holds them
    fx.serviceIndexer.add(svc);
    fx.controller.onServiceUpdate(svc);
    await fx.controller.processNextWorkItem(); // the cache says they exist and match: nothing
    expect(fx.writes()).toEqual(['create endpoints default/foo', 'delete endpoints default/foo']);
    fx.deliver(); // the deletion arrives and queues the Service
    await fx.quiesce();
    expect(fx.writes()).toEqual([
      'create endpoints default/foo',
      'delete endpoints default/foo',
      'create endpoints default/foo',
    ]);
  });

  it('does not write from a cache older than its own update (TestMultiplePodChanges)', async () => {
    const fx = endpointsFixture({ watch: 'lag' });
    const pod = testPod('default', 0, 1, true);
    fx.podIndexer.add(pod);
    await fx.seed(
      existing('default', [
        {
          addresses: [podAddr('default', '1.2.3.4', 'pod0')],
          ports: [{ port: 8080, protocol: 'TCP' }],
        },
      ]),
    );
    fx.serviceIndexer.add(
      service('default', {
        selector: { foo: 'bar' },
        clusterIP: '10.0.0.1',
        ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }],
      }),
    );
    // Ready -> not ready -> ready, the Endpoints update not yet in the cache.
    const pod2 = structuredClone(pod);
    mut(pod2.metadata!).resourceVersion = '2';
    pod2.status!.conditions![0]!.status = 'False';
    fx.podIndexer.update(pod2);
    fx.controller.updatePod(pod, pod2);
    await fx.controller.processNextWorkItem();
    expect(fx.writes()).toEqual(['update endpoints default/foo']);
    const pod3 = structuredClone(pod);
    mut(pod3.metadata!).resourceVersion = '3';
    fx.podIndexer.update(pod3);
    fx.controller.updatePod(pod2, pod3);
    await fx.controller.processNextWorkItem();
    expect(fx.writes()).toHaveLength(1); // stale cache: retried later, nothing written
    fx.deliver();
    await fx.quiesce();
    expect(fx.writes()).toEqual(['update endpoints default/foo', 'update endpoints default/foo']);
    expect((await fx.get('default', 'foo')).subsets).toEqual([
      {
        addresses: [podAddr('default', '1.2.3.4', 'pod0')],
        ports: [{ port: 8080, protocol: 'TCP' }],
      },
    ]);
  });
});

describe('which pods become which addresses (TestSyncServiceAddresses)', () => {
  const makePod = (phase: string, ready: boolean, terminating: boolean): Pod => ({
    metadata: {
      namespace: 'ns',
      name: 'fakepod',
      labels: { foo: 'bar' },
      ...(terminating && { deletionTimestamp: '2026-01-01T00:00:00Z' }),
    },
    spec: { containers: [{ name: 'c', ports: [{ name: 'port1', containerPort: 8080 }] }] },
    status: {
      phase,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      podIP: '10.1.1.1',
      podIPs: [{ ip: '10.1.1.1' }],
    },
  });
  const cases: [string, Pod, boolean, number, number][] = [
    ['pod running phase', makePod('Running', true, false), false, 1, 0],
    ['pod running phase being deleted', makePod('Running', true, true), false, 0, 0],
    ['pod unknown phase container ready', makePod('Unknown', true, false), false, 1, 0],
    [
      'pod unknown phase container ready being deleted',
      makePod('Unknown', true, true),
      false,
      0,
      0,
    ],
    ['pod pending phase container ready', makePod('Pending', true, false), false, 1, 0],
    [
      'pod pending phase container ready being deleted',
      makePod('Pending', true, true),
      false,
      0,
      0,
    ],
    ['pod unknown phase container not ready', makePod('Unknown', false, false), false, 0, 1],
    ['pod pending phase container not ready', makePod('Pending', false, false), false, 0, 1],
    ['pod failed phase', makePod('Failed', false, false), false, 0, 0],
    ['pod succeeded phase', makePod('Succeeded', false, false), false, 0, 0],
    ['pod running phase and tolerate unready', makePod('Running', false, false), true, 1, 0],
    [
      'pod running phase and tolerate unready being deleted',
      makePod('Running', false, true),
      true,
      1,
      0,
    ],
    ['pod unknown phase and tolerate unready', makePod('Unknown', false, false), true, 1, 0],
    [
      'pod unknown phase and tolerate unready being deleted',
      makePod('Unknown', false, true),
      true,
      1,
      0,
    ],
    ['pod pending phase and tolerate unready', makePod('Pending', false, false), true, 1, 0],
    [
      'pod pending phase and tolerate unready being deleted',
      makePod('Pending', false, true),
      true,
      1,
      0,
    ],
    ['pod failed phase and tolerate unready', makePod('Failed', false, false), true, 0, 0],
    [
      'pod succeeded phase and tolerate unready endpoints',
      makePod('Succeeded', false, false),
      true,
      0,
      0,
    ],
  ];
  it.each(cases)('%s', async (_name, pod, tolerateUnready, wantReady, wantUnready) => {
    const fx = endpointsFixture();
    fx.podIndexer.add(pod);
    fx.serviceIndexer.add({
      metadata: { name: 'foo', namespace: 'ns' },
      spec: {
        selector: { foo: 'bar' },
        publishNotReadyAddresses: tolerateUnready,
        type: 'ClusterIP',
        clusterIP: '1.1.1.1',
        ports: [{ port: 80 }],
      },
    });
    await fx.controller.syncService('ns/foo');
    const ep = await fx.get('ns', 'foo');
    const count = (f: 'addresses' | 'notReadyAddresses') =>
      (ep.subsets ?? []).reduce((n, s) => n + (s[f] ?? []).length, 0);
    expect(count('addresses')).toBe(wantReady);
    expect(count('notReadyAddresses')).toBe(wantUnready);
  });
});

describe('handlers', () => {
  it('an Endpoints deletion queues its Service (TestEndpointsDeletionEvents)', () => {
    const fx = endpointsFixture();
    fx.controller.onEndpointsDelete({
      metadata: { name: 'foo', namespace: 'default', resourceVersion: 'rv1' },
    });
    expect(fx.controller.queue.len()).toBe(1);
  });

  it('checkLeftoverEndpoints queues every Endpoints object but leader-election records (TestCheckLeftoverEndpoints)', async () => {
    const fx = endpointsFixture();
    await fx.seed(
      existing('default', [{ addresses: [{ ip: '6.7.8.9' }], ports: [{ port: 1000 }] }]),
    );
    await fx.seed({
      metadata: {
        name: 'lease',
        namespace: 'kube-system',
        annotations: { [leaderElectionRecordAnnotationKey]: '{}' },
      },
    });
    fx.controller.checkLeftoverEndpoints();
    expect(fx.controller.queue.len()).toBe(1);
    expect((await fx.controller.queue.get())[0]).toBe('default/foo');
  });
});

describe('endpointSubsetsEqualIgnoreResourceVersion (TestEndpointSubsetsEqualIgnoreResourceVersion)', () => {
  const es1: EndpointSubset = {
    addresses: [
      {
        ip: '1.1.1.1',
        targetRef: { kind: 'Pod', name: 'pod1-1', namespace: 'ns', resourceVersion: '1' },
      },
    ],
    notReadyAddresses: [
      {
        ip: '1.1.1.2',
        targetRef: { kind: 'Pod', name: 'pod1-2', namespace: 'ns2', resourceVersion: '2' },
      },
    ],
    ports: [{ port: 8081, protocol: 'TCP' }],
  };
  const es2: EndpointSubset = {
    addresses: [
      {
        ip: '2.2.2.1',
        targetRef: { kind: 'Pod', name: 'pod2-1', namespace: 'ns', resourceVersion: '3' },
      },
    ],
    notReadyAddresses: [
      {
        ip: '2.2.2.2',
        targetRef: { kind: 'Pod', name: 'pod2-2', namespace: 'ns2', resourceVersion: '4' },
      },
    ],
    ports: [{ port: 8082, protocol: 'TCP' }],
  };
  const mutate = (s: EndpointSubset, f: (s: EndpointSubset) => void) => {
    const c = structuredClone(s);
    f(c);
    return c;
  };
  it.each([
    ['Subsets removed', [es1, es2], [es1], false],
    [
      'Ready Pod IP changed',
      [es1, es2],
      [mutate(es1, (s) => (s.addresses![0]!.ip = '1.1.1.10')), es2],
      false,
    ],
    [
      'NotReady Pod IP changed',
      [es1, es2],
      [es1, mutate(es2, (s) => (s.notReadyAddresses![0]!.ip = '2.2.2.10'))],
      false,
    ],
    [
      'Pod ResourceVersion changed',
      [es1, es2],
      [es1, mutate(es2, (s) => (s.addresses![0]!.targetRef!.resourceVersion = '100'))],
      true,
    ],
    [
      'Pod ResourceVersion removed',
      [es1, es2],
      [es1, mutate(es2, (s) => delete s.addresses![0]!.targetRef!.resourceVersion)],
      true,
    ],
    ['Ports changed', [es1, es2], [es1, mutate(es1, (s) => (s.ports![0]!.port = 8082))], false],
    ['nil and empty lists are equal', [{ addresses: [] }], [{}], true],
    [
      'a node name set differs from none',
      [{ addresses: [{ ip: '1.1.1.1', nodeName: '' }] }],
      [{ addresses: [{ ip: '1.1.1.1' }] }],
      false,
    ],
  ] as [string, EndpointSubset[], EndpointSubset[], boolean][])('%s', (_name, a, b, want) => {
    expect(endpointSubsetsEqualIgnoreResourceVersion(a, b)).toBe(want);
  });
});

describe('failed writes', () => {
  it('records FailedToCreateEndpoint and retries with backoff', async () => {
    const fx = endpointsFixture();
    fx.serviceIndexer.add(service('default', { selector: { foo: 'bar' }, ports: [{ port: 80 }] }));
    fx.failNext.set('create', newInternalError(new Error('boom')));
    fx.controller.onServiceUpdate(service('default', {}));
    await fx.controller.processNextWorkItem();
    expect(fx.recorder.events).toEqual([
      expect.stringMatching(
        /^Warning FailedToCreateEndpoint Failed to create endpoint for service default\/foo: /,
      ),
    ]);
    expect(fx.controller.queue.numRequeues('default/foo')).toBe(1);
    await fx.quiesce();
    expect(fx.writes()).toEqual(['create endpoints default/foo']);
    expect(fx.controller.queue.numRequeues('default/foo')).toBe(0);
  });

  it('records FailedToUpdateEndpoint', async () => {
    const fx = endpointsFixture();
    await fx.seed(existing('default', []));
    addPods(fx.podIndexer, 'default', 1, 1, 0);
    fx.serviceIndexer.add(service('default', { selector: { foo: 'bar' }, ports: [{ port: 80 }] }));
    fx.failNext.set('update', newInternalError(new Error('boom')));
    await expect(fx.controller.syncService('default/foo')).rejects.toThrow(/boom/);
    expect(fx.recorder.events[0]).toMatch(
      /^Warning FailedToUpdateEndpoint Failed to update endpoint default\/foo: /,
    );
  });

  it('drops the key quietly when a terminating namespace refuses the creation', async () => {
    const fx = endpointsFixture();
    fx.serviceIndexer.add(service('default', { selector: { foo: 'bar' }, ports: [{ port: 80 }] }));
    const forbidden = new StatusError({
      code: 403,
      reason: 'Forbidden',
      message: 'endpoints "foo" is forbidden: namespace default is being terminated',
      details: { causes: [{ reason: 'NamespaceTerminating' }] },
    });
    fx.failNext.set('create', forbidden);
    await fx.controller.syncService('default/foo');
    expect(fx.recorder.events).toEqual([]);
  });
});

describe('run', () => {
  it('syncs through real informers, deletes leftover Endpoints at startup, and stops cleanly', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const api = new MemoryAPI(clock);
    const recorder = new FakeRecorder();
    const endpoints = api.client<Endpoints>('', 'endpoints');
    const services = api.client<Service>('', 'services');
    const pods = api.client<Pod>('', 'pods');
    // Left behind by a Service deleted while the controller was down.
    await endpoints.inNamespace('default').create({ metadata: { name: 'orphan' }, subsets: [] });
    const factory = new SharedInformerFactory(api.source, 0, { clock });
    const controller = new EndpointsController({
      pods: factory.pods(),
      services: factory.services(),
      endpoints: factory.endpoints(),
      client: { endpoints },
      recorder,
      clock,
    });
    const stop = new AbortController();
    factory.start(stop.signal);
    const running = controller.run(5, stop.signal);
    await services.inNamespace('default').create(
      service('default', {
        selector: { foo: 'bar' },
        clusterIP: '10.0.0.1',
        ports: [{ name: 'http', port: 80, targetPort: 'port0' }],
      }),
    );
    for (let i = 0; i < 3; i++) {
      const { metadata, ...rest } = testPod('default', i, 1, i !== 2);
      await pods
        .inNamespace('default')
        .create({ ...rest, metadata: { name: metadata!.name, labels: metadata!.labels } });
    }
    for (let i = 0; i < 30; i++) {
      await clock.advance(100);
      await settle();
    }
    expect(
      (await endpoints.inNamespace('default').list()).items.map((e) => e.metadata!.name),
    ).toEqual(['foo']);
    const ep = await endpoints.inNamespace('default').get('foo');
    expect(ep.subsets).toHaveLength(1);
    expect(ep.subsets![0]!.addresses!.map((a) => a.ip)).toEqual(['1.2.3.4', '1.2.3.5']);
    expect(ep.subsets![0]!.notReadyAddresses!.map((a) => a.ip)).toEqual(['1.2.3.6']);
    expect(ep.subsets![0]!.ports).toEqual([{ name: 'http', port: 8080 }]);
    expect(
      ep.metadata!.annotations!['endpoints.kubernetes.io/last-change-trigger-time'],
    ).toBeDefined();
    expect(recorder.events).toEqual([]);
    stop.abort();
    await running;
    await factory.shutdown();
    expect(controller.queue.shuttingDown()).toBe(true);
    expect(clock.hasWaiters()).toBe(false);
    await expect(controller.run(1, stop.signal)).rejects.toThrow(/has stopped/);
  });

  it('rejects bad options and worker counts', async () => {
    const fx = endpointsFixture();
    await expect(fx.controller.run(1.5, new AbortController().signal)).rejects.toThrow(RangeError);
    expect(() => endpointsFixture({ batchPeriod: -1 })).toThrow(RangeError);
  });
});
