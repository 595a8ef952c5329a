// Metadata-only reads, as client-go's metadata client makes them
// (staging/src/k8s.io/client-go/metadata/metadata.go): the Accept headers
// that ask kube-apiserver for PartialObjectMetadata, and the fallback that
// cuts a whole object down to its metadata when a server sends one anyway.
import type { KubeObject, ObjectList } from '@kcm-ts/apimachinery';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/**
 * An object's metadata and nothing else: what a metadata-only client reads
 * (`meta.k8s.io/v1` PartialObjectMetadata).
 *
 * @category Resource clients
 */
export interface PartialObjectMetadata extends KubeObject {
  /** `meta.k8s.io/v1`. */
  apiVersion: string;
  /** `PartialObjectMetadata`. */
  kind: 'PartialObjectMetadata';
  /** The object's metadata, whole. */
  metadata: ObjectMeta;
}

/** The Accept header of a metadata get, patch, delete or watch (JSON only: no protobuf here). */
export const metadataAccept =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/** The Accept header of a metadata list. */
export const metadataListAccept =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `value` as PartialObjectMetadata: as it is if it already is one, else its metadata. */
export function toPartialObjectMetadata(value: unknown): PartialObjectMetadata {
  if (isObj(value) && value.kind === 'PartialObjectMetadata' && isObj(value.metadata)) {
    return value as unknown as PartialObjectMetadata;
  }
  const metadata = isObj(value) && isObj(value.metadata) ? value.metadata : {};
  return { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata };
}

/** A list as PartialObjectMetadataList: its metadata, and each item's. */
export function toPartialObjectMetadataList(
  list: ObjectList<unknown>,
): ObjectList<PartialObjectMetadata> {
  if (list.kind === 'PartialObjectMetadataList') {
    return { ...list, items: list.items.map(toPartialObjectMetadata) };
  }
  return {
    apiVersion: 'meta.k8s.io/v1',
    kind: 'PartialObjectMetadataList',
    metadata: list.metadata,
    items: (list.items ?? []).map(toPartialObjectMetadata),
  };
}
