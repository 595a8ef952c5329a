// API groups, versions, kinds and resources: k8s.io/apimachinery/pkg/runtime/schema
// (group_version.go).

/**
 * An API group and version, such as `apps/v1` (`{ group: 'apps', version: 'v1' }`)
 * or `v1` for the core group (`group: ''`). Go's `schema.GroupVersion`.
 *
 * @category Schema
 */
export interface GroupVersion {
  /** The API group; `''` for the core ("legacy") group. */
  readonly group: string;
  /** The version within the group, such as `v1`. */
  readonly version: string;
}

/**
 * Names a kind of object: `{ group: 'apps', version: 'v1', kind: 'Deployment' }`.
 * Go's `schema.GroupVersionKind`.
 *
 * @category Schema
 */
export interface GroupVersionKind extends GroupVersion {
  /** The kind, in CamelCase, as in an object's `kind` field (`Deployment`). */
  readonly kind: string;
}

/**
 * Names a resource, the plural that appears in URLs:
 * `{ group: 'apps', version: 'v1', resource: 'deployments' }`. Go's
 * `schema.GroupVersionResource`.
 *
 * @category Schema
 */
export interface GroupVersionResource extends GroupVersion {
  /** The resource, lowercase and plural (`deployments`). */
  readonly resource: string;
}

/**
 * A resource without its version, used to name the subject of an error
 * (`deployments.apps`). Go's `schema.GroupResource`.
 *
 * @category Schema
 */
export interface GroupResource {
  /** The API group; `''` for the core group. */
  readonly group: string;
  /** The resource, lowercase and plural (`deployments`). */
  readonly resource: string;
}

/**
 * A kind without its version, used to name the subject of a validation error
 * (`Deployment.apps`). Go's `schema.GroupKind`.
 *
 * @category Schema
 */
export interface GroupKind {
  /** The API group; `''` for the core group. */
  readonly group: string;
  /** The kind, in CamelCase (`Deployment`). */
  readonly kind: string;
}

/**
 * Parses an `apiVersion` string: `apps/v1` gives `{ group: 'apps', version: 'v1' }`,
 * `v1` gives the core group. `''` and `'/'` give an empty group and version, as
 * in Go. Throws on more than one slash.
 *
 * @category Schema
 */
export function parseGroupVersion(apiVersion: string): GroupVersion {
  // group_version.go, ParseGroupVersion
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
}

/**
 * The `apiVersion` string for a group and version: `apps/v1`, or just `v1` for
 * the core group. Go's `GroupVersion.String`.
 *
 * @category Schema
 */
export function groupVersionString(gv: GroupVersion): string {
  return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
}

/**
 * The qualified name of a resource as error messages print it: `deployments.apps`,
 * or just `pods` for the core group. Go's `GroupResource.String`.
 *
 * @category Schema
 */
export function groupResourceString(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/**
 * The qualified name of a kind as validation errors print it: `Deployment.apps`,
 * or just `Pod` for the core group. Go's `GroupKind.String`.
 *
 * @category Schema
 */
export function groupKindString(gk: GroupKind): string {
  return gk.group === '' ? gk.kind : `${gk.kind}.${gk.group}`;
}
