// What `kubectl rollout status deployment/<name>` prints for a Deployment, in
// TypeScript: kubectl's DeploymentStatusViewer (staging/src/k8s.io/kubectl/
// pkg/polymorphichelpers/rollout_status.go). kubectl watches the Deployment
// and prints this after every change until it says the rollout is done or
// fails. Everything it knows comes from the status the controller wrote.
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { getDeploymentCondition, timedOutReason } from '@kcm-ts/deployment';

/** kubectl's verdict: a line to print, whether it is done, or the error it exits 1 with. */
export interface RolloutStatus {
  message: string;
  done: boolean;
  error?: string;
}

//#region rollout-status
/** What `kubectl rollout status` says about `d`. */
export function rolloutStatus(d: Deployment): RolloutStatus {
  const name = JSON.stringify(d.metadata?.name ?? '');
  const s = d.status ?? {};
  // A status older than the spec says nothing about the spec.
  if ((d.metadata?.generation ?? 0) > (s.observedGeneration ?? 0)) {
    return { message: 'Waiting for deployment spec update to be observed...', done: false };
  }
  if (getDeploymentCondition(s, 'Progressing')?.reason === timedOutReason) {
    const error = `deployment ${name} exceeded its progress deadline`;
    return { message: `error: ${error}`, done: false, error };
  }
  const waiting = `Waiting for deployment ${name} rollout to finish:`;
  const replicas = d.spec?.replicas ?? 1;
  const updated = s.updatedReplicas ?? 0;
  if (updated < replicas) {
    return {
      message: `${waiting} ${updated} out of ${replicas} new replicas have been updated...`,
      done: false,
    };
  }
  if ((s.replicas ?? 0) > updated) {
    return {
      message: `${waiting} ${(s.replicas ?? 0) - updated} old replicas are pending termination...`,
      done: false,
    };
  }
  if ((s.availableReplicas ?? 0) < updated) {
    return {
      message: `${waiting} ${s.availableReplicas ?? 0} of ${updated} updated replicas are available...`,
      done: false,
    };
  }
  return { message: `deployment ${name} successfully rolled out`, done: true };
}
//#endregion rollout-status
