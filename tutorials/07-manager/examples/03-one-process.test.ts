import { expect, it } from 'vitest';
import { resources } from '@kcm-ts/sandbox';
import { run } from './03-one-process.js';
import { renderProcess } from './process-svg.js';

it('runs every controller on one informer factory, each with its own client, rate limit and queues', async () => {
  const lines: string[] = [];
  const map = await run((line) => lines.push(line));
  const client = (name: string) => map.clients.find((c) => c.name === name)!;
  const controller = (name: string) => map.controllers.find((c) => c.name === name)!;

  // One factory: every informer the controllers asked for is listed once,
  // however many controllers share it (pods feed thirteen, nodes five,
  // Services, namespaces, Jobs and ReplicaSets three).
  expect(map.sharedInformers).toEqual([
    'clusterroles.rbac.authorization.k8s.io',
    'configmaps',
    'controllerrevisions.apps',
    'cronjobs.batch',
    'daemonsets.apps',
    'deployments.apps',
    'endpoints',
    'endpointslices.discovery.k8s.io',
    'jobs.batch',
    'leases.coordination.k8s.io',
    'namespaces',
    'nodes',
    'persistentvolumeclaims',
    'persistentvolumes',
    'poddisruptionbudgets.policy',
    'pods',
    'replicasets.apps',
    'replicationcontrollers',
    'serviceaccounts',
    'services',
    'statefulsets.apps',
  ]);
  for (const informer of map.sharedInformers) {
    expect(client('shared-informers').lists.get(informer), informer).toBe(1);
  }
  expect(controller('replicaset-controller').informers.sort()).toEqual([
    'pods',
    'replicasets.apps',
  ]);
  expect(controller('deployment-controller').informers.sort()).toEqual([
    'deployments.apps',
    'pods',
    'replicasets.apps',
  ]);
  expect(controller('endpointslice-controller').informers).toEqual([
    'pods',
    'services',
    'nodes',
    'endpointslices.discovery.k8s.io',
  ]);
  expect(controller('namespace-controller').informers).toEqual(['namespaces']);
  expect(controller('pod-garbage-collector-controller').informers).toEqual(['pods', 'nodes']);
  expect(controller('job-controller').informers).toEqual(['jobs.batch', 'pods']);
  expect(controller('cronjob-controller').informers).toEqual(['jobs.batch', 'cronjobs.batch']);
  expect(controller('ttl-after-finished-controller').informers).toEqual(['jobs.batch']);
  expect(controller('daemonset-controller').informers).toEqual([
    'daemonsets.apps',
    'controllerrevisions.apps',
    'pods',
    'nodes',
  ]);
  expect(controller('statefulset-controller').informers).toEqual([
    'pods',
    'statefulsets.apps',
    'persistentvolumeclaims',
    'controllerrevisions.apps',
  ]);
  expect(controller('node-lifecycle-controller').informers).toEqual([
    'leases.coordination.k8s.io',
    'pods',
    'nodes',
    'daemonsets.apps',
  ]);
  expect(controller('persistentvolumeclaim-protection-controller').informers).toEqual([
    'persistentvolumeclaims',
    'pods',
  ]);
  expect(controller('persistentvolume-protection-controller').informers).toEqual([
    'persistentvolumes',
  ]);
  expect(controller('taint-eviction-controller').informers).toEqual(['pods', 'nodes']);
  expect(controller('endpoints-controller').informers).toEqual(['pods', 'services', 'endpoints']);
  expect(controller('endpointslice-mirroring-controller').informers).toEqual([
    'endpoints',
    'endpointslices.discovery.k8s.io',
    'services',
  ]);
  expect(controller('replicationcontroller-controller').informers).toEqual([
    'replicationcontrollers',
    'pods',
  ]);
  expect(controller('serviceaccount-controller').informers).toEqual([
    'serviceaccounts',
    'namespaces',
  ]);
  expect(controller('disruption-controller').informers).toEqual([
    'pods',
    'poddisruptionbudgets.policy',
    'replicationcontrollers',
    'replicasets.apps',
    'deployments.apps',
    'statefulsets.apps',
  ]);
  expect(controller('clusterrole-aggregation-controller').informers).toEqual([
    'clusterroles.rbac.authorization.k8s.io',
  ]);
  expect(controller('root-ca-certificate-publisher-controller').informers).toEqual([
    'configmaps',
    'namespaces',
  ]);

  // The garbage collector watches every deletable resource the server lists,
  // but events, through informers of its own that keep metadata only.
  const deletable = resources
    .filter((r) => ['delete', 'list', 'watch'].every((v) => r.verbs.includes(v as never)))
    .filter((r) => r.resource !== 'events')
    .map((r) => (r.group ? `${r.resource}.${r.group}` : r.resource))
    .sort();
  expect(map.gcMonitors).toEqual(deletable);
  expect(controller('garbage-collector-controller').informers).toEqual([]);
  expect(client('generic-garbage-collector').metadataOnly).toBe(true);

  // Each controller writes as itself, within its own token bucket:
  // --kube-api-qps 20 and --kube-api-burst 30, the collector's QPS doubled,
  // the namespace controller's QPS ×20 and burst ×100, as core.go sets them;
  // the pod garbage collector's client is pod-garbage-collector, the
  // endpoints controller's endpoint-controller, and so on, as upstream
  // names them.
  expect(
    map.controllers.map((u) => [
      u.name,
      u.clients,
      u.clients.map((n) => [client(n).qps, client(n).burst]),
    ]),
  ).toEqual([
    ['endpoints-controller', ['endpoint-controller'], [[20, 30]]],
    ['endpointslice-controller', ['endpointslice-controller'], [[20, 30]]],
    ['endpointslice-mirroring-controller', ['endpointslicemirroring-controller'], [[20, 30]]],
    ['replicationcontroller-controller', ['replication-controller'], [[20, 30]]],
    ['pod-garbage-collector-controller', ['pod-garbage-collector'], [[20, 30]]],
    ['namespace-controller', ['namespace-controller'], [[400, 3000]]],
    ['serviceaccount-controller', ['service-account-controller'], [[20, 30]]],
    ['garbage-collector-controller', ['generic-garbage-collector'], [[40, 30]]],
    ['daemonset-controller', ['daemon-set-controller'], [[20, 30]]],
    ['job-controller', ['job-controller'], [[20, 30]]],
    ['deployment-controller', ['deployment-controller'], [[20, 30]]],
    ['replicaset-controller', ['replicaset-controller'], [[20, 30]]],
    ['disruption-controller', ['disruption-controller'], [[20, 30]]],
    ['statefulset-controller', ['statefulset-controller'], [[20, 30]]],
    ['cronjob-controller', ['cronjob-controller'], [[20, 30]]],
    ['node-lifecycle-controller', ['node-controller'], [[20, 30]]],
    ['clusterrole-aggregation-controller', ['clusterrole-aggregation-controller'], [[20, 30]]],
    ['persistentvolumeclaim-protection-controller', ['pvc-protection-controller'], [[20, 30]]],
    ['persistentvolume-protection-controller', ['pv-protection-controller'], [[20, 30]]],
    ['ttl-after-finished-controller', ['ttl-after-finished-controller'], [[20, 30]]],
    ['root-ca-certificate-publisher-controller', ['root-ca-cert-publisher'], [[20, 30]]],
    ['taint-eviction-controller', ['taint-eviction-controller'], [[20, 30]]],
  ]);
  expect(client('replicaset-controller').requests.get('pods')).toEqual(new Set(['create']));
  expect(client('deployment-controller').requests.get('replicasets.apps')).toEqual(
    new Set(['create']),
  );
  expect(client('generic-garbage-collector').requests.get('replicasets.apps')).toContain('delete');
  expect(client('namespace-controller').requests.get('namespaces/finalize')).toEqual(
    new Set(['update']),
  );

  // The queues each controller made, named as their metrics are labelled.
  expect(map.controllers.map((u) => u.queues)).toEqual([
    ['endpoint'],
    ['endpoint_slice'],
    ['endpoint_slice_mirroring'],
    ['replicationmanager'],
    ['orphaned_pods_nodes'],
    ['namespace'],
    ['serviceaccount'],
    [
      'garbage_collector_attempt_to_delete',
      'garbage_collector_attempt_to_orphan',
      'garbage_collector_graph_changes',
    ],
    ['daemonset'],
    ['job', 'job_orphan_pod'],
    ['deployment'],
    ['replicaset'],
    ['disruption', 'disruption_recheck', 'stale_pod_disruption'],
    ['statefulset'],
    ['cronjob'],
    ['node_lifecycle_controller', 'node_lifecycle_controller_pods'],
    ['ClusterRoleAggregator'],
    ['pvcprotection'],
    ['pvprotection'],
    ['ttl_jobs_to_delete'],
    ['root_ca_cert_publisher'],
    ['noexec_taint_node', 'noexec_taint_pod'],
  ]);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/03-one-process.txt');
  // The chapter's picture is drawn from this very run.
  await expect(renderProcess(map)).toMatchFileSnapshot('../one-process.svg');
});
