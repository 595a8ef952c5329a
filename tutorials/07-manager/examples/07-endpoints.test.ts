import { expect, it } from 'vitest';
import { run } from './07-endpoints.js';

it('serves health to anyone, metrics and configz only to a token the API server accepts', async () => {
  const lines: string[] = [];
  const { answers, logLines } = await run((line) => lines.push(line));
  const answer = (key: string) => {
    const a = answers.get(key);
    expect(a, key).toBeDefined();
    return a!;
  };

  // --authorization-always-allow-paths: /healthz, /readyz and /livez, exactly.
  expect(answer('/healthz no token')).toEqual({ status: 200, body: 'ok' });
  const readyz = answer('/readyz?verbose no token');
  expect(readyz.status).toBe(200);
  expect(readyz.body.split('\n')).toEqual([
    '[+]leaderElection ok',
    '[+]endpoints-controller ok',
    '[+]endpointslice-controller ok',
    '[+]endpointslice-mirroring-controller ok',
    '[+]replicationcontroller-controller ok',
    '[+]pod-garbage-collector-controller ok',
    '[+]namespace-controller ok',
    '[+]serviceaccount-controller ok',
    '[+]garbage-collector-controller ok',
    '[+]daemonset-controller ok',
    '[+]job-controller ok',
    '[+]deployment-controller ok',
    '[+]replicaset-controller ok',
    '[+]disruption-controller ok',
    '[+]statefulset-controller ok',
    '[+]cronjob-controller ok',
    '[+]node-lifecycle-controller ok',
    '[+]clusterrole-aggregation-controller ok',
    '[+]persistentvolumeclaim-protection-controller ok',
    '[+]persistentvolume-protection-controller ok',
    '[+]ttl-after-finished-controller ok',
    '[+]root-ca-certificate-publisher-controller ok',
    '[+]taint-eviction-controller ok',
    'readyz check passed',
    '',
  ]);
  // A single check is a sub-path, which is not in the list.
  expect(answer('/healthz/leaderElection no token').status).toBe(403);
  expect(answer('/healthz/leaderElection admin token')).toEqual({ status: 200, body: 'ok' });

  // Everything else: no token is system:anonymous (403), a token the
  // TokenReview refuses is 401, the kubeconfig's token is allowed.
  expect(answer('/metrics no token').status).toBe(403);
  expect(answer('/metrics bad token').status).toBe(401);
  const metrics = answer('/metrics admin token');
  expect(metrics.status).toBe(200);
  for (const name of [
    'workqueue_depth',
    'workqueue_adds_total',
    'workqueue_queue_duration_seconds',
    'workqueue_work_duration_seconds',
    'workqueue_unfinished_work_seconds',
    'workqueue_longest_running_processor_seconds',
    'workqueue_retries_total',
  ]) {
    expect(metrics.body, name).toContain(`# TYPE ${name}`);
  }
  for (const queue of ['replicaset', 'deployment', 'garbage_collector_graph_changes']) {
    expect(metrics.body).toMatch(new RegExp(`workqueue_adds_total\\{name="${queue}"\\} [1-9]`));
  }
  expect(metrics.body).toContain('leader_election_master_status{name="kube-controller-manager"} 1');
  // The EndpointSlice controller registers its own metrics in the same registry.
  expect(metrics.body).toContain('# TYPE endpoint_slice_controller_syncs counter');
  expect(metrics.body).toMatch(
    /rest_client_requests_total\{code="201",method="POST",host=""\} \d+/,
  );

  const configz = JSON.parse(answer('/configz admin token').body) as {
    'kubecontrollermanager.config.k8s.io': {
      Generic: { LeaderElection: { LeaseDuration: string } };
      GarbageCollectorController: { ConcurrentGCSyncs: number };
      EndpointSliceController: Record<string, unknown>;
    };
  };
  const kcm = configz['kubecontrollermanager.config.k8s.io'];
  expect(kcm.Generic.LeaderElection.LeaseDuration).toBe('15s');
  expect(kcm.GarbageCollectorController.ConcurrentGCSyncs).toBe(20);
  expect(kcm.EndpointSliceController).toEqual({
    ConcurrentServiceEndpointSyncs: 5,
    MaxEndpointsPerSlice: 100,
    EndpointUpdatesBatchPeriod: '0s',
  });

  // The log is one JSON object per line, with ts in seconds.
  const first = JSON.parse(logLines[0]!) as Record<string, unknown>;
  expect(first).toEqual({
    ts: Date.UTC(2026, 0, 1) / 1000,
    msg: 'Starting',
    v: 0,
    version: '0.1.0',
  });

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/07-endpoints.txt');
});
