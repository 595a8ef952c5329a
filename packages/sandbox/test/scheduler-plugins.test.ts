// The simulated scheduler's filters and scores on their own, with cases
// ported from kube-scheduler's plugin tests (pkg/scheduler/framework/
// plugins/*/..._test.go, framework/types_test.go): the same pods, nodes
// and expected statuses and scores, and the FailedScheduling message.
import type { Container, Node, Pod, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  fitErrorMessage,
  newPodInfo,
  newStatus,
  NodeInfo,
  type Diagnosis,
  type FilterPlugin,
  type Status,
} from '../src/node/scheduler/framework.js';
import { preemptionMessage } from '../src/node/scheduler/plugins/default-preemption.js';
import { interPodAffinity } from '../src/node/scheduler/plugins/inter-pod-affinity.js';
import {
  nodeAffinityFilter,
  nodeAffinityScore,
} from '../src/node/scheduler/plugins/node-affinity.js';
import { nodePorts } from '../src/node/scheduler/plugins/node-ports.js';
import {
  leastAllocatedScore,
  nodeResourcesFitFilter,
} from '../src/node/scheduler/plugins/node-resources-fit.js';
import { nodeUnschedulable } from '../src/node/scheduler/plugins/node-unschedulable.js';
import {
  taintTolerationFilter,
  taintTolerationScore,
  toleratesTaint,
} from '../src/node/scheduler/plugins/taint-toleration.js';
import {
  claimsVolumeBinding,
  errUnboundImmediatePVC,
} from '../src/node/scheduler/plugins/volume-binding.js';
import { quantityMilliValue, quantityValue } from '../src/node/scheduler/quantity.js';
import { podRequests } from '../src/node/scheduler/resource.js';
import {
  defaultProfile,
  schedulePod,
  selectHost,
  type ScheduleResult,
} from '../src/node/scheduler/schedule-one.js';

const node = (
  name: string,
  o: {
    labels?: Record<string, string>;
    taints?: Taint[];
    allocatable?: Record<string, string>;
    unschedulable?: boolean;
  } = {},
): Node => ({
  metadata: { name, labels: o.labels ?? {} },
  spec: {
    ...(o.taints ? { taints: o.taints } : {}),
    ...(o.unschedulable ? { unschedulable: true } : {}),
  },
  status: { allocatable: o.allocatable ?? { cpu: '4', memory: '16Gi', pods: '110' } },
});

let seq = 0;
const pod = (spec: Partial<Pod['spec']> = {}, meta: Pod['metadata'] = {}): Pod => ({
  metadata: { name: `p${++seq}`, namespace: 'default', uid: `uid-${seq}`, ...meta },
  spec: { containers: [], ...spec },
});

const container = (
  requests: Record<string, string> = {},
  extra: Partial<Container> = {},
): Container => ({
  name: `c${++seq}`,
  image: 'nginx',
  resources: { requests },
  ...extra,
});

/** A NodeInfo with `pods` bound to it. */
function nodeInfo(n: Node, ...pods: Pod[]): NodeInfo {
  const info = new NodeInfo(n);
  for (const p of pods)
    info.addPod(newPodInfo({ ...p, spec: { ...p.spec!, nodeName: n.metadata!.name! } }));
  return info;
}

/** Runs one filter plugin as the framework does: PreFilter, then Filter on `info`. */
function filter(
  plugin: FilterPlugin,
  p: Pod,
  info: NodeInfo,
  all: NodeInfo[] = [info],
): Status | undefined {
  const out = plugin.preFilter(newPodInfo(p), all);
  if (out.status !== undefined) return out.status;
  return out.filter?.(info);
}

const withTolerations = (tolerations: Toleration[]) => pod({ tolerations });

describe('TaintToleration (taint_toleration_test.go)', () => {
  const untolerated = (key: string, value: string) =>
    newStatus('UnschedulableAndUnresolvable', `node(s) had untolerated taint {${key}: ${value}}`);
  const cases: { name: string; tolerations: Toleration[]; taints: Taint[]; want?: Status }[] = [
    {
      name: "A pod having no tolerations can't be scheduled onto a node with nonempty taints",
      tolerations: [],
      taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
      want: untolerated('dedicated', 'user1'),
    },
    {
      name: 'A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule',
      tolerations: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
      taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
    },
    {
      name: "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }],
      taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
      want: untolerated('dedicated', 'user1'),
    },
    {
      name: 'A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node',
      tolerations: [{ key: 'foo', operator: 'Exists', effect: 'NoSchedule' }],
      taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
    },
    {
      name: 'A pod has multiple tolerations, node has multiple taints, all the taints are tolerated',
      tolerations: [
        { key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' },
        { key: 'foo', operator: 'Exists', effect: 'NoSchedule' },
      ],
      taints: [
        { key: 'dedicated', value: 'user2', effect: 'NoSchedule' },
        { key: 'foo', value: 'bar', effect: 'NoSchedule' },
      ],
    },
    {
      name: "keys and values match the taint, but the (non-empty) effect doesn't: can't be scheduled",
      tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
      taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
      want: untolerated('foo', 'bar'),
    },
    {
      name: 'keys and values match the taint, the effect of the toleration is empty: can be scheduled',
      tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar' }],
      taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
    },
    {
      name: "key and value don't match, but the taint's effect is PreferNoSchedule: can be scheduled",
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }],
      taints: [{ key: 'dedicated', value: 'user1', effect: 'PreferNoSchedule' }],
    },
    {
      name: 'no toleration, but the taint is PreferNoSchedule: can be scheduled',
      tolerations: [],
      taints: [{ key: 'dedicated', value: 'user1', effect: 'PreferNoSchedule' }],
    },
    {
      name: 'a NoExecute taint keeps pods out as NoSchedule does',
      tolerations: [],
      taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }],
      want: untolerated('node.kubernetes.io/unreachable', ''),
    },
    {
      name: "kind's control-plane taint has no value",
      tolerations: [],
      taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
      want: untolerated('node-role.kubernetes.io/control-plane', ''),
    },
    {
      name: 'an empty key with Exists tolerates every taint',
      tolerations: [{ operator: 'Exists' }],
      taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const info = nodeInfo(node('nodeA', { taints: c.taints }));
      expect(filter(taintTolerationFilter, withTolerations(c.tolerations), info)).toEqual(c.want);
    });
  }

  it('matches a toleration to a taint by effect, key, operator and value', () => {
    const taint: Taint = { key: 'foo', value: 'bar', effect: 'NoSchedule' };
    expect(toleratesTaint({ key: 'foo', operator: 'Equal', value: 'bar' }, taint)).toBe(true);
    expect(toleratesTaint({ key: 'foo', value: 'bar', effect: 'NoExecute' }, taint)).toBe(false);
    expect(toleratesTaint({ key: 'foo', operator: 'Exists' }, taint)).toBe(true);
    expect(toleratesTaint({ key: 'other', operator: 'Exists' }, taint)).toBe(false);
    expect(toleratesTaint({ operator: 'Exists', effect: 'NoSchedule' }, taint)).toBe(true);
    expect(toleratesTaint({ key: 'foo', operator: 'Gt', value: 'bar' }, taint)).toBe(false);
  });

  const scoreCases: {
    name: string;
    tolerations: Toleration[];
    nodes: Taint[][];
    want: number[];
  }[] = [
    {
      name: 'node with taints tolerated by the pod gets a higher score than those with intolerable taints',
      tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
      nodes: [
        [{ key: 'foo', value: 'bar', effect: 'PreferNoSchedule' }],
        [{ key: 'foo', value: 'blah', effect: 'PreferNoSchedule' }],
      ],
      want: [100, 0],
    },
    {
      name: 'nodes whose taints are all tolerated get the same score, however many they have',
      tolerations: [
        { key: 'cpu-type', operator: 'Equal', value: 'arm64', effect: 'PreferNoSchedule' },
        { key: 'disk-type', operator: 'Equal', value: 'ssd', effect: 'PreferNoSchedule' },
      ],
      nodes: [
        [],
        [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }],
        [
          { key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' },
          { key: 'disk-type', value: 'ssd', effect: 'PreferNoSchedule' },
        ],
      ],
      want: [100, 100, 100],
    },
    {
      name: 'the more intolerable taints a node has, the lower score it gets',
      tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
      nodes: [
        [],
        [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }],
        [
          { key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' },
          { key: 'disk-type', value: 'ssd', effect: 'PreferNoSchedule' },
        ],
      ],
      want: [100, 50, 0],
    },
    {
      name: 'only PreferNoSchedule taints and tolerations are counted',
      tolerations: [
        { key: 'cpu-type', operator: 'Equal', value: 'arm64', effect: 'NoSchedule' },
        { key: 'disk-type', operator: 'Equal', value: 'ssd', effect: 'NoSchedule' },
      ],
      nodes: [
        [],
        [{ key: 'cpu-type', value: 'arm64', effect: 'NoSchedule' }],
        [
          { key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' },
          { key: 'disk-type', value: 'ssd', effect: 'PreferNoSchedule' },
        ],
      ],
      want: [100, 100, 0],
    },
  ];
  for (const c of scoreCases) {
    it(`score: ${c.name}`, () => {
      const infos = c.nodes.map((taints, i) => nodeInfo(node(`node${i}`, { taints })));
      const p = newPodInfo(withTolerations(c.tolerations));
      const score = taintTolerationScore.preScore(p, infos)!;
      expect(taintTolerationScore.normalize!(infos.map(score))).toEqual(c.want);
    });
  }
});

describe('NodeUnschedulable (node_unschedulable_test.go)', () => {
  it('keeps pods off a cordoned node unless they tolerate node.kubernetes.io/unschedulable', () => {
    const cordoned = nodeInfo(node('n', { unschedulable: true }));
    expect(filter(nodeUnschedulable, pod(), cordoned)).toEqual(
      newStatus('UnschedulableAndUnresolvable', 'node(s) were unschedulable'),
    );
    expect(filter(nodeUnschedulable, pod(), nodeInfo(node('n')))).toBeUndefined();
    const tolerating = withTolerations([
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    expect(filter(nodeUnschedulable, tolerating, cordoned)).toBeUndefined();
  });
});

describe('NodeAffinity (node_affinity_test.go)', () => {
  const errReasonPod = newStatus(
    'UnschedulableAndUnresolvable',
    "node(s) didn't match Pod's node affinity/selector",
  );
  const required = (...nodeSelectorTerms: object[]): Partial<Pod['spec']> => ({
    affinity: {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } },
    },
  });
  const cases: {
    name: string;
    spec: Partial<Pod['spec']>;
    labels?: Record<string, string>;
    nodeName?: string;
    want?: Status;
    nodeNames?: string[];
  }[] = [
    { name: 'missing labels', spec: { nodeSelector: { foo: 'bar' } }, want: errReasonPod },
    { name: 'same labels', spec: { nodeSelector: { foo: 'bar' } }, labels: { foo: 'bar' } },
    {
      name: 'node labels are superset',
      spec: { nodeSelector: { foo: 'bar' } },
      labels: { foo: 'bar', baz: 'blah' },
    },
    {
      name: 'node labels are subset',
      spec: { nodeSelector: { foo: 'bar', baz: 'blah' } },
      labels: { foo: 'bar' },
      want: errReasonPod,
    },
    {
      name: 'Pod with matchExpressions using In operator that matches the existing node',
      spec: required({
        matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar', 'value2'] }],
      }),
      labels: { foo: 'bar' },
    },
    {
      name: 'Pod with matchExpressions using Gt operator that matches the existing node',
      spec: required({
        matchExpressions: [{ key: 'kernel-version', operator: 'Gt', values: ['0204'] }],
      }),
      labels: { 'kernel-version': '0206' },
    },
    {
      name: 'Pod with matchExpressions using Lt operator that does not match the existing node',
      spec: required({
        matchExpressions: [{ key: 'kernel-version', operator: 'Lt', values: ['0204'] }],
      }),
      labels: { 'kernel-version': '0206' },
      want: errReasonPod,
    },
    {
      name: 'Pod with matchExpressions using NotIn operator that matches the existing node',
      spec: required({
        matchExpressions: [{ key: 'mem-type', operator: 'NotIn', values: ['DDR', 'DDR2'] }],
      }),
      labels: { 'mem-type': 'DDR3' },
    },
    {
      name: 'Pod with matchExpressions using Exists operator that matches the existing node',
      spec: required({ matchExpressions: [{ key: 'GPU', operator: 'Exists' }] }),
      labels: { GPU: 'NVIDIA-GRID-K1' },
    },
    {
      name: 'Pod with matchExpressions using DoesNotExist operator on a node with the label',
      spec: required({ matchExpressions: [{ key: 'GPU', operator: 'DoesNotExist' }] }),
      labels: { GPU: 'NVIDIA-GRID-K1' },
      want: errReasonPod,
    },
    {
      name: "Pod with affinity that don't match node's labels won't schedule onto the node",
      spec: required({
        matchExpressions: [{ key: 'foo', operator: 'In', values: ['value1', 'value2'] }],
      }),
      labels: { foo: 'bar' },
      want: errReasonPod,
    },
    {
      name: "Pod with an empty []NodeSelectorTerm in affinity, can't match the node's labels",
      spec: required(),
      labels: { foo: 'bar' },
      want: errReasonPod,
    },
    {
      name: 'Pod with empty MatchExpressions is not a valid value will match no objects',
      spec: required({ matchExpressions: [] }),
      labels: { foo: 'bar' },
      want: errReasonPod,
    },
    { name: 'Pod with no Affinity will schedule onto a node', spec: {}, labels: { foo: 'bar' } },
    {
      name: 'Pod with multiple matchExpressions ANDed that matches the existing node',
      spec: required({
        matchExpressions: [
          { key: 'GPU', operator: 'Exists' },
          { key: 'GPU', operator: 'NotIn', values: ['AMD', 'INTER'] },
        ],
      }),
      labels: { GPU: 'NVIDIA-GRID-K1' },
    },
    {
      name: "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
      spec: required({
        matchExpressions: [
          { key: 'GPU', operator: 'Exists' },
          { key: 'GPU', operator: 'In', values: ['AMD', 'INTER'] },
        ],
      }),
      labels: { GPU: 'NVIDIA-GRID-K1' },
      want: errReasonPod,
    },
    {
      name: "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels",
      spec: required(
        { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar', 'value2'] }] },
        { matchExpressions: [{ key: 'diffkey', operator: 'In', values: ['wrong', 'value2'] }] },
      ),
      labels: { foo: 'bar' },
    },
    {
      name: 'Pod with an Affinity and a PodSpec.NodeSelector both satisfied',
      spec: {
        nodeSelector: { foo: 'bar' },
        ...required({ matchExpressions: [{ key: 'foo', operator: 'Exists' }] }),
      },
      labels: { foo: 'bar' },
    },
    {
      name: "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector is not satisfied",
      spec: {
        nodeSelector: { foo: 'bar' },
        ...required({ matchExpressions: [{ key: 'foo', operator: 'Exists' }] }),
      },
      labels: { foo: 'barrrrrr' },
      want: errReasonPod,
    },
    {
      name: "Pod with an invalid value in Affinity term won't be scheduled onto the node",
      spec: required({
        matchExpressions: [{ key: 'foo', operator: 'NotIn', values: ['invalid value: ___@#$%^'] }],
      }),
      labels: { foo: 'bar' },
      want: errReasonPod,
    },
    {
      name: 'Pod with matchFields using In operator that matches the existing node',
      spec: required({
        matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }],
      }),
      nodeName: 'node1',
      nodeNames: ['node1'],
    },
    {
      name: 'Pod with matchFields using In operator that does not match the existing node',
      spec: required({
        matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }],
      }),
      nodeName: 'node2',
      want: errReasonPod,
      nodeNames: ['node1'],
    },
    {
      name: 'Pod with two terms: matchFields does not match, but matchExpressions matches',
      spec: required(
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] },
        { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] },
      ),
      nodeName: 'node2',
      labels: { foo: 'bar' },
    },
    {
      name: 'Pod with one term: matchFields does not match, but matchExpressions matches',
      spec: required({
        matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }],
        matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }],
      }),
      nodeName: 'node2',
      labels: { foo: 'bar' },
      want: errReasonPod,
      nodeNames: ['node1'],
    },
    {
      name: 'Pod with one term: both matchFields and matchExpressions match',
      spec: required({
        matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }],
        matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }],
      }),
      nodeName: 'node1',
      labels: { foo: 'bar' },
      nodeNames: ['node1'],
    },
    {
      name: 'Pod with matchFields using NotIn operator',
      spec: required({
        matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['node1'] }],
      }),
      nodeName: 'node1',
      want: errReasonPod,
    },
    {
      name: 'Pod with two terms of node.Name affinity',
      spec: required(
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] },
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node2'] }] },
      ),
      nodeName: 'node2',
      nodeNames: ['node1', 'node2'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = newPodInfo(pod(c.spec));
      const info = nodeInfo(node(c.nodeName ?? 'node1', { labels: c.labels ?? {} }));
      const out = nodeAffinityFilter.preFilter(p, [info]);
      expect(out.status).toBeUndefined();
      expect(out.nodeNames === undefined ? undefined : [...out.nodeNames].sort()).toEqual(
        c.nodeNames,
      );
      expect(out.filter?.(info)).toEqual(c.want);
    });
  }

  it('Pod with two conflicting match field requirements: rejected at PreFilter', () => {
    const p = newPodInfo(
      pod(
        required({
          matchFields: [
            { key: 'metadata.name', operator: 'In', values: ['node1'] },
            { key: 'metadata.name', operator: 'In', values: ['node2'] },
          ],
        }),
      ),
    );
    expect(nodeAffinityFilter.preFilter(p, []).status).toEqual(
      newStatus('UnschedulableAndUnresolvable', 'pod affinity terms conflict'),
    );
  });

  it('scores the preferred terms by their weights, normalized to 100', () => {
    const p = newPodInfo(
      pod({
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 2,
                preference: { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] },
              },
              {
                weight: 4,
                preference: {
                  matchExpressions: [{ key: 'key', operator: 'In', values: ['value'] }],
                },
              },
            ],
          },
        },
      }),
    );
    const infos = [
      nodeInfo(node('a', { labels: { foo: 'bar' } })),
      nodeInfo(node('b', { labels: { key: 'value' } })),
      nodeInfo(node('c', { labels: { foo: 'bar', key: 'value' } })),
      nodeInfo(node('d')),
    ];
    const score = nodeAffinityScore.preScore(p, infos)!;
    expect(infos.map(score)).toEqual([2, 4, 6, 0]);
    expect(nodeAffinityScore.normalize!(infos.map(score))).toEqual([33, 66, 100, 0]);
    expect(nodeAffinityScore.preScore(newPodInfo(pod()), infos)).toBeUndefined();
  });
});

describe('NodePorts (node_ports_test.go)', () => {
  const ports = (...specs: string[]): Container => ({
    name: `c${++seq}`,
    image: 'nginx',
    ports: specs.map((s) => {
      const [protocol, hostIP, port] = s.split('/') as ['TCP' | 'UDP', string, string];
      return { containerPort: Number(port), hostPort: Number(port), hostIP, protocol };
    }),
  });
  const conflict = newStatus(
    'Unschedulable',
    "node(s) didn't have free ports for the requested pod ports",
  );
  const cases: { name: string; want: string[]; used: string[]; conflict: boolean }[] = [
    { name: 'nothing running', want: [], used: [], conflict: false },
    {
      name: 'other port',
      want: ['UDP/127.0.0.1/8080'],
      used: ['UDP/127.0.0.1/9090'],
      conflict: false,
    },
    {
      name: 'same udp port',
      want: ['UDP/127.0.0.1/8080'],
      used: ['UDP/127.0.0.1/8080'],
      conflict: true,
    },
    {
      name: 'same tcp port',
      want: ['TCP/127.0.0.1/8080'],
      used: ['TCP/127.0.0.1/8080'],
      conflict: true,
    },
    {
      name: 'different host ip',
      want: ['TCP/127.0.0.1/8080'],
      used: ['TCP/127.0.0.2/8080'],
      conflict: false,
    },
    {
      name: 'different protocol',
      want: ['UDP/127.0.0.1/8080'],
      used: ['TCP/127.0.0.1/8080'],
      conflict: false,
    },
    {
      name: 'second udp port conflict',
      want: ['UDP/127.0.0.1/8000', 'UDP/127.0.0.1/8080'],
      used: ['UDP/127.0.0.1/8001', 'UDP/127.0.0.1/8080'],
      conflict: true,
    },
    {
      name: 'first tcp port conflict',
      want: ['TCP/127.0.0.1/8001', 'UDP/127.0.0.1/8080'],
      used: ['TCP/127.0.0.1/8001', 'UDP/127.0.0.1/8081'],
      conflict: true,
    },
    {
      name: 'first tcp port conflict due to 0.0.0.0 hostIP',
      want: ['TCP/0.0.0.0/8001'],
      used: ['TCP/127.0.0.1/8001'],
      conflict: true,
    },
    {
      name: 'TCP hostPort conflict due to 0.0.0.0 hostIP',
      want: ['TCP/10.0.10.10/8001', 'TCP/0.0.0.0/8001'],
      used: ['TCP/127.0.0.1/8001'],
      conflict: true,
    },
    {
      name: 'second tcp port conflict to 0.0.0.0 hostIP',
      want: ['TCP/127.0.0.1/8001'],
      used: ['TCP/0.0.0.0/8001'],
      conflict: true,
    },
    {
      name: 'second different protocol',
      want: ['UDP/127.0.0.1/8001'],
      used: ['TCP/0.0.0.0/8001'],
      conflict: false,
    },
    {
      name: 'UDP hostPort conflict due to 0.0.0.0 hostIP',
      want: ['UDP/127.0.0.1/8001'],
      used: ['TCP/0.0.0.0/8001', 'UDP/0.0.0.0/8001'],
      conflict: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const info = nodeInfo(node('n'), pod({ containers: [ports(...c.used)] }));
      expect(filter(nodePorts, pod({ containers: [ports(...c.want)] }), info)).toEqual(
        c.conflict ? conflict : undefined,
      );
    });
  }

  it('frees the ports of a pod that leaves the node', () => {
    const holder = newPodInfo({ ...pod({ containers: [ports('TCP/0.0.0.0/80')] }) });
    const info = nodeInfo(node('n'));
    info.addPod(holder);
    const wants = pod({ containers: [ports('TCP/0.0.0.0/80')] });
    expect(filter(nodePorts, wants, info)).toEqual(conflict);
    info.removePod(holder.uid);
    expect(filter(nodePorts, wants, info)).toBeUndefined();
  });
});

describe('NodeResourcesFit (fit_test.go)', () => {
  // makeAllocatableResources(10, 20, 32, ...): 10 milli-CPUs, 20 bytes, 32 pods.
  const small = (labels?: Record<string, string>) =>
    node('n', {
      labels: labels ?? {},
      allocatable: {
        cpu: '10m',
        memory: '20',
        pods: '32',
        'example.com/aaa': '5',
        'hugepages-2Mi': '0',
      },
    });
  const used = (cpu: string, memory: string) => pod({ containers: [container({ cpu, memory })] });
  const insufficient = (...reasons: string[]) => newStatus('Unschedulable', ...reasons);
  const cases: { name: string; pod: Pod; existing: Pod[]; want?: Status }[] = [
    { name: 'no resources requested always fits', pod: pod(), existing: [used('10m', '20')] },
    {
      name: 'too many resources fails',
      pod: pod({ containers: [container({ cpu: '1m', memory: '1' })] }),
      existing: [used('10m', '20')],
      want: insufficient('Insufficient cpu', 'Insufficient memory'),
    },
    {
      name: 'too many resources fails due to init container cpu',
      pod: pod({
        containers: [container({ cpu: '1m', memory: '1' })],
        initContainers: [container({ cpu: '3m', memory: '1' })],
      }),
      existing: [used('8m', '19')],
      want: insufficient('Insufficient cpu'),
    },
    {
      name: 'too many resources fails due to highest init container cpu',
      pod: pod({
        containers: [container({ cpu: '1m', memory: '1' })],
        initContainers: [
          container({ cpu: '3m', memory: '1' }),
          container({ cpu: '2m', memory: '1' }),
        ],
      }),
      existing: [used('8m', '19')],
      want: insufficient('Insufficient cpu'),
    },
    {
      name: 'too many resources fails due to init container memory',
      pod: pod({
        containers: [container({ cpu: '1m', memory: '1' })],
        initContainers: [container({ cpu: '1m', memory: '3' })],
      }),
      existing: [used('9m', '19')],
      want: insufficient('Insufficient memory'),
    },
    {
      name: "init container fits because it's the max, not sum, of containers and init containers",
      pod: pod({
        containers: [container({ cpu: '1m', memory: '1' })],
        initContainers: [container({ cpu: '1m', memory: '1' })],
      }),
      existing: [used('9m', '19')],
    },
    {
      name: 'both resources fit',
      pod: pod({ containers: [container({ cpu: '1m', memory: '1' })] }),
      existing: [used('5m', '5')],
    },
    {
      name: 'one resource memory fits',
      pod: pod({ containers: [container({ cpu: '2m', memory: '1' })] }),
      existing: [used('9m', '5')],
      want: insufficient('Insufficient cpu'),
    },
    {
      name: 'one resource cpu fits',
      pod: pod({ containers: [container({ cpu: '1m', memory: '2' })] }),
      existing: [used('5m', '19')],
      want: insufficient('Insufficient memory'),
    },
    {
      name: 'equal edge case',
      pod: pod({ containers: [container({ cpu: '5m', memory: '1' })] }),
      existing: [used('5m', '19')],
    },
    {
      name: 'extended resource fits',
      pod: pod({ containers: [container({ 'example.com/aaa': '1' })] }),
      existing: [used('0', '0')],
    },
    {
      name: 'extended resource capacity enforced',
      pod: pod({ containers: [container({ 'example.com/aaa': '10' })] }),
      existing: [used('0', '0')],
      want: newStatus('UnschedulableAndUnresolvable', 'Insufficient example.com/aaa'),
    },
    {
      name: 'extended resource allocatable enforced for unknown resource',
      pod: pod({ containers: [container({ 'example.com/bbb': '1' })] }),
      existing: [used('0', '0')],
      want: newStatus('UnschedulableAndUnresolvable', 'Insufficient example.com/bbb'),
    },
    {
      name: 'resources + pod overhead fits',
      pod: pod({
        containers: [container({ cpu: '1m', memory: '1' })],
        overhead: { cpu: '3m', memory: '13' },
      }),
      existing: [used('5m', '5')],
    },
    {
      name: 'requests + overhead does not fit for memory',
      pod: pod({
        containers: [container({ cpu: '1m', memory: '1' })],
        overhead: { cpu: '1m', memory: '15' },
      }),
      existing: [used('5m', '5')],
      want: insufficient('Insufficient memory'),
    },
    {
      name: 'requests more than the node has at all: preemption cannot help',
      pod: pod({ containers: [container({ cpu: '11m', memory: '1' })] }),
      existing: [],
      want: newStatus('UnschedulableAndUnresolvable', 'Insufficient cpu'),
    },
    {
      name: 'a limit without a request requests the limit',
      pod: pod({ containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '6m' } } }] }),
      existing: [used('5m', '5')],
      want: insufficient('Insufficient cpu'),
    },
    {
      name: 'a sidecar runs with the containers: its requests add up',
      pod: pod({
        containers: [container({ cpu: '3m' })],
        initContainers: [container({ cpu: '3m' }, { restartPolicy: 'Always' })],
      }),
      existing: [used('5m', '5')],
      want: insufficient('Insufficient cpu'),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const info = nodeInfo(small(), ...c.existing);
      expect(filter(nodeResourcesFitFilter, c.pod, info)).toEqual(c.want);
    });
  }

  it('counts the pods on the node against its pods capacity', () => {
    const info = nodeInfo(
      node('n', { allocatable: { cpu: '4', memory: '1Gi', pods: '2' } }),
      pod(),
      pod(),
    );
    expect(filter(nodeResourcesFitFilter, pod(), info)).toEqual(insufficient('Too many pods'));
    const withCpu = pod({ containers: [container({ cpu: '5' })] });
    expect(filter(nodeResourcesFitFilter, withCpu, info)).toEqual(
      newStatus('UnschedulableAndUnresolvable', 'Too many pods', 'Insufficient cpu'),
    );
  });
});

describe('NodeResourcesFit LeastAllocated score (least_allocated_test.go)', () => {
  const sized = (name: string, milliCPU: number, memory: number) =>
    node(name, { allocatable: { cpu: `${milliCPU}m`, memory: `${memory}`, pods: '110' } });
  const requesting = (cpu: string, memory: string) =>
    pod({ containers: [container({ cpu, memory })] });
  const score = (p: Pod, ...infos: NodeInfo[]) =>
    infos.map((i) => leastAllocatedScore(newPodInfo(p), i));

  it('nothing scheduled, nothing requested: every node scores 100', () => {
    expect(
      score(pod(), nodeInfo(sized('node1', 4000, 10000)), nodeInfo(sized('node2', 4000, 10000))),
    ).toEqual([100, 100]);
  });

  it('nothing scheduled, resources requested, differently sized nodes', () => {
    // node1: cpu (4000-3000)/4000 = 25, memory (10000-5000)/10000 = 50 → 37
    // node2: cpu (6000-3000)/6000 = 50, memory 50 → 50
    expect(
      score(
        requesting('3000m', '5000'),
        nodeInfo(sized('node1', 4000, 10000)),
        nodeInfo(sized('node2', 6000, 10000)),
      ),
    ).toEqual([37, 50]);
  });

  it('no resources requested, pods scheduled with resources', () => {
    const onNode1 = [requesting('3000m', '0'), requesting('3000m', '5000')];
    const onNode2 = [requesting('3000m', '5000'), requesting('3000m', '0')];
    // The incoming pod has no containers: it adds nothing. cpu 4000/10000 free = 40,
    // memory 15000/20000 = 75 → 57; the same on node2.
    expect(
      score(
        pod(),
        nodeInfo(sized('node1', 10000, 20000), ...onNode1),
        nodeInfo(sized('node2', 10000, 20000), ...onNode2),
      ),
    ).toEqual([57, 57]);
  });

  it('requested resources exceed node capacity: that resource scores 0', () => {
    expect(
      score(
        requesting('3000m', '5000'),
        nodeInfo(sized('node1', 4000, 10000), requesting('3000m', '0')),
      ),
    ).toEqual([25]);
  });

  it('counts a container that requests nothing as 100m CPU and 200 MiB', () => {
    const p = newPodInfo(pod({ containers: [container(), container({ cpu: '1' })] }));
    expect(p.nonZeroRequests).toEqual({ milliCPU: 1100, memory: 2 * 200 * 1024 * 1024 });
    expect(p.requests.milliCPU).toBe(1000);
    expect(p.requests.memory).toBe(0);
  });
});

describe('InterPodAffinity, required terms (filtering_test.go)', () => {
  const hostname = (name: string) =>
    node(name, { labels: { 'kubernetes.io/hostname': name, zone: 'z1' } });
  const labelled = (
    labels: Record<string, string>,
    spec: Partial<Pod['spec']> = {},
    namespace = 'default',
  ) => pod(spec, { name: `p${++seq}`, namespace, uid: `uid-${seq}`, labels });
  const antiAffinity = (
    selector: Record<string, string>,
    topologyKey = 'kubernetes.io/hostname',
    extra = {},
  ) => ({
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: selector }, topologyKey, ...extra },
        ],
      },
    },
  });
  const antiStatus = newStatus('Unschedulable', "node(s) didn't match pod anti-affinity rules");
  const existingStatus = newStatus(
    'Unschedulable',
    "node(s) didn't satisfy existing pods anti-affinity rules",
  );

  it('keeps a pod off the node where a pod its anti-affinity selects runs', () => {
    const n1 = nodeInfo(hostname('node1'), labelled({ app: 'web' }));
    const n2 = nodeInfo(hostname('node2'));
    const incoming = labelled({ app: 'web' }, antiAffinity({ app: 'web' }));
    expect(filter(interPodAffinity, incoming, n1, [n1, n2])).toEqual(antiStatus);
    expect(filter(interPodAffinity, incoming, n2, [n1, n2])).toBeUndefined();
  });

  it("keeps a pod off the node where a running pod's anti-affinity selects it (symmetry)", () => {
    const n1 = nodeInfo(hostname('node1'), labelled({ app: 'db' }, antiAffinity({ app: 'web' })));
    const n2 = nodeInfo(hostname('node2'));
    expect(filter(interPodAffinity, labelled({ app: 'web' }), n1, [n1, n2])).toEqual(
      existingStatus,
    );
    expect(filter(interPodAffinity, labelled({ app: 'web' }), n2, [n1, n2])).toBeUndefined();
  });

  it("looks in the pod's own namespace unless the term names others", () => {
    const n1 = nodeInfo(hostname('node1'), labelled({ app: 'web' }, {}, 'other'));
    expect(
      filter(interPodAffinity, labelled({ app: 'web' }, antiAffinity({ app: 'web' })), n1),
    ).toBeUndefined();
    const listing = labelled(
      { app: 'web' },
      antiAffinity({ app: 'web' }, 'kubernetes.io/hostname', { namespaces: ['other'] }),
    );
    expect(filter(interPodAffinity, listing, n1)).toEqual(antiStatus);
    const all = labelled(
      { app: 'web' },
      antiAffinity({ app: 'web' }, 'kubernetes.io/hostname', { namespaceSelector: {} }),
    );
    expect(filter(interPodAffinity, all, n1)).toEqual(antiStatus);
  });

  it('applies to a whole topology domain with another key', () => {
    const n1 = nodeInfo(hostname('node1'), labelled({ app: 'web' }));
    const n2 = nodeInfo(hostname('node2'));
    const incoming = labelled({ app: 'web' }, antiAffinity({ app: 'web' }, 'zone'));
    expect(filter(interPodAffinity, incoming, n2, [n1, n2])).toEqual(antiStatus);
  });

  it('needs a pod its required affinity selects in the domain, unless it is the first of its kind', () => {
    const affinity = {
      affinity: {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              labelSelector: { matchLabels: { app: 'cache' } },
              topologyKey: 'kubernetes.io/hostname',
            },
          ],
        },
      },
    };
    const n1 = nodeInfo(hostname('node1'), labelled({ app: 'cache' }));
    const n2 = nodeInfo(hostname('node2'));
    const web = labelled({ app: 'web' }, affinity);
    expect(filter(interPodAffinity, web, n1, [n1, n2])).toBeUndefined();
    expect(filter(interPodAffinity, web, n2, [n1, n2])).toEqual(
      newStatus('UnschedulableAndUnresolvable', "node(s) didn't match pod affinity rules"),
    );
    // The first cache pod, with affinity to caches: none runs anywhere, and it matches itself.
    const empty = nodeInfo(hostname('node3'));
    expect(
      filter(interPodAffinity, labelled({ app: 'cache' }, affinity), empty, [empty]),
    ).toBeUndefined();
  });

  it('has nothing to check for a pod without terms when no pod has anti-affinity', () => {
    const n1 = nodeInfo(hostname('node1'), labelled({ app: 'web' }));
    expect(
      interPodAffinity.preFilter(newPodInfo(labelled({ app: 'web' })), [n1]).filter,
    ).toBeUndefined();
  });
});

describe('VolumeBinding PreFilter (volume_binding_test.go)', () => {
  const claim = (
    name: string,
    volumeName?: string,
    storageClassName?: string,
    deleting = false,
  ) => ({
    metadata: {
      name,
      namespace: 'default',
      ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: {
      ...(volumeName ? { volumeName } : {}),
      ...(storageClassName ? { storageClassName } : {}),
    },
  });
  const check = claimsVolumeBinding({
    claim: (_ns, name) =>
      ({
        bound: claim('bound', 'pv-1', 'standard'),
        immediate: claim('immediate', undefined, 'immediate'),
        waiting: claim('waiting', undefined, 'standard'),
        'no-class': claim('no-class'),
        deleting: claim('deleting', 'pv-2', 'standard', true),
        'unknown-class': claim('unknown-class', undefined, 'nope'),
      })[name],
    storageClass: (name) =>
      ({
        standard: {
          metadata: { name },
          provisioner: 'x',
          volumeBindingMode: 'WaitForFirstConsumer',
        },
        immediate: { metadata: { name }, provisioner: 'x', volumeBindingMode: 'Immediate' },
      })[name],
  });
  const using = (...claims: string[]) =>
    pod({ volumes: claims.map((c) => ({ name: c, persistentVolumeClaim: { claimName: c } })) });

  it('lets a pod whose claims are bound, or wait for their first consumer, through', () => {
    expect(check(pod())).toBeUndefined();
    expect(check(using('bound', 'waiting'))).toBeUndefined();
  });

  it('makes a pod wait for an unbound immediate claim, or a missing one', () => {
    expect(check(using('bound', 'immediate'))).toEqual(
      newStatus('UnschedulableAndUnresolvable', errUnboundImmediatePVC),
    );
    expect(check(using('no-class'))).toEqual(
      newStatus('UnschedulableAndUnresolvable', errUnboundImmediatePVC),
    );
    expect(check(using('missing'))).toEqual(
      newStatus('UnschedulableAndUnresolvable', 'persistentvolumeclaim "missing" not found'),
    );
  });

  it('fails with an error for a claim being deleted or a class that does not exist', () => {
    expect(check(using('deleting'))).toEqual(
      newStatus('Error', 'persistentvolumeclaim "deleting" is being deleted'),
    );
    expect(check(using('unknown-class'))).toEqual(
      newStatus('Error', 'storageclass.storage.k8s.io "nope" not found'),
    );
  });

  it('reports a pod that waits for its claim as FitError does: a PreFilter message, preemption not helpful', () => {
    const waiting = using('immediate');
    const result = schedulePod(waiting, [nodeInfo(node('node-1')), nodeInfo(node('node-2'))], {
      profile: defaultProfile({ check }),
    });
    expect('fitError' in result && result.fitError.message).toBe(
      '0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    );
  });
});

describe('FitError.Error (types_test.go)', () => {
  const diagnosis = (d: Partial<Diagnosis>): Diagnosis => ({
    nodeToStatus: new Map(),
    absentNodesStatus: newStatus('UnschedulableAndUnresolvable'),
    unschedulablePlugins: new Set(),
    preFilterMsg: '',
    postFilterMsg: '',
    ...d,
  });
  const all = (reason: string) =>
    new Map(['node1', 'node2', 'node3'].map((n) => [n, newStatus('Unschedulable', reason)]));

  it('nodes failed Prefilter plugin', () => {
    const d = diagnosis({
      preFilterMsg: 'Node(s) failed PreFilter plugin FalsePreFilter',
      nodeToStatus: all('Node(s) failed PreFilter plugin FalsePreFilter'),
    });
    expect(fitErrorMessage(3, d)).toBe(
      '0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter.',
    );
  });

  it('nodes failed one Filter plugin with an empty PostFilterMsg', () => {
    expect(
      fitErrorMessage(
        3,
        diagnosis({ nodeToStatus: all('Node(s) failed Filter plugin FalseFilter-1') }),
      ),
    ).toBe('0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1.');
  });

  it('nodes failed one Filter plugin with a non-empty PostFilterMsg', () => {
    const d = diagnosis({
      nodeToStatus: all('Node(s) failed Filter plugin FalseFilter-1'),
      postFilterMsg: 'Error running PostFilter plugin FailedPostFilter',
    });
    expect(fitErrorMessage(3, d)).toBe(
      '0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1. Error running PostFilter plugin FailedPostFilter',
    );
  });

  it('nodes failed two Filter plugins: the histogram sorted as strings', () => {
    const nodeToStatus = all('Node(s) failed Filter plugin FalseFilter-1');
    nodeToStatus.set(
      'node3',
      newStatus('Unschedulable', 'Node(s) failed Filter plugin FalseFilter-2'),
    );
    expect(fitErrorMessage(3, diagnosis({ nodeToStatus }))).toBe(
      '0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 Node(s) failed Filter plugin FalseFilter-1.',
    );
  });

  it('failed to find a node when the PreFilterResult filtered out some nodes', () => {
    const d = diagnosis({
      nodeToStatus: new Map([['node1', newStatus('Unschedulable', 'Node failed Filter plugin')]]),
      absentNodesStatus: newStatus(
        'UnschedulableAndUnresolvable',
        "node(s) didn't satisfy plugin(s) [FakePlugin]",
      ),
    });
    expect(fitErrorMessage(3, d)).toBe(
      "0/3 nodes are available: 1 Node failed Filter plugin, 2 node(s) didn't satisfy plugin(s) [FakePlugin].",
    );
  });

  it('counts each reason of a node that has several', () => {
    const nodeToStatus = new Map([
      ['node1', newStatus('Unschedulable', 'Insufficient cpu', 'Insufficient memory')],
      ['node2', newStatus('Unschedulable', 'Insufficient cpu')],
    ]);
    expect(fitErrorMessage(2, diagnosis({ nodeToStatus }))).toBe(
      '0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.',
    );
  });
});

describe('DefaultPreemption PostFilter message (default_preemption_test.go)', () => {
  const d = (nodeToStatus: Map<string, Status>): Diagnosis => ({
    nodeToStatus,
    absentNodesStatus: newStatus('UnschedulableAndUnresolvable'),
    unschedulablePlugins: new Set(),
    preFilterMsg: '',
    postFilterMsg: '',
  });

  it('has no victims where a filter merely found the node full, and is no help elsewhere', () => {
    const statuses = new Map([
      ['node1', newStatus('UnschedulableAndUnresolvable', 'node(s) had untolerated taint {a: b}')],
      ['node2', newStatus('Unschedulable', 'Insufficient cpu')],
      ['node3', newStatus('Unschedulable', 'Insufficient cpu')],
    ]);
    expect(preemptionMessage(pod(), 3, d(statuses))).toBe(
      'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.',
    );
  });

  it('is not eligible with preemptionPolicy Never', () => {
    expect(preemptionMessage(pod({ preemptionPolicy: 'Never' }), 1, d(new Map()))).toBe(
      'preemption: not eligible due to preemptionPolicy=Never.',
    );
  });
});

describe('schedulePod: the default profile end to end', () => {
  const controlPlane = node('node-1', {
    labels: { 'kubernetes.io/hostname': 'node-1', 'node-role.kubernetes.io/control-plane': '' },
    taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
  });
  const worker = (name: string, labels: Record<string, string> = {}) =>
    node(name, { labels: { 'kubernetes.io/hostname': name, ...labels } });
  const big = () => pod({ containers: [container({ cpu: '3' })] });
  const message = (r: ScheduleResult) => ('fitError' in r ? r.fitError.message : r);

  it('reports mixed reasons with the preemption postfix, as the FailedScheduling event says', () => {
    const nodes = [
      nodeInfo(controlPlane),
      nodeInfo(worker('node-2'), big()),
      nodeInfo(worker('node-3'), big()),
    ];
    expect(message(schedulePod(big(), nodes, { profile: defaultProfile() }))).toBe(
      '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. ' +
        'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.',
    );
  });

  it("stops at the first filter that rejects a node, in the profile's order", () => {
    const cordonedAndTainted = node('node-2', {
      unschedulable: true,
      taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }],
    });
    const result = schedulePod(
      pod({ nodeSelector: { disk: 'ssd' } }),
      [nodeInfo(controlPlane), nodeInfo(cordonedAndTainted), nodeInfo(worker('node-3'))],
      {
        profile: defaultProfile(),
      },
    );
    expect(message(result)).toBe(
      "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 1 node(s) were unschedulable. " +
        'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
  });

  it('names the nodes a DaemonSet pod is pinned to, and the others as left out by NodeAffinity', () => {
    const pinned = pod({
      containers: [container({ cpu: '3' })],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-2'] }] },
            ],
          },
        },
      },
      tolerations: [{ operator: 'Exists' }],
    });
    const nodes = [
      nodeInfo(controlPlane),
      nodeInfo(worker('node-2'), big()),
      nodeInfo(worker('node-3')),
    ];
    expect(message(schedulePod(pinned, nodes, { profile: defaultProfile() }))).toBe(
      "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. " +
        'preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.',
    );
    const free = schedulePod(
      pinned,
      [nodeInfo(controlPlane), nodeInfo(worker('node-2')), nodeInfo(worker('node-3'))],
      {
        profile: defaultProfile(),
      },
    );
    expect(free).toEqual({ node: 'node-2', feasible: 1 });
  });

  it('picks the least allocated node, and breaks ties by name or at random', () => {
    const nodes = [
      nodeInfo(worker('node-2'), big()),
      nodeInfo(worker('node-3')),
      nodeInfo(worker('node-4')),
    ];
    const result = schedulePod(pod({ containers: [container({ cpu: '1' })] }), nodes, {
      profile: defaultProfile(),
    });
    expect('node' in result && result.node).toBe('node-3');
    expect('node' in result && result.scores?.map((s) => [s.name, s.total])).toEqual([
      // TaintToleration 100×3 + NodeResourcesFit: node-2 cpu 0%, memory 97% free → 48;
      // node-3 and node-4 cpu 75%, memory 98% → 86.
      ['node-2', 348],
      ['node-3', 386],
      ['node-4', 386],
    ]);
    const picks = [0.9, 0.1].map((r) => {
      const res = schedulePod(pod(), nodes.slice(1), {
        profile: defaultProfile(),
        random: () => r,
      });
      return 'node' in res && res.node;
    });
    // Reservoir sampling: node-4 replaces node-3 when random() * 2 < 1.
    expect(picks).toEqual(['node-3', 'node-4']);
  });

  it('prefers nodes without untolerated PreferNoSchedule taints', () => {
    const soft = node('node-2', {
      taints: [{ key: 'spot', value: 'true', effect: 'PreferNoSchedule' }],
    });
    const result = schedulePod(pod(), [nodeInfo(soft), nodeInfo(worker('node-3'))], {
      profile: defaultProfile(),
    });
    expect('node' in result && result.node).toBe('node-3');
  });

  it('says no nodes are available when there are none', () => {
    expect(schedulePod(pod(), [], { profile: defaultProfile() })).toEqual({
      error: 'no nodes available to schedule pods',
      code: 'UnschedulableAndUnresolvable',
    });
  });

  it('selectHost keeps the first of equal scores without random', () => {
    expect(
      selectHost([
        { name: 'a', total: 1, byPlugin: {} },
        { name: 'b', total: 1, byPlugin: {} },
      ]),
    ).toBe('a');
  });
});

describe('resource quantities (resource/quantity.go) and PodRequests (component-helpers)', () => {
  it('reads quantities as Value and MilliValue do, rounding up', () => {
    expect(quantityMilliValue('100m')).toBe(100);
    expect(quantityMilliValue('0.1')).toBe(100);
    expect(quantityMilliValue('1')).toBe(1000);
    expect(quantityMilliValue('2.5')).toBe(2500);
    expect(quantityMilliValue('1u')).toBe(1);
    expect(quantityValue('2Gi')).toBe(2 * 1024 ** 3);
    expect(quantityValue('16777216Ki')).toBe(16 * 1024 ** 3);
    expect(quantityValue('1G')).toBe(1e9);
    expect(quantityValue('1e3')).toBe(1000);
    expect(quantityValue('1.5')).toBe(2);
    expect(quantityValue('500m')).toBe(1);
    expect(quantityValue(3)).toBe(3);
    expect(quantityValue('nonsense')).toBe(0);
  });

  it('adds up containers and sidecars, takes the largest init container, adds the overhead', () => {
    const reqs = podRequests(
      pod({
        containers: [container({ cpu: '2', memory: '1G' }), container({ cpu: '1', memory: '1G' })],
        initContainers: [
          container({ cpu: '2', memory: '1G' }),
          container({ cpu: '2', memory: '3G' }),
          container({ cpu: '500m' }, { restartPolicy: 'Always' }),
          container({ cpu: '3' }),
        ],
        overhead: { cpu: '250m' },
      }),
    );
    // Containers 3 CPU + sidecar 0.5 = 3.5; the last init container needs 3 + 0.5 = 3.5; +0.25 overhead.
    expect(reqs.get('cpu')).toBe(3750);
    expect(reqs.get('memory')).toBe(3e9);
  });
});
