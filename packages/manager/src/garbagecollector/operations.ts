// The garbage collector's calls to the API server, through the metadata
// client: Go's pkg/controller/garbagecollector/operations.go (apiResource,
// deleteObject, getObject, patchObject, removeFinalizer) and the retry it
// uses, client-go util/retry (RetryOnConflict, DefaultBackoff).
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  isConflict,
  isNotFound,
  parseGroupVersion,
  type Clock,
  type KubeObject,
  type Logger,
  type Patch,
  type PropagationPolicy,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { ResourceClientSource } from '@kcm-ts/informer';
import type { DeferredDiscoveryRESTMapper, RESTMapping } from '../discovery.js';
import { RESTMappingError, namespacedOwnerOfClusterScopedObjectErr } from './errors.js';
import { objectReferenceString, type Node, type ObjectReference } from './graph.js';

/** The finalizer that makes the garbage collector delete dependents first. Go's `metav1.FinalizerDeleteDependents`. */
export const finalizerDeleteDependents = 'foregroundDeletion';
/** The finalizer that makes the garbage collector orphan dependents. Go's `metav1.FinalizerOrphanDependents`. */
export const finalizerOrphanDependents = 'orphan';

/**
 * client-go's `retry.DefaultBackoff`: four tries, 10 ms apart at first,
 * five times longer each time, with 10% jitter.
 */
const defaultBackoff = { steps: 4, duration: 10, factor: 5, jitter: 0.1 };

/**
 * Calls `fn` until it does not fail with a 409 Conflict, at most four times,
 * sleeping on `clock` between tries: client-go's `retry.RetryOnConflict` with
 * `DefaultBackoff`. Rejects with the last conflict when the tries run out.
 */
export async function retryOnConflict<T>(
  clock: Clock,
  fn: () => Promise<T>,
  signal?: AbortSignal,
  random: () => number = Math.random,
): Promise<T> {
  let { steps, duration } = defaultBackoff;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      steps--;
      if (!isConflict(err) || steps <= 0 || signal?.aborted) throw err;
    }
    const wait = duration + random() * defaultBackoff.jitter * duration;
    duration *= defaultBackoff.factor;
    await clock.sleep(wait, signal);
  }
}

/** A namespace for requests: the item's, or none for a cluster-scoped resource. Go's `resourceDefaultNamespace`. */
export function resourceDefaultNamespace(namespaced: boolean, defaultNamespace: string): string {
  return namespaced ? defaultNamespace : '';
}

/** True when two owner-reference lists are equal field by field (Go's `reflect.DeepEqual` on them). */
export function ownerReferencesEqual(
  a: readonly OwnerReference[] | undefined,
  b: readonly OwnerReference[] | undefined,
): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((ref, i) => ownerReferenceEqual(ref, y[i]));
}

/** True when two owner references are equal in every field. */
export function ownerReferenceEqual(a: OwnerReference, b: OwnerReference | undefined): boolean {
  return (
    b !== undefined &&
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.uid === b.uid &&
    a.controller === b.controller &&
    a.blockOwnerDeletion === b.blockOwnerDeletion
  );
}

/** The API calls of the garbage collector, by object reference. */
export class Operations {
  readonly #mapper: DeferredDiscoveryRESTMapper;
  readonly #metadataClient: ResourceClientSource;
  readonly #clock: Clock;

  constructor(
    mapper: DeferredDiscoveryRESTMapper,
    metadataClient: ResourceClientSource,
    clock: Clock,
  ) {
    this.#mapper = mapper;
    this.#metadataClient = metadataClient;
    this.#clock = clock;
  }

  /**
   * The resource serving `apiVersion` and `kind`, through the REST mapper:
   * Go's `apiResource`. Rejects with a {@link RESTMappingError} when it does
   * not map.
   */
  async apiResource(apiVersion: string, kind: string): Promise<RESTMapping> {
    try {
      const gv = parseGroupVersion(apiVersion);
      return await this.#mapper.restMapping({ group: gv.group, kind }, gv.version);
    } catch {
      throw new RESTMappingError(kind, apiVersion);
    }
  }

  /** The metadata client of `mapping`, in `namespace` (`''` for cluster-scoped). */
  client(mapping: RESTMapping, namespace: string): ResourceClient {
    return this.#metadataClient
      .resource(mapping.resource, {
        namespaced: mapping.namespaced,
        kind: mapping.groupVersionKind.kind,
      })
      .inNamespace(resourceDefaultNamespace(mapping.namespaced, namespace));
  }

  /**
   * Deletes `item` with its uid (and `resourceVersion`, if given) as
   * preconditions. When the resourceVersion no longer matches but the live
   * object's ownerReferences are still those the decision was made on, it
   * deletes again without it, so frequent unrelated updates cannot starve
   * the collector. Go's `deleteObject`.
   */
  async deleteObject(
    item: ObjectReference,
    resourceVersion: string,
    ownersAtResourceVersion: readonly OwnerReference[] | undefined,
    policy: PropagationPolicy,
  ): Promise<void> {
    const mapping = await this.apiResource(item.apiVersion, item.kind);
    const client = this.client(mapping, item.namespace);
    const preconditions = {
      uid: item.uid,
      ...(resourceVersion ? { resourceVersion } : {}),
    };
    try {
      await client.delete(item.name, { preconditions, propagationPolicy: policy });
      return;
    } catch (err) {
      if (!isConflict(err) || !resourceVersion) throw err;
      let live: KubeObject;
      try {
        live = await client.get(item.name);
      } catch (liveErr) {
        // The object we wanted gone is gone.
        if (isNotFound(liveErr)) return;
        throw err;
      }
      const meta = live.metadata ?? {};
      if (
        meta.uid === item.uid &&
        meta.resourceVersion !== resourceVersion &&
        ownerReferencesEqual(meta.ownerReferences, ownersAtResourceVersion)
      ) {
        await client.delete(item.name, {
          preconditions: { uid: item.uid },
          propagationPolicy: policy,
        });
        return;
      }
      throw err;
    }
  }

  /** Reads `item` from the API server: Go's `getObject`. */
  async getObject(item: ObjectReference): Promise<KubeObject> {
    const mapping = await this.apiResource(item.apiVersion, item.kind);
    const namespace = resourceDefaultNamespace(mapping.namespaced, item.namespace);
    // Only a cluster-scoped object naming a namespaced owner gets here without a namespace.
    if (mapping.namespaced && namespace === '') throw namespacedOwnerOfClusterScopedObjectErr;
    return this.client(mapping, namespace).get(item.name);
  }

  /** Patches `item`: Go's `patchObject`. */
  async patchObject(item: ObjectReference, patch: Patch): Promise<KubeObject> {
    const mapping = await this.apiResource(item.apiVersion, item.kind);
    return this.client(mapping, item.namespace).patch(item.name, patch);
  }

  /**
   * Removes `targetFinalizer` from the owner with a JSON merge patch that
   * carries the resourceVersion it was read at, retrying on conflict: Go's
   * `removeFinalizer`. A missing owner, or one without the finalizer, is fine.
   * `signal` only cuts the waits between tries short: like Go, which sends
   * these requests with `context.TODO()`, requests in flight are not cancelled.
   */
  async removeFinalizer(
    logger: Logger,
    owner: Node,
    targetFinalizer: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const identity = objectReferenceString(owner.identity);
    try {
      await retryOnConflict(
        this.#clock,
        async () => {
          let ownerObject: KubeObject;
          try {
            ownerObject = await this.getObject(owner.identity);
          } catch (err) {
            if (isNotFound(err)) return;
            throw new Error(
              `cannot finalize owner ${identity}, because cannot get it: ${errorText(err)}. The garbage collector will retry later`,
              { cause: err },
            );
          }
          const finalizers = ownerObject.metadata?.finalizers ?? [];
          if (!finalizers.includes(targetFinalizer)) {
            logger.v(5).info('finalizer already removed from object', {
              finalizer: targetFinalizer,
              object: identity,
            });
            return;
          }
          const remaining = finalizers.filter((f) => f !== targetFinalizer);
          await this.patchObject(owner.identity, {
            type: 'merge',
            body: {
              metadata: {
                resourceVersion: ownerObject.metadata?.resourceVersion ?? '',
                // Go marshals an empty list as null, which removes the field.
                finalizers: remaining.length > 0 ? remaining : null,
              },
            },
          });
        },
        signal,
      );
    } catch (err) {
      if (isConflict(err)) {
        throw new Error(
          `updateMaxRetries(${defaultBackoff.steps}) has reached. The garbage collector will retry later for owner ${identity}`,
          { cause: err },
        );
      }
      throw err;
    }
  }
}

/** An error's message, as Go's `%v` prints it. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
