// The RC <-> RS conversions: pkg/apis/core/v1/conversion_test.go's
// TestReplicationControllerConversion and TestReplicaSetConversion (the
// fixed object and generated ones, through JSON as the Go test goes through
// its codec), and the cases of conversion.go and LabelSelectorAsMap one by one.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { ReplicationController } from 'kubernetes-types/core/v1.js';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertRCtoRS, convertRStoRC } from '../../src/index.js';

/** Through JSON and back, as the Go tests round-trip through the wire codec. */
const wire = <T>(obj: T): T => JSON.parse(JSON.stringify(obj)) as T;

const failureCondition = {
  type: 'ReplicaFailure',
  status: 'True',
  lastTransitionTime: '1973-11-29T21:33:09Z',
  reason: 'Reason',
  message: 'Message',
};

/** The fixed ReplicationController of TestReplicationControllerConversion. */
const fixedRC: ReplicationController = {
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata: { name: 'name', namespace: 'namespace' },
  spec: {
    replicas: 1,
    minReadySeconds: 32,
    selector: { foo: 'bar', bar: 'foo' },
    template: {
      metadata: { labels: { foo: 'bar', bar: 'foo' } },
      spec: { containers: [{ name: 'container', image: 'image' }] },
    },
  },
  status: {
    replicas: 1,
    fullyLabeledReplicas: 2,
    readyReplicas: 3,
    availableReplicas: 4,
    observedGeneration: 5,
    conditions: [failureCondition],
  },
};

const labelKey = fc.stringMatching(/^[a-z][a-z0-9.-]{0,10}$/);
const labelMap = fc.dictionary(labelKey, fc.stringMatching(/^[a-zA-Z0-9]{0,8}$/), {
  maxKeys: 4,
});
const count = fc.integer({ min: 0, max: 1000 });
const condition = fc.record(
  {
    type: fc.constantFrom('ReplicaFailure', 'Other'),
    status: fc.constantFrom('True', 'False', 'Unknown'),
    lastTransitionTime: fc.constant('2026-01-01T00:00:00Z'),
    reason: fc.string({ maxLength: 8 }),
    message: fc.string({ maxLength: 20 }),
  },
  { requiredKeys: ['type', 'status'] },
);
const meta = fc.record(
  {
    name: labelKey,
    namespace: labelKey,
    uid: fc.uuid(),
    resourceVersion: fc.integer({ min: 1 }).map(String),
    generation: fc.integer({ min: 1, max: 100 }),
    labels: labelMap,
    annotations: labelMap,
    ownerReferences: fc.array(
      fc.record({
        apiVersion: fc.constantFrom('v1', 'apps/v1'),
        kind: fc.constantFrom('Deployment', 'DeploymentConfig'),
        name: labelKey,
        uid: fc.uuid(),
        controller: fc.boolean(),
      }),
      { maxLength: 2 },
    ),
  },
  { requiredKeys: ['name', 'namespace'] },
);
const status = fc.record(
  {
    replicas: count,
    fullyLabeledReplicas: count,
    readyReplicas: count,
    availableReplicas: count,
    observedGeneration: fc.integer({ min: 1, max: 100 }),
    conditions: fc.array(condition, { maxLength: 2 }),
  },
  { requiredKeys: ['replicas'] },
);
const template = fc.record({
  metadata: fc.record({ labels: labelMap, annotations: labelMap }, { requiredKeys: [] }),
  spec: fc.record({
    containers: fc.array(fc.record({ name: labelKey, image: labelKey }), {
      minLength: 1,
      maxLength: 2,
    }),
  }),
});

/** Generated RCs; as in Go, every one has a template (RS's is not optional upstream). */
const arbRC: fc.Arbitrary<ReplicationController> = fc
  .record(
    {
      metadata: meta,
      spec: fc.record(
        {
          replicas: count,
          minReadySeconds: fc.integer({ min: 0, max: 600 }),
          selector: labelMap.filter((m) => Object.keys(m).length > 0),
          template,
        },
        { requiredKeys: ['template'] },
      ),
      status,
    },
    { requiredKeys: ['metadata', 'spec'] },
  )
  .map((rc) => ({ apiVersion: 'v1' as const, kind: 'ReplicationController' as const, ...rc }));

/** Generated ReplicaSets whose selector is `matchLabels` only (or none), as Go's test forces. */
const arbRS: fc.Arbitrary<ReplicaSet> = fc
  .record(
    {
      metadata: meta,
      spec: fc.record(
        {
          replicas: count,
          minReadySeconds: fc.integer({ min: 0, max: 600 }),
          selector: labelMap
            .filter((m) => Object.keys(m).length > 0)
            .map((matchLabels) => ({ matchLabels })),
          template,
        },
        { requiredKeys: ['template'] },
      ),
      status,
    },
    { requiredKeys: ['metadata', 'spec'] },
  )
  .map((rs) => rs as ReplicaSet);

describe('TestReplicationControllerConversion: RC -> RS -> RC keeps every field', () => {
  it('for the fixed ReplicationController', () => {
    const rs = wire(convertRCtoRS(wire(fixedRC)));
    expect(rs.spec?.selector).toEqual({ matchLabels: { foo: 'bar', bar: 'foo' } });
    expect(rs.status?.conditions).toEqual([failureCondition]);
    expect(convertRStoRC(rs)).toEqual(fixedRC);
  });

  it('for generated ReplicationControllers', () => {
    fc.assert(
      fc.property(arbRC, (rc) => {
        const input = wire(rc);
        expect(convertRStoRC(wire(convertRCtoRS(input)))).toEqual(input);
      }),
      { numRuns: 100, seed: 152 },
    );
  });
});

describe('TestReplicaSetConversion: RS -> RC -> RS keeps every field', () => {
  it('for the fixed ReplicaSet', () => {
    const rs: ReplicaSet = {
      metadata: { name: 'name', namespace: 'namespace', labels: { foo: 'bar', bar: 'foo' } },
      spec: {
        replicas: 1,
        minReadySeconds: 32,
        selector: { matchLabels: { foo: 'bar', bar: 'foo' } },
        template: {
          metadata: { labels: { foo: 'bar', bar: 'foo' } },
          spec: { containers: [{ name: 'container', image: 'image' }] },
        },
      },
      status: {
        replicas: 1,
        fullyLabeledReplicas: 2,
        readyReplicas: 3,
        availableReplicas: 4,
        observedGeneration: 5,
        conditions: [failureCondition],
      },
    };
    const rc = wire(convertRStoRC(wire(rs)));
    expect(rc.spec?.selector).toEqual({ foo: 'bar', bar: 'foo' });
    expect(convertRCtoRS(rc)).toEqual(rs);
  });

  it('for generated ReplicaSets', () => {
    fc.assert(
      fc.property(arbRS, (rs) => {
        const input = wire(rs);
        expect(convertRCtoRS(wire(convertRStoRC(input)))).toEqual(input);
      }),
      { numRuns: 100, seed: 152 },
    );
  });

  it('drops status.terminatingReplicas, which ReplicationControllers do not have', () => {
    const rs = {
      metadata: { name: 'x' },
      spec: { selector: { matchLabels: { a: 'b' } } },
      status: { replicas: 2, terminatingReplicas: 1 },
    } as ReplicaSet;
    expect(convertRStoRC(rs).status).toEqual({ replicas: 2 });
  });
});

describe('convertRCtoRS', () => {
  it('keeps the metadata that adoption and events rely on, and sets no kind', () => {
    const rc = wire(fixedRC);
    rc.metadata = {
      ...rc.metadata,
      uid: 'u1',
      resourceVersion: '7',
      generation: 3,
      deletionTimestamp: '2026-01-01T00:00:00Z',
    };
    const rs = convertRCtoRS(rc);
    expect(rs.metadata).toEqual(rc.metadata);
    expect(rs.apiVersion).toBeUndefined();
    expect(rs.kind).toBeUndefined();
  });

  it.each<[string, ReplicationController['spec'], ReplicaSet['spec'] | undefined]>([
    [
      'a map selector becomes matchLabels',
      { selector: { a: 'b' } },
      { selector: { matchLabels: { a: 'b' } } },
    ],
    ['an empty map becomes the empty selector', { selector: {} }, { selector: {} }],
    ['no selector stays none', { replicas: 2 }, { replicas: 2 } as ReplicaSet['spec']],
    [
      'replicas 0 stays 0',
      { replicas: 0, selector: { a: 'b' } },
      { replicas: 0, selector: { matchLabels: { a: 'b' } } },
    ],
  ])('%s', (_name, spec, want) => {
    const rs = convertRCtoRS({ metadata: { name: 'x' }, ...(spec && { spec }) });
    expect(rs.spec).toEqual(want);
  });

  it('leaves the legacy init-container annotations out of the template (dropInitContainerAnnotations)', () => {
    const rc = wire(fixedRC);
    rc.spec!.template!.metadata!.annotations = {
      'pod.beta.kubernetes.io/init-containers': '[]',
      'pod.alpha.kubernetes.io/init-container-statuses': '[]',
      keep: 'me',
    };
    expect(convertRCtoRS(rc).spec?.template?.metadata?.annotations).toEqual({ keep: 'me' });
    // The cache's object is not changed.
    expect(Object.keys(rc.spec!.template!.metadata!.annotations)).toHaveLength(3);
  });

  it('rejects what is not a ReplicationController with an error naming it', () => {
    expect(() => convertRCtoRS(null as unknown as ReplicationController)).toThrow(
      "can't convert ReplicationController to ReplicaSet: got null, not an object",
    );
    expect(() =>
      convertRCtoRS({
        metadata: { name: 'web', namespace: 'ns' },
        spec: { selector: { app: 3 as unknown as string } },
      }),
    ).toThrow(
      `can't convert ReplicationController ns/web to ReplicaSet: selector value of "app" is number, not a string`,
    );
    expect(() =>
      convertRCtoRS({
        metadata: { name: 'web' },
        spec: 'x' as unknown as ReplicationController['spec'],
      }),
    ).toThrow(TypeError);
  });
});

describe('convertRStoRC', () => {
  it('writes apiVersion v1 and kind ReplicationController, and always a template', () => {
    const rc = convertRStoRC({
      metadata: { name: 'x' },
      spec: { selector: { matchLabels: { a: 'b' } } },
    });
    expect(rc).toEqual({
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'x' },
      spec: { selector: { a: 'b' }, template: {} },
    });
  });

  it('turns In expressions of one value into map entries (LabelSelectorAsMap)', () => {
    const rc = convertRStoRC({
      metadata: { name: 'x' },
      spec: {
        selector: {
          matchLabels: { a: 'b' },
          matchExpressions: [{ key: 'c', operator: 'In', values: ['d'] }],
        },
      },
    });
    expect(rc.spec?.selector).toEqual({ a: 'b', c: 'd' });
  });

  it.each([
    [
      { key: 'c', operator: 'In', values: ['d', 'e'] },
      'operator "In" without a single value cannot be converted into the old label selector format',
    ],
    [
      { key: 'c', operator: 'NotIn', values: ['d'] },
      'operator "NotIn" cannot be converted into the old label selector format',
    ],
    [
      { key: 'c', operator: 'Exists' },
      'operator "Exists" cannot be converted into the old label selector format',
    ],
    [{ key: 'c', operator: 'Bogus' }, '"Bogus" is not a valid selector operator'],
  ])('refuses a selector a map cannot hold: %o', (expr, message) => {
    const rs: ReplicaSet = {
      metadata: { name: 'web', namespace: 'ns' },
      spec: { selector: { matchExpressions: [expr] } },
    };
    expect(() => convertRStoRC(rs)).toThrow(
      `can't convert ReplicaSet to ReplicationController ns/web: ${message}`,
    );
  });

  it('omits an empty selector, as the wire form of an empty map', () => {
    expect(convertRStoRC({ metadata: { name: 'x' }, spec: { selector: {} } }).spec).toEqual({
      template: {},
    });
  });
});
