// A transcript of what the API server committed for some Jobs and their
// pods: one line per change that matters to the Job controller (a pod
// created, running, ready, finished, its finalizer gone, deleted; a Job's
// counters, its uncounted pods and its conditions), with the time it
// happened on the fake clock. Several examples print one.
import type { Job, JobCondition } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { mask, type Change, type Cluster } from './cluster.js';

const tracking = 'batch.kubernetes.io/job-tracking';

const isReady = (p: Pod | undefined): boolean =>
  p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** The exit code of the pod's first container, once it has terminated. */
export const exitCode = (p: Pod | undefined): number | undefined =>
  p?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode;

const counters = ['active', 'ready', 'terminating', 'succeeded', 'failed'] as const;

/** Follows the changes of the Jobs named in `jobs` (all when empty) and their pods. */
export class Trace {
  readonly lines: string[] = [];
  /** Every change seen, for the tests. */
  readonly changes: Change[] = [];
  readonly #names = new Map<string, string>(); // pod uid → masked name
  readonly #jobUids = new Set<string>();
  readonly #unsubscribe: () => void;

  constructor(
    readonly c: Cluster,
    readonly jobs: readonly string[] = [],
    readonly opts: { pods?: boolean; ready?: boolean } = {},
  ) {
    this.#unsubscribe = c.observe((ch) => this.#on(ch));
  }

  /** The masked name of a pod uid this trace saw. */
  podName(uid: string): string {
    return this.#names.get(uid) ?? uid;
  }

  /** Adds a line of the example's own, such as the command it ran. */
  note(text: string): void {
    this.lines.push(`${this.c.at()}  ${text}`);
  }

  stop(): void {
    this.#unsubscribe();
  }

  #on(ch: Change): void {
    const name = ch.object.metadata?.name ?? '';
    if (ch.kind === 'CronJob') return;
    if (ch.kind === 'Job') {
      if (this.jobs.length > 0 && !this.jobs.includes(name)) return;
      this.#jobUids.add(ch.object.metadata?.uid ?? '');
      this.changes.push(ch);
      const what = this.#jobChange(ch.prev, ch.object, ch.type);
      if (what !== '') this.lines.push(`${this.c.at(ch.t)}  Job ${name}  ${what}`);
      return;
    }
    const owner = ch.object.metadata?.ownerReferences?.find((r) => r.controller);
    if (owner === undefined || !this.#jobUids.has(owner.uid)) return;
    this.#names.set(ch.object.metadata?.uid ?? '', mask(name));
    this.changes.push(ch);
    if (this.opts.pods === false) return;
    const what = this.#podChange(ch.prev, ch.object, ch.type);
    if (what !== '') this.lines.push(`${this.c.at(ch.t)}  Pod ${mask(name)}  ${what}`);
  }

  #podChange(prev: Pod | undefined, pod: Pod, type: Change['type']): string {
    if (type === 'DELETED') return 'gone';
    const parts: string[] = [];
    if (type === 'ADDED') {
      parts.push(`created, finalizers: [${(pod.metadata?.finalizers ?? []).join(', ')}]`);
    }
    const phase = pod.status?.phase;
    if (type !== 'ADDED' && phase !== prev?.status?.phase && phase !== 'Pending') {
      const code = exitCode(pod);
      parts.push(code === undefined ? `${phase}` : `${phase} (exit code ${code})`);
    }
    if (this.opts.ready !== false && isReady(pod) && !isReady(prev)) parts.push('Ready');
    const had = prev?.metadata?.finalizers?.includes(tracking) ?? false;
    const has = pod.metadata?.finalizers?.includes(tracking) ?? false;
    if (had && !has) parts.push('tracking finalizer removed');
    if (pod.metadata?.deletionTimestamp && !prev?.metadata?.deletionTimestamp) {
      parts.push('being deleted');
    }
    return parts.join('; ');
  }

  #jobChange(prev: Job | undefined, job: Job, type: Change['type']): string {
    if (type === 'DELETED') return 'gone';
    if (type === 'ADDED') return 'created';
    const s = job.status ?? {};
    const p = prev?.status ?? {};
    const parts: string[] = [];
    if (s.startTime && s.startTime !== p.startTime) parts.push('startTime set');
    const changed = counters.filter((k) => (s[k] ?? 0) !== (p[k] ?? 0));
    if (changed.length > 0) parts.push(changed.map((k) => `${k}=${s[k] ?? 0}`).join(' '));
    for (const list of ['succeeded', 'failed'] as const) {
      const now = s.uncountedTerminatedPods?.[list] ?? [];
      const before = p.uncountedTerminatedPods?.[list] ?? [];
      if (now.join() !== before.join()) {
        parts.push(
          `uncountedTerminatedPods.${list}=[${now.map((u) => this.podName(u)).join(', ')}]`,
        );
      }
    }
    if ((s.completedIndexes ?? '') !== (p.completedIndexes ?? '')) {
      parts.push(`completedIndexes="${s.completedIndexes ?? ''}"`);
    }
    if ((s.failedIndexes ?? '') !== (p.failedIndexes ?? '')) {
      parts.push(`failedIndexes="${s.failedIndexes ?? ''}"`);
    }
    const key = (c: JobCondition) => `${c.type}=${c.status} ${c.reason ?? ''}`;
    const old = new Set((p.conditions ?? []).map(key));
    for (const c of s.conditions ?? []) {
      if (!old.has(key(c))) parts.push(`${c.type}=${c.status} (${c.reason ?? ''})`);
    }
    if (s.completionTime && s.completionTime !== p.completionTime) {
      parts.push('completionTime set');
    }
    return parts.join('; ');
  }
}
