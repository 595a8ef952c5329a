// The ownership graph the garbage collector keeps in memory: Go's
// pkg/controller/garbagecollector/graph.go (objectReference, node,
// concurrentUIDToNode). Only the graph builder's single loop writes it; the
// workers read it between their awaits, so no locks are needed here.
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';

/**
 * Where an object is: its owner-reference coordinates (apiVersion, kind,
 * name, uid) and its namespace, `''` for a cluster-scoped object. Go's
 * `objectReference`.
 */
export interface ObjectReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly namespace: string;
}

/** The objectReference as Go's `String` prints it in logs and events. */
export function objectReferenceString(ref: ObjectReference): string {
  return `[${ref.apiVersion}/${ref.kind}, namespace: ${ref.namespace}, name: ${ref.name}, uid: ${ref.uid}]`;
}

/** True when both references have the same coordinates and namespace (Go's `==` on objectReference). */
export function sameReference(a: ObjectReference, b: ObjectReference): boolean {
  return (
    a.uid === b.uid &&
    a.name === b.name &&
    a.kind === b.kind &&
    a.apiVersion === b.apiVersion &&
    a.namespace === b.namespace
  );
}

/** A string equal for equal references, for maps and sets. */
export function referenceKey(ref: ObjectReference): string {
  return JSON.stringify([ref.apiVersion, ref.kind, ref.namespace, ref.name, ref.uid]);
}

/** The identity of the owner `ref` points at, as seen from an object in `namespace`. */
export function referenceFromOwner(ref: OwnerReference, namespace: string): ObjectReference {
  return { ...ownerReferenceCoordinates(ref), namespace };
}

/**
 * Only the coordinate fields of an owner reference (uid, name, kind,
 * apiVersion): Go's `ownerReferenceCoordinates`.
 */
export function ownerReferenceCoordinates(
  ref: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name' | 'uid'>,
): Pick<ObjectReference, 'apiVersion' | 'kind' | 'name' | 'uid'> {
  return {
    uid: ref.uid ?? '',
    name: ref.name ?? '',
    kind: ref.kind ?? '',
    apiVersion: ref.apiVersion ?? '',
  };
}

/** True when the coordinates of `a` and `b` agree: Go's `ownerReferenceMatchesCoordinates`. */
export function ownerReferenceMatchesCoordinates(
  a: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name' | 'uid'>,
  b: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name' | 'uid'>,
): boolean {
  return (
    (a.uid ?? '') === (b.uid ?? '') &&
    (a.name ?? '') === (b.name ?? '') &&
    (a.kind ?? '') === (b.kind ?? '') &&
    (a.apiVersion ?? '') === (b.apiVersion ?? '')
  );
}

/**
 * One object of the graph, observed through an informer or "virtual": an
 * owner some dependent refers to that has not been seen yet. Go's `node`.
 */
export class Node {
  identity: ObjectReference;
  /** The nodes whose ownerReferences point at this one. */
  readonly dependents: Set<Node>;
  /** Set once the object has a deletionTimestamp and the `foregroundDeletion` finalizer. */
  deletingDependents: boolean;
  /** Set once the object has a deletionTimestamp: a one-way trip. */
  beingDeleted: boolean;
  /** True until an informer event for the object is seen. */
  virtual: boolean;
  /** The ownerReferences last seen, to diff an update against. */
  owners: OwnerReference[];

  constructor(init: {
    identity: ObjectReference;
    owners?: OwnerReference[];
    virtual?: boolean;
    deletingDependents?: boolean;
    beingDeleted?: boolean;
  }) {
    this.identity = init.identity;
    this.dependents = new Set();
    this.owners = init.owners ?? [];
    this.virtual = init.virtual ?? false;
    this.deletingDependents = init.deletingDependents ?? false;
    this.beingDeleted = init.beingDeleted ?? false;
  }

  /** A copy with its own dependents set and owners list: Go's `clone`. */
  clone(): Node {
    const c = new Node({
      identity: this.identity,
      owners: [...this.owners],
      virtual: this.virtual,
      deletingDependents: this.deletingDependents,
      beingDeleted: this.beingDeleted,
    });
    for (const dep of this.dependents) c.dependents.add(dep);
    return c;
  }

  markBeingDeleted(): void {
    this.beingDeleted = true;
  }

  isBeingDeleted(): boolean {
    return this.beingDeleted;
  }

  markObserved(): void {
    this.virtual = false;
  }

  isObserved(): boolean {
    return !this.virtual;
  }

  markDeletingDependents(): void {
    this.deletingDependents = true;
  }

  isDeletingDependents(): boolean {
    return this.deletingDependents;
  }

  addDependent(dependent: Node): void {
    this.dependents.add(dependent);
  }

  deleteDependent(dependent: Node): void {
    this.dependents.delete(dependent);
  }

  /** Replaces `oldNode` by `newNode` among the dependents, if it is one. */
  replaceDependentIfItExists(oldNode: Node, newNode: Node): void {
    if (this.dependents.delete(oldNode)) this.dependents.add(newNode);
  }

  dependentsLength(): number {
    return this.dependents.size;
  }

  /** A snapshot of the dependents. */
  getDependents(): Node[] {
    return [...this.dependents];
  }

  /**
   * The dependents whose reference to this node has `blockOwnerDeletion: true`:
   * the ones a foreground deletion of this node waits for. Go's `blockingDependents`.
   */
  blockingDependents(): Node[] {
    const out: Node[] = [];
    for (const dep of this.dependents) {
      for (const owner of dep.owners) {
        if (owner.uid === this.identity.uid && owner.blockOwnerDeletion === true) out.push(dep);
      }
    }
    return out;
  }

  setOwners(owners: OwnerReference[]): void {
    this.owners = owners;
  }
}

/** The graph's index: uid to node. Go's `concurrentUIDToNode`, without the lock. */
export class UIDToNode {
  readonly #nodes = new Map<string, Node>();

  write(node: Node): void {
    this.#nodes.set(node.identity.uid, node);
  }

  read(uid: string): Node | undefined {
    return this.#nodes.get(uid);
  }

  delete(uid: string): void {
    this.#nodes.delete(uid);
  }

  /** Every node, for tests that check the graph's invariants. */
  nodes(): Node[] {
    return [...this.#nodes.values()];
  }
}
