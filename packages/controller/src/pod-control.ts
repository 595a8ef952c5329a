// Writing pods on behalf of a controller: pkg/controller/controller_utils.go
// (PodControlInterface, RealPodControl, FakePodControl, GetPodFromTemplate,
// getPodsPrefix, validateControllerRef, RSControlInterface, RealRSControl,
// ControllerRevisionControlInterface, RealControllerRevisionControl, and the
// event reasons FailedCreatePodReason and friends).
import type { ControllerRevision, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  hasStatusCause,
  isDNS1123Subdomain,
  isNotFound,
  noopEventRecorder,
  noopLogger,
  type EventRecorder,
  type KubeObject,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';

/**
 * Event reason (and ReplicaSet condition reason) when a pod could not be
 * created. Go's `FailedCreatePodReason`.
 *
 * @category Pod control
 */
export const failedCreatePodReason = 'FailedCreate';
/**
 * Event reason when a pod was created. Go's `SuccessfulCreatePodReason`.
 *
 * @category Pod control
 */
export const successfulCreatePodReason = 'SuccessfulCreate';
/**
 * Event reason (and ReplicaSet condition reason) when a pod could not be
 * deleted. Go's `FailedDeletePodReason`.
 *
 * @category Pod control
 */
export const failedDeletePodReason = 'FailedDelete';
/**
 * Event reason when a pod was deleted. Go's `SuccessfulDeletePodReason`.
 *
 * @category Pod control
 */
export const successfulDeletePodReason = 'SuccessfulDelete';

/**
 * The status cause the API server attaches when it refuses to create an
 * object in a namespace that is being deleted. Go's
 * `v1.NamespaceTerminatingCause`.
 *
 * @category Pod control
 */
export const namespaceTerminatingCause = 'NamespaceTerminating';

/**
 * Creates, deletes and patches pods for a controller, recording events about
 * the controller object: Go's `PodControlInterface`. Methods reject with the
 * API server's error.
 *
 * @category Pod control
 */
export interface PodControl {
  /**
   * Creates a pod from `template` in `namespace`, owned by `controllerObject`
   * through `controllerRef`, named `<owner name>-<random suffix>`.
   */
  createPods(
    namespace: string,
    template: PodTemplateSpec,
    controllerObject: KubeObject,
    controllerRef: OwnerReference,
    signal?: AbortSignal,
  ): Promise<void>;
  /** Like {@link PodControl.createPods}, with `generateName` instead of `<owner name>-`. */
  createPodsWithGenerateName(
    namespace: string,
    template: PodTemplateSpec,
    controllerObject: KubeObject,
    controllerRef: OwnerReference,
    generateName: string,
    signal?: AbortSignal,
  ): Promise<void>;
  /** Deletes the pod `podID` of `namespace`, on behalf of `controllerObject`. */
  deletePod(
    namespace: string,
    podID: string,
    controllerObject: KubeObject,
    signal?: AbortSignal,
  ): Promise<void>;
  /** Applies a strategic merge patch to the pod `name` of `namespace`. */
  patchPod(namespace: string, name: string, patch: object, signal?: AbortSignal): Promise<void>;
}

/**
 * Throws unless `controllerRef` is a complete controller reference. Go's
 * `validateControllerRef`.
 */
function validateControllerRef(controllerRef: OwnerReference | null | undefined): void {
  if (controllerRef === null || controllerRef === undefined) {
    throw new Error('controllerRef is nil');
  }
  if (!controllerRef.apiVersion) throw new Error('controllerRef has empty APIVersion');
  if (!controllerRef.kind) throw new Error('controllerRef has empty Kind');
  if (controllerRef.controller !== true) {
    throw new Error('controllerRef.Controller is not set to true');
  }
  if (controllerRef.blockOwnerDeletion !== true) {
    throw new Error('controllerRef.BlockOwnerDeletion is not set');
  }
}

/**
 * How a name prefix is validated: a trailing dash is allowed, since the server
 * appends a suffix. Go's `maskTrailingDash` (which replaces the last two
 * characters, not one; reproduced as is, since it decides which names pass).
 */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** `<name>-` when that is a valid pod name prefix, else the name itself. Go's `getPodsPrefix`. */
function getPodsPrefix(controllerName: string): string {
  const prefix = `${controllerName}-`;
  return isDNS1123Subdomain(maskTrailingDash(prefix)).length === 0 ? prefix : controllerName;
}

/**
 * The pod a controller creates from `template`: the template's labels,
 * annotations, finalizers and spec (copied), `generateName` `<parent name>-`,
 * and `controllerRef` as its owner reference. Go's `GetPodFromTemplate`.
 *
 * @throws Error if `parentObject` has no metadata
 *
 * @category Pod control
 */
export function getPodFromTemplate(
  template: PodTemplateSpec,
  parentObject: KubeObject,
  controllerRef?: OwnerReference,
): Pod {
  if (typeof parentObject?.metadata !== 'object' || parentObject.metadata === null) {
    throw new Error('parentObject does not have ObjectMeta');
  }
  const meta = template.metadata ?? {};
  const pod: Pod = {
    metadata: {
      labels: { ...meta.labels },
      annotations: { ...meta.annotations },
      generateName: getPodsPrefix(parentObject.metadata.name ?? ''),
      finalizers: [...(meta.finalizers ?? [])],
    },
    spec: structuredClone(template.spec ?? { containers: [] }),
  };
  if (controllerRef !== undefined) pod.metadata!.ownerReferences = [{ ...controllerRef }];
  return pod;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * What {@link RealPodControl} needs: a pod client (unscoped: each call picks
 * its namespace) and an event recorder.
 *
 * @category Pod control
 */
export interface RealPodControlOptions {
  /** The pods resource client. */
  client: ResourceClient<Pod>;
  /** Where `SuccessfulCreate`, `FailedCreate`, `SuccessfulDelete` and `FailedDelete` go. Default none. */
  recorder?: EventRecorder;
  /** Where traces go. Default none. */
  logger?: Logger;
}

/**
 * The {@link PodControl} that talks to the API server: Go's `RealPodControl`.
 * Events (on the controller object, which should carry `apiVersion` and
 * `kind`): `Normal SuccessfulCreate "Created pod: <name>"`,
 * `Warning FailedCreate "Error creating: <err>"` (none when the namespace is
 * being deleted), `Normal SuccessfulDelete "Deleted pod: <name>"`,
 * `Warning FailedDelete "Error deleting: <err>"` (none for a pod already gone).
 *
 * @category Pod control
 */
export class RealPodControl implements PodControl {
  readonly #client: ResourceClient<Pod>;
  readonly #recorder: EventRecorder;
  readonly #logger: Logger;

  /** @param options - see {@link RealPodControlOptions} */
  constructor(options: RealPodControlOptions) {
    this.#client = options.client;
    this.#recorder = options.recorder ?? noopEventRecorder;
    this.#logger = options.logger ?? noopLogger;
  }

  createPods(
    namespace: string,
    template: PodTemplateSpec,
    controllerObject: KubeObject,
    controllerRef: OwnerReference,
    signal?: AbortSignal,
  ): Promise<void> {
    return this.createPodsWithGenerateName(
      namespace,
      template,
      controllerObject,
      controllerRef,
      '',
      signal,
    );
  }

  async createPodsWithGenerateName(
    namespace: string,
    template: PodTemplateSpec,
    controllerObject: KubeObject,
    controllerRef: OwnerReference,
    generateName: string,
    signal?: AbortSignal,
  ): Promise<void> {
    validateControllerRef(controllerRef);
    const pod = getPodFromTemplate(template, controllerObject, controllerRef);
    if (generateName !== '') pod.metadata!.generateName = generateName;
    if (Object.keys(pod.metadata?.labels ?? {}).length === 0) {
      throw new Error('unable to create pods, no labels');
    }
    let created: Pod;
    try {
      created = await this.#client.inNamespace(namespace).create(pod, signal ? { signal } : {});
    } catch (err) {
      // Every create fails while a namespace terminates: no event for that.
      if (!hasStatusCause(err, namespaceTerminatingCause)) {
        this.#recorder.event(
          controllerObject,
          'Warning',
          failedCreatePodReason,
          `Error creating: ${messageOf(err)}`,
        );
      }
      throw err;
    }
    const name = created.metadata?.name ?? '';
    this.#logger
      .v(4)
      .info('Controller created pod', { controller: controllerObject.metadata?.name, pod: name });
    this.#recorder.event(
      controllerObject,
      'Normal',
      successfulCreatePodReason,
      `Created pod: ${name}`,
    );
  }

  async deletePod(
    namespace: string,
    podID: string,
    controllerObject: KubeObject,
    signal?: AbortSignal,
  ): Promise<void> {
    if (typeof controllerObject?.metadata !== 'object' || controllerObject.metadata === null) {
      throw new Error('object does not have ObjectMeta');
    }
    this.#logger.v(2).info('Deleting pod', {
      controller: controllerObject.metadata.name,
      pod: `${namespace}/${podID}`,
    });
    try {
      await this.#client.inNamespace(namespace).delete(podID, signal ? { signal } : {});
    } catch (err) {
      if (isNotFound(err)) {
        this.#logger.v(4).info('Pod has already been deleted', { pod: `${namespace}/${podID}` });
        throw err;
      }
      this.#recorder.event(
        controllerObject,
        'Warning',
        failedDeletePodReason,
        `Error deleting: ${messageOf(err)}`,
      );
      throw new Error(`unable to delete pods: ${messageOf(err)}`, { cause: err });
    }
    this.#recorder.event(
      controllerObject,
      'Normal',
      successfulDeletePodReason,
      `Deleted pod: ${podID}`,
    );
  }

  async patchPod(
    namespace: string,
    name: string,
    patch: object,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#client
      .inNamespace(namespace)
      .patch(name, { type: 'strategic', body: patch }, signal ? { signal } : {});
  }
}

/**
 * A {@link PodControl} for tests that records what it is asked and writes
 * nothing: Go's `FakePodControl`. With `err` set every call fails with it;
 * with `createLimit` set, creations past that many fail.
 *
 * @category Pod control
 */
export class FakePodControl implements PodControl {
  /** The templates of the pods asked for, with `generateName` set as asked. */
  templates: PodTemplateSpec[] = [];
  /** The controller references of the pods asked for. */
  controllerRefs: OwnerReference[] = [];
  /** The names of the pods asked to be deleted. */
  deletePodName: string[] = [];
  /** The patches asked for. */
  patches: object[] = [];
  /** When set, every call records itself and then fails with this. */
  err: Error | undefined = undefined;
  /** When not 0, creation calls past this many fail. */
  createLimit = 0;
  /** The number of creation calls so far. */
  createCallCount = 0;

  createPods(
    namespace: string,
    template: PodTemplateSpec,
    controllerObject: KubeObject,
    controllerRef: OwnerReference,
  ): Promise<void> {
    return this.createPodsWithGenerateName(
      namespace,
      template,
      controllerObject,
      controllerRef,
      '',
    );
  }

  createPodsWithGenerateName(
    _namespace: string,
    template: PodTemplateSpec,
    _controllerObject: KubeObject,
    controllerRef: OwnerReference,
    generateName: string,
  ): Promise<void> {
    this.createCallCount++;
    if (this.createLimit !== 0 && this.createCallCount > this.createLimit) {
      return Promise.reject(
        new Error(
          `not creating pod, limit ${this.createLimit} already reached (create call ${this.createCallCount})`,
        ),
      );
    }
    this.templates.push({
      ...template,
      metadata: { ...template.metadata, generateName },
    });
    this.controllerRefs.push({ ...controllerRef });
    return this.err === undefined ? Promise.resolve() : Promise.reject(this.err);
  }

  deletePod(_namespace: string, podID: string): Promise<void> {
    this.deletePodName.push(podID);
    return this.err === undefined ? Promise.resolve() : Promise.reject(this.err);
  }

  patchPod(_namespace: string, _name: string, patch: object): Promise<void> {
    this.patches.push(patch);
    return this.err === undefined ? Promise.resolve() : Promise.reject(this.err);
  }

  /** Forgets every call, the limit and the count (not `err`). Go's `Clear`. */
  clear(): void {
    this.templates = [];
    this.controllerRefs = [];
    this.deletePodName = [];
    this.patches = [];
    this.createLimit = 0;
    this.createCallCount = 0;
  }
}

/**
 * Patches ReplicaSets for a controller (the Deployment controller adopts and
 * releases them through it): Go's `RSControlInterface`.
 *
 * @category Pod control
 */
export interface RSControl {
  /** Applies a strategic merge patch to the ReplicaSet `name` of `namespace`. */
  patchReplicaSet(
    namespace: string,
    name: string,
    patch: object,
    signal?: AbortSignal,
  ): Promise<void>;
}

/**
 * The {@link RSControl} that talks to the API server: Go's `RealRSControl`.
 *
 * @category Pod control
 */
export class RealRSControl implements RSControl {
  readonly #client: ResourceClient<ReplicaSet>;

  /** @param client - the replicasets resource client (unscoped) */
  constructor(client: ResourceClient<ReplicaSet>) {
    this.#client = client;
  }

  async patchReplicaSet(
    namespace: string,
    name: string,
    patch: object,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#client
      .inNamespace(namespace)
      .patch(name, { type: 'strategic', body: patch }, signal ? { signal } : {});
  }
}

/**
 * Patches ControllerRevisions for a controller (the DaemonSet controller
 * adopts and releases its history through it): Go's
 * `ControllerRevisionControlInterface`.
 *
 * @category Pod control
 */
export interface ControllerRevisionControl {
  /** Applies a strategic merge patch to the ControllerRevision `name` of `namespace`. */
  patchControllerRevision(
    namespace: string,
    name: string,
    patch: object,
    signal?: AbortSignal,
  ): Promise<void>;
}

/**
 * The {@link ControllerRevisionControl} that talks to the API server: Go's
 * `RealControllerRevisionControl`.
 *
 * @category Pod control
 */
export class RealControllerRevisionControl implements ControllerRevisionControl {
  readonly #client: ResourceClient<ControllerRevision>;

  /** @param client - the apps/v1 controllerrevisions resource client (unscoped) */
  constructor(client: ResourceClient<ControllerRevision>) {
    this.#client = client;
  }

  async patchControllerRevision(
    namespace: string,
    name: string,
    patch: object,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#client
      .inNamespace(namespace)
      .patch(name, { type: 'strategic', body: patch }, signal ? { signal } : {});
  }
}
