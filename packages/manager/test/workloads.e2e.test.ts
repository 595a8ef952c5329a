// `kcm-ts up --nodes 3` with kubectl v1.32 as the client, for DaemonSets and
// StatefulSets: a DaemonSet runs on the two workers (the control-plane node
// is tainted), a toleration brings the third, an image rolls out and
// `rollout undo` brings it back; a StatefulSet starts web-0, web-1, web-2 in
// order with claims bound to volumes on their pods' nodes, scales down from
// the top, gets web-1 back under its name with its claim, and rolls out by
// partition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually as poll, startUpCluster, type Json, type UpCluster } from './up-cluster.js';

let cluster: UpCluster;
let k: UpCluster['k'];

beforeAll(async () => {
  cluster = await startUpCluster('workloads');
  k = cluster.k;
}, 120_000);

afterAll(() => cluster.stop());

const eventually = (what: string, check: () => Promise<boolean>, ms = 90_000): Promise<void> =>
  poll(what, check, ms, 250);

const json = (args: string[]): Promise<Json> => cluster.json(args);

/** The pods of `selector` as name → node, of those not being deleted. */
async function podsOn(selector: string): Promise<Map<string, string>> {
  const list = await json(['get', 'pods', '-l', selector]);
  return new Map(
    (list.items as Json[])
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => [p.metadata.name as string, (p.spec.nodeName ?? '') as string]),
  );
}

const daemonSet = (tolerate: boolean) => `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels:
      app: agent
  updateStrategy:
    rollingUpdate:
      maxUnavailable: 1
  template:
    metadata:
      labels:
        app: agent
    spec:
${
  tolerate
    ? `      tolerations:
        - key: node-role.kubernetes.io/control-plane
          operator: Exists
          effect: NoSchedule
`
    : ''
}      containers:
        - name: agent
          image: fluentd:v1
`;

const statefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: web
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: nginx
          image: nginx:1.27
  volumeClaimTemplates:
    - metadata:
        name: www
      spec:
        accessModes: [ReadWriteOnce]
        resources:
          requests:
            storage: 1Gi
`;

describe('DaemonSets on three nodes', () => {
  it(
    'run on every node that tolerates them, and roll out and back',
    { timeout: 240_000 },
    async () => {
      expect(await k.ok(['apply', '-f', '-'], { input: daemonSet(false) })).toBe(
        'daemonset.apps/agent created\n',
      );
      await k.ok(['rollout', 'status', 'ds/agent', '--timeout=90s']);
      expect([...(await podsOn('app=agent')).values()].sort()).toEqual(['node-2', 'node-3']);

      expect(await k.ok(['apply', '-f', '-'], { input: daemonSet(true) })).toBe(
        'daemonset.apps/agent configured\n',
      );
      await k.ok(['rollout', 'status', 'ds/agent', '--timeout=90s']);
      await eventually('a pod on each of the three nodes', async () => {
        const nodes = [...(await podsOn('app=agent')).values()].sort();
        return JSON.stringify(nodes) === JSON.stringify(['node-1', 'node-2', 'node-3']);
      });
      const ds = await json(['get', 'ds', 'agent']);
      expect(ds.status).toMatchObject({
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberMisscheduled: 0,
        updatedNumberScheduled: 3,
      });

      await k.ok(['set', 'image', 'ds/agent', 'agent=fluentd:v2']);
      await k.ok(['rollout', 'status', 'ds/agent', '--timeout=120s']);
      const images = async () =>
        ((await json(['get', 'pods', '-l', 'app=agent'])).items as Json[])
          .filter((p) => !p.metadata.deletionTimestamp)
          .map((p) => p.spec.containers[0].image as string);
      expect(await images()).toEqual(['fluentd:v2', 'fluentd:v2', 'fluentd:v2']);
      const history = await k.ok(['rollout', 'history', 'ds/agent']);
      expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n3\s+<none>/);

      expect(await k.ok(['rollout', 'undo', 'ds/agent'])).toBe(
        'daemonset.apps/agent rolled back\n',
      );
      await k.ok(['rollout', 'status', 'ds/agent', '--timeout=120s']);
      await eventually('the old image back on every node', async () => {
        const now = await images();
        return now.length === 3 && now.every((i) => i === 'fluentd:v1');
      });
    },
  );
});

describe('StatefulSets on three nodes', () => {
  it(
    'start in order with bound claims, scale down from the top, keep identities, and roll by partition',
    { timeout: 300_000 },
    async () => {
      await k.ok(['apply', '-f', '-'], { input: statefulSet });
      await k.ok(['rollout', 'status', 'sts/web', '--timeout=120s']);
      const pods = ((await json(['get', 'pods', '-l', 'app=web'])).items as Json[]).sort((a, b) =>
        (a.metadata.name as string).localeCompare(b.metadata.name as string),
      );
      expect(pods.map((p) => p.metadata.name)).toEqual(['web-0', 'web-1', 'web-2']);
      // OrderedReady: each started after the one before it was Ready.
      const started = pods.map((p) => Date.parse(p.metadata.creationTimestamp as string));
      const ready = pods.map((p) =>
        Date.parse(
          (p.status.conditions as Json[]).find((c) => c.type === 'Ready')
            ?.lastTransitionTime as string,
        ),
      );
      expect(started[1]).toBeGreaterThanOrEqual(ready[0]!);
      expect(started[2]).toBeGreaterThanOrEqual(ready[1]!);
      // Each claim is bound to a volume on its pod's node.
      for (const pod of pods) {
        const claim = await json(['get', 'pvc', `www-${pod.metadata.name as string}`]);
        expect(claim.status.phase).toBe('Bound');
        const pv = await json(['get', 'pv', claim.spec.volumeName as string]);
        expect(
          pv.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values,
        ).toEqual([pod.spec.nodeName]);
        expect(pod.metadata.labels).toMatchObject({
          'statefulset.kubernetes.io/pod-name': pod.metadata.name,
          'apps.kubernetes.io/pod-index': (pod.metadata.name as string).slice(4),
        });
      }

      expect(await k.ok(['scale', 'sts/web', '--replicas=1'])).toBe(
        'statefulset.apps/web scaled\n',
      );
      await eventually('web-2 then web-1 gone', async () => {
        const left = [...(await podsOn('app=web')).keys()];
        return left.length === 1 && left[0] === 'web-0';
      });
      const deletions = (
        (await json(['get', 'events', '--field-selector', 'reason=SuccessfulDelete']))
          .items as Json[]
      )
        .filter((e) => e.involvedObject.kind === 'StatefulSet')
        .map((e) => e.message as string);
      expect(deletions).toEqual([
        'delete Pod web-2 in StatefulSet web successful',
        'delete Pod web-1 in StatefulSet web successful',
      ]);
      // The claims stay (whenScaled: Retain) for the pods to come back to.
      expect((await json(['get', 'pvc', 'www-web-2'])).status.phase).toBe('Bound');

      await k.ok(['scale', 'sts/web', '--replicas=3']);
      await k.ok(['rollout', 'status', 'sts/web', '--timeout=120s']);
      const before = await json(['get', 'pod', 'web-1']);
      await k.ok(['delete', 'pod', 'web-1']);
      await eventually('web-1 back', async () => {
        const r = await k.kubectl(['get', 'pod', 'web-1', '-o', 'json']);
        if (r.code !== 0) return false;
        const pod = JSON.parse(r.stdout) as Json;
        return (
          pod.metadata.uid !== before.metadata.uid &&
          (pod.status.conditions as Json[] | undefined)?.some(
            (c) => c.type === 'Ready' && c.status === 'True',
          ) === true
        );
      });
      const again = await json(['get', 'pod', 'web-1']);
      expect(again.spec.volumes[0].persistentVolumeClaim.claimName).toBe('www-web-1');
      expect(again.spec.nodeName).toBe(before.spec.nodeName); // where its volume is

      // A partitioned update: only ordinals 2 and up take the new image.
      await k.ok([
        'patch',
        'sts',
        'web',
        '-p',
        '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":2}}}}',
      ]);
      await k.ok(['set', 'image', 'sts/web', 'nginx=nginx:1.28']);
      await eventually('web-2 updated, the others not', async () => {
        const list = ((await json(['get', 'pods', '-l', 'app=web'])).items as Json[]).filter(
          (p) =>
            (p.status.conditions as Json[] | undefined)?.some(
              (c) => c.type === 'Ready' && c.status === 'True',
            ) && !p.metadata.deletionTimestamp,
        );
        const image = new Map(list.map((p) => [p.metadata.name, p.spec.containers[0].image]));
        return (
          image.get('web-2') === 'nginx:1.28' &&
          image.get('web-1') === 'nginx:1.27' &&
          image.get('web-0') === 'nginx:1.27'
        );
      });
      const sts = await json(['get', 'sts', 'web']);
      expect(sts.status.updatedReplicas).toBe(1);
      expect(sts.status.currentRevision).not.toBe(sts.status.updateRevision);

      // The partition lifted, every pod updates; `rollout undo` brings the old template back.
      await k.ok([
        'patch',
        'sts',
        'web',
        '-p',
        '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}',
      ]);
      await k.ok(['rollout', 'status', 'sts/web', '--timeout=120s']);
      const history = await k.ok(['rollout', 'history', 'sts/web']);
      expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
      expect(await k.ok(['rollout', 'undo', 'sts/web'])).toBe('statefulset.apps/web rolled back\n');
      await k.ok(['rollout', 'status', 'sts/web', '--timeout=120s']);
      await eventually('every pod back on the old image', async () => {
        const list = ((await json(['get', 'pods', '-l', 'app=web'])).items as Json[]).filter(
          (p) => !p.metadata.deletionTimestamp,
        );
        return list.length === 3 && list.every((p) => p.spec.containers[0].image === 'nginx:1.27');
      });
    },
  );
});

describe('Services on three nodes', () => {
  it('get an EndpointSlice that follows their pods', { timeout: 180_000 }, async () => {
    await k.ok(['create', 'deployment', 'shop', '--image=nginx:1.27', '--replicas=3', '--port=80']);
    await k.ok(['rollout', 'status', 'deploy/shop', '--timeout=90s']);
    expect(await k.ok(['expose', 'deployment', 'shop', '--port=80'])).toBe(
      'service/shop exposed\n',
    );
    const slices = () => json(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=shop']);
    const readyAddresses = async () =>
      ((await slices()).items as Json[])
        .flatMap((s) => (s.endpoints ?? []) as Json[])
        .filter((e) => e.conditions?.ready === true)
        .flatMap((e) => e.addresses as string[])
        .sort();
    const podIPs = async () =>
      ((await json(['get', 'pods', '-l', 'app=shop'])).items as Json[])
        .filter((p) => !p.metadata.deletionTimestamp)
        .map((p) => p.status.podIP as string)
        .sort();
    await eventually('three ready endpoints', async () => (await readyAddresses()).length === 3);
    expect(await readyAddresses()).toEqual(await podIPs());
    const [slice] = (await slices()).items as Json[];
    expect(slice!.metadata.labels).toMatchObject({
      'kubernetes.io/service-name': 'shop',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    expect(slice!.metadata.ownerReferences[0]).toMatchObject({ kind: 'Service', name: 'shop' });
    expect(slice!.ports).toEqual([{ name: '', port: 80, protocol: 'TCP' }]);

    await k.ok(['scale', 'deploy/shop', '--replicas=1']);
    await eventually('one endpoint left', async () => (await readyAddresses()).length === 1);
    expect(await readyAddresses()).toEqual(await podIPs());
  });
});
