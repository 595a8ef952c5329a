// What the sync functions share: the fields of Go's DeploymentController
// (pkg/controller/deployment/deployment_controller.go) that sync.go,
// rolling.go, recreate.go, rollback.go and progress.go read, kept apart from
// the controller so those files do not import it back.
import type { ReplicaSet, Deployment } from 'kubernetes-types/apps/v1.js';
import type { ObjectReference, Pod } from 'kubernetes-types/core/v1.js';
import {
  nameOf,
  namespaceOf,
  resourceVersionOf,
  uidOf,
  type Clock,
  type EventRecorder,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { Lister } from '@kcm-ts/informer';

/**
 * The clients the controller writes through, unscoped (it picks the
 * namespace of each object).
 *
 * @category Controller
 */
export interface DeploymentControllerClients {
  /** Status updates, rollback updates, and the uncached read before adoption. */
  deployments: ResourceClient<Deployment>;
  /** ReplicaSet creation, scaling, adoption and release, and history cleanup. */
  replicaSets: ResourceClient<ReplicaSet>;
  /**
   * Accepted so that one bundle of clients serves the ReplicaSet controller
   * too; the Deployment controller never writes pods.
   */
  pods?: ResourceClient<Pod>;
}

/**
 * What the sync functions of sync.ts, rolling.ts, recreate.ts, rollback.ts and
 * progress.ts use: the fields of Go's `DeploymentController` they read.
 * Tests build one with fake clients.
 */
export interface DeploymentSyncContext {
  readonly client: DeploymentControllerClients;
  readonly recorder: EventRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The ReplicaSet cache, read when a create collides with an existing name. */
  readonly rsLister: Lister<ReplicaSet>;
  /** Cancels API calls when the controller stops. */
  readonly signal?: AbortSignal | undefined;
  /** Requeues a Deployment with backoff (a stuck rollout's progress check). */
  enqueueRateLimited(d: Deployment): void;
  /** Requeues a Deployment after `ms` (the progress deadline). */
  enqueueAfter(d: Deployment, ms: number): void;
}

/**
 * A reference to a Deployment for events: objects from a list carry no
 * `apiVersion` and `kind`, so they are set here.
 */
export function deploymentReference(d: Deployment): ObjectReference {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    namespace: namespaceOf(d),
    name: nameOf(d),
    uid: uidOf(d),
    resourceVersion: resourceVersionOf(d),
  };
}
