// A controller's history of ControllerRevisions:
// pkg/controller/history/controller_history.go (Interface, NewHistory,
// realHistory, NewFakeHistory, fakeHistory with addRevision,
// ControllerRevisionControllerIndex, ControllerRevisionControllerIndexKey and
// AddControllerRevisionControllerIndexer), and client-go's util/retry
// (RetryOnConflict with DefaultBackoff) for updates.
//
// The DaemonSet and StatefulSet controllers list the revisions they own (and
// the orphans they may adopt) from an informer's cache, create a revision
// for a new template (renaming on a hash collision), bump the number of an
// old revision rolled back to, and delete what falls out of the history
// limit. The index files revisions by their controller, so that listing the
// history of one owner does not scan every revision of the namespace.
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  getControllerOf,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  metaNamespaceKeyFunc,
  newAlreadyExists,
  newControllerRef,
  newNotFound,
  realClock,
  type Clock,
  type GroupResource,
  type GroupVersionKind,
  type KubeObject,
  type ResourceClient,
  type Selector,
} from '@kcm-ts/apimachinery';
import { Lister, type Indexer, type SharedIndexInformer } from '@kcm-ts/informer';
import {
  deleteOwnerRefStrategicMergePatch,
  ownerRefControllerPatch,
} from '../controller-ref-manager.js';
import { controllerRevisionName, hashControllerRevision, rawData } from './revision.js';

/**
 * The number of name collisions an owner has met, kept in its status
 * (`status.collisionCount`): Go's `*int32` argument, which
 * {@link History.createControllerRevision} increments in place.
 *
 * @category History
 */
export interface CollisionCount {
  /** The count; starts at the owner's `status.collisionCount`, or 0. */
  value: number;
}

/**
 * Reads and writes the ControllerRevisions of owners: Go's
 * `history.Interface`. Implementations never change the objects passed in.
 *
 * @category History
 */
export interface History {
  /**
   * The revisions in `parent`'s namespace that match `selector` and are
   * controlled by `parent` (same kind, name and uid) or by nothing, read from
   * the cache.
   */
  listControllerRevisions(
    parent: KubeObject,
    parentKind: GroupVersionKind,
    selector: Selector,
  ): ControllerRevision[];
  /**
   * Creates `revision` in `parent`'s namespace, named `<parent>-<hash>`.
   * When the name is taken by a revision with other data, increments
   * `collisionCount.value` and tries the next name; when it is taken by a
   * revision with the same data, resolves with that one.
   *
   * @throws Error if `collisionCount` is missing
   */
  createControllerRevision(
    parent: KubeObject,
    revision: ControllerRevision,
    collisionCount: CollisionCount,
    signal?: AbortSignal,
  ): Promise<ControllerRevision>;
  /** Deletes `revision`; rejects with 404 NotFound if it is gone. */
  deleteControllerRevision(revision: ControllerRevision, signal?: AbortSignal): Promise<void>;
  /** Sets `revision`'s number to `newRevision`, retrying on conflicts. */
  updateControllerRevision(
    revision: ControllerRevision,
    newRevision: number,
    signal?: AbortSignal,
  ): Promise<ControllerRevision>;
  /**
   * Makes `parent` the controller of the orphan `revision`; rejects if the
   * revision has a controller already, or is gone.
   */
  adoptControllerRevision(
    parent: KubeObject,
    parentKind: GroupVersionKind,
    revision: ControllerRevision,
    signal?: AbortSignal,
  ): Promise<ControllerRevision>;
  /**
   * Removes `parent`'s owner reference from `revision`; resolves with
   * `undefined` when the revision is gone or `parent` did not own it.
   */
  releaseControllerRevision(
    parent: KubeObject,
    revision: ControllerRevision,
    signal?: AbortSignal,
  ): Promise<ControllerRevision | undefined>;
}

/**
 * The name of the ControllerRevision cache's index by controller: each
 * revision is filed under its namespace and its controller's kind, name and
 * uid, or under its namespace as an orphan. Go's
 * `ControllerRevisionControllerIndex`.
 *
 * @category History
 */
export const controllerRevisionControllerIndex = 'controllerRevisionController';

/**
 * The value a revision is filed under: every dimension that must match for
 * a reference to name an owner, not the uid alone. Go's
 * `ControllerRevisionControllerIndexKey`.
 */
function controllerRevisionControllerIndexKey(
  namespace: string,
  controllerRef: Pick<OwnerReference, 'kind' | 'name' | 'uid'> | undefined,
): string {
  if (controllerRef === undefined) return `orphan/${namespace}`;
  return `owned/${namespace}/${controllerRef.kind}/${controllerRef.name}/${controllerRef.uid}`;
}

/**
 * The index function of {@link controllerRevisionControllerIndex}.
 *
 * @category History
 */
export function controllerRevisionControllerIndexFunc(cr: ControllerRevision): string[] {
  return [controllerRevisionControllerIndexKey(cr.metadata?.namespace ?? '', getControllerOf(cr))];
}

/**
 * Adds {@link controllerRevisionControllerIndex} to a (shared)
 * ControllerRevision informer unless it has it already, so the DaemonSet
 * and StatefulSet controllers can both ask for it. Go's
 * `AddControllerRevisionControllerIndexer`.
 *
 * @throws Error if the informer refuses new indexes (it has stopped)
 *
 * @category History
 */
export function addControllerRevisionControllerIndexer(
  informer: Pick<SharedIndexInformer<ControllerRevision>, 'getIndexer' | 'addIndexers'>,
): void {
  if (controllerRevisionControllerIndex in informer.getIndexer().getIndexers()) return;
  informer.addIndexers({
    [controllerRevisionControllerIndex]: controllerRevisionControllerIndexFunc,
  });
}

type RevisionIndexer = Pick<Indexer<ControllerRevision>, 'getIndexers' | 'byIndex'>;
type RevisionLister = Pick<Lister<ControllerRevision>, 'byNamespace'>;

/**
 * What both histories list: from the index when the cache has it, else by
 * scanning the namespace; either way the same revisions.
 */
function listOwned(
  lister: RevisionLister,
  indexer: RevisionIndexer | undefined,
  parent: KubeObject,
  parentKind: GroupVersionKind,
  selector: Selector,
): ControllerRevision[] {
  const namespace = parent.metadata?.namespace ?? '';
  const owner = {
    kind: parentKind.kind,
    name: parent.metadata?.name ?? '',
    uid: parent.metadata?.uid ?? '',
  };
  if (indexer !== undefined && controllerRevisionControllerIndex in indexer.getIndexers()) {
    if (selector.matchesNothing()) return [];
    const candidates = [
      ...indexer.byIndex(
        controllerRevisionControllerIndex,
        controllerRevisionControllerIndexKey(namespace, owner),
      ),
      ...indexer.byIndex(
        controllerRevisionControllerIndex,
        controllerRevisionControllerIndexKey(namespace, undefined),
      ),
    ];
    return candidates.filter((cr) => selector.matches(cr.metadata?.labels));
  }
  return lister
    .byNamespace(namespace)
    .list(selector)
    .filter((cr) => {
      const ref = getControllerOf(cr);
      return (
        ref === undefined ||
        (ref.uid === owner.uid && ref.kind === owner.kind && ref.name === owner.name)
      );
    });
}

function checkCollisionCount(collisionCount: CollisionCount | null | undefined): CollisionCount {
  if (collisionCount === null || collisionCount === undefined) {
    throw new Error('collisionCount should not be nil');
  }
  return collisionCount;
}

/** Go's `%v` of an `*OwnerReference`, for the message of a refused adoption. */
function formatOwnerReference(ref: OwnerReference): string {
  const ptr = (b: boolean | undefined) => (b === undefined ? 'nil' : `*${b}`);
  return (
    `&OwnerReference{Kind:${ref.kind},Name:${ref.name},UID:${ref.uid},` +
    `APIVersion:${ref.apiVersion},Controller:${ptr(ref.controller)},` +
    `BlockOwnerDeletion:${ptr(ref.blockOwnerDeletion)},}`
  );
}

function refuseOwned(revision: ControllerRevision): void {
  const owner = getControllerOf(revision);
  if (owner !== undefined) {
    throw new Error(`attempt to adopt revision owned by ${formatOwnerReference(owner)}`);
  }
}

/**
 * client-go's `retry.DefaultBackoff`: four tries, 10 ms apart at first, five
 * times longer each time, with up to 10% jitter.
 */
const defaultBackoff = { steps: 4, duration: 10, factor: 5, jitter: 0.1 };

const opts = (signal: AbortSignal | undefined) => (signal ? { signal } : {});

/**
 * What {@link RealHistory} needs.
 *
 * @category History
 */
export interface RealHistoryOptions {
  /** The apps/v1 controllerrevisions client (unscoped: each call picks its namespace). */
  client: ResourceClient<ControllerRevision>;
  /** The ControllerRevision informer's lister, read by `listControllerRevisions`. */
  lister: Pick<Lister<ControllerRevision>, 'byNamespace'>;
  /**
   * The informer's cache; when it has {@link controllerRevisionControllerIndex}
   * (see {@link addControllerRevisionControllerIndexer}), listing reads the
   * index instead of scanning the namespace.
   */
  indexer?: Pick<Indexer<ControllerRevision>, 'getIndexers' | 'byIndex'>;
  /** What the waits between update retries run on. Default the real clock. */
  clock?: Clock;
  /** Random source of the retries' jitter. Default `Math.random`. */
  random?: () => number;
}

/**
 * The {@link History} that writes through the API server and reads the
 * informer's cache: Go's `realHistory`, made by `NewHistory`.
 *
 * @example
 * ```ts
 * const history = new RealHistory({ client: revisions, lister, indexer: informer.getIndexer() });
 * const owned = history.listControllerRevisions(ds, dsKind, selector);
 * ```
 *
 * @category History
 */
export class RealHistory implements History {
  readonly #client: ResourceClient<ControllerRevision>;
  readonly #lister: RevisionLister;
  readonly #indexer: RevisionIndexer | undefined;
  readonly #clock: Clock;
  readonly #random: () => number;

  /** @param options - see {@link RealHistoryOptions} */
  constructor(options: RealHistoryOptions) {
    this.#client = options.client;
    this.#lister = options.lister;
    this.#indexer = options.indexer;
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
  }

  listControllerRevisions(
    parent: KubeObject,
    parentKind: GroupVersionKind,
    selector: Selector,
  ): ControllerRevision[] {
    return listOwned(this.#lister, this.#indexer, parent, parentKind, selector);
  }

  async createControllerRevision(
    parent: KubeObject,
    revision: ControllerRevision,
    collisionCount: CollisionCount,
    signal?: AbortSignal,
  ): Promise<ControllerRevision> {
    const count = checkCollisionCount(collisionCount);
    const clone = structuredClone(revision);
    clone.metadata ??= {};
    const client = this.#client.inNamespace(parent.metadata?.namespace ?? '');
    const data = rawData(revision.data);
    for (;;) {
      clone.metadata.name = controllerRevisionName(
        parent.metadata?.name ?? '',
        hashControllerRevision(revision, count.value),
      );
      try {
        return await client.create(clone, opts(signal));
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      // The name is taken: by this very data (a create that raced ours, or
      // a cache behind), or by other data whose hash collides.
      const exists = await client.get(clone.metadata.name, opts(signal));
      if (rawData(exists.data) === data) return exists;
      count.value++;
    }
  }

  async deleteControllerRevision(
    revision: ControllerRevision,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#client
      .inNamespace(revision.metadata?.namespace ?? '')
      .delete(revision.metadata?.name ?? '', opts(signal));
  }

  async updateControllerRevision(
    revision: ControllerRevision,
    newRevision: number,
    signal?: AbortSignal,
  ): Promise<ControllerRevision> {
    let clone = structuredClone(revision);
    let { duration } = defaultBackoff;
    for (let step = 1; ; step++) {
      if (clone.revision === newRevision) return clone;
      clone.revision = newRevision;
      const namespace = clone.metadata?.namespace ?? '';
      try {
        return await this.#client.inNamespace(namespace).update(clone, opts(signal));
      } catch (err) {
        // Retry from the cache's copy, which may have caught up with the
        // write that conflicted (or already carry newRevision).
        const cached = this.#lister.byNamespace(namespace).tryGet(clone.metadata?.name ?? '');
        if (cached !== undefined) clone = structuredClone(cached);
        if (!isConflict(err) || step >= defaultBackoff.steps || signal?.aborted) throw err;
      }
      const jitter = this.#random() * defaultBackoff.jitter * duration;
      await this.#clock.sleep(duration + jitter, signal);
      duration *= defaultBackoff.factor;
    }
  }

  async adoptControllerRevision(
    parent: KubeObject,
    parentKind: GroupVersionKind,
    revision: ControllerRevision,
    signal?: AbortSignal,
  ): Promise<ControllerRevision> {
    refuseOwned(revision);
    return await this.#client.inNamespace(parent.metadata?.namespace ?? '').patch(
      revision.metadata?.name ?? '',
      {
        type: 'strategic',
        body: ownerRefControllerPatch(parent, parentKind, revision.metadata?.uid ?? ''),
      },
      opts(signal),
    );
  }

  async releaseControllerRevision(
    parent: KubeObject,
    revision: ControllerRevision,
    signal?: AbortSignal,
  ): Promise<ControllerRevision | undefined> {
    try {
      return await this.#client.inNamespace(revision.metadata?.namespace ?? '').patch(
        revision.metadata?.name ?? '',
        {
          type: 'strategic',
          body: deleteOwnerRefStrategicMergePatch(revision.metadata?.uid ?? '', [
            parent.metadata?.uid ?? '',
          ]),
        },
        opts(signal),
      );
    } catch (err) {
      // Gone (404), or not ours or re-created (422): nothing to release.
      if (isNotFound(err) || isInvalid(err)) return undefined;
      throw err;
    }
  }
}

const revisionsResource: GroupResource = { group: 'apps', resource: 'controllerrevisions' };

/** Runs `fn` now, its result or throw as a promise: the fake answers at once, like a cache. */
const settle = <T>(fn: () => T): Promise<T> => new Promise<T>((resolve) => resolve(fn()));

/**
 * The {@link History} that keeps revisions in a cache and nowhere else, for
 * tests of the controllers that use a history: Go's `fakeHistory`, made by
 * `NewFakeHistory`. Its adoptions and releases change the cached objects
 * directly and refuse nothing but an owned revision.
 *
 * @category History
 */
export class FakeHistory implements History {
  readonly #indexer: Indexer<ControllerRevision>;
  readonly #lister: Lister<ControllerRevision>;

  /**
   * @param indexer - the cache, keyed by `namespace/name` (an informer's
   *   indexer, or `newIndexer(metaNamespaceKeyFunc, ...)`); listing reads
   *   {@link controllerRevisionControllerIndex} when it has it
   */
  constructor(indexer: Indexer<ControllerRevision>) {
    this.#indexer = indexer;
    this.#lister = new Lister(indexer, { group: 'apps', resource: 'controllerrevision' });
  }

  listControllerRevisions(
    parent: KubeObject,
    parentKind: GroupVersionKind,
    selector: Selector,
  ): ControllerRevision[] {
    return listOwned(this.#lister, this.#indexer, parent, parentKind, selector);
  }

  /** Stores `revision` unless its key is taken. Go's `addRevision`. */
  #addRevision(revision: ControllerRevision): ControllerRevision {
    if (this.#indexer.getByKey(metaNamespaceKeyFunc(revision)) !== undefined) {
      throw newAlreadyExists(
        { group: 'apps', resource: 'controllerrevision' },
        revision.metadata?.name ?? '',
      );
    }
    this.#indexer.update(revision);
    return revision;
  }

  #exists(revision: ControllerRevision): boolean {
    return this.#indexer.getByKey(metaNamespaceKeyFunc(revision)) !== undefined;
  }

  createControllerRevision(
    parent: KubeObject,
    revision: ControllerRevision,
    collisionCount: CollisionCount,
  ): Promise<ControllerRevision> {
    return settle(() => {
      const count = checkCollisionCount(collisionCount);
      for (;;) {
        const clone = structuredClone(revision);
        clone.metadata = { ...clone.metadata, namespace: parent.metadata?.namespace ?? '' };
        clone.metadata.name = controllerRevisionName(
          parent.metadata?.name ?? '',
          hashControllerRevision(revision, count.value),
        );
        try {
          return this.#addRevision(clone);
        } catch (err) {
          // Unlike the real history, any taken name counts as a collision.
          if (!isAlreadyExists(err)) throw err;
          count.value++;
        }
      }
    });
  }

  deleteControllerRevision(revision: ControllerRevision): Promise<void> {
    return settle(() => {
      if (!this.#exists(revision)) {
        throw newNotFound(revisionsResource, revision.metadata?.name ?? '');
      }
      this.#indexer.delete(revision);
    });
  }

  updateControllerRevision(
    revision: ControllerRevision,
    newRevision: number,
  ): Promise<ControllerRevision> {
    return settle(() => {
      const clone = structuredClone(revision);
      clone.revision = newRevision;
      this.#indexer.update(clone);
      return clone;
    });
  }

  adoptControllerRevision(
    parent: KubeObject,
    parentKind: GroupVersionKind,
    revision: ControllerRevision,
  ): Promise<ControllerRevision> {
    return settle(() => {
      refuseOwned(revision);
      if (!this.#exists(revision)) {
        throw newNotFound(revisionsResource, revision.metadata?.name ?? '');
      }
      const clone = structuredClone(revision);
      clone.metadata = {
        ...clone.metadata,
        ownerReferences: [
          ...(clone.metadata?.ownerReferences ?? []),
          newControllerRef(parent, parentKind),
        ],
      };
      this.#indexer.update(clone);
      return clone;
    });
  }

  releaseControllerRevision(
    parent: KubeObject,
    revision: ControllerRevision,
  ): Promise<ControllerRevision | undefined> {
    return settle(() => {
      if (!this.#exists(revision)) return undefined;
      const clone = structuredClone(revision);
      const refs = (clone.metadata?.ownerReferences ?? []).filter(
        (ref) => ref.uid !== parent.metadata?.uid,
      );
      clone.metadata = { ...clone.metadata };
      if (refs.length > 0) clone.metadata.ownerReferences = refs;
      else delete clone.metadata.ownerReferences;
      this.#indexer.update(clone);
      return clone;
    });
  }
}
