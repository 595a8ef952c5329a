// Ports of util/daemonset_util_test.go (TestIsPodUpdated,
// TestCreatePodTemplate, TestReplaceDaemonSetPodNodeNameNodeAffinity,
// TestGetTargetNodeName), plus the tolerations every daemon pod gets and
// the maxSurge/maxUnavailable arithmetic.
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Affinity, Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  addOrUpdateDaemonPodTolerations,
  allowsSurge,
  controllerRevisionHashLabelKey,
  createPodTemplate,
  daemonSetTemplateGenerationKey,
  getScaledValueFromIntOrPercent,
  getTargetNodeName,
  getTemplateGeneration,
  isPodUpdated,
  replaceDaemonSetPodNodeNameNodeAffinity,
  surgeCount,
  unavailableCount,
} from '../src/daemonset-util.js';
import { newDaemonSet } from './helpers.js';

const pod = (labels?: Record<string, string>): Pod => ({
  metadata: { name: 'pod1', namespace: 'default', ...(labels && { labels }) },
  spec: { nodeName: 'node1', containers: [{ name: 'c', image: 'foo/bar' }] },
});

describe('isPodUpdated (TestIsPodUpdated)', () => {
  const generation = 12345n;
  const bad = 12350n;
  const hash = '55555';
  const labels = {
    [daemonSetTemplateGenerationKey]: '12345',
    [controllerRevisionHashLabelKey]: hash,
  };
  const labelsNoHash = { [daemonSetTemplateGenerationKey]: '12345' };
  it.each([
    ['templateGeneration and hash both match', generation, labels, hash, true],
    ["templateGeneration matches, hash doesn't", generation, labels, hash + '123', true],
    ['templateGeneration matches, no hash label, has hash', generation, labelsNoHash, hash, true],
    ['templateGeneration matches, no hash label, no hash', generation, labelsNoHash, '', true],
    ['templateGeneration matches, has hash label, no hash', generation, labels, '', true],
    ["templateGeneration doesn't match, hash does", bad, labels, hash, true],
    ["templateGeneration and hash don't match", bad, labels, hash + '123', false],
    ['empty labels, no hash', generation, {}, '', false],
    ['empty labels', generation, {}, hash, false],
    ['no labels', generation, undefined, hash, false],
  ] as const)('%s', (_name, gen, podLabels, h, want) => {
    expect(isPodUpdated(pod(podLabels ? { ...podLabels } : undefined), h, gen)).toBe(want);
  });
});

describe('createPodTemplate (TestCreatePodTemplate)', () => {
  it.each([
    [1n, '', false],
    [2n, '3242341807', true],
  ] as const)('generation %s, hash %j', (gen, hash, expectHash) => {
    const t = createPodTemplate({}, gen, hash);
    expect(t.metadata?.labels?.[daemonSetTemplateGenerationKey]).toBe(String(gen));
    expect(t.metadata?.labels?.[controllerRevisionHashLabelKey]).toBe(
      expectHash ? hash : undefined,
    );
  });

  it('adds the daemon tolerations and leaves the template it was given alone', () => {
    const template = { metadata: { labels: { a: 'b' } }, spec: { containers: [] } };
    const t = createPodTemplate(template, undefined, 'h');
    expect(t.spec?.tolerations).toHaveLength(6);
    expect(template).toEqual({ metadata: { labels: { a: 'b' } }, spec: { containers: [] } });
  });
});

describe('addOrUpdateDaemonPodTolerations', () => {
  it('adds the NoExecute and NoSchedule tolerations, network-unavailable only for hostNetwork', () => {
    const spec: PodSpec = { containers: [] };
    addOrUpdateDaemonPodTolerations(spec);
    expect(spec.tolerations).toEqual([
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    const host: PodSpec = { containers: [], hostNetwork: true };
    addOrUpdateDaemonPodTolerations(host);
    expect(host.tolerations?.at(-1)).toEqual({
      key: 'node.kubernetes.io/network-unavailable',
      operator: 'Exists',
      effect: 'NoSchedule',
    });
  });

  it('replaces a matching toleration with a time limit, and adds nothing twice', () => {
    const spec: PodSpec = {
      containers: [],
      tolerations: [
        {
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
        { key: 'custom', operator: 'Exists' },
      ],
    };
    addOrUpdateDaemonPodTolerations(spec);
    addOrUpdateDaemonPodTolerations(spec);
    expect(spec.tolerations).toHaveLength(7);
    expect(spec.tolerations?.[0]).toEqual({
      key: 'node.kubernetes.io/not-ready',
      operator: 'Exists',
      effect: 'NoExecute',
    });
    expect(spec.tolerations?.[1]).toEqual({ key: 'custom', operator: 'Exists' });
  });
});

const pinned = (...names: string[]): Affinity => ({
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: names }] },
      ],
    },
  },
});

describe('replaceDaemonSetPodNodeNameNodeAffinity (TestReplaceDaemonSetPodNodeNameNodeAffinity)', () => {
  const hostnameTerm = {
    matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['host_1'] }],
  };
  it.each<[string, Affinity | undefined, Affinity]>([
    ['no affinity', undefined, pinned('host_1')],
    [
      'a required hostname expression',
      {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [hostnameTerm] },
        },
      },
      pinned('host_1'),
    ],
    [
      'preferred terms are kept',
      {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 0, preference: hostnameTerm },
          ],
        },
      },
      {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 0, preference: hostnameTerm },
          ],
          ...pinned('host_1').nodeAffinity,
        },
      },
    ],
    ['two names', pinned('host_1', 'host_2'), pinned('host_1')],
    [
      'an expression term and a field term',
      {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'hostname', operator: 'In', values: ['host_1'] }] },
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['host_2'] }] },
            ],
          },
        },
      },
      pinned('host_1'),
    ],
    [
      'NotIn',
      {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['host_2'] }] },
            ],
          },
        },
      },
      pinned('host_1'),
    ],
    [
      'an unknown field key',
      {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchFields: [{ key: 'metadata.foo', operator: 'In', values: ['bar'] }] },
            ],
          },
        },
      },
      pinned('host_1'),
    ],
  ])('%s', (_name, affinity, want) => {
    expect(replaceDaemonSetPodNodeNameNodeAffinity(affinity, 'host_1')).toEqual(want);
  });
});

describe('getTargetNodeName (TestGetTargetNodeName)', () => {
  it('reads spec.nodeName, else the pinned name', () => {
    expect(getTargetNodeName({ spec: { nodeName: 'node-1', containers: [] } })).toBe('node-1');
    expect(getTargetNodeName({ spec: { containers: [], affinity: pinned('node-1') } })).toBe(
      'node-1',
    );
  });
  it('refuses two names, and a pod with neither', () => {
    expect(() =>
      getTargetNodeName({
        metadata: { name: 'pod3', namespace: 'default' },
        spec: { containers: [], affinity: pinned('node-1', 'node-2') },
      }),
    ).toThrow("the matchFields value of 'metadata.name' is not unique for pod default/pod3");
    expect(() =>
      getTargetNodeName({
        metadata: { name: 'pod4', namespace: 'default' },
        spec: { containers: [] },
      }),
    ).toThrow(
      'no spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution for pod default/pod4',
    );
  });
});

describe('surge and unavailability counts', () => {
  const withStrategy = (rollingUpdate: object | undefined, type = 'RollingUpdate'): DaemonSet => {
    const ds = newDaemonSet('x');
    ds.spec!.updateStrategy = { type, ...(rollingUpdate && { rollingUpdate }) };
    return ds;
  };
  it('scales percentages rounding up', () => {
    expect(unavailableCount(withStrategy({ maxUnavailable: '50%' }), 3)).toBe(2);
    expect(surgeCount(withStrategy({ maxSurge: '10%', maxUnavailable: 0 }), 5)).toBe(1);
    expect(surgeCount(withStrategy({ maxSurge: 2, maxUnavailable: 0 }), 5)).toBe(2);
    expect(getScaledValueFromIntOrPercent('0%', 7, true)).toBe(0);
  });
  it('is 0 for OnDelete and without maxSurge', () => {
    expect(surgeCount(withStrategy(undefined, 'OnDelete'), 5)).toBe(0);
    expect(unavailableCount(withStrategy({ maxUnavailable: 3 }, 'OnDelete'), 5)).toBe(0);
    expect(surgeCount(withStrategy({ maxUnavailable: 1 }), 5)).toBe(0);
    expect(allowsSurge(withStrategy({ maxUnavailable: 1 }))).toBe(false);
    expect(allowsSurge(withStrategy({ maxSurge: '1%', maxUnavailable: 0 }))).toBe(true);
  });
  it('refuses what is not a count or a percentage', () => {
    expect(() => unavailableCount(withStrategy({ maxUnavailable: 'x' }), 3)).toThrow(
      'string is not a percentage',
    );
    expect(() => unavailableCount(withStrategy({}), 3)).toThrow('nil value for IntOrString');
    expect(allowsSurge(withStrategy({ maxSurge: 'a%', maxUnavailable: 0 }))).toBe(false);
  });
});

describe('getTemplateGeneration', () => {
  it('reads the annotation, refusing what is not an int64', () => {
    const ds = newDaemonSet('x');
    expect(getTemplateGeneration(ds)).toBeUndefined();
    ds.metadata!.annotations = { 'deprecated.daemonset.template.generation': '7' };
    expect(getTemplateGeneration(ds)).toBe(7n);
    ds.metadata!.annotations = { 'deprecated.daemonset.template.generation': 'seven' };
    expect(() => getTemplateGeneration(ds)).toThrow('invalid syntax');
  });
});
