// Ports of pkg/controller/deployment/util/deployment_util_test.go, plus the
// helpers it does not cover.
import type { Deployment, DeploymentStatus, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  annotationsToSkip,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  equalIgnoreHash,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  getActualReplicaCountForReplicaSets,
  getAvailableReplicaCountForReplicaSets,
  getDeploymentCondition,
  getDeploymentsForReplicaSet,
  getDesiredReplicasAnnotation,
  getProportion,
  getReadyReplicaCountForReplicaSets,
  getReplicaCountForReplicaSets,
  getReplicaSetFraction,
  getScaledValueFromIntOrPercent,
  hasProgressDeadline,
  hasRevisionHistoryLimit,
  isSaturated,
  lastRevision,
  listReplicaSets,
  maxRevision,
  maxSurge,
  maxUnavailable,
  minAvailable,
  newDeploymentCondition,
  newRSNewReplicas,
  removeDeploymentCondition,
  replicaSetNameFor,
  replicaSetsByRevision,
  replicaSetToDeploymentCondition,
  replicasAnnotationsNeedUpdate,
  resolveFenceposts,
  revision,
  revisionAnnotation,
  revisionHistoryAnnotation,
  rsListFromClient,
  setDeploymentAnnotationsTo,
  setDeploymentCondition,
  setDeploymentRevision,
  setFromReplicaSetTemplate,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  desiredReplicasAnnotation,
  maxReplicasAnnotation,
} from '../../src/index.js';
import {
  FakeClient,
  fakeInformer,
  generateDeployment,
  generateRS,
  newDeployment,
  newReplicaSet,
  rs,
  withStatus,
  meta,
} from '../helpers/fixtures.js';

const hashKey = 'pod-template-hash';

function podTemplate(
  name: string,
  nodeName: string,
  annotations: Record<string, string>,
  labels: Record<string, string>,
): PodTemplateSpec {
  return { metadata: { name, annotations, labels }, spec: { nodeName, containers: [] } };
}

describe('equalIgnoreHash', () => {
  const cases: [string, PodTemplateSpec, PodTemplateSpec, boolean][] = [
    [
      'same spec, same labels',
      podTemplate('foo', 'foo-node', {}, { [hashKey]: 'value-1', something: 'else' }),
      podTemplate('foo', 'foo-node', {}, { [hashKey]: 'value-1', something: 'else' }),
      true,
    ],
    [
      'same spec, only the pod-template-hash value differs',
      podTemplate('foo', 'foo-node', {}, { [hashKey]: 'value-1', something: 'else' }),
      podTemplate('foo', 'foo-node', {}, { [hashKey]: 'value-2', something: 'else' }),
      true,
    ],
    [
      'same spec, the former has no pod-template-hash',
      podTemplate('foo', 'foo-node', {}, { something: 'else' }),
      podTemplate('foo', 'foo-node', {}, { [hashKey]: 'value-2', something: 'else' }),
      true,
    ],
    [
      'different labels, the former has no hash, same number of labels',
      podTemplate('foo', 'foo-node', {}, { something: 'else' }),
      podTemplate('foo', 'foo-node', {}, { [hashKey]: 'value-2' }),
      false,
    ],
    [
      'different labels, the latter has no hash, same number of labels',
      podTemplate('foo', 'foo-node', {}, { [hashKey]: 'value-1' }),
      podTemplate('foo', 'foo-node', {}, { something: 'else' }),
      false,
    ],
    [
      'different labels, same hash value',
      podTemplate('foo', 'foo-node', {}, { [hashKey]: 'value-1' }),
      podTemplate('foo', 'foo-node', {}, { [hashKey]: 'value-1', something: 'else' }),
      false,
    ],
    [
      'different spec, same labels',
      podTemplate(
        'foo',
        'foo-node',
        { former: 'value' },
        { [hashKey]: 'value-1', something: 'else' },
      ),
      podTemplate(
        'foo',
        'foo-node',
        { latter: 'value' },
        { [hashKey]: 'value-1', something: 'else' },
      ),
      false,
    ],
    [
      'different spec, different hash values',
      podTemplate('foo-1', 'foo-node', {}, { [hashKey]: 'value-1', something: 'else' }),
      podTemplate('foo-2', 'foo-node', {}, { [hashKey]: 'value-2', something: 'else' }),
      false,
    ],
    [
      'different spec, the former has no hash',
      podTemplate('foo-1', 'foo-node-1', {}, { something: 'else' }),
      podTemplate('foo-2', 'foo-node-2', {}, { [hashKey]: 'value-2', something: 'else' }),
      false,
    ],
    [
      'different spec, different labels',
      podTemplate('foo', 'foo-node-1', {}, { something: 'else' }),
      podTemplate('foo', 'foo-node-2', {}, { nothing: 'else' }),
      false,
    ],
  ];
  it.each(cases)('%s', (_name, former, latter, expected) => {
    const before = [structuredClone(former), structuredClone(latter)];
    expect(equalIgnoreHash(former, latter)).toBe(expected);
    expect(equalIgnoreHash(latter, former)).toBe(expected);
    // Neither template loses its hash label.
    expect([former, latter]).toEqual(before);
  });

  it('treats missing, null and empty maps and lists alike, but not zero scalars', () => {
    const a: PodTemplateSpec = { metadata: { labels: {} }, spec: { containers: [], volumes: [] } };
    const b: PodTemplateSpec = { spec: { containers: [] } };
    expect(equalIgnoreHash(a, b)).toBe(true);
    const c: PodTemplateSpec = { spec: { containers: [], terminationGracePeriodSeconds: 0 } };
    expect(equalIgnoreHash(b, c)).toBe(false);
  });
});

describe('findNewReplicaSet and findOldReplicaSets', () => {
  const now = '2026-01-01T00:01:00Z';
  const later = '2026-01-01T00:02:00Z';
  const before = '2026-01-01T00:00:00Z';

  function fixture() {
    const deployment = generateDeployment('nginx');
    const newRS = generateRS(deployment);
    newRS.spec!.replicas = 1;
    newRS.metadata!.labels![hashKey] = 'hash';
    meta(newRS).creationTimestamp = later;
    const newRSDup = generateRS(deployment);
    newRSDup.metadata!.labels![hashKey] = 'different-hash';
    meta(newRSDup).creationTimestamp = now;
    const oldDeployment = generateDeployment('nginx');
    oldDeployment.spec!.template.spec!.containers[0]!.name = 'nginx-old-1';
    const oldRS = generateRS(oldDeployment);
    meta(oldRS).creationTimestamp = before;
    return { deployment, newRS, newRSDup, oldRS };
  }

  it('finds the ReplicaSet with the same template whatever its hash', () => {
    const { deployment, newRS, oldRS } = fixture();
    expect(findNewReplicaSet(deployment, [newRS, oldRS])).toBe(newRS);
  });
  it('picks the oldest when two have the template', () => {
    const { deployment, newRS, newRSDup, oldRS } = fixture();
    expect(findNewReplicaSet(deployment, [newRS, oldRS, newRSDup])).toBe(newRSDup);
  });
  it('finds none', () => {
    const { deployment, oldRS } = fixture();
    expect(findNewReplicaSet(deployment, [oldRS])).toBeUndefined();
  });

  it('splits old ReplicaSets into those with replicas and all', () => {
    const { deployment, newRS, newRSDup, oldRS } = fixture();
    expect(findOldReplicaSets(deployment, [newRS, oldRS])).toEqual([[], [oldRS]]);
    expect(findOldReplicaSets(deployment, [oldRS])).toEqual([[], [oldRS]]);
    // Only the oldest matching ReplicaSet is new; the other one is old.
    const [required, all] = findOldReplicaSets(deployment, [oldRS, newRS, newRSDup]);
    expect(required).toEqual([newRS]);
    expect(all).toEqual([oldRS, newRS]);
    expect(findOldReplicaSets(deployment, [newRS])).toEqual([[], []]);
  });
});

describe('replica counts', () => {
  it('sums spec, status, ready and available replicas, skipping missing entries', () => {
    const a = withStatus(rs('a', 1, undefined), {
      replicas: 2,
      readyReplicas: 2,
      availableReplicas: 1,
    });
    const b = withStatus(rs('b', 2, undefined), {
      replicas: 3,
      readyReplicas: 1,
      availableReplicas: 1,
    });
    const c = withStatus(rs('c', 3, undefined), { replicas: 0 });
    expect(getReplicaCountForReplicaSets([a])).toBe(1);
    expect(getReplicaCountForReplicaSets([a, b, undefined, c])).toBe(6);
    expect(getActualReplicaCountForReplicaSets([a, b])).toBe(5);
    expect(getActualReplicaCountForReplicaSets([c])).toBe(0);
    expect(getReadyReplicaCountForReplicaSets([a, b, c])).toBe(3);
    expect(getAvailableReplicaCountForReplicaSets([a, b, c, null])).toBe(2);
  });
});

describe('resolveFenceposts', () => {
  const cases: [string | undefined, string | undefined, number, number, number, boolean][] = [
    ['0%', '0%', 0, 0, 1, false],
    ['39%', '39%', 10, 4, 3, false],
    ['oops', '39%', 10, 0, 0, true],
    ['55%', 'urg', 10, 0, 0, true],
    [undefined, '39%', 10, 0, 3, false],
    ['39%', undefined, 10, 4, 0, false],
    [undefined, undefined, 10, 0, 1, false],
  ];
  it.each(cases)('surge %s unavailable %s of %i', (s, u, desired, surge, unavail, fails) => {
    if (fails) {
      expect(() => resolveFenceposts(s, u, desired)).toThrow();
    } else {
      expect(resolveFenceposts(s, u, desired)).toEqual([surge, unavail]);
    }
  });

  it('resolves the 25%/25% defaults as the spec says', () => {
    expect(resolveFenceposts('25%', '25%', 10)).toEqual([3, 2]);
    expect(resolveFenceposts('25%', '25%', 1)).toEqual([1, 0]);
    expect(resolveFenceposts('25%', '25%', 3)).toEqual([1, 0]);
  });

  it('rounds surge up and unavailable down, and never leaves both at 0', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 1000 }),
        (ps, pu, desired) => {
          const [surge, unavailable] = resolveFenceposts(`${ps}%`, `${pu}%`, desired);
          expect(surge).toBe(Math.ceil((ps * desired) / 100));
          const floor = Math.floor((pu * desired) / 100);
          expect(unavailable).toBe(surge === 0 && floor === 0 ? 1 : floor);
          expect(surge + unavailable).toBeGreaterThanOrEqual(1);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('getScaledValueFromIntOrPercent', () => {
  it('passes numbers and scales percentages', () => {
    expect(getScaledValueFromIntOrPercent(3, 10, true)).toBe(3);
    expect(getScaledValueFromIntOrPercent('15%', 10, true)).toBe(2);
    expect(getScaledValueFromIntOrPercent('15%', 10, false)).toBe(1);
  });
  it("fails with upstream's messages", () => {
    expect(() => getScaledValueFromIntOrPercent(undefined, 10, true)).toThrow(
      'nil value for IntOrString',
    );
    expect(() => getScaledValueFromIntOrPercent('5', 10, true)).toThrow(
      'invalid value for IntOrString: invalid type: string is not a percentage',
    );
    expect(() => getScaledValueFromIntOrPercent('x%', 10, true)).toThrow(
      'invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax',
    );
  });
});

describe('newRSNewReplicas', () => {
  const cases: [string, string, number, number, number, number][] = [
    ['can not scale up - to newRSReplicas', 'RollingUpdate', 1, 5, 1, 5],
    ['scale up - to depReplicas', 'RollingUpdate', 6, 2, 10, 6],
    ['recreate - to depReplicas', 'Recreate', 3, 1, 1, 3],
  ];
  it.each(cases)('%s', (_n, type, depReplicas, newRSReplicas, surge, expected) => {
    const d = generateDeployment('nginx');
    d.spec!.replicas = depReplicas;
    d.spec!.strategy = { type, rollingUpdate: { maxUnavailable: 1, maxSurge: surge } };
    const newRC = generateRS(d);
    newRC.spec!.replicas = newRSReplicas;
    const rs5 = generateRS(d);
    rs5.spec!.replicas = 5;
    expect(newRSNewReplicas(d, [rs5], newRC)).toBe(expected);
  });
  it('rejects an unknown strategy', () => {
    const d = generateDeployment('nginx');
    d.spec!.strategy = { type: 'BlueGreen' };
    expect(() => newRSNewReplicas(d, [], generateRS(d))).toThrow(
      "deployment type BlueGreen isn't supported",
    );
  });
});

describe('conditions', () => {
  const progressing = () => ({ type: 'Progressing', status: 'False', reason: 'ForSomeReason' });
  const progressing2 = () => ({ type: 'Progressing', status: 'True', reason: 'BecauseItIs' });
  const available = () => ({ type: 'Available', status: 'True', reason: 'AwesomeController' });
  const status = (): DeploymentStatus => ({ conditions: [progressing(), available()] });

  it('gets a condition by type', () => {
    expect(getDeploymentCondition(status(), 'Available')).toEqual(available());
    expect(getDeploymentCondition(status(), 'ReplicaFailure')).toBeUndefined();
  });

  it('sets for the first time, adds, and overwrites', () => {
    const s1: DeploymentStatus = {};
    setDeploymentCondition(s1, available());
    expect(s1).toEqual({ conditions: [available()] });
    const s2: DeploymentStatus = { conditions: [progressing()] };
    setDeploymentCondition(s2, available());
    expect(s2).toEqual(status());
    const s3: DeploymentStatus = { conditions: [progressing()] };
    setDeploymentCondition(s3, progressing2());
    expect(s3).toEqual({ conditions: [progressing2()] });
  });

  it('leaves a condition with the same status and reason alone, and keeps the transition time when only the reason changes', () => {
    const t0 = Date.UTC(2026, 0, 1);
    const s: DeploymentStatus = {};
    setDeploymentCondition(s, newDeploymentCondition('Progressing', 'True', 'A', 'first', t0));
    setDeploymentCondition(
      s,
      newDeploymentCondition('Progressing', 'True', 'A', 'second', t0 + 5000),
    );
    expect(s.conditions).toEqual([
      {
        type: 'Progressing',
        status: 'True',
        reason: 'A',
        message: 'first',
        lastUpdateTime: '2026-01-01T00:00:00Z',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
    setDeploymentCondition(s, newDeploymentCondition('Available', 'True', 'X', 'x', t0));
    setDeploymentCondition(
      s,
      newDeploymentCondition('Progressing', 'True', 'B', 'third', t0 + 9000),
    );
    // Removed and appended at the end, keeping lastTransitionTime.
    expect(s.conditions?.map((c) => c.type)).toEqual(['Available', 'Progressing']);
    expect(s.conditions?.[1]).toMatchObject({
      reason: 'B',
      lastUpdateTime: '2026-01-01T00:00:09Z',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    setDeploymentCondition(s, newDeploymentCondition('Progressing', 'False', 'C', '', t0 + 12000));
    expect(s.conditions?.[1]?.lastTransitionTime).toBe('2026-01-01T00:00:12Z');
  });

  it('removes a condition', () => {
    const empty: DeploymentStatus = {};
    removeDeploymentCondition(empty, 'Progressing');
    expect(empty).toEqual({});
    const one: DeploymentStatus = { conditions: [progressing()] };
    removeDeploymentCondition(one, 'Progressing');
    expect(one).toEqual({});
    const both = status();
    removeDeploymentCondition(both, 'ReplicaFailure');
    expect(both).toEqual(status());
  });

  it('converts a ReplicaSet condition, both times from its transition time', () => {
    expect(
      replicaSetToDeploymentCondition({
        type: 'ReplicaFailure',
        status: 'True',
        reason: 'FailedCreate',
        message: 'quota',
        lastTransitionTime: '2026-01-01T00:00:03Z',
      }),
    ).toEqual({
      type: 'ReplicaFailure',
      status: 'True',
      reason: 'FailedCreate',
      message: 'quota',
      lastTransitionTime: '2026-01-01T00:00:03Z',
      lastUpdateTime: '2026-01-01T00:00:03Z',
    });
  });
});

describe('deploymentComplete', () => {
  const deployment = (
    desired: number,
    current: number,
    updated: number,
    available: number,
    maxUnavail: number,
    surge: number,
  ): Deployment => ({
    spec: {
      replicas: desired,
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: maxUnavail, maxSurge: surge },
      },
      selector: {},
      template: {},
    },
    status: { replicas: current, updatedReplicas: updated, availableReplicas: available },
  });
  const cases: [string, Deployment, boolean][] = [
    ['not complete: min but not all pods become available', deployment(5, 5, 5, 4, 1, 0), false],
    ['not complete: min availability is not honored', deployment(5, 5, 5, 3, 1, 0), false],
    ['complete', deployment(5, 5, 5, 5, 0, 0), true],
    ['not complete: all pods are available but not updated', deployment(5, 5, 4, 5, 0, 0), false],
    ['not complete: still running old pods', deployment(1, 2, 1, 1, 0, 1), false],
    ['not complete: one replica deployment never comes up', deployment(1, 1, 1, 0, 1, 1), false],
  ];
  it.each(cases)('%s', (_n, d, expected) => {
    expect(deploymentComplete(d, d.status!)).toBe(expected);
  });
  it('needs the status to have observed the generation', () => {
    const d = deployment(1, 1, 1, 1, 0, 0);
    d.metadata = { generation: 2 };
    expect(deploymentComplete(d, { ...d.status, observedGeneration: 1 })).toBe(false);
    expect(deploymentComplete(d, { ...d.status, observedGeneration: 2 })).toBe(true);
  });
});

describe('deploymentProgressing', () => {
  const st = (
    replicas: number,
    updatedReplicas: number,
    readyReplicas: number,
    availableReplicas: number,
  ) => ({
    replicas,
    updatedReplicas,
    readyReplicas,
    availableReplicas,
  });
  const cases: [string, DeploymentStatus, DeploymentStatus, boolean][] = [
    ['progressing: updated pods', st(10, 4, 4, 4), st(10, 6, 4, 4), true],
    ['not progressing', st(10, 4, 4, 4), st(10, 4, 4, 4), false],
    ['progressing: old pods removed', st(10, 4, 6, 6), st(8, 4, 6, 6), true],
    ['not progressing: less new pods', st(10, 7, 3, 3), st(10, 6, 3, 3), false],
    ['progressing: less overall but more new pods', st(10, 4, 7, 7), st(8, 8, 5, 5), true],
    ['progressing: more ready pods', st(10, 10, 9, 8), st(10, 10, 10, 8), true],
    ['progressing: more available pods', st(10, 10, 10, 9), st(10, 10, 10, 10), true],
  ];
  it.each(cases)('%s', (_n, old, next, expected) => {
    expect(deploymentProgressing({ status: old }, next)).toBe(expected);
  });
});

describe('deploymentTimedOut', () => {
  const at = (min: number, sec: number) => Date.UTC(2016, 0, 1, 0, min, sec);
  const deployment = (
    reason: string,
    pds: number | undefined,
    from: number | undefined,
  ): Deployment => ({
    spec: {
      ...(pds !== undefined ? { progressDeadlineSeconds: pds } : {}),
      selector: {},
      template: {},
    },
    status: {
      conditions: [
        {
          type: 'Progressing',
          status: 'True',
          reason,
          ...(from !== undefined
            ? { lastUpdateTime: new Date(from).toISOString().replace('.000', '') }
            : {}),
        },
      ],
    },
  });
  const cases: [string, Deployment, number, boolean][] = [
    [
      'nil progressDeadlineSeconds - no timeout',
      deployment('', undefined, at(1, 9)),
      at(1, 20),
      false,
    ],
    [
      'infinite progressDeadlineSeconds - no timeout',
      deployment('', 2147483647, at(1, 9)),
      at(1, 20),
      false,
    ],
    ['10s deadline, 11s since the last progress', deployment('', 10, at(1, 9)), at(1, 20), true],
    ['10s deadline, 9s since the last progress', deployment('', 10, at(1, 11)), at(1, 20), false],
    [
      'exactly at the deadline is not yet a timeout',
      deployment('', 10, at(1, 10)),
      at(1, 20),
      false,
    ],
    [
      'previous status was a complete deployment',
      deployment('NewReplicaSetAvailable', 10, undefined),
      at(1, 20),
      false,
    ],
    ['already timed out', deployment('ProgressDeadlineExceeded', 600, at(1, 19)), at(1, 20), true],
  ];
  it.each(cases)('%s', (_n, d, now, expected) => {
    expect(deploymentTimedOut(d, d.status!, now)).toBe(expected);
  });
  it('has no base to judge without a Progressing condition', () => {
    expect(
      deploymentTimedOut(
        { spec: { progressDeadlineSeconds: 1, selector: {}, template: {} } },
        {},
        at(9, 0),
      ),
    ).toBe(false);
  });
});

describe('maxUnavailable, minAvailable, maxSurge', () => {
  const deployment = (
    replicas: number,
    maxUnavail: number | string,
    surge: number | string = 1,
  ): Deployment => ({
    spec: {
      replicas,
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: surge, maxUnavailable: maxUnavail },
      },
      selector: {},
      template: {},
    },
  });
  const recreate: Deployment = {
    spec: { replicas: 10, strategy: { type: 'Recreate' }, selector: {}, template: {} },
  };
  it.each([
    ['less than replicas', deployment(10, 5), 5],
    ['equal replicas', deployment(10, 10), 10],
    ['greater than replicas', deployment(5, 10), 5],
    ['replicas is 0', deployment(0, 10), 0],
    ['Recreate', recreate, 0],
    ['less than replicas with percents', deployment(10, '50%'), 5],
    ['equal replicas with percents', deployment(10, '100%'), 10],
    ['greater than replicas with percents', deployment(5, '100%'), 5],
  ] as [string, Deployment, number][])('maxUnavailable: %s', (_n, d, expected) => {
    expect(maxUnavailable(d)).toBe(expected);
  });
  it.each([
    ['replicas greater than maxUnavailable', deployment(10, 5), 5],
    ['replicas equal maxUnavailable', deployment(10, 10), 0],
    ['replicas less than maxUnavailable', deployment(5, 10), 0],
    ['replicas is 0', deployment(0, 10), 0],
    ['Recreate', recreate, 0],
    ['greater with percents', deployment(10, '60%'), 4],
    ['equal with percents', deployment(10, '100%'), 0],
    ['less with percents', deployment(5, '100%'), 0],
  ] as [string, Deployment, number][])('minAvailable: %s', (_n, d, expected) => {
    expect(minAvailable(d)).toBe(expected);
  });
  it('maxSurge: the fencepost surge for RollingUpdate, 0 for Recreate or a malformed value', () => {
    expect(maxSurge(deployment(10, '25%', '25%'))).toBe(3);
    expect(maxSurge(recreate)).toBe(0);
    expect(maxSurge(deployment(10, 'bad', '25%'))).toBe(0);
  });
});

describe('annotations', () => {
  it('reads the desired-replicas annotation as a non-negative int32', () => {
    const cases: [Record<string, string> | undefined, number | undefined][] = [
      [undefined, undefined],
      [{ [desiredReplicasAnnotation]: 'invalid' }, undefined],
      [{ [desiredReplicasAnnotation]: '-1' }, undefined],
      [{ [desiredReplicasAnnotation]: '0' }, 0],
      [{ [desiredReplicasAnnotation]: '13' }, 13],
      [{ [desiredReplicasAnnotation]: '2147483647' }, 2147483647],
      [{ [desiredReplicasAnnotation]: '2147483648' }, undefined],
      [{ [desiredReplicasAnnotation]: '4294967296' }, undefined],
    ];
    for (const [annotations, expected] of cases) {
      const r = rs('r', 1, undefined);
      if (annotations) r.metadata!.annotations = annotations;
      expect(getDesiredReplicasAnnotation(r)).toBe(expected);
    }
  });

  it('raises the revision and keeps a length-limited history (SetNewReplicaSetAnnotations)', () => {
    const d = generateDeployment('nginx');
    const r = generateRS(d);
    d.metadata!.annotations![revisionAnnotation] = '1';
    for (let i = 10; i < 20; i++) {
      const next = String(i + 1);
      setNewReplicaSetAnnotations(d, r, next, true, 5);
      if (i >= 12)
        expect(r.metadata?.annotations?.[revisionHistoryAnnotation]).toBe(`${i - 1},${i}`);
      expect(r.metadata?.annotations?.[revisionAnnotation]).toBe(next);
    }
    expect(setReplicasAnnotations(r, 10, 11)).toBe(true);
    expect(r.metadata?.annotations?.[desiredReplicasAnnotation]).toBe('10');
    expect(r.metadata?.annotations?.[maxReplicasAnnotation]).toBe('11');
    expect(setReplicasAnnotations(r, 10, 11)).toBe(false);

    r.metadata!.annotations![desiredReplicasAnnotation] = '1';
    withStatus(r, { replicas: 1, availableReplicas: 1 });
    r.spec!.replicas = 1;
    expect(isSaturated(d, r)).toBe(true);
  });

  it('copies annotations but not the skipped ones, never lowers a revision, and sizes a ReplicaSet about to be created', () => {
    const d = newDeployment('foo', 4, undefined, 1, 1, { app: 'foo' });
    d.metadata!.annotations = {
      'kubernetes.io/change-cause': 'kubectl set image',
      [revisionAnnotation]: '9',
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
      'deprecated.deployment.rollback.to': '2',
    };
    const r = rs('r', 0, undefined);
    r.metadata!.annotations = { [revisionAnnotation]: '7' };
    expect(setNewReplicaSetAnnotations(d, r, '3', false, 2000)).toBe(true);
    expect(r.metadata?.annotations).toEqual({
      'kubernetes.io/change-cause': 'kubectl set image',
      [revisionAnnotation]: '7',
      [desiredReplicasAnnotation]: '4',
      [maxReplicasAnnotation]: '5',
    });
    // Nothing new: no change reported.
    expect(setNewReplicaSetAnnotations(d, r, '7', true, 2000)).toBe(false);
    expect([...annotationsToSkip].sort()).toEqual([
      'deployment.kubernetes.io/desired-replicas',
      'deployment.kubernetes.io/max-replicas',
      'deployment.kubernetes.io/revision',
      'deployment.kubernetes.io/revision-history',
      'deprecated.deployment.rollback.to',
      'kubectl.kubernetes.io/last-applied-configuration',
    ]);
  });

  it('gives up on an unparsable old revision without touching it', () => {
    const d = newDeployment('foo', 1);
    const r = rs('r', 0, undefined);
    r.metadata!.annotations = { [revisionAnnotation]: 'x' };
    expect(setNewReplicaSetAnnotations(d, r, '3', true, 2000)).toBe(false);
    expect(r.metadata?.annotations?.[revisionAnnotation]).toBe('x');
  });

  it('drops old history entries from the front, or skips the append when even that is too long', () => {
    const d = newDeployment('foo', 1);
    const r = rs('r', 0, undefined);
    r.metadata!.annotations = { [revisionAnnotation]: '4', [revisionHistoryAnnotation]: '1,2,3' };
    setNewReplicaSetAnnotations(d, r, '6', true, 5);
    // 1,2,3 + 4 is 7 characters: dropping "1" brings it to 5.
    expect(r.metadata?.annotations?.[revisionHistoryAnnotation]).toBe('2,3,4');
    const long = rs('l', 0, undefined);
    long.metadata!.annotations = {
      [revisionAnnotation]: '123456',
      [revisionHistoryAnnotation]: '1',
    };
    setNewReplicaSetAnnotations(d, long, '200000', true, 3);
    expect(long.metadata?.annotations?.[revisionHistoryAnnotation]).toBe('1');
    expect(long.metadata?.annotations?.[revisionAnnotation]).toBe('200000');
  });

  it('knows when replica annotations need an update', () => {
    const withAnn = (a?: Record<string, string>): ReplicaSet => {
      const r = rs('hello', 1, { foo: 'bar' });
      if (a) r.metadata!.annotations = a;
      return r;
    };
    expect(replicasAnnotationsNeedUpdate(withAnn(), 10, 20)).toBe(true);
    expect(
      replicasAnnotationsNeedUpdate(
        withAnn({ [desiredReplicasAnnotation]: '8', [maxReplicasAnnotation]: '20' }),
        10,
        20,
      ),
    ).toBe(true);
    expect(
      replicasAnnotationsNeedUpdate(
        withAnn({ [desiredReplicasAnnotation]: '10', [maxReplicasAnnotation]: '16' }),
        10,
        20,
      ),
    ).toBe(true);
    expect(
      replicasAnnotationsNeedUpdate(
        withAnn({ [desiredReplicasAnnotation]: '10', [maxReplicasAnnotation]: '20' }),
        10,
        20,
      ),
    ).toBe(false);
  });

  it('sets the Deployment revision and copies a ReplicaSet’s annotations back on rollback', () => {
    const d = newDeployment('foo', 1);
    expect(setDeploymentRevision(d, '3')).toBe(true);
    expect(setDeploymentRevision(d, '3')).toBe(false);
    d.metadata!.annotations!['kubernetes.io/change-cause'] = 'edit';
    const r = rs('r', 0, undefined);
    r.metadata!.annotations = {
      'kubernetes.io/change-cause': 'create',
      [revisionAnnotation]: '1',
      other: 'x',
    };
    setDeploymentAnnotationsTo(d, r);
    expect(d.metadata?.annotations).toEqual({
      [revisionAnnotation]: '3',
      'kubernetes.io/change-cause': 'create',
      other: 'x',
    });
  });
});

describe('revisions', () => {
  const withRev = (name: string, rev?: string, ts?: string): ReplicaSet => {
    const r = rs(name, 0, undefined, ts);
    if (rev !== undefined) r.metadata!.annotations = { [revisionAnnotation]: rev };
    return r;
  };
  it('parses, and rejects what is not an int64', () => {
    expect(revision(withRev('a'))).toBe(0);
    expect(revision(withRev('a', '42'))).toBe(42);
    expect(() => revision(withRev('a', 'x'))).toThrow(
      'strconv.ParseInt: parsing "x": invalid syntax',
    );
    expect(() => revision(withRev('a', ''))).toThrow('invalid syntax');
    expect(() => revision(withRev('a', '99999999999999999999'))).toThrow('value out of range');
  });
  it('finds the max and the last revision, skipping unparsable ones', () => {
    const set = [
      withRev('a', '1'),
      withRev('b', '5'),
      withRev('c', 'x'),
      withRev('d', '3'),
      undefined,
    ];
    expect(maxRevision(set)).toBe(5);
    expect(lastRevision(set)).toBe(3);
    expect(maxRevision([])).toBe(0);
    // An equal maximum seen twice pushes the old maximum down.
    expect(lastRevision([withRev('a', '5'), withRev('b', '5')])).toBe(5);
    expect(lastRevision([withRev('a', '2')])).toBe(0);
  });
  it('orders by revision, then creation time, then name', () => {
    const list = [
      withRev('d', '2', '2026-01-01T00:00:00Z'),
      withRev('c', '2', '2026-01-01T00:00:05Z'),
      withRev('b', '1', '2026-01-01T00:00:09Z'),
      withRev('a', '2', '2026-01-01T00:00:00Z'),
      withRev('e', undefined, '2026-01-01T00:00:09Z'),
    ];
    expect(list.sort(replicaSetsByRevision).map((r) => r.metadata?.name)).toEqual([
      'e',
      'b',
      'a',
      'd',
      'c',
    ]);
    // An unparsable revision falls back to creation time for that pair.
    const bad = withRev('bad', 'x', '2026-01-01T00:00:01Z');
    expect(replicaSetsByRevision(bad, withRev('z', '1', '2026-01-01T00:00:02Z'))).toBe(-1);
    expect(replicaSetsByRevision(bad, withRev('z', '1', '2026-01-01T00:00:00Z'))).toBe(1);
  });
  it('has a deadline and a history limit unless unset or 2147483647', () => {
    const d = (pds?: number, limit?: number): Deployment => ({
      spec: {
        selector: {},
        template: {},
        ...(pds !== undefined && { progressDeadlineSeconds: pds }),
        ...(limit !== undefined && { revisionHistoryLimit: limit }),
      },
    });
    expect(hasProgressDeadline(d(600))).toBe(true);
    expect(hasProgressDeadline(d())).toBe(false);
    expect(hasProgressDeadline(d(2147483647))).toBe(false);
    expect(hasRevisionHistoryLimit(d(undefined, 0))).toBe(true);
    expect(hasRevisionHistoryLimit(d())).toBe(false);
    expect(hasRevisionHistoryLimit(d(undefined, 2147483647))).toBe(false);
  });
});

describe('findActiveOrLatest', () => {
  const at = (s: number) => `2026-01-01T00:00:0${s}Z`;
  it('is nothing with no ReplicaSets', () => {
    expect(findActiveOrLatest(undefined, [])).toBeUndefined();
  });
  it('is the one active ReplicaSet', () => {
    const a = rs('a', 0, undefined, at(1));
    const b = rs('b', 3, undefined, at(2));
    expect(findActiveOrLatest(undefined, [a, b])).toBe(b);
  });
  it('is the new one, or else the newest old one, when none is active', () => {
    const a = rs('a', 0, undefined, at(1));
    const b = rs('b', 0, undefined, at(2));
    const n = rs('n', 0, undefined, at(3));
    expect(findActiveOrLatest(n, [a, b])).toBe(n);
    expect(findActiveOrLatest(undefined, [a, b])).toBe(b);
  });
  it('is nothing when two are active', () => {
    expect(findActiveOrLatest(rs('n', 1, undefined), [rs('a', 1, undefined)])).toBeUndefined();
  });
});

describe('proportions', () => {
  const dep = (replicas: number, statusReplicas: number, surge: number): Deployment => {
    const d = generateDeployment('nginx');
    d.spec!.replicas = replicas;
    d.spec!.strategy = {
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: surge, maxUnavailable: 1 },
    };
    d.status = { replicas: statusReplicas };
    return d;
  };
  const cases: [
    string,
    number,
    number,
    number,
    number,
    Record<string, string> | undefined,
    number,
  ][] = [
    ['empty deployment always scales to 0', 0, 0, 0, 10, undefined, -10],
    ['no scaling when max-replicas is missing and status is empty', 10, 0, 0, 5, undefined, 0],
    [
      'no scaling when max-replicas is 0 and status is empty',
      10,
      0,
      0,
      5,
      { [maxReplicasAnnotation]: '0' },
      0,
    ],
    ['falls back to status.replicas when max-replicas is missing', 120, 100, 0, 50, undefined, 10],
    [
      'falls back to status.replicas when max-replicas is 0',
      120,
      100,
      0,
      50,
      { [maxReplicasAnnotation]: '0' },
      10,
    ],
    ['scale up by 1/5', 120, 0, 0, 50, { [maxReplicasAnnotation]: '100' }, 10],
    ['scale up with maxSurge by about 1/5', 120, 0, 10, 50, { [maxReplicasAnnotation]: '110' }, 9],
    ['scale down by 1/6', 10, 0, 0, 6, { [maxReplicasAnnotation]: '12' }, -1],
    [
      'scale down with maxSurge by about 1/6',
      100,
      0,
      10,
      50,
      { [maxReplicasAnnotation]: '130' },
      -8,
    ],
  ];
  it.each(cases)(
    'getReplicaSetFraction: %s',
    (_n, replicas, statusReplicas, surge, rsReplicas, annotations, expected) => {
      const d = dep(replicas, statusReplicas, surge);
      const r = generateRS(d);
      r.spec!.replicas = rsReplicas;
      if (annotations) r.metadata!.annotations = annotations;
      expect(getReplicaSetFraction(r, d)).toBe(expected);
    },
  );

  it('rounds halves away from zero', () => {
    const d = dep(5, 0, 0);
    const r = rs('r', 1, undefined);
    r.metadata!.annotations = { [maxReplicasAnnotation]: '2' }; // 1 × 5 / 2 = 2.5 → 3
    expect(getReplicaSetFraction(r, d)).toBe(2);
    const down = dep(1, 0, 0);
    const r2 = rs('r', 3, undefined);
    r2.metadata!.annotations = { [maxReplicasAnnotation]: '2' }; // 3 × 1 / 2 = 1.5 → 2
    expect(getReplicaSetFraction(r2, down)).toBe(-1);
  });

  it('getProportion clamps to what is left to add or remove', () => {
    const d = dep(20, 10, 0);
    const r = rs('r', 10, undefined);
    r.metadata!.annotations = { [maxReplicasAnnotation]: '10' }; // fraction +10
    expect(getProportion(r, d, 4, 0)).toBe(4);
    expect(getProportion(r, d, 4, 4)).toBe(0);
    expect(getProportion(undefined, d, 4, 0)).toBe(0);
    expect(getProportion(rs('z', 0, undefined), d, 4, 0)).toBe(0);
    const shrink = dep(1, 10, 0);
    expect(getProportion(r, shrink, -3, 0)).toBe(-3);
  });
});

describe('getDeploymentsForReplicaSet', () => {
  const informer = fakeInformer<Deployment>('deployment');
  for (let i = 0; i < 3; i++) {
    informer.add({
      metadata: { name: `deployment-${i}`, namespace: 'test' },
      spec: { selector: { matchLabels: { app: `test-${i}` } }, template: {} },
    });
  }
  informer.add({
    metadata: { name: 'selects-all', namespace: 'test' },
    spec: { selector: {}, template: {} },
  });
  const replicaSet = (i: number): ReplicaSet => ({
    metadata: {
      namespace: 'test',
      name: `test-replicaSet-${i}`,
      labels: { app: `test-${i}`, label: `label-${i}` },
    },
  });
  it.each([0, 1, 2])('finds the deployment of rs-%i', (i) => {
    expect(
      getDeploymentsForReplicaSet(informer.resource.lister(), replicaSet(i)).map(
        (d) => d.metadata?.name,
      ),
    ).toEqual([`deployment-${i}`]);
  });
  it.each([3, 4])('fails for rs-%i, naming its labels as Go prints them', (i) => {
    expect(() => getDeploymentsForReplicaSet(informer.resource.lister(), replicaSet(i))).toThrow(
      `could not find deployments set for ReplicaSet test-replicaSet-${i} in namespace test with labels: map[app:test-${i} label:label-${i}]`,
    );
  });
  it('fails for a ReplicaSet without labels', () => {
    expect(() =>
      getDeploymentsForReplicaSet(informer.resource.lister(), {
        metadata: { name: 'x', namespace: 'test' },
      }),
    ).toThrow('no deployments found for ReplicaSet x because it has no labels');
  });
});

describe('other helpers', () => {
  it('names ReplicaSets <deployment>-<hash>, shortening very long Deployment names', () => {
    expect(replicaSetNameFor('web', 'abc12')).toBe('web-abc12');
    const long = 'a'.repeat(260);
    const name = replicaSetNameFor(long, 'hash');
    expect(name).toHaveLength(253);
    expect(name).toBe(`${'a'.repeat(248)}-hash`);
    expect(replicaSetNameFor('a'.repeat(250), 'x'.repeat(253))).toBe(
      `${'a'.repeat(250)}-${'x'.repeat(253)}`,
    );
  });

  it('copies a ReplicaSet template into a Deployment without the hash label', () => {
    const d = newDeployment('foo', 1, undefined, 0, 1, { app: 'foo' });
    const template: PodTemplateSpec = {
      metadata: { labels: { app: 'foo', [hashKey]: 'h' } },
      spec: { containers: [{ name: 'c', image: 'old' }] },
    };
    setFromReplicaSetTemplate(d, template);
    expect(d.spec?.template).toEqual({
      metadata: { labels: { app: 'foo' } },
      spec: { containers: [{ name: 'c', image: 'old' }] },
    });
    expect(template.metadata?.labels?.[hashKey]).toBe('h');
  });

  it('lists the ReplicaSets a Deployment controls, live', async () => {
    const d = newDeployment('foo', 1, undefined, 0, 1, { app: 'foo' });
    const mine = newReplicaSet(d, 'mine', 1);
    const orphan = newReplicaSet(d, 'orphan', 1);
    orphan.metadata!.ownerReferences = [];
    const other = newReplicaSet(
      newDeployment('bar', 1, undefined, 0, 1, { app: 'bar' }),
      'other',
      1,
    );
    const client = new FakeClient<ReplicaSet>('replicasets', 'ReplicaSet').seed(
      mine,
      orphan,
      other,
    );
    const got = await listReplicaSets(d, rsListFromClient(client));
    expect(got.map((r) => r.metadata?.name)).toEqual(['mine']);
    expect(client.actions).toEqual([
      { verb: 'list', resource: 'replicasets', namespace: 'default', name: '' },
    ]);
  });
});
