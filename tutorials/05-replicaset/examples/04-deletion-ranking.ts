// Chapter 5: which pods a ReplicaSet deletes when it scales down. Ten pods
// of one ReplicaSet, each different in one way, ranked with the controller's
// own functions at one instant; the ReplicaSet goes from 10 to 4.
// Run: npm run ranking -w tutorials/05-replicaset
import type { Pod } from 'kubernetes-types/core/v1.js';
import { formatTime } from '@kcm-ts/apimachinery';
import { podDeletionCost } from '@kcm-ts/controller';
import { getPodsRankedByRelatedPodsOnSameNode, getPodsToDelete } from '@kcm-ts/replicaset';

const minute = 60_000;
const now = Date.UTC(2026, 0, 1, 12); // the instant of the scale-down

interface Shape {
  node?: string;
  phase?: 'Pending' | 'Running';
  /** How long it has been ready; undefined: not ready. */
  readyFor?: number;
  cost?: number;
  uid?: string;
  /** Why it sorts where it does, for the table. */
  why: string;
}

/** A pod of `owner` in wire format, shaped by `s`. */
function pod(name: string, s: Shape, owner = 'web'): Pod {
  const readySince = s.readyFor === undefined ? undefined : now - s.readyFor;
  const created = (readySince ?? now - minute) - 10_000;
  return {
    metadata: {
      name,
      namespace: 'default',
      uid: s.uid ?? `uid-${name}`,
      labels: { app: owner },
      creationTimestamp: formatTime(created),
      annotations: {
        'example.com/why': s.why,
        ...(s.cost !== undefined && { [podDeletionCost]: String(s.cost) }),
      },
    },
    spec: { containers: [{ name: 'web', image: 'nginx:1.27' }], nodeName: s.node },
    status: {
      phase: s.phase ?? 'Running',
      conditions: [
        {
          type: 'Ready',
          status: readySince === undefined ? 'False' : 'True',
          lastTransitionTime: formatTime(readySince ?? created),
        },
      ],
    },
  };
}

//#region pods
// In no particular order, as the informer's cache lists them.
const pods: Pod[] = [
  pod('old', { node: 'node-2', readyFor: 120 * minute, why: 'ready the longest' }),
  pod('precious', {
    node: 'node-3',
    readyFor: 5 * minute,
    cost: 100,
    why: 'highest deletion cost',
  }),
  pod('twin-a', {
    node: 'node-3',
    readyFor: 40 * minute,
    uid: 'f3c1',
    why: 'same age bucket as twin-b: uid decides',
  }),
  pod('unscheduled', { phase: 'Pending', why: 'not on a node yet' }),
  pod('cheap', { node: 'node-2', readyFor: 60 * minute, cost: -10, why: 'lowest deletion cost' }),
  pod('not-ready', { node: 'node-1', why: 'running, not ready' }),
  pod('crowded', {
    node: 'node-1',
    readyFor: 60 * minute,
    why: 'most pods of its family on its node',
  }),
  pod('pending', { node: 'node-1', phase: 'Pending', why: 'scheduled, still Pending' }),
  pod('twin-b', {
    node: 'node-3',
    readyFor: 50 * minute,
    uid: '2a07',
    why: 'same age bucket as twin-a: uid decides',
  }),
  pod('young', { node: 'node-2', readyFor: 0.5 * minute, why: 'ready the shortest' }),
];
// Two pods of an older ReplicaSet of the same Deployment, on node-1: they
// count as family when ranking by node.
const related: Pod[] = [
  ...pods,
  pod('web-v1-a', { node: 'node-1', readyFor: 600 * minute, why: '' }, 'web-v1'),
  pod('web-v1-b', { node: 'node-1', readyFor: 600 * minute, why: '' }, 'web-v1'),
];
//#endregion pods

/** What the ranking gave. */
export interface Ranking {
  /** Every pod, the first to delete first. */
  order: string[];
  /** The pods deleted by a scale-down from 10 to 4. */
  deleted: string[];
}

const readyFor = (p: Pod): string => {
  const c = p.status?.conditions?.find((x) => x.type === 'Ready' && x.status === 'True');
  if (!c?.lastTransitionTime) return '-';
  const m = (now - Date.parse(c.lastTransitionTime)) / minute;
  return m < 1 ? `${m * 60} s` : `${m} min`;
};

/** Ranks the pods, prints the table, and returns the order. */
export function run(log: (line: string) => void = console.log): Ranking {
  //#region rank
  const deleted = getPodsToDelete(pods, related, 6, now); // 10 pods, 4 wanted
  const order = getPodsToDelete(pods, related, pods.length - 1, now); // every pod but the last kept
  order.push(...pods.filter((p) => !order.includes(p)));
  //#endregion rank
  const family = new Map(
    getPodsRankedByRelatedPodsOnSameNode(pods, related).map((r) => [r.pod, r.rank]),
  );
  const row = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd([3, 13, 8, 9, 11, 6, 9, 9][i] ?? 0))
      .join(' ')
      .trimEnd();
  log(
    row([
      '#',
      'pod',
      'node',
      'phase',
      'ready for',
      'cost',
      'on node',
      'deleted',
      'why it sorts here',
    ]),
  );
  order.forEach((p, i) => {
    log(
      row([
        String(i + 1),
        p.metadata?.name ?? '',
        p.spec?.nodeName ?? '-',
        p.status?.phase ?? '',
        readyFor(p),
        p.metadata?.annotations?.[podDeletionCost] ?? '0',
        String(family.get(p)),
        deleted.includes(p) ? 'yes' : '',
        p.metadata?.annotations?.['example.com/why'] ?? '',
      ]),
    );
  });
  const names = (ps: Pod[]) => ps.map((p) => p.metadata?.name ?? '');
  return { order: names(order), deleted: names(deleted) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run();
}
