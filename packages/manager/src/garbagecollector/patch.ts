// The patches the garbage collector sends to change ownerReferences: Go's
// pkg/controller/garbagecollector/patch.go (getMetadata, patch, the JSON
// merge patch fallbacks, unblockOwnerReferencesStrategicMergePatch) and
// pkg/controller/controller_utils.go (GenerateDeleteOwnerRefStrategicMergeBytes).
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  isUnsupportedMediaType,
  type KubeObject,
  type MergePatch,
  type StrategicMergePatch,
} from '@kcm-ts/apimachinery';
import type { RESTMapping } from '../discovery.js';
import type { Node } from './graph.js';
import type { Operations } from './operations.js';

/**
 * A strategic merge patch that deletes the references to `ownerUIDs` from
 * an object's ownerReferences. The object's own uid rides along, so the
 * patch fails rather than touch a newer object of the same name. Go's
 * `GenerateDeleteOwnerRefStrategicMergeBytes`.
 */
export function generateDeleteOwnerRefStrategicMergePatch(
  dependentUID: string,
  ownerUIDs: readonly string[],
): StrategicMergePatch {
  return {
    type: 'strategic',
    body: {
      metadata: {
        uid: dependentUID,
        ownerReferences: ownerUIDs.map((uid) => ({ $patch: 'delete', uid })),
      },
    },
  };
}

/**
 * A strategic merge patch setting `blockOwnerDeletion: false` on every
 * blocking reference of `node`: Go's `unblockOwnerReferencesStrategicMergePatch`.
 */
export function unblockOwnerReferencesStrategicMergePatch(node: Node): StrategicMergePatch {
  const blocking: OwnerReference[] = node.owners
    .filter((o) => o.blockOwnerDeletion === true)
    .map((o) => ({ ...o, blockOwnerDeletion: false }));
  return {
    type: 'strategic',
    body: { metadata: { uid: node.identity.uid, ownerReferences: blocking } },
  };
}

/** Finds an object in the graph builder's caches: a monitor's store lookup. */
export type CachedObjectLookup = (
  mapping: RESTMapping,
  namespace: string,
  name: string,
) => KubeObject | undefined;

/** A JSON merge patch built from the item's latest metadata (Go's `jsonMergePatchFunc`). */
export type JsonMergePatchFunc = (item: Node) => Promise<MergePatch>;

/** What the patch helpers need of the garbage collector. */
export interface PatchContext {
  readonly operations: Operations;
  readonly cachedObject: CachedObjectLookup;
}

/**
 * The object's metadata from the monitor's cache, or from the API server when
 * its resource is not monitored or the cache lacks it: Go's `getMetadata`.
 */
export async function getMetadata(
  ctx: PatchContext,
  apiVersion: string,
  kind: string,
  namespace: string,
  name: string,
): Promise<KubeObject> {
  const mapping = await ctx.operations.apiResource(apiVersion, kind);
  const cached = ctx.cachedObject(mapping, namespace, name);
  if (cached !== undefined) return cached;
  return ctx.operations.client(mapping, namespace).get(name);
}

/**
 * Sends the strategic merge patch `smp`, or, where the server does not take
 * strategic merge patches (415, custom resources), the JSON merge patch `jmp`
 * builds: Go's `patch`.
 */
export async function patch(
  ctx: PatchContext,
  item: Node,
  smp: StrategicMergePatch,
  jmp: JsonMergePatchFunc,
): Promise<KubeObject> {
  try {
    return await ctx.operations.patchObject(item.identity, smp);
  } catch (err) {
    if (!isUnsupportedMediaType(err)) throw err;
  }
  return ctx.operations.patchObject(item.identity, await jmp(item));
}

/**
 * A JSON merge patch that writes the item's ownerReferences without those
 * of `ownerUIDs`, conditioned on the resourceVersion it read: Go's
 * `deleteOwnerRefJSONMergePatch`.
 */
export async function deleteOwnerRefJSONMergePatch(
  ctx: PatchContext,
  item: Node,
  ownerUIDs: readonly string[],
): Promise<MergePatch> {
  const { identity } = item;
  const obj = await getMetadata(
    ctx,
    identity.apiVersion,
    identity.kind,
    identity.namespace,
    identity.name,
  );
  const refs = (obj.metadata?.ownerReferences ?? []).filter((r) => !ownerUIDs.includes(r.uid));
  return {
    type: 'merge',
    body: {
      metadata: {
        resourceVersion: obj.metadata?.resourceVersion ?? '',
        ownerReferences: refs.length > 0 ? refs : null,
      },
    },
  };
}

/**
 * A JSON merge patch that writes the node's ownerReferences with
 * `blockOwnerDeletion: false` on all of them: Go's
 * `unblockOwnerReferencesJSONMergePatch`.
 */
export async function unblockOwnerReferencesJSONMergePatch(
  ctx: PatchContext,
  item: Node,
): Promise<MergePatch> {
  const { identity } = item;
  const obj = await getMetadata(
    ctx,
    identity.apiVersion,
    identity.kind,
    identity.namespace,
    identity.name,
  );
  const owners = item.owners.map((o) => ({ ...o, blockOwnerDeletion: false }));
  return {
    type: 'merge',
    body: {
      metadata: {
        resourceVersion: obj.metadata?.resourceVersion ?? '',
        ownerReferences: owners.length > 0 ? owners : null,
      },
    },
  };
}
