// The ClusterRole shipped for running kcm-ts against a real cluster
// (deploy/rbac.yaml) grants exactly what the manager uses: every (verb,
// resource) of an end-to-end run against the sandbox over HTTPS, recorded
// from the API server's side.
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import type { DaemonSet, Deployment, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { ReplicationController, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@kcm-ts/apimachinery';
import { createClient, newDiscoveryClient } from '@kcm-ts/client';
import { startSandbox } from '@kcm-ts/sandbox';
import { defaultConfiguration, run } from '../src/index.js';

/** `verb resource[/subresource]` of a request, as kube-apiserver's RequestInfo reads it. */
function requestVerb(method: string, url: string): string | undefined {
  const [pathname = '', query = ''] = url.split('?');
  const parts = pathname.split('/').filter(Boolean);
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) rest = parts.slice(2);
  else if (parts[0] === 'apis' && parts.length >= 4) rest = parts.slice(3);
  else return undefined; // discovery, /healthz, /version: non-resource URLs
  const group = parts[0] === 'apis' ? parts[1] : '';
  // RequestInfoFactory: namespaces/{ns}/status and /finalize are the namespace's own subresources.
  if (rest[0] === 'namespaces' && rest.length >= 3 && !['status', 'finalize'].includes(rest[2]!))
    rest = rest.slice(2);
  const [resource, name, sub] = rest;
  const full = `${resource}${sub ? `/${sub}` : ''}${group ? `.${group}` : ''}`;
  const watch = new URLSearchParams(query).get('watch');
  const verb =
    method === 'GET'
      ? name
        ? 'get'
        : watch === 'true' || watch === '1'
          ? 'watch'
          : 'list'
      : method === 'POST'
        ? 'create'
        : method === 'PUT'
          ? 'update'
          : method === 'PATCH'
            ? 'patch'
            : name
              ? 'delete'
              : 'deletecollection';
  return `${verb} ${full}`;
}

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** The `verb resource.group` pairs a ClusterRole's rules grant. */
function granted(rules: Rule[]): Set<string> {
  const out = new Set<string>();
  for (const rule of rules)
    for (const group of rule.apiGroups)
      for (const resource of rule.resources)
        for (const verb of rule.verbs) out.add(`${verb} ${resource}${group ? `.${group}` : ''}`);
  return out;
}

describe('RBAC', () => {
  it('the ClusterRole grants exactly the verbs and resources the manager uses', async () => {
    const used = new Set<string>();
    let recording = true;
    const sandbox = await startSandbox({
      nodes: 1,
      podStartDelay: 50,
      podReadyDelay: 50,
      finishNamespaces: false,
      onRequest: (method, url) => {
        const v = recording ? requestVerb(method, url) : undefined;
        if (v) used.add(v);
      },
    });
    const abort = new AbortController();
    const client = createClient(sandbox.kubeconfigObject);
    const discovery = newDiscoveryClient(client.kubeconfig);
    const config = defaultConfiguration();
    config.secureServing.securePort = 'random';
    let metricsUrl = '';
    let started = false;
    const manager = run(
      {
        config,
        apiServer: { source: client, discovery },
        onServing: (s) => (metricsUrl = `${s.url}/metrics`),
        onControllersStarted: () => (started = true),
      },
      abort.signal,
    );
    try {
      const until = async (what: string, check: () => Promise<boolean>) => {
        for (const start = Date.now(); ;) {
          if (await check()) return;
          if (Date.now() - start > 60_000) throw new Error(`${what} did not happen`);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      await until('the controllers to start', () => Promise.resolve(started));
      // The workloads, written in process so that only the manager's requests are recorded.
      const nsClient = sandbox.client('', 'namespaces');
      await nsClient.create({ metadata: { name: 'rbac' } });
      const deployments = sandbox.client<Deployment>('apps', 'deployments').inNamespace('rbac');
      const make = (name: string) =>
        deployments.create({
          metadata: { name },
          spec: {
            replicas: 2,
            selector: { matchLabels: { app: name } },
            template: {
              metadata: { labels: { app: name } },
              spec: { containers: [{ name: 'c', image: 'nginx' }] },
            },
          },
        });
      const available = (name: string) =>
        until(
          `${name} available`,
          async () => (await deployments.get(name)).status?.availableReplicas === 2,
        );
      await make('a');
      await available('a');
      // A PodDisruptionBudget over them, whose status the disruption controller keeps.
      const pdbs = sandbox
        .client<PodDisruptionBudget>('policy', 'poddisruptionbudgets')
        .inNamespace('rbac');
      await pdbs.create({
        metadata: { name: 'a' },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'a' } } },
      });
      await until(
        'the PodDisruptionBudget to count its pods',
        async () => (await pdbs.get('a')).status?.disruptionsAllowed === 1,
      );
      // A Service over them: its EndpointSlice written, updated as the pods roll.
      const services = sandbox.client<Service>('', 'services').inNamespace('rbac');
      await services.create({
        metadata: { name: 'a' },
        spec: { selector: { app: 'a' }, ports: [{ port: 80 }] },
      });
      const slices = sandbox
        .client<EndpointSlice>('discovery.k8s.io', 'endpointslices')
        .inNamespace('rbac');
      await until('the Service to have its endpoints', async () =>
        (await slices.list()).items.some((s) => (s.endpoints ?? []).length === 2),
      );
      await deployments.patch('a', {
        type: 'merge',
        body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } },
      });
      await until(
        'a rolled',
        async () =>
          (await deployments.get('a')).status?.updatedReplicas === 2 &&
          (await deployments.get('a')).status?.availableReplicas === 2,
      );
      await deployments.delete('a', { propagationPolicy: 'Foreground' });
      await make('b');
      await available('b');
      await deployments.delete('b', { propagationPolicy: 'Orphan' });
      // A Job that runs to completion and is then deleted by its TTL.
      const jobs = sandbox.client<Job>('batch', 'jobs').inNamespace('rbac');
      await jobs.create({
        metadata: { name: 'once' },
        spec: {
          ttlSecondsAfterFinished: 0,
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'echo done'] }],
            },
          },
        },
      });
      await until('the Job to finish and go', async () => (await jobs.list()).items.length === 0);
      // A CronJob firing every second, keeping none of its finished Jobs.
      const cronJobs = sandbox.client<CronJob>('batch', 'cronjobs').inNamespace('rbac');
      await cronJobs.create({
        metadata: { name: 'tick' },
        spec: {
          schedule: '@every 1s',
          successfulJobsHistoryLimit: 0,
          failedJobsHistoryLimit: 0,
          jobTemplate: {
            spec: {
              template: {
                spec: {
                  restartPolicy: 'Never',
                  containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'echo tick'] }],
                },
              },
            },
          },
        },
      });
      await until(
        'a scheduled Job to succeed and be pruned',
        async () =>
          (await cronJobs.get('tick')).status?.lastSuccessfulTime !== undefined &&
          (await jobs.list()).items.every((j) => !j.status?.succeeded),
      );
      await cronJobs.patch('tick', { type: 'merge', body: { spec: { suspend: true } } });
      // A DaemonSet rolled to a new image: pods, revisions, status.
      const daemonSets = sandbox.client<DaemonSet>('apps', 'daemonsets').inNamespace('rbac');
      const podSpec = (image: string) => ({ containers: [{ name: 'c', image }] });
      await daemonSets.create({
        metadata: { name: 'agent' },
        spec: {
          selector: { matchLabels: { app: 'agent' } },
          template: { metadata: { labels: { app: 'agent' } }, spec: podSpec('agent:1') },
        },
      });
      const dsRolled = async (gen: number) => {
        const ds = await daemonSets.get('agent');
        return (
          ds.status?.observedGeneration === gen &&
          ds.status.updatedNumberScheduled === 1 &&
          ds.status.numberAvailable === 1
        );
      };
      await until('the DaemonSet to run', () => dsRolled(1));
      await daemonSets.patch('agent', {
        type: 'merge',
        body: { spec: { template: { spec: podSpec('agent:2') } } },
      });
      await until('the DaemonSet to roll', () => dsRolled(2));
      // A StatefulSet with a claim per pod, scaled down, whose claims go with their pods.
      const statefulSets = sandbox.client<StatefulSet>('apps', 'statefulsets').inNamespace('rbac');
      await statefulSets.create({
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          serviceName: 'web',
          selector: { matchLabels: { app: 'web' } },
          persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
          template: { metadata: { labels: { app: 'web' } }, spec: podSpec('nginx') },
          volumeClaimTemplates: [
            {
              metadata: { name: 'data' },
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
            },
          ],
        },
      });
      const stsReady = async (n: number) => {
        const sts = await statefulSets.get('web');
        return sts.status?.readyReplicas === n && sts.status.replicas === n;
      };
      await until('the StatefulSet to run', () => stsReady(2));
      await statefulSets.patch('web', { type: 'merge', body: { spec: { replicas: 1 } } });
      await until('the StatefulSet to scale down', () => stsReady(1));
      // A ReplicationController, run by the ReplicaSet controller through its adapters.
      const rcs = sandbox
        .client<ReplicationController>('', 'replicationcontrollers')
        .inNamespace('rbac');
      await rcs.create({
        metadata: { name: 'legacy' },
        spec: {
          replicas: 1,
          template: { metadata: { labels: { app: 'legacy' } }, spec: podSpec('nginx') },
        },
      });
      await until('the ReplicationController to run', async () => {
        const rc = await rcs.get('legacy');
        return rc.status?.readyReplicas === 1;
      });
      await nsClient.delete('rbac');
      await until('the namespace to finish', async () =>
        (await nsClient.list()).items.every((n: KubeObject) => n.metadata?.name !== 'rbac'),
      );
      // The secure port's delegated authentication and authorization.
      await new Promise<void>((resolve, reject) => {
        const req = request(
          metricsUrl,
          { rejectUnauthorized: false, headers: { authorization: `Bearer ${sandbox.token}` } },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end();
      });
    } finally {
      abort.abort();
      await manager;
      recording = false;
      await sandbox.stop();
    }
    // A watch is answered until the client leaves, after the last onRequest;
    // the fault lab counts it when it arrives (by plural name only).
    const counts = sandbox.faults.counts();
    for (const entry of [...used]) {
      const [verb, full = ''] = entry.split(' ');
      if (verb === 'list' && counts[`watch ${full.split('.')[0]}`]) used.add(`watch ${full}`);
    }
    const docs = parseAllDocuments(
      await readFile(new URL('../deploy/rbac.yaml', import.meta.url), 'utf8'),
    ).map((d) => d.toJS() as { kind: string; rules?: Rule[] });
    const role = docs.find((d) => d.kind === 'ClusterRole')!;
    // The workloads' own requests were in process: every request recorded came from the manager.
    const grants = granted(role.rules ?? []);
    // Nothing the manager did is missing from the role...
    expect([...used].filter((u) => !grants.has(u))).toEqual([]);
    // ...and the role grants nothing more, but for what this run may not have
    // needed: the event correlator patches an event only when it repeats, and
    // the node lifecycle and taint eviction controllers write only when a
    // node goes quiet, is cordoned or is tainted (test/nodelifecycle covers that);
    // the StatefulSet controller updates a pod only to mend its identity or
    // claims, and the EndpointSlice controller reads and deletes a slice only
    // when its cache turns out stale or a Service goes; a ControllerRevision
    // is deleted on its own only when the collector gets to it before the
    // namespace controller's collection delete does; the root CA publisher
    // updates a kube-root-ca.crt ConfigMap only when someone edited it; the
    // ClusterRole aggregation controller updates a role only when the server
    // refuses its server-side apply.
    const sometimes = new Set([
      'patch events',
      'get nodes',
      'patch nodes',
      'update nodes/status',
      'update pods/status',
      'patch pods/status',
      'update pods',
      'get endpointslices.discovery.k8s.io',
      'delete endpointslices.discovery.k8s.io',
      'delete controllerrevisions.apps',
      'update configmaps',
      'update clusterroles.rbac.authorization.k8s.io',
    ]);
    expect([...grants].filter((g) => !used.has(g) && !sometimes.has(g))).toEqual([]);
  }, 120_000);
});
