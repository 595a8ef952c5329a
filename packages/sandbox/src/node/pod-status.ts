// The status the kubelet reports for a pod: pkg/kubelet/kubelet_pods.go
// (generateAPIPodStatus, convertToAPIContainerStatuses) with the pod
// conditions of pkg/kubelet/status/generate.go. IDs are made up, stable
// per image and per container run.
import { formatTime } from '@kcm-ts/apimachinery';
import type { Container, ContainerStatus, PodCondition } from 'kubernetes-types/core/v1.js';
import { fullImageName } from './images.js';

/** What the container statuses show of a pod's past: its uid, restarts and last crash. */
export interface ContainerHistory {
  readonly uid: string;
  readonly restartCount: number;
  readonly lastTermination?:
    { exitCode: number; reason?: string; startedAt: number; finishedAt: number } | undefined;
}

/** A container waiting for `reason`. */
export function waiting(reason: string, message?: string): ContainerStatus['state'] {
  return { waiting: { reason, ...(message !== undefined ? { message } : {}) } };
}

function hex(seed: string, length: number): string {
  let h = 0x811c9dc5;
  let out = '';
  while (out.length < length) {
    for (const ch of seed + out.length) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
    out += h.toString(16).padStart(8, '0');
  }
  return out.slice(0, length);
}

/** One container's status, as generateAPIPodStatus reports it. */
export function containerStatus(
  state: ContainerHistory,
  c: Container,
  s: NonNullable<ContainerStatus['state']>,
  ready: boolean,
): ContainerStatus {
  const running = s.running !== undefined;
  const term = state.lastTermination;
  return {
    name: c.name,
    image: c.image ?? '',
    imageID:
      running || s.terminated
        ? `${fullImageName(c.image ?? '')}@sha256:${hex(c.image ?? '', 64)}`
        : '',
    ...(running || s.terminated
      ? { containerID: `containerd://${hex(`${state.uid}/${c.name}/${state.restartCount}`, 64)}` }
      : {}),
    ready: running && ready,
    started: running,
    restartCount: state.restartCount,
    state: s,
    lastState:
      term === undefined || s.terminated
        ? {}
        : {
            terminated: {
              exitCode: term.exitCode,
              reason: term.reason ?? 'Error',
              startedAt: formatTime(term.startedAt),
              finishedAt: formatTime(term.finishedAt),
            },
          },
  };
}

/**
 * The pod's conditions; each keeps its lastTransitionTime while its status
 * stays. A pod that has finished (`terminal`) is not ready, for the reason
 * its phase gives.
 */
export function podConditions(
  terminal: 'Succeeded' | 'Failed' | undefined,
  previous: PodCondition[],
  statuses: ContainerStatus[],
  now: number,
): PodCondition[] {
  const condition = (
    type: string,
    ok: boolean,
    reason?: string,
    message?: string,
  ): PodCondition => {
    const old = previous.find((c) => c.type === type);
    const status = ok ? 'True' : 'False';
    return {
      type,
      status,
      lastProbeTime: null as unknown as string,
      lastTransitionTime:
        old?.status === status && old.lastTransitionTime ? old.lastTransitionTime : formatTime(now),
      ...(reason !== undefined ? { reason } : {}),
      ...(message !== undefined ? { message } : {}),
    };
  };
  const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
  const allReady = unready.length === 0 && statuses.length > 0;
  const notReadyMessage = `containers with unready status: [${unready.join(' ')}]`;
  const readyReason = allReady
    ? undefined
    : terminal === 'Failed'
      ? 'PodFailed'
      : terminal === 'Succeeded'
        ? 'PodCompleted'
        : 'ContainersNotReady';
  const readyMessage = allReady || terminal !== undefined ? undefined : notReadyMessage;
  return [
    condition('PodReadyToStartContainers', true),
    condition('Initialized', true),
    condition('Ready', allReady, readyReason, readyMessage),
    condition('ContainersReady', allReady, readyReason, readyMessage),
    condition('PodScheduled', true),
  ];
}
