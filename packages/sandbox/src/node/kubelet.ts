// The simulated kubelet: it runs no real containers, but moves each pod bound
// to its node through the states a real kubelet reports (pkg/kubelet/
// kubelet.go syncPod; the status itself is pod-status.ts), using the
// kubelet's object managers for the Secrets and ConfigMaps the pods need
// (container-config.ts). What each container's process does comes from
// the process model (process/): its output, and when and how it exits;
// the kubelet restarts exited containers as the pod's restartPolicy says,
// with its back-off (pkg/kubelet/kuberuntime, computePodActions and the
// crash-loop back-off), and a pod whose containers have all finished for
// good ends Succeeded or Failed (pkg/kubelet/kubelet_pods.go, getPhase).
import {
  formatTime,
  isConflict,
  isDeletedFinalStateUnknown,
  isNotFound,
  metaNamespaceKeyFunc,
  noopLogger,
  parseDuration,
  type Clock,
  type KubeObject,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { ListWatch, SharedIndexInformer } from '@kcm-ts/informer';
import { newConfigMapManager, newSecretManager, type StoppableManager } from '@kcm-ts/object-store';
import { newDelayingQueue, type DelayingQueue } from '@kcm-ts/workqueue';
import type {
  ConfigMap,
  Container,
  ContainerStatus,
  Pod,
  PodStatus,
  Secret,
} from 'kubernetes-types/core/v1.js';
import { envProblem, envRefs, mountProblem, volumeRefs } from './container-config.js';
import {
  containerEnvironment,
  containerFiles,
  podHostname,
  type ConfigSource,
} from './process/container-environment.js';
import { containerProgram, type Program } from './process/process-model.js';
import type { ConfigProblem } from './container-config.js';
import type { ContainerLogs } from './container-logs.js';
import type { EventRecorder } from './events.js';
import { fullImageName, imageTag } from './images.js';
import type { PodIPAllocator } from './pod-ips.js';
import { containerStatus, podConditions, waiting } from './pod-status.js';

/**
 * Annotations a pod may carry to steer the simulated kubelet.
 *
 * @category Simulated node
 */
export const podAnnotations = {
  /** How long the containers take to start once the pod can run (a Go duration). */
  startDelay: 'sandbox.kcm-ts.io/start-delay',
  /** How long a started container takes to become ready (a Go duration). */
  readyDelay: 'sandbox.kcm-ts.io/ready-delay',
  /** The containers exit with code 1 this long after each start (a Go duration). */
  crashAfter: 'sandbox.kcm-ts.io/crash-after',
  /**
   * How long the containers take to stop once the pod is deleted (a Go
   * duration), as for a process that ignores SIGTERM; the grace period still
   * bounds it.
   */
  stopDelay: 'sandbox.kcm-ts.io/stop-delay',
} as const;

/** The tags of images that fail to pull: `nginx:bad`, `example.com/app:fail`. */
const failingTags = new Set(['bad', 'fail']);

/** How often a pod that cannot start is looked at again. */
const retryPeriod = 2_000;

/** The kubelet's back-off for image pulls and crashed containers: 10 s doubling up to 5 min. */
const backoff = (failures: number): number => Math.min(10_000 * 2 ** (failures - 1), 300_000);

/** How a container's run ended. */
interface Termination {
  exitCode: number;
  reason: string;
  startedAt: number;
  finishedAt: number;
}

/** What the kubelet remembers about one container of a pod between syncs. */
interface ContainerState {
  restartCount: number;
  /** When the current run started; undefined until the container first starts. */
  startedAt?: number | undefined;
  /** What the current run does; null for a program the model does not know (it runs until stopped). */
  program?: Program | null | undefined;
  /** How many of the current run's output lines are in its log. */
  written: number;
  /** How the current run ended, if it has. */
  terminated?: Termination | undefined;
  /** An exited container that restarts waits until then (its back-off). */
  restartAt?: number | undefined;
  /** How the run before the current one ended (the status's lastState). */
  lastTermination?: Termination | undefined;
}

/**
 * The runtime's network condition before the node has a pod CIDR, in the
 * words a kind node's kubelet reports until kindnet has configured CNI.
 */
export const networkNotReadyMessage =
  'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';

/** What the kubelet remembers about one pod between syncs. */
interface PodState {
  uid: string;
  pod: Pod;
  startTime: string;
  podIP: string;
  /** When the containers start, once nothing stops them. */
  startAt?: number | undefined;
  /** Whether they have started. */
  started: boolean;
  containers: Map<string, ContainerState>;
  /** Succeeded or Failed once every container has finished for good. */
  terminalPhase?: 'Succeeded' | 'Failed' | undefined;
  pullFailures: number;
  /** ErrImagePull shows until then, ImagePullBackOff after it. */
  pullErrorUntil: number;
  pullBackoffUntil: number;
  deleting: boolean;
  /** When the containers have stopped, once the pod is being deleted. */
  stopAt?: number | undefined;
  /** Event reasons already recorded, so a retry does not repeat them. */
  recorded: Set<string>;
}

/** Options of {@link SimulatedKubelet}. */
export interface KubeletOptions {
  nodeName: string;
  /** In-process clients of the sandbox. */
  client: <T extends KubeObject>(group: string, resource: string) => ResourceClient<T>;
  clock: Clock;
  events: EventRecorder;
  /** Gives pods addresses from the node's pod CIDR; has no range until the node has one. */
  podIPs: PodIPAllocator;
  hostIP: string;
  podStartDelay: number;
  podReadyDelay: number;
  /** How long containers take to stop after the pod is deleted. */
  podStopDelay: number;
  /** Where the simulated containers' output goes (served as `pods/log`). */
  logs: ContainerLogs;
  /** Where failed pod syncs are reported; the no-op logger when unset. */
  logger?: Logger | undefined;
}

/**
 * One simulated kubelet: watches the pods bound to its node and reports
 * their lives through the pods' status, as a real kubelet would.
 */
export class SimulatedKubelet {
  readonly #opts: KubeletOptions;
  readonly #pods: ResourceClient<Pod>;
  readonly #informer: SharedIndexInformer<Pod>;
  readonly #secrets: StoppableManager<Secret>;
  readonly #configMaps: StoppableManager<ConfigMap>;
  readonly #states = new Map<string, PodState>();
  /** The pods to sync, now or later: the pod workers' work queue (pkg/kubelet/pod_workers.go). */
  readonly #queue: DelayingQueue<string>;
  #stopped = false;
  /** Pods told that the network is not ready yet, so the event is recorded once. */
  readonly #waitingForNetwork = new Set<string>();
  /** Stopped by the fault lab: pods are not synced; the keys due meanwhile wait here. */
  #paused = false;
  readonly #deferred = new Set<string>();

  constructor(opts: KubeletOptions, signal: AbortSignal) {
    this.#opts = opts;
    this.#pods = opts.client<Pod>('', 'pods');
    this.#queue = newDelayingQueue<string>({ clock: opts.clock });
    const onThisNode = ListWatch.filtered(this.#pods, (o) => {
      o.fieldSelector = `spec.nodeName=${opts.nodeName}`;
    });
    this.#informer = new SharedIndexInformer<Pod>(onThisNode, {
      clock: opts.clock,
      objectDescription: `pods on ${opts.nodeName}`,
    });
    const enqueue = (obj: Pod | { key: string }): void => {
      this.#enqueue(isDeletedFinalStateUnknown(obj) ? obj.key : metaNamespaceKeyFunc(obj));
    };
    this.#informer.addEventHandler({
      onAdd: enqueue,
      onUpdate: (_old, pod) => enqueue(pod),
      onDelete: enqueue,
    });
    //#region kubelet-managers
    // The kubelet's default strategy: one watch per referenced object.
    const managed = { strategy: 'Watch' as const, signal, clock: opts.clock };
    this.#secrets = newSecretManager(opts.client<Secret>('', 'secrets'), managed);
    this.#configMaps = newConfigMapManager(opts.client<ConfigMap>('', 'configmaps'), managed);
    //#endregion kubelet-managers
  }

  /** Runs until `signal` aborts; resolves once everything has stopped. */
  async run(signal: AbortSignal): Promise<void> {
    const informer = this.#informer.run(signal);
    const worker = this.#work();
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    this.#stopped = true;
    this.#queue.shutDown();
    await informer;
    await worker;
    await Promise.all([this.#secrets.stopped(), this.#configMaps.stopped()]);
  }

  #enqueue(key: string): void {
    if (!this.#stopped) this.#queue.add(key);
  }

  /**
   * Stops syncing pods, as a stopped kubelet does: their containers go on
   * as they were (their timelines follow the clock) but nothing is
   * reported, started or removed until {@link SimulatedKubelet.resume}.
   */
  pause(): void {
    this.#paused = true;
  }

  /** Syncs again, every pod once at once, as a kubelet that starts does. */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    const keys = new Set([...this.#deferred, ...this.#informer.getStore().listKeys()]);
    this.#deferred.clear();
    for (const key of keys) this.#enqueue(key);
  }

  /**
   * One pod worker for all pods, so syncs never overlap: each key is synced
   * when its turn comes, and a sync that fails is tried again after the
   * retry period, as the pod workers requeue with their back-off.
   */
  async #work(): Promise<void> {
    for (;;) {
      const [key, shutdown] = await this.#queue.get();
      if (shutdown) return;
      if (this.#paused) {
        this.#deferred.add(key);
        this.#queue.done(key);
        continue;
      }
      try {
        if (!this.#stopped) await this.#sync(key);
      } catch (err) {
        if (!isConflict(err)) {
          (this.#opts.logger ?? noopLogger).error(err, 'Error syncing pod, skipping', {
            node: this.#opts.nodeName,
            pod: key,
          });
        }
        this.#after(key, retryPeriod);
      } finally {
        this.#queue.done(key);
      }
    }
  }

  /**
   * Syncs `key` again in `ms`. A wake-up that a later sync made needless
   * finds nothing to do: every sync works from the pod and the clock alone.
   */
  #after(key: string, ms: number): void {
    if (!this.#stopped) this.#queue.addAfter(key, Math.max(0, ms));
  }

  /**
   * The pod's address: the node's for a host-network pod; the one it
   * already reports, after a restart, when still free; else the next one of
   * the node's range. Undefined while the node has no pod CIDR.
   */
  #podIP(key: string, pod: Pod): string | undefined {
    if (pod.spec?.hostNetwork) return this.#opts.hostIP;
    const ips = this.#opts.podIPs;
    const reported = pod.status?.podIP;
    if (reported && ips.range !== '' && ips.reserve(key, reported)) return reported;
    return ips.allocate(key);
  }

  #forget(key: string): void {
    this.#waitingForNetwork.delete(key);
    const state = this.#states.get(key);
    if (state === undefined) return;
    this.#opts.podIPs.release(key);
    this.#secrets.unregisterPod(state.pod);
    this.#configMaps.unregisterPod(state.pod);
    this.#opts.logs.forget(state.uid);
    this.#states.delete(key);
  }

  /** Writes a line to each container's log (the sandbox's stand-in for their output). */
  #log(
    state: PodState,
    containers: Container[],
    time: number,
    text: (c: Container) => string,
  ): void {
    for (const c of containers) {
      this.#opts.logs.write(
        state.uid,
        c.name,
        time,
        `[kcm-ts sandbox] container "${c.name}" ${text(c)}`,
      );
    }
  }

  async #sync(key: string): Promise<void> {
    const pod = this.#informer.getStore().getByKey(key);
    const uid = pod?.metadata?.uid ?? '';
    if (pod === undefined || this.#states.get(key)?.uid !== uid) this.#forget(key);
    if (pod === undefined) return;
    const now = this.#opts.clock.now();
    let state = this.#states.get(key);
    if (state === undefined) {
      const podIP = this.#podIP(key, pod);
      if (podIP === undefined) {
        // No pod CIDR on the node yet (the controller manager's
        // node-ipam-controller gives it): the network plugin cannot set up
        // the pod's sandbox, so the kubelet waits, as syncPod does while
        // the runtime's network is not ready.
        if (!this.#waitingForNetwork.has(key)) {
          this.#waitingForNetwork.add(key);
          this.#opts.events.record(pod, {
            type: 'Warning',
            reason: 'NetworkNotReady',
            message: `network is not ready: ${networkNotReadyMessage}`,
            component: 'kubelet',
            host: this.#opts.nodeName,
          });
        }
        this.#after(key, 1_000);
        return;
      }
      this.#waitingForNetwork.delete(key);
      state = {
        uid,
        pod,
        startTime: formatTime(now),
        podIP,
        started: false,
        containers: new Map(),
        pullFailures: 0,
        pullErrorUntil: 0,
        pullBackoffUntil: 0,
        deleting: false,
        recorded: new Set(),
      };
      this.#states.set(key, state);
    }
    state.pod = pod;

    if (pod.metadata?.deletionTimestamp) {
      await this.#terminate(key, state, pod, now);
      return;
    }
    // A pod that has finished is left as it is, until it is deleted.
    if (state.terminalPhase !== undefined) return;
    this.#secrets.registerPod(pod);
    this.#configMaps.registerPod(pod);
    const containers = pod.spec?.containers ?? [];
    const status = await this.#desiredStatus(key, state, pod, containers, now);
    if (JSON.stringify(status) !== JSON.stringify(pod.status ?? {})) {
      await this.#pods.inNamespace(pod.metadata?.namespace ?? '').updateStatus({ ...pod, status });
    }
  }

  /** The containers whose current run has not ended. */
  #running(state: PodState, pod: Pod): Container[] {
    if (!state.started) return [];
    return (pod.spec?.containers ?? []).filter((c) => {
      const cs = state.containers.get(c.name);
      return cs?.startedAt !== undefined && cs.terminated === undefined;
    });
  }

  async #terminate(key: string, state: PodState, pod: Pod, now: number): Promise<void> {
    const running = this.#running(state, pod);
    if (!state.deleting) {
      state.deleting = true;
      this.#log(
        state,
        running.filter((c) => state.containers.get(c.name)?.program === null),
        now,
        () => 'received SIGTERM',
      );
      for (const c of pod.spec?.containers ?? []) {
        this.#record(
          state,
          pod,
          'Normal',
          'Killing',
          `Stopping container ${c.name}`,
          `Killing/${c.name}`,
        );
      }
    }
    // The runtime sends SIGTERM at once (kuberuntime_container.go,
    // killContainer); the containers exit after their stop time, or are
    // killed when the grace period runs out. A pod with nothing running has
    // nothing to stop. Then the status manager deletes the pod for good.
    const due = Date.parse(pod.metadata!.deletionTimestamp!);
    if (state.stopAt === undefined) {
      const stopping =
        running.length === 0
          ? 0
          : this.#delay(pod, podAnnotations.stopDelay, this.#opts.podStopDelay);
      state.stopAt = Math.min(now + stopping, Number.isNaN(due) ? now : due);
    }
    if (now < state.stopAt) {
      this.#after(key, state.stopAt - now);
      return;
    }
    const killed = state.stopAt >= due && !Number.isNaN(due);
    this.#log(
      state,
      running.filter((c) => state.containers.get(c.name)?.program === null),
      state.stopAt,
      () => (killed ? 'killed with SIGKILL at the end of its grace period' : 'exited with code 0'),
    );
    for (const c of running) this.#opts.logs.exit(state.uid, c.name);
    await this.#reportStopped(state, pod, running, killed);
    try {
      await this.#pods.inNamespace(pod.metadata?.namespace ?? '').delete(pod.metadata?.name ?? '', {
        gracePeriodSeconds: 0,
        preconditions: { uid: state.uid },
      });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }

  /**
   * Before a deleted pod goes, the kubelet writes its terminal phase
   * (KEP-3329; getPhase with podIsTerminal): Succeeded when every container
   * ended with 0, Failed otherwise, so that a controller still holding the
   * pod by a finalizer (a Job's) sees how it ended. A program the model
   * runs does not handle SIGTERM and ends with 143, a server the model does
   * not know stops cleanly with 0, and one killed at the end of its grace
   * period ends with 137.
   */
  async #reportStopped(
    state: PodState,
    pod: Pod,
    running: Container[],
    killed: boolean,
  ): Promise<void> {
    if (!state.started || state.terminalPhase !== undefined) return;
    const at = state.stopAt ?? this.#opts.clock.now();
    for (const c of running) {
      const cs = state.containers.get(c.name);
      if (cs === undefined || cs.startedAt === undefined) continue;
      const exitCode = killed ? 137 : cs.program === null ? 0 : 143;
      cs.terminated = {
        exitCode,
        reason: exitCode === 0 ? 'Completed' : 'Error',
        startedAt: cs.startedAt,
        finishedAt: at,
      };
      cs.restartAt = undefined;
    }
    const containers = pod.spec?.containers ?? [];
    const ended = containers.map((c) => state.containers.get(c.name)?.terminated);
    if (ended.some((t) => t === undefined)) return;
    state.terminalPhase = ended.every((t) => t?.exitCode === 0) ? 'Succeeded' : 'Failed';
    const status = this.#status(state, pod, containers, at, (c) => {
      const t = state.containers.get(c.name)!.terminated!;
      return {
        terminated: {
          exitCode: t.exitCode,
          reason: t.reason,
          startedAt: formatTime(t.startedAt),
          finishedAt: formatTime(t.finishedAt),
        },
      };
    });
    try {
      await this.#pods.inNamespace(pod.metadata?.namespace ?? '').updateStatus({ ...pod, status });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }

  #delay(pod: Pod, annotation: string, fallback: number): number {
    const text = pod.metadata?.annotations?.[annotation];
    if (text === undefined) return fallback;
    try {
      return Math.max(0, parseDuration(text));
    } catch {
      return fallback; // a bad annotation is ignored, as a real kubelet ignores unknown ones
    }
  }

  /** The status the pod should have now, scheduling the next sync when it will change. */
  async #desiredStatus(
    key: string,
    state: PodState,
    pod: Pod,
    containers: Container[],
    now: number,
  ): Promise<PodStatus> {
    const pulling = this.#pullStatus(key, state, pod, containers, now);
    if (pulling !== undefined) return pulling;
    if (!state.started) {
      // The one wait of a sync (the reads of what the pod references):
      // other steps stay synchronous, so syncs interleave with the rest of
      // the cluster at the same points.
      const problem = await this.#configProblem(pod, containers);
      const creating = this.#creatingStatus(key, state, pod, containers, now, problem);
      if (creating !== undefined) return creating;
      for (const c of containers) await this.#startContainer(state, pod, c, state.startAt!);
      state.started = true;
    }
    return this.#containersStatus(key, state, pod, containers, now);
  }

  /** Images first: nothing runs without them. A tag that fails to pull shows ErrImagePull, then back-off. */
  #pullStatus(
    key: string,
    state: PodState,
    pod: Pod,
    containers: Container[],
    now: number,
  ): PodStatus | undefined {
    const badImage = containers.find((c) => failingTags.has(imageTag(c.image ?? '') ?? ''));
    if (badImage === undefined || state.started) return undefined;
    const image = badImage.image ?? '';
    if (now >= state.pullBackoffUntil) {
      state.pullFailures++;
      state.pullErrorUntil = now + 1_000;
      state.pullBackoffUntil = now + backoff(state.pullFailures);
      this.#record(state, pod, 'Normal', 'Pulling', `Pulling image "${image}"`);
    }
    let shown: ContainerStatus['state'];
    if (now < state.pullErrorUntil) {
      const message = `Failed to pull image "${image}": rpc error: code = NotFound desc = failed to pull and unpack image "${fullImageName(image)}": not found`;
      this.#record(state, pod, 'Warning', 'Failed', message);
      this.#record(state, pod, 'Warning', 'Failed', 'Error: ErrImagePull');
      shown = waiting('ErrImagePull', message);
      this.#after(key, state.pullErrorUntil - now); // then the back-off shows
    } else {
      const message = `Back-off pulling image "${image}"`;
      this.#record(state, pod, 'Normal', 'BackOff', message);
      this.#record(state, pod, 'Warning', 'Failed', 'Error: ImagePullBackOff');
      shown = waiting('ImagePullBackOff', message);
      this.#after(key, state.pullBackoffUntil - now);
    }
    return this.#status(state, pod, containers, now, (c) =>
      c === badImage ? shown : waiting('ContainerCreating'),
    );
  }

  /**
   * Before the containers start: what they need must exist (`problem` says
   * what is missing), then they take their start delay. Undefined once they
   * have started.
   */
  #creatingStatus(
    key: string,
    state: PodState,
    pod: Pod,
    containers: Container[],
    now: number,
    problem: ConfigProblem | undefined,
  ): PodStatus | undefined {
    if (problem !== undefined) {
      this.#record(state, pod, 'Warning', problem.event.reason, problem.event.message);
      this.#after(key, retryPeriod);
      return this.#status(state, pod, containers, now, () =>
        waiting(
          problem.reason,
          problem.reason === 'ContainerCreating' ? undefined : problem.message,
        ),
      );
    }
    state.startAt ??= now + this.#delay(pod, podAnnotations.startDelay, this.#opts.podStartDelay);
    if (now < state.startAt) {
      this.#after(key, state.startAt - now);
      return this.#status(state, pod, containers, now, () => waiting('ContainerCreating'));
    }
    return undefined;
  }

  /** What the pod's containers read, through the kubelet's managers. */
  #configSource(pod: Pod): ConfigSource {
    const ns = pod.metadata?.namespace ?? '';
    const read = async <T>(manager: StoppableManager<KubeObject>, name: string) => {
      try {
        return (await manager.getObject(ns, name)) as T;
      } catch {
        return undefined;
      }
    };
    return {
      configMap: (name) => read<ConfigMap>(this.#configMaps, name),
      secret: (name) => read<Secret>(this.#secrets, name),
    };
  }

  /**
   * Starts a run of container `c` at `at`: what its process will do, from
   * its command, arguments, environment and mounted files.
   */
  async #startContainer(state: PodState, pod: Pod, c: Container, at: number): Promise<void> {
    let cs = state.containers.get(c.name);
    if (!cs) state.containers.set(c.name, (cs = { restartCount: 0, written: 0 }));
    const source = this.#configSource(pod);
    const env = await containerEnvironment(pod, c, source);
    const files = await containerFiles(pod, c, source);
    cs.startedAt = at;
    cs.written = 0;
    cs.terminated = undefined;
    cs.restartAt = undefined;
    cs.program =
      containerProgram([...(c.command ?? []), ...(c.args ?? [])], {
        env,
        files,
        hostname: podHostname(pod),
        startedAt: at,
      }) ?? null;
    this.#opts.logs.start(state.uid, c.name);
    const attempt = cs.restartCount > 0 ? `/${cs.restartCount}` : '';
    if (cs.program === null) {
      this.#log(
        state,
        [c],
        at,
        () =>
          `started from image "${c.image ?? ''}"${cs.restartCount > 0 ? ` (restart ${cs.restartCount})` : ''}`,
      );
    }
    const image = c.image ?? '';
    this.#record(
      state,
      pod,
      'Normal',
      'Pulled',
      `Container image "${image}" already present on machine`,
      `Pulled/${c.name}${attempt}`,
    );
    this.#record(
      state,
      pod,
      'Normal',
      'Created',
      `Created container ${c.name}`,
      `Created/${c.name}${attempt}`,
    );
    this.#record(
      state,
      pod,
      'Normal',
      'Started',
      `Started container ${c.name}`,
      `Started/${c.name}${attempt}`,
    );
  }

  /**
   * Moves each container's run on to `now`: its output written, its exit
   * taken (the `crash-after` annotation makes any run exit with 1 then), an
   * exited container restarted after its back-off when the restartPolicy
   * says so; then the pod's phase from them all.
   */
  async #containersStatus(
    key: string,
    state: PodState,
    pod: Pod,
    containers: Container[],
    now: number,
  ): Promise<PodStatus> {
    const policy = pod.spec?.restartPolicy ?? 'Always';
    const crashAfter = this.#delay(pod, podAnnotations.crashAfter, Infinity);
    const readyDelay = this.#delay(pod, podAnnotations.readyDelay, this.#opts.podReadyDelay);
    const wake: number[] = [];
    for (const c of containers) {
      const cs = state.containers.get(c.name)!;
      // Loop: on a clock that jumped, a container may exit and restart more than once.
      for (;;) {
        if (cs.terminated === undefined) {
          const startedAt = cs.startedAt!;
          const program = cs.program ?? undefined;
          let exit = program?.exit;
          if (Number.isFinite(crashAfter) && (exit === undefined || exit.at > crashAfter)) {
            exit = { at: crashAfter, code: 1 };
          }
          const lines = program?.lines ?? [];
          for (; cs.written < lines.length; cs.written++) {
            const line = lines[cs.written]!;
            if (startedAt + line.at > now) break;
            this.#opts.logs.write(state.uid, c.name, startedAt + line.at, line.text);
          }
          if (cs.written < lines.length) wake.push(startedAt + lines[cs.written]!.at);
          if (cs.program === null) {
            const readyAt = startedAt + readyDelay;
            const mark = `LogReady/${c.name}/${cs.restartCount}`;
            if (readyAt <= now && (exit === undefined || readyAt < startedAt + exit.at)) {
              if (!state.recorded.has(mark)) {
                state.recorded.add(mark);
                this.#log(state, [c], readyAt, () => 'is ready');
              }
            }
          }
          if (exit === undefined || startedAt + exit.at > now) {
            if (exit !== undefined) wake.push(startedAt + exit.at);
            if (startedAt + readyDelay > now) wake.push(startedAt + readyDelay);
            break;
          }
          const finishedAt = startedAt + exit.at;
          cs.terminated = {
            exitCode: exit.code,
            reason: exit.code === 0 ? 'Completed' : 'Error',
            startedAt,
            finishedAt,
          };
          if (cs.program === null) {
            this.#log(
              state,
              [c],
              finishedAt,
              () => `exited with code 1 (${podAnnotations.crashAfter})`,
            );
          }
          this.#opts.logs.exit(state.uid, c.name);
        }
        const restarts =
          policy === 'Always' || (policy === 'OnFailure' && cs.terminated.exitCode !== 0);
        if (!restarts) break;
        if (cs.restartAt === undefined) {
          cs.restartCount++;
          cs.restartAt = cs.terminated.finishedAt + backoff(cs.restartCount);
        }
        if (now < cs.restartAt) {
          wake.push(cs.restartAt);
          this.#record(
            state,
            pod,
            'Warning',
            'BackOff',
            'Back-off restarting failed container',
            `BackOff/${c.name}/${cs.restartCount}`,
          );
          break;
        }
        cs.lastTermination = cs.terminated;
        await this.#startContainer(state, pod, c, cs.restartAt);
      }
    }
    const future = wake.filter((t) => t > now);
    if (future.length > 0) this.#after(key, Math.min(...future) - now);
    // getPhase: every container finished for good, with 0 (Succeeded) or not.
    const finished = containers.map((c) => {
      const cs = state.containers.get(c.name)!;
      const restarts =
        policy === 'Always' || (policy === 'OnFailure' && cs.terminated?.exitCode !== 0);
      return cs.terminated !== undefined && !restarts ? cs.terminated : undefined;
    });
    if (containers.length > 0 && finished.every((t) => t !== undefined)) {
      state.terminalPhase = finished.every((t) => t.exitCode === 0) ? 'Succeeded' : 'Failed';
    }
    return this.#status(
      state,
      pod,
      containers,
      now,
      (c) => {
        const cs = state.containers.get(c.name)!;
        const t = cs.terminated;
        if (t === undefined) return { running: { startedAt: formatTime(cs.startedAt!) } };
        if (cs.restartAt !== undefined && now < cs.restartAt) {
          const wait = Math.round(backoff(cs.restartCount) / 1000);
          return waiting(
            'CrashLoopBackOff',
            `back-off ${wait}s restarting failed container=${c.name} pod=${pod.metadata?.name}_${pod.metadata?.namespace}(${state.uid})`,
          );
        }
        return {
          terminated: {
            exitCode: t.exitCode,
            reason: t.reason,
            startedAt: formatTime(t.startedAt),
            finishedAt: formatTime(t.finishedAt),
          },
        };
      },
      (c) => {
        const cs = state.containers.get(c.name)!;
        return cs.terminated === undefined && cs.startedAt! + readyDelay <= now;
      },
    );
  }

  /** The first referenced Secret or ConfigMap that is missing, as the kubelet reports it. */
  async #configProblem(pod: Pod, containers: Container[]): Promise<ConfigProblem | undefined> {
    const ns = pod.metadata?.namespace ?? '';
    //#region kubelet-lookup
    const lookup = async (
      kind: 'configmap' | 'secret',
      name: string,
    ): Promise<KubeObject | string> => {
      const manager = kind === 'secret' ? this.#secrets : this.#configMaps;
      try {
        return await manager.getObject(ns, name);
      } catch (err) {
        return isNotFound(err)
          ? `${kind} "${name}" not found`
          : `failed to get ${kind} "${name}": ${(err as Error).message}`;
      }
    };
    //#endregion kubelet-lookup
    // Volumes are mounted before containers are created: the pod stays ContainerCreating.
    for (const v of pod.spec?.volumes ?? []) {
      for (const [kind, name] of volumeRefs(v)) {
        const got = await lookup(kind, name);
        if (typeof got === 'string') return mountProblem(v, got);
      }
    }
    for (const c of containers) {
      for (const ref of envRefs(c)) {
        const got = await lookup(ref.kind, ref.name);
        const problem = envProblem(ns, ref, got);
        if (problem !== undefined) return problem;
      }
    }
    return undefined;
  }

  #status(
    state: PodState,
    pod: Pod,
    containers: Container[],
    now: number,
    containerState: (c: Container) => ContainerStatus['state'],
    ready: (c: Container) => boolean = () => false,
  ): PodStatus {
    const statuses = containers.map((c) => {
      const cs = state.containers.get(c.name);
      // While an exited container waits to restart, the run that ended is its last state.
      const waitingToRestart = cs?.terminated !== undefined && cs.restartAt !== undefined;
      const history = {
        uid: state.uid,
        restartCount: cs?.restartCount ?? 0,
        lastTermination: waitingToRestart ? cs.terminated : cs?.lastTermination,
      };
      return containerStatus(history, c, containerState(c) ?? {}, ready(c));
    });
    const phase =
      state.terminalPhase ??
      (state.started &&
      statuses.some((s) => s.state?.running || s.state?.terminated || s.lastState?.terminated)
        ? 'Running'
        : 'Pending');
    return {
      phase,
      conditions: podConditions(state.terminalPhase, pod.status?.conditions ?? [], statuses, now),
      hostIP: this.#opts.hostIP,
      hostIPs: [{ ip: this.#opts.hostIP }],
      podIP: state.podIP,
      podIPs: [{ ip: state.podIP }],
      startTime: state.startTime,
      containerStatuses: statuses,
      // Set by the API server at creation; the kubelet reports the same.
      ...(pod.status?.qosClass !== undefined ? { qosClass: pod.status.qosClass } : {}),
    };
  }

  /** Records an event once per `once` key (the reason by default). */
  #record(
    state: PodState,
    pod: Pod,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    once = `${reason}/${message}`,
  ): void {
    if (state.recorded.has(once)) return;
    state.recorded.add(once);
    this.#opts.events.record(pod, {
      type,
      reason,
      message,
      component: 'kubelet',
      host: this.#opts.nodeName,
    });
  }
}
