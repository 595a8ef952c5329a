// What an answer looks like once the negotiated transformation is applied:
// staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go
// (doTransformObject, asPartialObjectMetadata, asPartialObjectMetadataList,
// asTable). The HTTP server and the in-process metadata client share it.
import { isStatus } from '@kcm-ts/apimachinery';
import type { KubeObject, ObjectList } from '@kcm-ts/apimachinery';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { NegotiatedOutput } from './negotiation.js';
import { notAcceptableMessage } from './negotiation.js';
import { toTable } from '../printers/index.js';
import type { IncludeObject } from '../printers/index.js';

/**
 * A `meta.k8s.io` PartialObjectMetadata: an object's full metadata and
 * nothing else, what metadata-only clients (client-go's `metadata` package,
 * the garbage collector's informers) read.
 *
 * @category Server
 */
export interface PartialObjectMetadata extends KubeObject {
  /** `meta.k8s.io/v1` (or `meta.k8s.io/v1beta1` when that was asked for). */
  apiVersion: string;
  /** `PartialObjectMetadata`. */
  kind: 'PartialObjectMetadata';
  /** The object's metadata, whole. */
  metadata: ObjectMeta;
}

/**
 * A `meta.k8s.io` PartialObjectMetadataList: a list's metadata and the
 * metadata of each item.
 *
 * @category Server
 */
export interface PartialObjectMetadataList {
  /** `meta.k8s.io/v1` (or `meta.k8s.io/v1beta1`). */
  apiVersion: string;
  /** `PartialObjectMetadataList`. */
  kind: 'PartialObjectMetadataList';
  /** `resourceVersion`, and for a page `continue` and `remainingItemCount`. */
  metadata: ObjectList<KubeObject>['metadata'];
  /** One PartialObjectMetadata per item. */
  items: PartialObjectMetadata[];
}

const isList = (v: unknown): v is ObjectList<KubeObject> =>
  typeof v === 'object' &&
  v !== null &&
  Array.isArray((v as { items?: unknown }).items) &&
  typeof (v as { kind?: unknown }).kind === 'string' &&
  (v as { kind: string }).kind.endsWith('List');

// The Go package of the internal type kube-apiserver holds an object in,
// which its 406 messages name (`%T`): the group's first label, `core` for the
// core group; events.k8s.io events are core Events inside.
function internalPackage(apiVersion: string): string {
  const group = apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';
  if (group === '' || group === 'events.k8s.io') return 'core';
  return group.split('.')[0] ?? group;
}

function goType(obj: { apiVersion?: string | undefined; kind?: string | undefined }): string {
  return `*${internalPackage(obj.apiVersion ?? '')}.${obj.kind ?? 'Unknown'}`;
}

/**
 * The PartialObjectMetadata of `obj` in `meta.k8s.io/{version}`
 * (apimachinery's meta.AsPartialObjectMetadata): the metadata is the
 * object's, whole.
 *
 * @category Server
 */
export function asPartialObjectMetadata(
  obj: KubeObject,
  version: 'v1' | 'v1beta1' = 'v1',
): PartialObjectMetadata {
  return {
    kind: 'PartialObjectMetadata',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: obj.metadata ?? {},
  };
}

/**
 * A list as a PartialObjectMetadataList in `meta.k8s.io/{version}`, keeping
 * its resourceVersion, continue token and remaining count.
 *
 * @category Server
 */
export function asPartialObjectMetadataList(
  list: ObjectList<KubeObject>,
  version: 'v1' | 'v1beta1' = 'v1',
): PartialObjectMetadataList {
  const { resourceVersion, continue: token, remainingItemCount } = list.metadata ?? {};
  const metadata = {
    ...(resourceVersion ? { resourceVersion } : {}),
    ...(token ? { continue: token } : {}),
    ...(remainingItemCount !== undefined ? { remainingItemCount } : {}),
  };
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${version}`,
    metadata,
    items: list.items.map((o) => asPartialObjectMetadata(o, version)),
  };
}

/** What a Table needs besides the object: the printer's resource and the time. */
export interface TransformContext {
  /** The plural resource, for the printer (a subresource gets the default printer). */
  resource: string;
  /** The group, `''` for core. */
  group: string;
  /** Now, in epoch milliseconds, for the Age columns. */
  now: number;
  /** What each Table row embeds (already checked). */
  includeObject: IncludeObject;
}

function withTableVersion(value: ReturnType<typeof toTable>, version: 'v1' | 'v1beta1'): unknown {
  if (version === 'v1') return value;
  const apiVersion = 'meta.k8s.io/v1beta1';
  return {
    ...value,
    apiVersion,
    rows: value.rows.map((row) =>
      (row.object as { kind?: string } | undefined)?.kind === 'PartialObjectMetadata'
        ? { ...row, object: { ...(row.object as object), apiVersion } }
        : row,
    ),
  };
}

/**
 * Applies the negotiated transformation to an answer: nothing for a Status
 * or when none was asked for; a Table; a PartialObjectMetadata of one
 * object; a PartialObjectMetadataList of a list. Throws 406 NotAcceptable,
 * with kube-apiserver's message, when a list was asked for as one object or
 * one object as a list.
 *
 * @category Server
 */
export function transformResponse(
  result: unknown,
  convert: NegotiatedOutput['convert'],
  ctx: TransformContext,
): unknown {
  if (convert === undefined || isStatus(result)) return result;
  switch (convert.kind) {
    case 'PartialObjectMetadata':
      if (isList(result)) {
        throw notAcceptableMessage(
          `you requested PartialObjectMetadata, but the requested object is a list (${goType(result)})`,
        );
      }
      return asPartialObjectMetadata(result as KubeObject, convert.version);
    case 'PartialObjectMetadataList':
      if (!isList(result)) {
        throw notAcceptableMessage(
          `you requested PartialObjectMetadataList, but the requested object is not a list (${goType(result as KubeObject)})`,
        );
      }
      return asPartialObjectMetadataList(result, convert.version);
    case 'Table': {
      const table = isList(result)
        ? toTable(ctx.resource, ctx.group, result.items, {
            now: ctx.now,
            includeObject: ctx.includeObject,
            resourceVersion: result.metadata?.resourceVersion ?? '',
            ...(result.metadata?.continue ? { continue: result.metadata.continue } : {}),
            ...(result.metadata?.remainingItemCount !== undefined
              ? { remainingItemCount: result.metadata.remainingItemCount }
              : {}),
          })
        : toTable(ctx.resource, ctx.group, [result as KubeObject], {
            now: ctx.now,
            includeObject: ctx.includeObject,
            resourceVersion: (result as KubeObject).metadata?.resourceVersion ?? '',
          });
      return withTableVersion(table, convert.version);
    }
  }
}
