// The small cluster every example of chapter 9 runs on: the manager
// package's test environment (the sandbox API server with one simulated
// node, on a fake clock) and kube-controller-manager's own `run()` with the
// controllers `npm start` runs for batch work: the Job controller, the
// CronJob controller, the garbage collector, TTL after finished and the pod
// garbage collector, each started by its init function (the Job
// controller's is `startJobController`, the CronJob controller's
// `startCronJobController`). A Job that runs for minutes takes
// milliseconds, and prints the same transcript every time.
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { ConfigMap, Event, Pod } from 'kubernetes-types/core/v1.js';
import type { FakeClock, KubeObject, ResourceClient } from '@kcm-ts/apimachinery';
import { informerResources } from '@kcm-ts/informer';
import {
  implementedControllers,
  startTestEnvironment,
  type TestEnvironment,
  type TestManager,
} from '@kcm-ts/manager';

/** The controllers the examples run: those of `npm start` that batch work meets. */
export const batchControllers = [
  'job-controller',
  'cronjob-controller',
  'garbage-collector-controller',
  'ttl-after-finished-controller',
  'pod-garbage-collector-controller',
];

/** One change the API server committed to a Job or a pod. */
export interface Change {
  /** ms since the timer started. */
  t: number;
  kind: 'Job' | 'Pod' | 'CronJob';
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: Job & Pod & CronJob;
  prev: (Job & Pod & CronJob) | undefined;
}

/** A running cluster; every client works in the `default` namespace. */
export interface Cluster {
  env: TestEnvironment;
  clock: FakeClock;
  jobs: ResourceClient<Job>;
  cronJobs: ResourceClient<CronJob>;
  pods: ResourceClient<Pod>;
  configMaps: ResourceClient<ConfigMap>;
  /**
   * The events recorded about Jobs and pods since the timer started, as
   * `t= 1.0s  Job pi  Normal SuccessfulCreate Created pod: pi-xxxxx`.
   */
  events: string[];
  /** The manager now running, if any. */
  manager: TestManager | undefined;
  /** Seconds since the timer started, as `t= 1.0s`. */
  at(t?: number): string;
  /** ms since the timer started. */
  now(): number;
  /**
   * Waits for the next whole second (the API server writes times in whole
   * seconds), then counts time from there and forgets the events so far.
   */
  startTimer(): Promise<void>;
  /** Moves the fake clock `ms` forward, 100 ms at a time, letting everything run. */
  step(ms: number): Promise<void>;
  /** Steps until `cond` holds; throws after `maxMs` of fake time. */
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<void>;
  /** Calls `listener` for every change to a Job, CronJob or pod from now on; returns the unsubscribe. */
  observe(listener: (change: Change) => void): () => void;
  /** Starts kube-controller-manager (the examples start it once at first). */
  startManager(): Promise<TestManager>;
  /** Stops kube-controller-manager: every controller, its informers and queues. */
  stopManager(): Promise<void>;
  /** What the pod's container printed, as `kubectl logs` reads it. */
  logs(pod: string): Promise<string>;
  stop(): Promise<void>;
}

/** A pod's name with its random suffix shown as xxxxx (generateName). */
export const mask = (name: string | undefined): string =>
  (name ?? '').replace(/-[a-z0-9]{5}$/, '-xxxxx');

/** Starts the sandbox with one node and kube-controller-manager with {@link batchControllers}. */
export async function startCluster(): Promise<Cluster> {
  const env = await startTestEnvironment({ nodes: 1, tick: 100, finishNamespaces: false });
  const clock = env.clock;
  let start = clock.now();
  const at = (t = clock.now() - start): string => `t=${(t / 1000).toFixed(1).padStart(5)}s`;
  const events: string[] = [];
  // Pod names seen so far, to mask their random suffixes in event messages.
  const podNames = new Set<string>();
  const maskNames = (message: string): string =>
    message.replace(/[a-z0-9]([-a-z0-9]*[a-z0-9])?/g, (word) =>
      podNames.has(word) ? mask(word) : word,
    );
  const listeners = new Set<(c: Change) => void>();
  const unsubscribe = env.sandbox.registry.storage.subscribe((e) => {
    if (e.storage === 'events' && e.object.metadata?.namespace === 'default') {
      const ev = e.object as Event;
      const before = e.prev as Event | undefined;
      // A new event, or one the recorder's correlator counted again.
      if (e.type === 'ADDED' || (e.type === 'MODIFIED' && (ev.count ?? 1) > (before?.count ?? 1))) {
        const what = `${ev.involvedObject.kind} ${maskNames(ev.involvedObject.name ?? '')}`;
        events.push(`${at()}  ${what}  ${ev.type} ${ev.reason} ${maskNames(ev.message ?? '')}`);
      }
      return;
    }
    if (e.storage === 'pods') podNames.add(e.object.metadata?.name ?? '');
    const kinds: Record<string, Change['kind']> = {
      'jobs.batch': 'Job',
      'cronjobs.batch': 'CronJob',
      pods: 'Pod',
    };
    const kind = kinds[e.storage];
    if (kind === undefined || e.object.metadata?.namespace !== 'default') return;
    const change: Change = {
      t: clock.now() - start,
      kind,
      type: e.type,
      object: e.object as Change['object'],
      prev: e.prev as Change['prev'],
    };
    for (const l of listeners) l(change);
  });
  const configMaps = env.client<ConfigMap>(informerResources.configMaps, 'default');

  const cluster: Cluster = {
    env,
    clock,
    jobs: env.client<Job>(informerResources.jobs, 'default'),
    cronJobs: env.client<CronJob>(informerResources.cronJobs, 'default'),
    pods: env.client<Pod>(informerResources.pods, 'default'),
    configMaps,
    events,
    manager: undefined,
    at,
    now: () => clock.now() - start,
    async startTimer() {
      const rest = clock.now() % 1000;
      if (rest !== 0) await env.step(1000 - rest);
      start = clock.now();
      events.length = 0;
    },
    step: (ms) => env.step(ms),
    until: (cond, maxMs = 600_000) => env.until(cond, maxMs),
    observe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async startManager() {
      //#region manager
      // kube-controller-manager's run(), with the controllers of `npm start`
      // that batch work meets: each started by its own init function.
      const manager = env.runManager({
        controllers: implementedControllers,
        configure: (config) => {
          config.generic.controllers = batchControllers;
        },
      });
      //#endregion manager
      cluster.manager = manager;
      await env.until(() => manager.started() !== undefined);
      return manager;
    },
    async stopManager() {
      await cluster.manager?.stop();
      cluster.manager = undefined;
    },
    async logs(pod) {
      // The sandbox serves pods/log as the kubelet does.
      const url = `${env.sandbox.url}/api/v1/namespaces/default/pods/${pod}/log`;
      const res = await fetch(url, {
        headers: { authorization: `Bearer ${env.sandbox.token}` },
      });
      return res.text();
    },
    async stop() {
      unsubscribe();
      await env.stop();
    },
  };
  await cluster.startManager();
  return cluster;
}

/** True when the Job has the condition `type` with status True. */
export const hasCondition = (job: Job | undefined, type: string): boolean =>
  (job?.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

/** True once the Job is Complete or Failed. */
export const isFinished = (job: Job | undefined): boolean =>
  hasCondition(job, 'Complete') || hasCondition(job, 'Failed');

/** The pods the Job owns (by controller reference), oldest first. */
export async function podsOf(c: Cluster, job: string): Promise<Pod[]> {
  const uid = (await c.jobs.get(job)).metadata?.uid;
  return (await c.pods.list()).items
    .filter((p) => p.metadata?.ownerReferences?.some((r) => r.controller && r.uid === uid))
    .sort((a, b) =>
      (a.metadata?.creationTimestamp ?? '') < (b.metadata?.creationTimestamp ?? '') ? -1 : 1,
    );
}

/** Is the pod still running or about to: not finished, not being deleted. */
export const isActive = (p: Pod): boolean =>
  !p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';

/** The object's controller reference's uid, if any. */
export const ownerUid = (o: KubeObject): string | undefined =>
  o.metadata?.ownerReferences?.find((r) => r.controller)?.uid;
