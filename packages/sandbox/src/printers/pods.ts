// `kubectl get pods`: printers.go, printPod and the pod columns of AddHandlers.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { Container, ContainerStatus, Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import { humanDuration, parseTime, translateTimestampSince } from './duration.js';
import { ageColumn, column, nameColumn, type PrintedRow, type Printer } from './printer.js';
import type { TableRowCondition } from './types.js';

const columns = [
  nameColumn,
  column('Ready', 'string', 'Ready containers out of all containers.'),
  column('Status', 'string', 'Summary of the pod phase and container states.'),
  column('Restarts', 'string', 'Container restarts, and how long ago the last one was.'),
  ageColumn,
  column('IP', 'string', 'IP address of the pod.', 1),
  column('Node', 'string', 'Node the pod is bound to.', 1),
  column('Nominated Node', 'string', 'Node the scheduler nominated after preemption.', 1),
  column('Readiness Gates', 'string', 'Readiness gate conditions that are true, out of all.', 1),
];

const succeeded: TableRowCondition[] = [
  {
    type: 'Completed',
    status: 'True',
    reason: 'Succeeded',
    message: 'The pod has completed successfully.',
  },
];
const failed: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
];

// A sidecar: an init container that keeps running (podutil.IsRestartableInitContainer).
const isSidecar = (c: Container | undefined): boolean => c?.restartPolicy === 'Always';

const conditionTrue = (conditions: PodCondition[], type: string): boolean =>
  conditions.find((c) => c.type === type)?.status === 'True';

// The latest of two optional instants (Go compares zero times as earliest).
function later(current: number | undefined, cs: ContainerStatus): number | undefined {
  const t = parseTime(cs.lastState?.terminated?.finishedAt);
  return t !== undefined && (current === undefined || current < t) ? t : current;
}

/**
 * The Status column of `kubectl get pods`: the phase (or `status.reason`),
 * overridden by what init containers and then containers report
 * (`Init:0/1`, `Init:ErrImagePull`, `ContainerCreating`, `CrashLoopBackOff`,
 * `Completed`, `Error`, `ExitCode:1`…), then by `Terminating` (or `Unknown`
 * for a pod on a lost node) once the pod is being deleted. Returned with the
 * Ready and Restarts cells, which the same walk over the statuses counts.
 * Go's `printPod`.
 */
export function podStatus(
  pod: Pod,
  now: number,
): { ready: string; status: string; restarts: string } {
  const spec = pod.spec;
  const status = pod.status ?? {};
  const conditions = status.conditions ?? [];
  const initContainers = spec?.initContainers ?? [];
  const phase = status.phase ?? '';

  const tally: Tally = {
    reason: status.reason || phase,
    ready: 0,
    restarts: 0,
    lastRestart: undefined,
    sidecarRestarts: 0,
    lastSidecarRestart: undefined,
  };
  if (conditions.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) {
    tally.reason = 'SchedulingGated';
  }
  const total = (spec?.containers?.length ?? 0) + initContainers.filter(isSidecar).length;

  const initializing = countInitContainers(
    tally,
    initContainers,
    status.initContainerStatuses ?? [],
  );
  if (!initializing || conditionTrue(conditions, 'Initialized')) {
    countContainers(tally, conditions, status.containerStatuses ?? []);
  }

  if (pod.metadata?.deletionTimestamp) {
    if (status.reason === 'NodeLost') tally.reason = 'Unknown';
    else if (phase !== 'Succeeded' && phase !== 'Failed') tally.reason = 'Terminating';
  }

  const { restarts, lastRestart } = tally;
  const restartsCell =
    restarts !== 0 && lastRestart !== undefined
      ? `${restarts} (${humanDuration(now - lastRestart)} ago)`
      : String(restarts);
  return { ready: `${tally.ready}/${total}`, status: tally.reason, restarts: restartsCell };
}

/** What printPod counts while it walks the container statuses. */
interface Tally {
  /** The Status cell so far. */
  reason: string;
  ready: number;
  restarts: number;
  lastRestart: number | undefined;
  sidecarRestarts: number;
  lastSidecarRestart: number | undefined;
}

/**
 * Init containers run in order: the first one not done explains the pod.
 * Returns whether one is still running (or failing).
 */
function countInitContainers(
  tally: Tally,
  initContainers: Container[],
  initStatuses: ContainerStatus[],
): boolean {
  const initByName = new Map(initContainers.map((c) => [c.name, c]));
  for (const [i, cs] of initStatuses.entries()) {
    const count = cs.restartCount ?? 0;
    tally.restarts += count;
    tally.lastRestart = later(tally.lastRestart, cs);
    const sidecar = isSidecar(initByName.get(cs.name));
    if (sidecar) {
      tally.sidecarRestarts += count;
      tally.lastSidecarRestart = later(tally.lastSidecarRestart, cs);
    }
    const terminated = cs.state?.terminated;
    const waiting = cs.state?.waiting;
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (sidecar && cs.started === true) {
      if (cs.ready) tally.ready++;
      continue;
    }
    if (terminated) {
      if (terminated.reason) tally.reason = `Init:${terminated.reason}`;
      else if (terminated.signal) tally.reason = `Init:Signal:${terminated.signal}`;
      else tally.reason = `Init:ExitCode:${terminated.exitCode ?? 0}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      tally.reason = `Init:${waiting.reason}`;
    } else {
      tally.reason = `Init:${i}/${initContainers.length}`;
    }
    return true;
  }
  return false;
}

/** The containers of an initialized pod: their states, readiness and restarts. */
function countContainers(
  tally: Tally,
  conditions: PodCondition[],
  statuses: ContainerStatus[],
): void {
  // Once initialized, only sidecar restarts still count from init containers.
  tally.restarts = tally.sidecarRestarts;
  tally.lastRestart = tally.lastSidecarRestart;
  let hasRunning = false;
  // Walk backwards so the first container's state wins, as Go does.
  for (let i = statuses.length - 1; i >= 0; i--) {
    const cs = statuses[i]!;
    tally.restarts += cs.restartCount ?? 0;
    tally.lastRestart = later(tally.lastRestart, cs);
    const terminated = cs.state?.terminated;
    const waiting = cs.state?.waiting;
    if (waiting?.reason) {
      tally.reason = waiting.reason;
    } else if (terminated?.reason) {
      tally.reason = terminated.reason;
    } else if (terminated) {
      tally.reason = terminated.signal
        ? `Signal:${terminated.signal}`
        : `ExitCode:${terminated.exitCode ?? 0}`;
    } else if (cs.ready && cs.state?.running) {
      hasRunning = true;
      tally.ready++;
    }
  }
  // A finished container beside a running one: the pod is still up.
  if (tally.reason === 'Completed' && hasRunning) {
    const podReady = conditions.some((c) => c.type === 'Ready' && c.status === 'True');
    tally.reason = podReady ? 'Running' : 'NotReady';
  }
}

function readinessGates(pod: Pod): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  const conditions = pod.status?.conditions ?? [];
  const met = gates.filter((g) => conditionTrue(conditions, g.conditionType)).length;
  return `${met}/${gates.length}`;
}

function printPod(obj: KubeObject, now: number): PrintedRow {
  const pod = obj as Pod;
  const { ready, status, restarts } = podStatus(pod, now);
  // The internal Pod keeps podIPs only; podIP wins when the two disagree.
  const ip = pod.status?.podIP || pod.status?.podIPs?.[0]?.ip || '<none>';
  const row: PrintedRow = {
    cells: [
      pod.metadata?.name ?? '',
      ready,
      status,
      restarts,
      translateTimestampSince(pod.metadata?.creationTimestamp, now),
      ip,
      pod.spec?.nodeName || '<none>',
      pod.status?.nominatedNodeName || '<none>',
      readinessGates(pod),
    ],
  };
  if (pod.status?.phase === 'Succeeded') row.conditions = succeeded.map((c) => ({ ...c }));
  if (pod.status?.phase === 'Failed') row.conditions = failed.map((c) => ({ ...c }));
  return row;
}

/** Pods: Name, Ready, Status, Restarts, Age; wide: IP, Node, Nominated Node, Readiness Gates. */
export const podPrinter: Printer = { columns, print: printPod };
