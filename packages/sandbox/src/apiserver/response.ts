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
 * A list about to be written: everything but its array (`envelope`, which
 * keeps the key order the whole answer has), the name of the array, which
 * comes last, the list's items, and how a run of them becomes elements of
 * the array. Writing a long list slice by slice needs it in these parts.
 *
 * @category Server
 */
export interface ListParts {
  /** The answer without its array. */
  envelope: Record<string, unknown>;
  /** `items`, or `rows` for a Table. */
  key: 'items' | 'rows';
  /** The list's objects. */
  items: readonly KubeObject[];
  /** The array elements for a run of `items`, in order. */
  convert(items: readonly KubeObject[]): unknown[];
}

/**
 * The parts of a list's answer once the negotiated transformation is
 * applied: the list itself, a PartialObjectMetadataList or a Table. Throws
 * 406 NotAcceptable when the list was asked for as one object.
 *
 * @category Server
 */
export function listParts(
  list: ObjectList<KubeObject>,
  convert: NegotiatedOutput['convert'],
  ctx: TransformContext,
): ListParts {
  const { items, ...envelope } = list;
  switch (convert?.kind) {
    case undefined:
      return { envelope, key: 'items', items, convert: (run) => [...run] };
    case 'PartialObjectMetadata':
      throw notAcceptableMessage(
        `you requested PartialObjectMetadata, but the requested object is a list (${goType(list)})`,
      );
    case 'PartialObjectMetadataList': {
      const { items: _none, ...partial } = asPartialObjectMetadataList(
        { ...list, items: [] },
        convert.version,
      );
      return {
        envelope: partial,
        key: 'items',
        items,
        convert: (run) => run.map((o) => asPartialObjectMetadata(o, convert.version)),
      };
    }
    case 'Table': {
      const meta = list.metadata ?? {};
      const opts = {
        now: ctx.now,
        includeObject: ctx.includeObject,
        resourceVersion: meta.resourceVersion ?? '',
        ...(meta.continue ? { continue: meta.continue } : {}),
        ...(meta.remainingItemCount !== undefined
          ? { remainingItemCount: meta.remainingItemCount }
          : {}),
      };
      const table = (run: readonly KubeObject[]) =>
        withTableVersion(toTable(ctx.resource, ctx.group, run, opts), convert.version) as {
          rows: unknown[];
        };
      const { rows: _none, ...head } = table([]);
      return { envelope: head, key: 'rows', items, convert: (run) => table(run).rows };
    }
  }
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
  if (isList(result)) {
    const parts = listParts(result, convert, ctx);
    return { ...parts.envelope, [parts.key]: parts.convert(parts.items) };
  }
  switch (convert.kind) {
    case 'PartialObjectMetadata':
      return asPartialObjectMetadata(result as KubeObject, convert.version);
    case 'PartialObjectMetadataList':
      throw notAcceptableMessage(
        `you requested PartialObjectMetadataList, but the requested object is not a list (${goType(result as KubeObject)})`,
      );
    case 'Table':
      return withTableVersion(
        toTable(ctx.resource, ctx.group, [result as KubeObject], {
          now: ctx.now,
          includeObject: ctx.includeObject,
          resourceVersion: (result as KubeObject).metadata?.resourceVersion ?? '',
        }),
        convert.version,
      );
  }
}
