// Test fixtures: StatefulSets in wire format like stateful_set_test.go's
// newStatefulSet, and a fake cluster like stateful_set_control_test.go's
// fakeObjectManager and fakeStatefulSetStatusUpdater, with a cache that
// lags behind the "API server" until told to catch up, and writes that fail
// on demand.
import type {
  ControllerRevision,
  StatefulSet,
  StatefulSetStatus,
} from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  formatTime,
  metaNamespaceKeyFunc,
  newAlreadyExists,
  newConflict,
  newInternalError,
  newNotFound,
  type EventRecorder,
} from '@kcm-ts/apimachinery';
import {
  FakeHistory,
  controllerRevisionControllerIndex,
  controllerRevisionControllerIndexFunc,
} from '@kcm-ts/controller';
import { newIndexer } from '@kcm-ts/informer';
import {
  StatefulPodControl,
  type StatefulPodControlObjectManager,
} from '../src/stateful-pod-control.js';
import { DefaultStatefulSetControl } from '../src/stateful-set-control.js';
import type { StatefulSetStatusUpdater } from '../src/stateful-set-status-updater.js';
import { getOrdinal } from '../src/stateful-set-utils.js';

/** `T` with its read-only fields (kubernetes-types marks the server-set ones so) writable. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };
/** The same object, typed writable, for a test to set server-set fields. */
export const mut = <T>(x: T): Writable<T> => x;

export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

let uidSeq = 0;
export const newUid = () => `uid-${++uidSeq}`;

/**
 * A StatefulSet like Go's `newStatefulSet`: selector and template labels
 * `foo=bar`, one nginx container mounting `datadir` (a claim template) and
 * `home` (a host path), RollingUpdate, history limit 2.
 */
export function newStatefulSet(
  name: string,
  replicas: number,
  spec: Partial<StatefulSet['spec']> = {},
): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name,
      namespace: 'default',
      uid: newUid(),
      generation: 1,
      creationTimestamp: '2026-01-01T00:00:00Z',
    },
    spec: {
      replicas,
      serviceName: 'governingsvc',
      selector: { matchLabels: { foo: 'bar' } },
      template: {
        metadata: { labels: { foo: 'bar' } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'nginx',
              volumeMounts: [
                { name: 'datadir', mountPath: '/tmp/' },
                { name: 'home', mountPath: '/home' },
              ],
            },
          ],
          volumes: [{ name: 'home', hostPath: { path: '/tmp/home' } }],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'datadir' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ],
      updateStrategy: { type: 'RollingUpdate' },
      revisionHistoryLimit: 2,
      ...spec,
    },
  };
}

/** Records events as `Type Reason Message`. */
export class FakeRecorder implements EventRecorder {
  readonly events: string[] = [];
  event(_obj: unknown, type: string, reason: string, message: string): void {
    this.events.push(`${type} ${reason} ${message}`);
  }
  eventf(obj: unknown, type: string, reason: string, message: string): void {
    this.event(obj, type, reason, message);
  }
  annotatedEvent(
    obj: unknown,
    _annotations: Record<string, string>,
    type: string,
    reason: string,
    message: string,
  ): void {
    this.event(obj, type, reason, message);
  }
}

export type WriteOp =
  'createPod' | 'updatePod' | 'deletePod' | 'createClaim' | 'updateClaim' | 'updateStatus';

/**
 * The API server and the informer caches in one: writes go to `pods` and
 * `claims` at once (names unique, as the API server keeps them), reads come
 * from `podCache` and `claimCache`, which catch up only on `syncCache()`
 * (or after every write when `lag` is false).
 */
export class FakeCluster implements StatefulPodControlObjectManager {
  readonly pods = new Map<string, Pod>();
  readonly claims = new Map<string, PersistentVolumeClaim>();
  podCache = new Map<string, Pod>();
  claimCache = new Map<string, PersistentVolumeClaim>();
  lag = false;
  /** Decides whether a write fails (with a 500, or 409 for updates). */
  fail: (op: WriteOp, name: string) => boolean = () => false;
  /** Called before each pod creation lands, with the cached view the creator read. */
  onCreatePod: (pod: Pod) => void = () => {};
  /** Called before each pod deletion lands. */
  onDeletePod: (pod: Pod) => void = () => {};
  #rv = 0;
  readonly ops: string[] = [];

  constructor(readonly clock: FakeClock) {}

  #stamp<T extends Pod | PersistentVolumeClaim>(obj: T): T {
    obj.metadata ??= {};
    mut(obj.metadata).resourceVersion = String(++this.#rv);
    return obj;
  }

  syncCache(): void {
    this.podCache = new Map([...this.pods].map(([k, v]) => [k, structuredClone(v)]));
    this.claimCache = new Map([...this.claims].map(([k, v]) => [k, structuredClone(v)]));
  }

  #after(): void {
    if (!this.lag) this.syncCache();
  }

  #maybeFail(op: WriteOp, name: string): void {
    if (this.fail(op, name)) {
      this.ops.push(`${op} ${name} failed`);
      throw op.startsWith('update') && op !== 'updateStatus'
        ? newConflict({ group: '', resource: 'pods' }, name, new Error('injected'))
        : newInternalError(new Error('injected'));
    }
  }

  createPod(pod: Pod): Promise<void> {
    return Promise.resolve().then(() => {
      const name = pod.metadata!.name!;
      this.#maybeFail('createPod', name);
      if (this.pods.has(name)) throw newAlreadyExists({ group: '', resource: 'pods' }, name);
      this.onCreatePod(pod);
      const created = this.#stamp(structuredClone(pod));
      mut(created.metadata!).uid = newUid();
      mut(created.metadata!).creationTimestamp = formatTime(this.clock.now());
      mut(created).status = { phase: 'Pending' };
      this.pods.set(name, created);
      this.ops.push(`createPod ${name}`);
      this.#after();
    });
  }

  getPod(_namespace: string, name: string): Pod {
    const pod = this.podCache.get(name);
    if (pod === undefined) throw newNotFound({ group: '', resource: 'pods' }, name);
    return pod;
  }

  updatePod(pod: Pod): Promise<void> {
    return Promise.resolve().then(() => {
      const name = pod.metadata!.name!;
      this.#maybeFail('updatePod', name);
      const cur = this.pods.get(name);
      if (cur === undefined) throw newNotFound({ group: '', resource: 'pods' }, name);
      if (cur.metadata?.resourceVersion !== pod.metadata?.resourceVersion) {
        throw newConflict({ group: '', resource: 'pods' }, name, new Error('stale'));
      }
      this.pods.set(name, this.#stamp({ ...structuredClone(pod), status: cur.status }));
      this.ops.push(`updatePod ${name}`);
      this.#after();
    });
  }

  deletePod(pod: Pod): Promise<void> {
    return Promise.resolve().then(() => {
      const name = pod.metadata!.name!;
      this.#maybeFail('deletePod', name);
      const cur = this.pods.get(name);
      if (cur === undefined) throw newNotFound({ group: '', resource: 'pods' }, name);
      this.onDeletePod(cur);
      if (!cur.metadata?.deletionTimestamp) {
        mut(cur.metadata!).deletionTimestamp = formatTime(this.clock.now());
        this.#stamp(cur);
      }
      this.ops.push(`deletePod ${name}`);
      this.#after();
    });
  }

  createClaim(claim: PersistentVolumeClaim): Promise<void> {
    return Promise.resolve().then(() => {
      const name = claim.metadata!.name!;
      this.#maybeFail('createClaim', name);
      if (this.claims.has(name)) {
        throw newAlreadyExists({ group: '', resource: 'persistentvolumeclaims' }, name);
      }
      const created = this.#stamp(structuredClone(claim));
      mut(created.metadata!).uid = newUid();
      this.claims.set(name, created);
      this.ops.push(`createClaim ${name}`);
      this.#after();
    });
  }

  getClaim(_namespace: string, name: string): Promise<PersistentVolumeClaim> {
    return Promise.resolve().then(() => {
      const claim = this.claimCache.get(name);
      if (claim === undefined) {
        throw newNotFound({ group: '', resource: 'persistentvolumeclaims' }, name);
      }
      return claim;
    });
  }

  updateClaim(claim: PersistentVolumeClaim): Promise<void> {
    return Promise.resolve().then(() => {
      const name = claim.metadata!.name!;
      this.#maybeFail('updateClaim', name);
      if (!this.claims.has(name)) {
        throw newNotFound({ group: '', resource: 'persistentvolumeclaims' }, name);
      }
      this.claims.set(name, this.#stamp(structuredClone(claim)));
      this.ops.push(`updateClaim ${name}`);
      this.#after();
    });
  }

  /** What the kubelet and the scheduler do: moves a pod on. */
  setPhase(name: string, phase: 'Pending' | 'Running' | 'Failed' | 'Succeeded'): void {
    const pod = this.pods.get(name)!;
    mut(pod).status = { ...pod.status, phase };
    if (phase !== 'Running') mut(pod.status!).conditions = [];
    this.#stamp(pod);
    this.#after();
  }

  setReady(name: string, ready = true): void {
    const pod = this.pods.get(name)!;
    mut(pod).status = {
      ...pod.status,
      phase: 'Running',
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          lastTransitionTime: formatTime(this.clock.now()),
        },
      ],
    };
    this.#stamp(pod);
    this.#after();
  }

  /** Removes the pods being deleted (their grace period is over). */
  finishTerminations(): void {
    for (const [name, pod] of this.pods) {
      if (pod.metadata?.deletionTimestamp) this.pods.delete(name);
    }
    this.#after();
  }

  /** Removes one pod at once, as a force deletion does. */
  remove(name: string): void {
    this.pods.delete(name);
    this.#after();
  }

  cachedPods(): Pod[] {
    return [...this.podCache.values()];
  }

  livePodNames(): string[] {
    return [...this.pods.keys()].sort((a, b) => ordinalOf(a) - ordinalOf(b));
  }
}

const ordinalOf = (name: string) => Number(/-(\d+)$/.exec(name)?.[1] ?? -1);

/** Writes statuses into `set` (like Go's fakeStatefulSetStatusUpdater). */
export class FakeStatusUpdater implements StatefulSetStatusUpdater {
  failNext = 0;
  constructor(readonly target: { set: StatefulSet }) {}
  updateStatefulSetStatus(_set: StatefulSet, status: StatefulSetStatus): Promise<void> {
    return Promise.resolve().then(() => {
      if (this.failNext > 0) {
        this.failNext--;
        throw newInternalError(new Error('injected status failure'));
      }
      this.target.set = { ...this.target.set, status: structuredClone(status) };
    });
  }
}

/** A control over a fake cluster, history and status, like Go's `setupController`. */
export function setupControl(set: StatefulSet, opts: { lag?: boolean } = {}) {
  const clock = new FakeClock();
  const cluster = new FakeCluster(clock);
  cluster.lag = opts.lag ?? false;
  const recorder = new FakeRecorder();
  const revisions = newIndexer<ControllerRevision>(metaNamespaceKeyFunc, {
    [controllerRevisionControllerIndex]: controllerRevisionControllerIndexFunc,
  });
  const history = new FakeHistory(revisions);
  const target = { set };
  const statusUpdater = new FakeStatusUpdater(target);
  const podControl = new StatefulPodControl(cluster, { recorder, clock, random: () => 0 });
  const control = new DefaultStatefulSetControl(podControl, statusUpdater, history, { clock });
  const pods = () => cluster.cachedPods().filter((p) => getOrdinal(p) >= 0);
  return {
    clock,
    cluster,
    recorder,
    revisions,
    history,
    target,
    statusUpdater,
    podControl,
    control,
    /** One pass over the current set and the cached pods; resolves with the error, if any. */
    async sync(): Promise<unknown> {
      try {
        await control.updateStatefulSet(target.set, pods());
        return undefined;
      } catch (err) {
        return err;
      }
    },
    /** Sets the spec (bumping the generation), like a user's update. */
    setSpec(spec: Partial<StatefulSet['spec']>) {
      target.set = {
        ...target.set,
        metadata: {
          ...target.set.metadata,
          generation: (target.set.metadata?.generation ?? 1) + 1,
        },
        spec: { ...target.set.spec!, ...spec },
      };
    },
  };
}

export type Setup = ReturnType<typeof setupControl>;

/** Syncs, making each pod Running and Ready as it appears, until `n` syncs passed or `done`. */
export async function scaleUpAll(s: Setup, maxSyncs = 50): Promise<void> {
  for (let i = 0; i < maxSyncs; i++) {
    const err = await s.sync();
    if (err !== undefined)
      throw err instanceof Error ? err : new Error('sync failed', { cause: err });
    let changed = false;
    for (const [name, pod] of s.cluster.pods) {
      if (pod.metadata?.deletionTimestamp) continue;
      const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      if (!ready) {
        s.cluster.setReady(name);
        changed = true;
      }
    }
    s.cluster.finishTerminations();
    const st = s.target.set.status;
    if (
      !changed &&
      st?.replicas === (s.target.set.spec?.replicas ?? 1) &&
      st.readyReplicas === st.replicas &&
      s.cluster.pods.size === st.replicas &&
      st.updatedReplicas === st.replicas
    ) {
      return;
    }
  }
}
