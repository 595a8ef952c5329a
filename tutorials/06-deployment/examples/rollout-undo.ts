// What `kubectl rollout undo deployment/<name> [--to-revision=N]` does, in
// TypeScript: kubectl's DeploymentRollbacker (staging/src/k8s.io/kubectl/pkg/
// polymorphichelpers/rollback.go). There is no rollback call in apps/v1: the
// client finds the ReplicaSet of the wanted revision and writes its template
// back into the Deployment, and the controller rolls that out like any other
// change.
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { ResourceClient } from '@kcm-ts/apimachinery';
import {
  annotationsToSkip,
  equalIgnoreHash,
  revision,
  revisionAnnotation,
} from '@kcm-ts/deployment';

/** The ReplicaSets a Deployment controls, found as kubectl finds them: by selector and owner uid. */
export async function replicaSetsOf(
  replicaSets: ResourceClient<ReplicaSet>,
  d: Deployment,
): Promise<ReplicaSet[]> {
  const selector = Object.entries(d.spec?.selector.matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const { items } = await replicaSets.list({ labelSelector: selector });
  return items.filter((rs) =>
    rs.metadata?.ownerReferences?.some((r) => r.controller && r.uid === d.metadata?.uid),
  );
}

//#region undo
/**
 * Rolls the Deployment back to `toRevision`, or with 0 to the revision
 * before the newest, and says what it did as kubectl does.
 */
export async function rolloutUndo(
  deployments: ResourceClient<Deployment>,
  replicaSets: ResourceClient<ReplicaSet>,
  name: string,
  toRevision = 0,
): Promise<string> {
  const d = await deployments.get(name);
  const all = await replicaSetsOf(replicaSets, d);
  let target: ReplicaSet | undefined;
  if (toRevision > 0) {
    target = all.find((rs) => revision(rs) === toRevision);
    if (target === undefined)
      throw new Error(`unable to find specified revision ${toRevision} in history`);
  } else {
    // The second highest revision: the one before the current.
    const sorted = [...all].sort((a, b) => revision(b) - revision(a));
    target = sorted[1];
    if (target === undefined) throw new Error(`no rollout history found for deployment "${name}"`);
  }
  if (d.spec?.paused) {
    throw new Error(
      `you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again`,
    );
  }
  if (equalIgnoreHash(target.spec?.template, d.spec?.template)) {
    // kubectl prints the revision asked for (0 when none was).
    return `skipped rollback (current template already matches revision ${toRevision})`;
  }
  // The old template without its hash label, and the old ReplicaSet's own
  // annotations (its change-cause, say), keeping the Deployment's bookkeeping.
  const template = structuredClone(target.spec!.template!);
  delete template.metadata?.labels?.['pod-template-hash'];
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) {
    if (annotationsToSkip.has(k)) annotations[k] = v;
  }
  for (const [k, v] of Object.entries(target.metadata?.annotations ?? {})) {
    if (!annotationsToSkip.has(k)) annotations[k] = v;
  }
  await deployments.patch(name, {
    type: 'json',
    ops: [
      { op: 'replace', path: '/spec/template', value: template },
      { op: 'replace', path: '/metadata/annotations', value: annotations },
    ],
  });
  return 'rolled back';
}
//#endregion undo

/** `kubectl rollout history`: each revision with its change-cause. */
export async function rolloutHistory(
  deployments: ResourceClient<Deployment>,
  replicaSets: ResourceClient<ReplicaSet>,
  name: string,
): Promise<string[]> {
  const d = await deployments.get(name);
  const all = (await replicaSetsOf(replicaSets, d)).sort((a, b) => revision(a) - revision(b));
  return [
    'REVISION  CHANGE-CAUSE',
    ...all.map(
      (rs) =>
        `${String(rs.metadata?.annotations?.[revisionAnnotation] ?? '').padEnd(8)}  ${rs.metadata?.annotations?.['kubernetes.io/change-cause'] ?? '<none>'}`,
    ),
  ];
}
