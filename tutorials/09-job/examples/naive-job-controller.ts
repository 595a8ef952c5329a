// A Job controller as one might first write it: every second it looks at
// each of its Jobs' pods in an informer's cache, counts the successes, and
// creates pods until the count reaches `completions`. It counts in one of
// three ways, each of which Kubernetes' Job controller once used or was
// tempted to use, and each of which 03-counting.ts breaks:
//
// - `existing`: the successes are the Succeeded pods that exist (what the Job
//   controller did before tracking finalizers, Kubernetes 1.25 and older);
// - `events`: add one to `status.succeeded` for every pod the informer reports
//   turning Succeeded;
// - `finalizer`: keep pods with a finalizer of its own until counted, add
//   them to `status.succeeded`, then remove the finalizer (the tracking
//   finalizer without `uncountedTerminatedPods`).
//
// It manages only Jobs whose `spec.managedBy` names it, which the real Job
// controller leaves alone, so both run side by side on one cluster.
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { formatTime, type Clock, type ResourceClient } from '@kcm-ts/apimachinery';
import { informerResources, type SharedInformerFactory } from '@kcm-ts/informer';
import type { TestEnvironment } from '@kcm-ts/manager';

/** How a {@link NaiveJobController} counts the successes of a Job. */
export type Counting = 'existing' | 'events' | 'finalizer';

/** The `spec.managedBy` of the Jobs a naive controller counting this way manages. */
export const naiveManagedBy = (counting: Counting): string => `example.com/count-${counting}`;

const ownFinalizer = 'example.com/count';

const isSucceeded = (p: Pod | undefined): boolean => p?.status?.phase === 'Succeeded';
const isActive = (p: Pod): boolean =>
  !p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';
const jobUidOf = (p: Pod): string | undefined =>
  p.metadata?.ownerReferences?.find((r) => r.controller && r.kind === 'Job')?.uid;

/** A Job controller that counts naively; see the top of this file. */
export class NaiveJobController {
  readonly counting: Counting;
  /** The status writes the API server refused, with its messages. */
  readonly refused: string[] = [];
  readonly #env: TestEnvironment;
  readonly #clock: Clock;
  readonly #jobs: ResourceClient<Job>;
  readonly #pods: ResourceClient<Pod>;
  readonly #stop = new AbortController();
  /** Successes the informer reported since the last status write, by Job uid (`events`). */
  readonly #seen = new Map<string, number>();
  #factory: SharedInformerFactory | undefined;
  #ticker: { stop(): void } | undefined;
  #syncing: Promise<void> = Promise.resolve();

  constructor(env: TestEnvironment, counting: Counting) {
    this.#env = env;
    this.#clock = env.clock;
    this.counting = counting;
    this.#jobs = env.client<Job>(informerResources.jobs);
    this.#pods = env.client<Pod>(informerResources.pods);
  }

  /** Starts its informers (a fresh list of every Job and pod) and its once-a-second sync. */
  async start(): Promise<void> {
    const factory = this.#env.informerFactory();
    this.#factory = factory;
    //#region events
    // `events`: one more success for each pod the informer reports Succeeded,
    // whether it is new to the cache or turned Succeeded in an update.
    factory
      .pods()
      .informer()
      .addEventHandler({
        onAdd: (pod) => {
          if (isSucceeded(pod)) this.#saw(pod);
        },
        onUpdate: (old, pod) => {
          if (isSucceeded(pod) && !isSucceeded(old)) this.#saw(pod);
        },
      });
    //#endregion events
    factory.jobs().informer();
    factory.start(this.#stop.signal);
    await factory.waitForCacheSync(this.#stop.signal);
    this.#ticker = this.#clock.newTicker(1000, () => {
      this.#syncing = this.#syncing.then(() => this.#syncAll()).catch(() => undefined);
    });
  }

  /** Stops it, as a crash would: nothing it held in memory survives. */
  async stop(): Promise<void> {
    this.#ticker?.stop();
    this.#stop.abort();
    await this.#syncing;
    await this.#factory?.shutdown();
  }

  async #createPod(job: Job): Promise<void> {
    await this.#pods.inNamespace(job.metadata?.namespace ?? '').create({
      metadata: {
        generateName: `${job.metadata?.name ?? ''}-`,
        labels: job.spec?.template.metadata?.labels ?? {},
        ownerReferences: [
          {
            apiVersion: 'batch/v1',
            kind: 'Job',
            name: job.metadata?.name ?? '',
            uid: job.metadata?.uid ?? '',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
        ...(this.counting === 'finalizer' ? { finalizers: [ownFinalizer] } : {}),
      },
      spec: job.spec?.template.spec ?? { containers: [] },
    });
  }

  #saw(pod: Pod): void {
    const uid = jobUidOf(pod);
    if (uid !== undefined) this.#seen.set(uid, (this.#seen.get(uid) ?? 0) + 1);
  }

  async #syncAll(): Promise<void> {
    const factory = this.#factory!;
    for (const job of factory.jobs().lister().list()) {
      if (job.spec?.managedBy !== naiveManagedBy(this.counting)) continue;
      if (job.status?.conditions?.some((c) => c.type === 'Complete')) continue;
      const uid = job.metadata?.uid ?? '';
      const pods = factory
        .pods()
        .lister()
        .byNamespace(job.metadata?.namespace ?? '')
        .list()
        .filter((p) => jobUidOf(p) === uid);
      await this.#sync(structuredClone(job), pods);
    }
  }

  async #sync(job: Job, pods: Pod[]): Promise<void> {
    const uid = job.metadata?.uid ?? '';
    const ns = job.metadata?.namespace ?? '';
    const status = (job.status ??= {});
    const active = pods.filter(isActive).length;
    let succeeded = 0;
    let counted: Pod[] = [];
    switch (this.counting) {
      //#region existing
      case 'existing':
        // The Succeeded pods that exist now.
        succeeded = pods.filter(isSucceeded).length;
        break;
      //#endregion existing
      case 'events':
        succeeded = (status.succeeded ?? 0) + (this.#seen.get(uid) ?? 0);
        break;
      //#region finalizer
      case 'finalizer':
        // Succeeded pods that still hold our finalizer have not been counted yet.
        counted = pods.filter(
          (p) => isSucceeded(p) && p.metadata?.finalizers?.includes(ownFinalizer),
        );
        succeeded = (status.succeeded ?? 0) + counted.length;
        break;
      //#endregion finalizer
    }
    const completions = job.spec?.completions ?? 1;
    const parallelism = job.spec?.parallelism ?? 1;
    const done = succeeded >= completions && active === 0;
    const now = formatTime(this.#clock.now());
    const started = status.startTime === undefined;
    status.startTime ??= now;
    if (done) {
      // The API server wants SuccessCriteriaMet before Complete.
      status.conditions = ['SuccessCriteriaMet', 'Complete'].map((type) => ({
        type,
        status: 'True',
        lastProbeTime: now,
        lastTransitionTime: now,
      }));
      status.completionTime = now;
    }
    // Pods first: what it does follows from its count, whatever the API server says of it.
    const want = done ? 0 : Math.max(0, Math.min(parallelism, completions - succeeded) - active);
    for (let i = 0; i < want; i++) await this.#createPod(job);
    const changed = succeeded !== (status.succeeded ?? 0) || active !== (status.active ?? 0);
    if (!changed && !started && !done) return;
    status.succeeded = succeeded;
    status.active = active;
    try {
      await this.#jobs.inNamespace(ns).updateStatus(job);
    } catch (err) {
      // Such as "cannot decrease the succeeded counter".
      this.refused.push((err as Error).message);
      return;
    }
    this.#seen.delete(uid);
    // `finalizer`: counted and written, so the pods may go.
    for (const pod of counted) {
      await this.#pods
        .inNamespace(ns)
        .patch(pod.metadata?.name ?? '', {
          type: 'json',
          ops: [{ op: 'remove', path: '/metadata/finalizers' }],
        })
        .catch(() => undefined); // counted again next second
    }
  }
}
