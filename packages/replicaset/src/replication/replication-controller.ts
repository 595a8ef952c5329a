// The ReplicationController manager: pkg/controller/replication/replication_controller.go
// (ReplicationManager, NewReplicationManager, BurstReplicas) and the default
// of its worker count (pkg/controller/replication/config/v1alpha1/defaults.go,
// ConcurrentRCSyncs). Upstream stopped keeping a copy of the ReplicaSet
// controller for ReplicationControllers: it builds the ReplicaSet controller
// with the RC's kind, its own queue name and event source, and adapters that
// convert RCs to ReplicaSets and back (conversion.ts). So does this file.
import type { Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import {
  noopEventRecorder,
  noopLogger,
  type Clock,
  type EventRecorder,
  type GroupVersionKind,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { ResourceInformer } from '@kcm-ts/informer';
import { RealPodControl, type PodControl } from '@kcm-ts/controller';
import { ReplicaSetController } from '../replica-set.js';
import { conversionClient, informerAdapter, podControlAdapter } from './conversion.js';

/**
 * core/v1 ReplicationController: the kind {@link ReplicationManager} writes
 * into the references of the pods it owns (`apiVersion: v1`), and the only
 * kind of controller reference it follows. Go's
 * `v1.SchemeGroupVersion.WithKind("ReplicationController")`.
 *
 * @category ReplicationController
 */
export const replicationControllerKind: GroupVersionKind = Object.freeze({
  group: '',
  version: 'v1',
  kind: 'ReplicationController',
});

/**
 * The number of workers kube-controller-manager runs for ReplicationControllers
 * by default (5): its `--concurrent-rc-syncs` flag, the default of Go's
 * `ConcurrentRCSyncs`.
 *
 * @category ReplicationController
 */
export const concurrentRCSyncs = 5;

/**
 * The component name of the event source kube-controller-manager gives the
 * manager's recorder: `replication-controller` (Go's `EventSource{Component:
 * "replication-controller"}` in `NewReplicationManager`).
 *
 * @category ReplicationController
 */
export const replicationManagerEventSource = 'replication-controller';

/**
 * The clients {@link ReplicationManager} writes through (unscoped: it picks
 * each object's namespace).
 *
 * @category ReplicationController
 */
export interface ReplicationManagerClients {
  /** core/v1 replicationcontrollers: status writes and the fresh read before adopting. */
  replicationControllers: ResourceClient<ReplicationController>;
  /** core/v1 pods: creations, deletions and adoption patches. */
  pods: ResourceClient<Pod>;
}

/**
 * Options for {@link ReplicationManager}: what Go's `NewReplicationManager`
 * takes, with the clock, logger and pod control injectable as for
 * {@link ReplicaSetController}.
 *
 * @category ReplicationController
 */
export interface ReplicationManagerOptions {
  /** The ReplicationController informer, usually `factory.replicationControllers()`. */
  replicationControllers: ResourceInformer<ReplicationController>;
  /** The pod informer of the same factory, usually `factory.pods()`. */
  pods: ResourceInformer<Pod>;
  /** The clients to write through. */
  client: ReplicationManagerClients;
  /**
   * Records the pod events on ReplicationControllers; kube-controller-manager's
   * comes from a broadcaster with the component name
   * {@link replicationManagerEventSource} (`replication-controller`). Default none.
   */
  recorder?: EventRecorder;
  /** Time for expectations, the queue, requeues and availability. Default the real clock. */
  clock?: Clock;
  /**
   * The most pods created or deleted per sync of one ReplicationController.
   * Default {@link burstReplicas} (500), Go's `replication.BurstReplicas`.
   */
  burstReplicas?: number;
  /** Where logs go. Default none. */
  logger?: Logger;
  /**
   * Writes pods; default a {@link "@kcm-ts/controller"!RealPodControl} on
   * `client.pods` and `recorder`. Either way it is wrapped by
   * {@link podControlAdapter}, so it is handed ReplicationControllers.
   */
  podControl?: PodControl;
}

/**
 * Keeps `spec.replicas` pods running for every ReplicationController: Go's
 * `ReplicationManager`, which is the ReplicaSet controller run on
 * ReplicationControllers as if they were an older version of ReplicaSet.
 * It is a {@link ReplicaSetController} built with
 *
 * - the kind {@link replicationControllerKind} (`v1 ReplicationController`):
 *   the owner references it writes on pods, the controller references it
 *   follows and adopts by, and the name its logs and cache sync use;
 * - an {@link informerAdapter} over the ReplicationController informer, so
 *   the controller's handlers and reads see ReplicaSets converted by
 *   {@link convertRCtoRS} (the map selector as `matchLabels`);
 * - a {@link conversionClient} over the replicationcontrollers client, so its
 *   status writes and adoption reads are ReplicationController requests
 *   (each ReplicaSet converted back by {@link convertRStoRC});
 * - a {@link podControlAdapter}, so pod events name the ReplicationController;
 * - the work queue name `replicationmanager`.
 *
 * Everything else (expectations, the burst, slow start, adoption and
 * release, the pods deleted first, the status and its `ReplicaFailure`
 * condition) is the ReplicaSet controller's. Construct it before starting
 * the informer factory, then call {@link ReplicaSetController.run} with
 * {@link concurrentRCSyncs} workers, as kube-controller-manager's
 * `startReplicationController` does.
 *
 * @example
 * {@includeCode ../../test/replication/quick-start.test.ts#start-replication-manager}
 *
 * @category ReplicationController
 */
export class ReplicationManager extends ReplicaSetController {
  /**
   * @param options - see {@link ReplicationManagerOptions}
   * @throws TypeError if the informers or clients are missing; RangeError if
   *   `burstReplicas` is not an integer ≥ 1
   */
  constructor(options: ReplicationManagerOptions) {
    // Go's NewReplicationManager, with NewBaseController as ReplicaSetController's constructor.
    if (typeof options !== 'object' || options === null) {
      throw new TypeError('ReplicationManager: options are required');
    }
    if (typeof options.replicationControllers?.informer !== 'function') {
      throw new TypeError(
        'ReplicationManager: options.replicationControllers must be an informer of ReplicationControllers',
      );
    }
    if (typeof options.pods?.informer !== 'function') {
      throw new TypeError('ReplicationManager: options.pods must be an informer of pods');
    }
    if (
      typeof options.client?.replicationControllers !== 'object' ||
      typeof options.client.pods !== 'object'
    ) {
      throw new TypeError(
        'ReplicationManager: options.client must hold replicationControllers and pods clients',
      );
    }
    const logger = options.logger ?? noopLogger;
    const podControl =
      options.podControl ??
      new RealPodControl({
        client: options.client.pods,
        recorder: options.recorder ?? noopEventRecorder,
        logger,
      });
    super({
      replicaSets: informerAdapter(options.replicationControllers, logger),
      pods: options.pods,
      client: {
        replicaSets: conversionClient(options.client.replicationControllers),
        pods: options.client.pods,
      },
      podControl: podControlAdapter(podControl),
      kind: replicationControllerKind,
      queueName: 'replicationmanager',
      logger,
      ...(options.recorder !== undefined && { recorder: options.recorder }),
      ...(options.clock !== undefined && { clock: options.clock }),
      ...(options.burstReplicas !== undefined && { burstReplicas: options.burstReplicas }),
    });
  }
}
