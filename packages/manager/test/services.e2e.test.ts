// `kcm-ts up --nodes 3` with kubectl v1.32 as the client, for the chapter on
// Services (issue 24): `kubectl expose` gives Endpoints and EndpointSlices
// holding the pods' addresses from their nodes' pod CIDRs, which follow a
// scale; a new namespace gets its `default` ServiceAccount and
// `kube-root-ca.crt`; `auth can-i --as` a ServiceAccount answers from a
// RoleBinding to the aggregated `view` ClusterRole; a PodDisruptionBudget
// makes `kubectl drain` refuse and then allow; a ReplicationController keeps
// and scales its replicas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { table } from '../../sandbox/test/kubectl-helpers.js';
import { eventually as poll, startUpCluster, type Json, type UpCluster } from './up-cluster.js';

let cluster: UpCluster;
let k: UpCluster['k'];

beforeAll(async () => {
  cluster = await startUpCluster('services');
  k = cluster.k;
}, 120_000);

afterAll(() => cluster.stop());

const eventually = (what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> =>
  poll(what, check, ms, 200);

const json = (args: string[]): Promise<Json> => cluster.json(args);

const isReady = (pod: Json): boolean =>
  (pod.status?.conditions as Json[] | undefined)?.some(
    (c) => c.type === 'Ready' && c.status === 'True',
  ) === true;

/** The ready pods of `selector` that are not being deleted. */
async function readyPods(selector: string): Promise<Json[]> {
  const list = await json(['get', 'pods', '-l', selector]);
  return (list.items as Json[]).filter((p) => !p.metadata.deletionTimestamp && isReady(p));
}

/** Whether the IPv4 `ip` is inside `cidr`. */
function inCIDR(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const num = (a: string) => a.split('.').reduce((n, o) => n * 256 + Number(o), 0);
  const size = 2 ** (32 - Number(bits));
  return Math.floor(num(ip) / size) === Math.floor(num(base!) / size);
}

/** The ready addresses of the `web` Endpoints, sorted. */
async function endpointsAddresses(): Promise<string[]> {
  const r = await k.kubectl(['get', 'ep', 'web', '-o', 'json']);
  if (r.code !== 0) return [];
  const ep = JSON.parse(r.stdout) as Json;
  return ((ep.subsets ?? []) as Json[])
    .flatMap((s) => (s.addresses ?? []) as Json[])
    .map((a) => a.ip as string)
    .sort();
}

/** The ready addresses of the `web` EndpointSlices, sorted. */
async function sliceAddresses(): Promise<string[]> {
  const slices = await json(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']);
  return (slices.items as Json[])
    .flatMap((s) => (s.endpoints ?? []) as Json[])
    .filter((e) => e.conditions?.ready === true)
    .flatMap((e) => e.addresses as string[])
    .sort();
}

/** Waits until Endpoints and EndpointSlices of `web` hold exactly the IPs of `n` ready pods. */
async function endpointsFollow(n: number): Promise<string[]> {
  let ips: string[] = [];
  await eventually(`${n} ready addresses in the Endpoints and EndpointSlices of web`, async () => {
    ips = (await readyPods('app=web')).map((p) => p.status.podIP as string).sort();
    if (ips.length !== n) return false;
    const want = JSON.stringify(ips);
    return (
      JSON.stringify(await endpointsAddresses()) === want &&
      JSON.stringify(await sliceAddresses()) === want
    );
  });
  return ips;
}

const rc = `apiVersion: v1
kind: ReplicationController
metadata:
  name: legacy
spec:
  replicas: 2
  selector:
    app: legacy
  template:
    metadata:
      labels:
        app: legacy
    spec:
      containers:
        - name: nginx
          image: nginx:1.27
`;

describe('Services, namespaces, RBAC, drains and ReplicationControllers on three nodes', () => {
  it('expose gives Endpoints and EndpointSlices that follow the pods', async () => {
    expect(await k.ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=3'])).toBe(
      'deployment.apps/web created\n',
    );
    expect(await k.ok(['expose', 'deployment', 'web', '--port=80'])).toBe('service/web exposed\n');
    const ips = await endpointsFollow(3);

    // Each pod's IP comes from its node's pod CIDR, a /24 of 10.244.0.0/16.
    const cidrs = new Map(
      ((await json(['get', 'nodes'])).items as Json[]).map((n) => [
        n.metadata.name as string,
        n.spec.podCIDR as string,
      ]),
    );
    for (const pod of await readyPods('app=web')) {
      const cidr = cidrs.get(pod.spec.nodeName as string)!;
      expect(cidr).toMatch(/^10\.244\.\d+\.0\/24$/);
      expect(inCIDR(pod.status.podIP as string, cidr)).toBe(true);
    }

    const [slice] = (await json(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']))
      .items as Json[];
    expect(slice!.addressType).toBe('IPv4');
    expect(slice!.ports).toEqual([{ name: '', port: 80, protocol: 'TCP' }]);
    for (const e of slice!.endpoints as Json[]) {
      expect(e.conditions).toEqual({ ready: true, serving: true, terminating: false });
      expect(e.targetRef).toMatchObject({ kind: 'Pod' });
    }
    const ep = await json(['get', 'ep', 'web']);
    expect(ep.subsets[0].ports).toEqual([{ port: 80, protocol: 'TCP' }]);

    const describeSvc = await k.ok(['describe', 'svc', 'web']);
    const line = describeSvc.split('\n').find((l) => l.startsWith('Endpoints:'));
    expect(line).toBeDefined();
    expect(
      line!
        .replace(/^Endpoints:\s+/, '')
        .trim()
        .split(',')
        .sort(),
    ).toEqual(ips.map((ip) => `${ip}:80`).sort());

    expect(await k.ok(['scale', 'deployment', 'web', '--replicas=5'])).toBe(
      'deployment.apps/web scaled\n',
    );
    await endpointsFollow(5);
  });

  it('a new namespace gets its default ServiceAccount and kube-root-ca.crt', async () => {
    expect(await k.ok(['create', 'ns', 'team-a'])).toBe('namespace/team-a created\n');
    const names = async () =>
      table(await k.ok(['get', 'sa,cm', '-n', 'team-a', '--no-headers']))
        .map((row) => row[0]!)
        .sort();
    await eventually('serviceaccount/default and configmap/kube-root-ca.crt', async () => {
      const got = await names();
      return got.includes('serviceaccount/default') && got.includes('configmap/kube-root-ca.crt');
    });
    const cm = await json(['get', 'cm', 'kube-root-ca.crt', '-n', 'team-a']);
    expect(cm.data['ca.crt']).toContain('-----BEGIN CERTIFICATE-----');

    const before = await json(['get', 'sa', 'default', '-n', 'team-a']);
    expect(await k.ok(['delete', 'sa', 'default', '-n', 'team-a'])).toBe(
      'serviceaccount "default" deleted\n',
    );
    await eventually('serviceaccount/default back', async () => {
      const r = await k.kubectl(['get', 'sa', 'default', '-n', 'team-a', '-o', 'json']);
      return r.code === 0 && (JSON.parse(r.stdout) as Json).metadata.uid !== before.metadata.uid;
    });
  });

  it('auth can-i --as a ServiceAccount answers from its RoleBinding to view', async () => {
    expect(await k.ok(['create', 'sa', 'bot'])).toBe('serviceaccount/bot created\n');
    const canI = () =>
      k.kubectl(['auth', 'can-i', 'list', 'pods', '--as=system:serviceaccount:default:bot']);
    const no = await canI();
    expect(no.code).toBe(1);
    expect(no.stdout.trim()).toBe('no');

    // `view` is filled by the clusterrole-aggregation controller.
    const view = await json(['get', 'clusterrole', 'view']);
    expect(view.aggregationRule).toBeDefined();
    expect(
      (view.rules as Json[]).some(
        (r) => (r.resources as string[]).includes('pods') && (r.verbs as string[]).includes('list'),
      ),
    ).toBe(true);

    expect(
      await k.ok([
        'create',
        'rolebinding',
        'bot-view',
        '--clusterrole=view',
        '--serviceaccount=default:bot',
      ]),
    ).toBe('rolebinding.rbac.authorization.k8s.io/bot-view created\n');
    let yes = no;
    await eventually('can-i says yes', async () => {
      yes = await canI();
      return yes.code === 0;
    });
    expect(yes.stdout.trim()).toBe('yes');
    // Only in its namespace, and read-only.
    expect(
      (
        await k.kubectl([
          'auth',
          'can-i',
          'delete',
          'pods',
          '--as=system:serviceaccount:default:bot',
        ])
      ).stdout.trim(),
    ).toBe('no');
    expect(
      (
        await k.kubectl([
          'auth',
          'can-i',
          'list',
          'pods',
          '-n',
          'team-a',
          '--as=system:serviceaccount:default:bot',
        ])
      ).stdout.trim(),
    ).toBe('no');
  });

  it('a PodDisruptionBudget makes drain refuse, then allow', async () => {
    expect(await k.ok(['create', 'pdb', 'web', '--selector=app=web', '--min-available=5'])).toBe(
      'poddisruptionbudget.policy/web created\n',
    );
    await eventually('the budget computed', async () => {
      const pdb = await json(['get', 'pdb', 'web']);
      return pdb.status?.observedGeneration === 1 && pdb.status.currentHealthy === 5;
    });
    const [header, row] = table(await k.ok(['get', 'pdb', 'web']));
    expect(header).toEqual([
      'NAME',
      'MIN AVAILABLE',
      'MAX UNAVAILABLE',
      'ALLOWED DISRUPTIONS',
      'AGE',
    ]);
    expect(row!.slice(0, 4)).toEqual(['web', '5', 'N/A', '0']);

    // The node with the fewest web pods, for the drain to wait on fewer evictions.
    const perNode = new Map<string, number>();
    for (const pod of await readyPods('app=web')) {
      const name = pod.spec.nodeName as string;
      perNode.set(name, (perNode.get(name) ?? 0) + 1);
    }
    const [node] = [...perNode].sort((a, b) => a[1] - b[1])[0]!;
    const refused = await k.kubectl([
      'drain',
      node,
      '--ignore-daemonsets',
      '--delete-emptydir-data',
      '--timeout=5s',
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      "Cannot evict pod as it would violate the pod's disruption budget.",
    );
    expect(refused.stderr).toContain(`error: unable to drain node "${node}"`);

    expect(
      await k.ok(['patch', 'pdb', 'web', '--type=merge', '-p', '{"spec":{"minAvailable":4}}']),
    ).toBe('poddisruptionbudget.policy/web patched\n');
    await eventually('one disruption allowed', async () => {
      const pdb = await json(['get', 'pdb', 'web']);
      return pdb.status?.observedGeneration === 2 && pdb.status.disruptionsAllowed === 1;
    });
    const drained = await k.ok([
      'drain',
      node,
      '--ignore-daemonsets',
      '--delete-emptydir-data',
      '--timeout=60s',
    ]);
    expect(drained).toContain(`node/${node} drained`);
    const [, nodeRow] = table(await k.ok(['get', 'node', node]));
    expect(nodeRow![1]).toBe('Ready,SchedulingDisabled');
    await eventually('five web pods ready elsewhere', async () => {
      const pods = await readyPods('app=web');
      return pods.length === 5 && pods.every((p) => p.spec.nodeName !== node);
    });

    expect(await k.ok(['uncordon', node])).toBe(`node/${node} uncordoned\n`);
    const [, back] = table(await k.ok(['get', 'node', node]));
    expect(back![1]).toBe('Ready');
  });

  it('a ReplicationController keeps and scales its replicas', async () => {
    expect(await k.ok(['apply', '-f', '-'], { input: rc })).toBe(
      'replicationcontroller/legacy created\n',
    );
    await eventually('two ready pods', async () => (await readyPods('app=legacy')).length === 2);
    expect(await k.ok(['scale', 'rc', 'legacy', '--replicas=4'])).toBe(
      'replicationcontroller/legacy scaled\n',
    );
    await eventually('four ready pods', async () => {
      const status = (await json(['get', 'rc', 'legacy'])).status as Json;
      return status.readyReplicas === 4 && (await readyPods('app=legacy')).length === 4;
    });
    for (const pod of await readyPods('app=legacy')) {
      expect(pod.metadata.ownerReferences).toEqual([
        expect.objectContaining({
          apiVersion: 'v1',
          kind: 'ReplicationController',
          name: 'legacy',
          controller: true,
        }),
      ]);
    }
  });
});
