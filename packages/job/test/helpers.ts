// Shared test fixtures: Jobs and pods in wire format shaped like the ones
// job_controller_test.go builds (newJob, newPod, setPodsStatuses, the
// podBuilder), a controller over caches filled by hand with a fake pod
// control and a Job client that records status writes (the Go tests'
// updateStatusHandler), a recording metrics provider, and a harness that
// runs the controller against an in-process sandbox on a fake clock.
import type { Job, JobStatus } from 'kubernetes-types/batch/v1.js';
import type { Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import type { Status } from 'kubernetes-types/meta/v1.js';
import {
  FakeClock,
  FakeRecorder,
  formatTime,
  isDeletedFinalStateUnknown,
  newControllerRef,
  newNotFound,
  type GroupVersionResource,
  type KubeObject,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type Indexer } from '@kcm-ts/informer';
import { FakePodControl, type PodControl } from '@kcm-ts/controller';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import {
  JobController,
  jobCompletionIndexAnnotation,
  jobIndexFailureCountAnnotation,
  jobIndexIgnoredFailureCountAnnotation,
  jobKind,
  jobTrackingFinalizer,
  type JobMetricsProvider,
} from '../src/index.js';

/** 2026-01-01T00:00:00Z, the fake clock's default start. */
export const epoch = Date.UTC(2026, 0, 1);

/** `T` with its read-only fields (kubernetes-types marks the server-set ones so) writable. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };
/** The same object, typed writable, for a test to set server-set fields. */
export const mut = <T>(x: T): Writable<T> => x;

/** One second after Go's zero time: a finish time long past, so no backoff applies (Go's `testFinishedAt`). */
export const testFinishedAt = '0001-01-01T00:00:01Z';

/** Lets promise chains and in-process I/O run. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

let uidSeq = 0;

/**
 * A Job in wire format, like Go's `newJob`: selector and template labels
 * `foo=bar`; a negative `completions` or `parallelism` leaves it unset.
 */
export function newJob(
  parallelism: number,
  completions: number,
  backoffLimit: number,
  completionMode?: 'Indexed' | 'NonIndexed',
  name = 'foobar',
): Job {
  const job: Job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: 'default',
      uid: `job-uid-${++uidSeq}`,
      resourceVersion: '1',
      generation: 1,
    },
    spec: {
      selector: { matchLabels: { foo: 'bar' } },
      template: {
        metadata: { labels: { foo: 'bar' } },
        spec: { containers: [{ name: 'main', image: 'foo/bar' }] },
      },
      backoffLimit,
    },
  };
  if (completionMode !== undefined) job.spec!.completionMode = completionMode;
  if (completions >= 0) job.spec!.completions = completions;
  if (parallelism >= 0) job.spec!.parallelism = parallelism;
  return job;
}

/** Builds a pod step by step, like Go's `podBuilder`. */
export class PodBuilder {
  readonly pod: Pod;

  constructor(pod?: Pod) {
    this.pod = pod ?? {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { uid: `pod-uid-${++uidSeq}`, namespace: 'default', resourceVersion: '1' },
      spec: { containers: [{ name: 'main', image: 'foo/bar' }] },
      status: {},
    };
  }

  name(n: string): this {
    this.pod.metadata!.name = n;
    return this;
  }

  uid(u: string): this {
    mut(this.pod.metadata!).uid = u;
    return this;
  }

  ns(n: string): this {
    this.pod.metadata!.namespace = n;
    return this;
  }

  /** Labels, namespace and controller reference of the Job. */
  job(j: Job): this {
    this.pod.metadata!.labels = { ...j.spec?.selector?.matchLabels };
    this.pod.metadata!.namespace = j.metadata?.namespace;
    this.pod.metadata!.ownerReferences = [newControllerRef(j, jobKind)];
    return this;
  }

  clearOwner(): this {
    delete this.pod.metadata!.ownerReferences;
    return this;
  }

  clearLabels(): this {
    delete this.pod.metadata!.labels;
    return this;
  }

  annotation(key: string, value: string): this {
    this.pod.metadata!.annotations = { ...this.pod.metadata!.annotations, [key]: value };
    return this;
  }

  index(ix: string): this {
    return this.annotation(jobCompletionIndexAnnotation, ix);
  }

  indexFailureCount(count: string): this {
    return this.annotation(jobIndexFailureCountAnnotation, count);
  }

  indexIgnoredFailureCount(count: string): this {
    return this.annotation(jobIndexIgnoredFailureCountAnnotation, count);
  }

  status(s: PodStatus): this {
    mut(this.pod).status = s;
    return this;
  }

  phase(p: string): this {
    mut(this.pod).status = { ...this.pod.status, phase: p };
    return this;
  }

  trackingFinalizer(): this {
    const finalizers = this.pod.metadata!.finalizers ?? [];
    if (!finalizers.includes(jobTrackingFinalizer)) {
      this.pod.metadata!.finalizers = [...finalizers, jobTrackingFinalizer];
    }
    return this;
  }

  /** A deletion timestamp of Go's zero time (`&metav1.Time{}`). */
  deletionTimestamp(): this {
    mut(this.pod.metadata!).deletionTimestamp = '0001-01-01T00:00:00Z';
    return this;
  }

  customDeletionTimestamp(ms: number): this {
    mut(this.pod.metadata!).deletionTimestamp = formatTime(ms);
    return this;
  }

  /** A terminated container that finished at `finishedAt` with `exitCode`. */
  terminated(exitCode = 0, finishedAt = testFinishedAt, name = 'main'): this {
    mut(this.pod).status = {
      ...this.pod.status,
      containerStatuses: [
        {
          name,
          image: 'foo/bar',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode, finishedAt } },
        },
      ],
    };
    return this;
  }

  ready(): this {
    mut(this.pod).status = {
      ...this.pod.status,
      conditions: [...(this.pod.status?.conditions ?? []), { type: 'Ready', status: 'True' }],
    };
    return this;
  }
}

export const buildPod = (): PodBuilder => new PodBuilder();

/** A container status that terminated with `exitCode` (Go tests build these inline). */
export function terminatedStatus(name: string, exitCode: number, finishedAt?: string) {
  return {
    name,
    image: 'foo/bar',
    imageID: '',
    ready: false,
    restartCount: 0,
    state: { terminated: { exitCode, ...(finishedAt !== undefined && { finishedAt }) } },
  };
}

let podSeq = 0;

/** `count` pods of the Job in `phase`, each with the tracking finalizer and a long-finished container (Go's `newPodList`). */
export function newPodList(count: number, phase: string, job: Job): Pod[] {
  return Array.from(
    { length: count },
    () =>
      buildPod()
        .name(`pod-${++podSeq}`)
        .uid(`pod-${podSeq}`)
        .job(job)
        .phase(phase)
        .terminated(0)
        .trackingFinalizer().pod,
  );
}

/** Adds pods in each state to the indexer, like Go's `setPodsStatuses`. */
export function setPodsStatuses(
  podIndexer: Indexer<Pod>,
  job: Job,
  counts: {
    pending?: number;
    active?: number;
    succeeded?: number;
    failed?: number;
    terminating?: number;
    ready?: number;
  },
): void {
  for (const p of newPodList(counts.pending ?? 0, 'Pending', job)) podIndexer.add(p);
  const running = newPodList(counts.active ?? 0, 'Running', job);
  running.slice(0, counts.ready ?? 0).forEach((p) => {
    p.status!.conditions = [{ type: 'Ready', status: 'True' }];
  });
  for (const p of running) podIndexer.add(p);
  for (const p of newPodList(counts.succeeded ?? 0, 'Succeeded', job)) podIndexer.add(p);
  for (const p of newPodList(counts.failed ?? 0, 'Failed', job)) podIndexer.add(p);
  const terminating = newPodList(counts.terminating ?? 0, 'Running', job);
  for (const p of terminating) {
    mut(p.metadata!).deletionTimestamp = formatTime(epoch);
    podIndexer.add(p);
  }
}

/** An index and a phase (`-` for no index), like Go's `indexPhase`. */
export type IndexPhase = [index: string, phase: string];

/** Adds pods with completion indexes, like Go's `setPodsStatusesWithIndexes`. */
export function setPodsStatusesWithIndexes(
  podIndexer: Indexer<Pod>,
  job: Job,
  statuses: readonly IndexPhase[],
): void {
  for (const [index, phase] of statuses) {
    const b = buildPod()
      .name(`pod-${++podSeq}`)
      .uid(`pod-${podSeq}`)
      .job(job)
      .phase(phase)
      .trackingFinalizer();
    if (phase === 'Failed' || phase === 'Succeeded') b.terminated(0);
    if (index !== '-') {
      b.index(index);
      b.pod.spec!.hostname = `${job.metadata!.name}-${index}`;
    }
    podIndexer.add(b.pod);
  }
}

/** Hollow pods with an index and a phase (Go's `hollowPodsWithIndexPhase`). */
export function hollowPodsWithIndexPhase(descs: readonly IndexPhase[]): Pod[] {
  return descs.map(([index, phase]) => {
    const b = new PodBuilder({ metadata: {}, status: { phase } });
    if (index !== '-') b.index(index);
    return b.pod;
  });
}

/** The index and phase of each pod (Go's `toIndexPhases`). */
export function toIndexPhases(pods: readonly Pod[]): IndexPhase[] {
  return pods.map((p) => [
    p.metadata?.annotations?.[jobCompletionIndexAnnotation] ?? '-',
    p.status?.phase ?? '',
  ]);
}

/** A metrics provider that keeps every counter and histogram in memory. */
export class RecordingMetrics implements JobMetricsProvider {
  readonly values = new Map<string, number>();
  readonly observations = new Map<string, number[]>();

  newCounterVec(d: { name: string }) {
    return {
      withLabelValues: (...labels: string[]) => {
        const key = `${d.name}{${labels.join(',')}}`;
        return {
          inc: () => this.values.set(key, (this.values.get(key) ?? 0) + 1),
          add: (v: number) => this.values.set(key, (this.values.get(key) ?? 0) + v),
        };
      },
    };
  }

  newHistogramVec(d: { name: string }) {
    return {
      withLabelValues: (...labels: string[]) => {
        const key = `${d.name}{${labels.join(',')}}`;
        return {
          observe: (v: number) =>
            this.observations.set(key, [...(this.observations.get(key) ?? []), v]),
        };
      },
    };
  }

  /** The value of a counter series (0 when never touched). */
  get(name: string, ...labels: string[]): number {
    return this.values.get(`job_controller_${name}{${labels.join(',')}}`) ?? 0;
  }
}

/** A Job client double: status writes are recorded and echoed back (Go's `updateStatusHandler`). */
export interface JobClientDouble {
  client: ResourceClient<Job>;
  /** Every status written, oldest first (deep copies). */
  statusUpdates: JobStatus[];
  /** The Job as last written. */
  actual: Job | undefined;
  /** When set, status writes reject with this (after being recorded). */
  updateErr: Error | undefined;
  /** The Jobs a fresh `get` returns, by name. */
  stored: Map<string, Job>;
}

export function jobClientDouble(): JobClientDouble {
  const self: JobClientDouble = {
    client: undefined as unknown as ResourceClient<Job>,
    statusUpdates: [],
    actual: undefined,
    updateErr: undefined,
    stored: new Map(),
  };
  const make = (namespace: string | undefined): ResourceClient<Job> =>
    ({
      namespace,
      inNamespace: (ns: string) => make(ns),
      get: (name: string) => {
        const job = self.stored.get(name);
        return job
          ? Promise.resolve(structuredClone(job))
          : Promise.reject(newNotFound({ group: 'batch', resource: 'jobs' }, name));
      },
      updateStatus: (job: Job) => {
        self.statusUpdates.push(structuredClone(job.status ?? {}));
        self.actual = job;
        return self.updateErr ? Promise.reject(self.updateErr) : Promise.resolve(job);
      },
    }) as unknown as ResourceClient<Job>;
  self.client = make(undefined);
  return self;
}

/** A logger that keeps error lines. */
export function capturing(lines: string[]): Logger {
  const make = (): Logger => ({
    info: () => {},
    error: (err, msg) => lines.push(`${msg}: ${String(err)}`),
    v: () => make(),
    enabled: () => true,
    withValues: () => make(),
    withName: () => make(),
  });
  return make();
}

/** A controller over caches filled by hand, as job_controller_test.go's `newControllerFromClient`. */
export interface Fixture {
  controller: JobController;
  clock: FakeClock;
  podControl: FakePodControl;
  jobs: JobClientDouble;
  recorder: FakeRecorder;
  metrics: RecordingMetrics;
  jobIndexer: Indexer<Job>;
  podIndexer: Indexer<Pod>;
  /** Puts the Job in the cache (and where a fresh `get` finds it). */
  addJob(job: Job): void;
  /** The keys waiting in the queue, taken out. */
  drain(): Promise<string[]>;
}

export function fixture(
  opts: { clock?: FakeClock; podControl?: PodControl; logger?: Logger } = {},
): Fixture {
  const clock = opts.clock ?? new FakeClock();
  const source = {
    resource: <T extends KubeObject>(_gvr: GroupVersionResource) =>
      ({}) as unknown as ResourceClient<T>,
  };
  const factory = new SharedInformerFactory(source, 0, { clock });
  const podControl = new FakePodControl();
  const jobs = jobClientDouble();
  const recorder = new FakeRecorder();
  const metrics = new RecordingMetrics();
  const controller = new JobController({
    jobs: factory.jobs(),
    pods: factory.pods(),
    client: { jobs: jobs.client, pods: {} as ResourceClient<Pod> },
    podControl: opts.podControl ?? podControl,
    recorder,
    clock,
    metricsProvider: metrics,
    ...(opts.logger && { logger: opts.logger }),
  });
  const jobIndexer = factory.jobs().informer().getIndexer();
  const podIndexer = factory.pods().informer().getIndexer();
  return {
    controller,
    clock,
    podControl,
    jobs,
    recorder,
    metrics,
    jobIndexer,
    podIndexer,
    addJob(job) {
      jobIndexer.add(job);
      jobs.stored.set(job.metadata!.name!, job);
    },
    async drain() {
      const keys: string[] = [];
      while (controller.queue.len() > 0) {
        const [key] = await controller.queue.get();
        if (key === undefined) break;
        keys.push(key);
        controller.queue.done(key);
      }
      return keys;
    },
  };
}

/** The counters of a status with Go's zero values filled in, for comparisons. */
export function normalizedStatus(s: JobStatus | undefined): JobStatus {
  return {
    ...s,
    active: s?.active ?? 0,
    succeeded: s?.succeeded ?? 0,
    failed: s?.failed ?? 0,
    completedIndexes: s?.completedIndexes ?? '',
  };
}

/** Conditions without their timestamps (Go's `cmpopts.IgnoreFields(..., "LastProbeTime", "LastTransitionTime")`). */
export function conditionsOf(s: JobStatus | undefined) {
  return (s?.conditions ?? []).map(({ type, status, reason, message }) => ({
    type,
    status,
    ...(reason !== undefined && { reason }),
    ...(message !== undefined && { message }),
  }));
}

/**
 * What an observer (a pod informer of its own, kept across controller
 * restarts) saw of every pod on the sandbox, in the server's order.
 */
export interface PodLedger {
  /** Every pod seen, by uid: its last state (kept after it is gone). */
  readonly last: Map<string, Pod>;
  /** The uids of the pods gone from the server. */
  readonly gone: Set<string>;
  /** The most active pods (not terminal, not being deleted) each Job, by uid, had at once. */
  readonly maxActive: Map<string, number>;
  /** Each pod as it was just before it lost the tracking finalizer (or went with it), in order. */
  readonly finalizerRemoved: Pod[];
}

/** A running controller on an in-process sandbox with a fake clock. */
export interface Harness {
  sandbox: Sandbox;
  clock: FakeClock;
  controller: JobController;
  factory: SharedInformerFactory;
  recorder: FakeRecorder;
  metrics: RecordingMetrics;
  ledger: PodLedger;
  /** Direct clients in `default`, for the test's own writes. */
  jobsIn: ResourceClient<Job>;
  podsIn: ResourceClient<Pod>;
  /** Moves the fake clock in steps (default 200 ms), letting I/O run after each. */
  step(ms: number, stepMs?: number): Promise<void>;
  /** Steps until `cond` holds; throws after `maxMs` of fake time. */
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<void>;
  /** The pods of `default` the Job controls. */
  podsOf(job: string): Promise<Pod[]>;
  /** Drives a pod to a terminal phase through `pods/status`, as a kubelet would. */
  finish(pod: Pod, phase: 'Succeeded' | 'Failed', exitCode?: number): Promise<void>;
  /** Marks a pod Running and Ready. */
  run(pod: Pod): Promise<void>;
  /** Stops this controller and starts a new one (new factory, same sandbox and clock). */
  restart(): Promise<void>;
  /** Stops the controller only: the sandbox keeps running. */
  pause(): Promise<void>;
  /** Starts a new controller after {@link Harness.pause}. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

const hasTrackingFinalizer = (p: Pod) =>
  (p.metadata?.finalizers ?? []).includes(jobTrackingFinalizer);

/** True for a pod neither terminal nor being deleted (Go's `IsPodActive`). */
export const isActive = (p: Pod): boolean =>
  !p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';

/** Starts a sandbox (no nodes: pods stay Pending until a test moves them), a factory and the controller. */
export async function startHarness(
  opts: { workers?: number; logger?: Logger } = {},
): Promise<Harness> {
  const clock = new FakeClock();
  const sandbox = await startSandbox({ clock, insecureHttp: true, nodes: 0 });
  const source = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.client<T>(gvr.group, gvr.resource),
  };
  const recorder = new FakeRecorder();
  const metrics = new RecordingMetrics();
  const jobsIn = sandbox.client<Job>('batch', 'jobs').inNamespace('default');
  const podsIn = sandbox.client<Pod>('', 'pods').inNamespace('default');
  const ledger: PodLedger = {
    last: new Map(),
    gone: new Set(),
    maxActive: new Map(),
    finalizerRemoved: [],
  };
  const observer = new SharedInformerFactory(source, 0, { clock });
  const observed = observer.pods().informer();
  const count = (pod: Pod) => {
    const owner = pod.metadata?.ownerReferences?.find((r) => r.controller)?.uid;
    if (owner === undefined) return;
    const active = observed
      .getIndexer()
      .list()
      .filter(
        (p) => isActive(p) && p.metadata?.ownerReferences?.some((r) => r.uid === owner),
      ).length;
    ledger.maxActive.set(owner, Math.max(ledger.maxActive.get(owner) ?? 0, active));
  };
  observed.addEventHandler({
    onAdd: (pod) => {
      ledger.last.set(pod.metadata!.uid!, pod);
      count(pod);
    },
    onUpdate: (old, pod) => {
      if (hasTrackingFinalizer(old) && !hasTrackingFinalizer(pod))
        ledger.finalizerRemoved.push(old);
      ledger.last.set(pod.metadata!.uid!, pod);
      count(pod);
    },
    onDelete: (obj) => {
      const pod = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
      if (pod?.metadata?.uid === undefined) return;
      const before = ledger.last.get(pod.metadata.uid);
      if (before !== undefined && hasTrackingFinalizer(before))
        ledger.finalizerRemoved.push(before);
      ledger.last.set(pod.metadata.uid, pod);
      ledger.gone.add(pod.metadata.uid);
    },
  });
  const observing = new AbortController();
  observer.start(observing.signal);
  let current: {
    factory: SharedInformerFactory;
    controller: JobController;
    abort: AbortController;
    running: Promise<void>;
  };
  const start = async () => {
    const factory = new SharedInformerFactory(source, 0, { clock });
    const controller = new JobController({
      jobs: factory.jobs(),
      pods: factory.pods(),
      client: { jobs: sandbox.client<Job>('batch', 'jobs'), pods: sandbox.client<Pod>('', 'pods') },
      recorder,
      clock,
      metricsProvider: metrics,
      ...(opts.logger && { logger: opts.logger }),
    });
    const abort = new AbortController();
    factory.start(abort.signal);
    const running = controller.run(opts.workers ?? 2, abort.signal);
    current = { factory, controller, abort, running };
    await settle();
    await clock.advance(100);
    await settle();
  };
  const stopCurrent = async () => {
    current.abort.abort();
    await current.running;
    await current.factory.shutdown();
  };
  await start();
  const h: Harness = {
    sandbox,
    clock,
    metrics,
    ledger,
    get controller() {
      return current.controller;
    },
    get factory() {
      return current.factory;
    },
    recorder,
    jobsIn,
    podsIn,
    async step(ms, stepMs = 200) {
      for (let t = 0; t < ms; t += stepMs) {
        await clock.advance(Math.min(stepMs, ms - t));
        await settle(4);
      }
    },
    async until(cond, maxMs = 120_000) {
      for (let t = 0; t <= maxMs; t += 200) {
        if (await cond()) return;
        await h.step(200);
      }
      throw new Error(`condition not met within ${maxMs} ms of fake time`);
    },
    async podsOf(job) {
      const uid = (await jobsIn.get(job)).metadata?.uid;
      return (await podsIn.list()).items.filter((p) =>
        p.metadata?.ownerReferences?.some((r) => r.controller && r.uid === uid),
      );
    },
    async finish(pod, phase, exitCode = phase === 'Succeeded' ? 0 : 1) {
      const fresh = await podsIn.get(pod.metadata!.name!);
      const at = formatTime(clock.now());
      mut(fresh).status = {
        ...fresh.status,
        phase,
        conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: at }],
        containerStatuses: (fresh.spec?.containers ?? []).map((c) => ({
          ...terminatedStatus(c.name, exitCode, at),
          state: { terminated: { exitCode, finishedAt: at, startedAt: at } },
        })),
      };
      await podsIn.updateStatus(fresh);
    },
    async run(pod) {
      const fresh = await podsIn.get(pod.metadata!.name!);
      const at = formatTime(clock.now());
      mut(fresh).status = {
        ...fresh.status,
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }],
      };
      await podsIn.updateStatus(fresh);
    },
    async restart() {
      await stopCurrent();
      await start();
    },
    pause: () => stopCurrent(),
    resume: () => start(),
    async stop() {
      await stopCurrent();
      observing.abort();
      await observer.shutdown();
      await sandbox.stop();
    },
  };
  return h;
}

/** A Job to create on the sandbox: the server generates its selector and labels. */
export function creatableJob(name: string, spec: Partial<NonNullable<Job['spec']>> = {}): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      ...spec,
      template: {
        metadata: { labels: { app: name } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
        ...spec.template,
      },
    },
  };
}

/** True when the value is a `Status` (a delete that completed at once). */
export const isStatusObject = (v: unknown): v is Status =>
  typeof v === 'object' && v !== null && (v as { kind?: string }).kind === 'Status';
