// What the API server serves, as the garbage collector and the namespace
// controller learn it: client-go discovery/discovery_client.go
// (ServerResourcesInterface.ServerPreferredResources,
// ServerPreferredNamespacedResources, ErrGroupDiscoveryFailed), discovery/helper.go
// (FilteredBy, SupportsAllVerbs, GroupVersionResources) and
// restmapper/discovery.go with discovery.go's DeferredDiscoveryRESTMapper.
import type { APIResource, APIResourceList } from 'kubernetes-types/meta/v1.js';
import {
  GroupDiscoveryFailedError,
  groupVersionString,
  isGroupDiscoveryFailedError,
  parseGroupVersion,
  type GroupKind,
  type GroupVersionKind,
  type GroupVersionResource,
  type ResourceDiscovery,
} from '@kcm-ts/apimachinery';

/**
 * What {@link serverPreferredResources} returns: Go's pair of result and error.
 *
 * @category Discovery
 */
export interface DiscoveryResult {
  /** The resource lists that could be read (all of them when `error` is `undefined`). */
  resources: APIResourceList[];
  /** Why discovery failed, in part or whole; `undefined` when it did not. */
  error: unknown;
}

/**
 * Calls {@link ResourceDiscovery.serverPreferredResources} the way Go callers
 * see it: the lists that could be read together with the error, if any.
 *
 * @category Discovery
 */
export async function serverPreferredResources(
  discovery: ResourceDiscovery,
  signal?: AbortSignal,
): Promise<DiscoveryResult> {
  try {
    return { resources: await discovery.serverPreferredResources(signal), error: undefined };
  } catch (err) {
    const partial = isGroupDiscoveryFailedError(err) ? [...err.resources] : [];
    return { resources: partial, error: err };
  }
}

/**
 * The namespaced resources among the preferred ones, as the namespace
 * controller's `discoverResourcesFn`: Go's `ServerPreferredNamespacedResources`.
 * Like {@link ResourceDiscovery.serverPreferredResources} it rejects with a
 * {@link GroupDiscoveryFailedError} carrying the namespaced part of what
 * could be read.
 *
 * @category Discovery
 */
export async function serverPreferredNamespacedResources(
  discovery: ResourceDiscovery,
  signal?: AbortSignal,
): Promise<APIResourceList[]> {
  const namespaced = (_gv: string, r: APIResource) => r.namespaced;
  const { resources, error } = await serverPreferredResources(discovery, signal);
  if (isGroupDiscoveryFailedError(error)) {
    throw new GroupDiscoveryFailedError(error.groups, filteredBy(namespaced, resources));
  }
  // Rethrown as discovery threw it.
  if (error !== undefined) throw error as Error;
  return filteredBy(namespaced, resources);
}

/**
 * Keeps the resources `predicate` accepts, dropping lists left empty: Go's
 * `discovery.FilteredBy`.
 *
 * @category Discovery
 */
export function filteredBy(
  predicate: (groupVersion: string, resource: APIResource) => boolean,
  lists: readonly APIResourceList[],
): APIResourceList[] {
  const out: APIResourceList[] = [];
  for (const list of lists) {
    const kept = list.resources.filter((r) => predicate(list.groupVersion, r));
    if (kept.length > 0) out.push({ ...list, resources: kept });
  }
  return out;
}

/**
 * A predicate for {@link filteredBy} that accepts resources supporting every
 * one of `verbs`: Go's `discovery.SupportsAllVerbs`.
 *
 * @category Discovery
 */
export function supportsAllVerbs(
  verbs: readonly string[],
): (groupVersion: string, resource: APIResource) => boolean {
  return (_gv, resource) => verbs.every((v) => resource.verbs.includes(v));
}

/**
 * A string that names a group, version and resource: `apps/v1/deployments`,
 * `/v1/pods` for the core group. Used as a map key.
 *
 * @category Discovery
 */
export function groupVersionResourceKey(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}/${gvr.resource}`;
}

/**
 * Every resource of `lists` as a group, version and resource, keyed by
 * {@link groupVersionResourceKey}: Go's `discovery.GroupVersionResources`.
 *
 * @throws Error naming the first group version that does not parse
 *
 * @category Discovery
 */
export function groupVersionResources(
  lists: readonly APIResourceList[],
): Map<string, GroupVersionResource> {
  const out = new Map<string, GroupVersionResource>();
  for (const list of lists) {
    const gv = parseGroupVersion(list.groupVersion);
    for (const r of list.resources) {
      const gvr = { group: gv.group, version: gv.version, resource: r.name };
      out.set(groupVersionResourceKey(gvr), gvr);
    }
  }
  return out;
}

/**
 * How a kind maps to a resource: Go's `meta.RESTMapping`, with the scope as a
 * boolean and the singular name discovery reports.
 *
 * @category Discovery
 */
export interface RESTMapping {
  /** The resource that serves the kind, such as `apps/v1` `deployments`. */
  resource: GroupVersionResource;
  /** The kind, with the group and version it was mapped at. */
  groupVersionKind: GroupVersionKind;
  /** True for a namespaced resource (Go's `RESTScopeNamespace`). */
  namespaced: boolean;
  /** The singular lowercase name, such as `deployment`. */
  singular: string;
}

interface MapperData {
  byKind: Map<string, RESTMapping>;
  byResource: Map<string, RESTMapping>;
}

/**
 * Maps kinds to resources and back from what {@link ResourceDiscovery}
 * reports, reading discovery once and again after each
 * {@link DeferredDiscoveryRESTMapper.reset}: Go's
 * `restmapper.DeferredDiscoveryRESTMapper` over a memory-cached discovery
 * client, which the garbage collector resets when its periodic sync sees the
 * served resources change.
 *
 * It knows the versions discovery reports (the preferred ones), so a kind
 * asked for at another version does not map.
 *
 * @category Discovery
 */
export class DeferredDiscoveryRESTMapper {
  readonly #discovery: ResourceDiscovery;
  #data: Promise<MapperData> | undefined;

  /** @param discovery - where the mappings come from */
  constructor(discovery: ResourceDiscovery) {
    this.#discovery = discovery;
  }

  /** Forgets what discovery said; the next lookup reads it again. Go's `Reset`. */
  reset(): void {
    this.#data = undefined;
  }

  /**
   * The resource serving `groupKind` at `version`: Go's `RESTMapping`.
   *
   * @throws Error `no matches for kind "K" in version "g/v"` when nothing serves it
   */
  async restMapping(groupKind: GroupKind, version: string): Promise<RESTMapping> {
    const data = await this.#load();
    const gvk = { ...groupKind, version };
    const mapping = data.byKind.get(kindKey(gvk));
    if (mapping === undefined) {
      throw new Error(
        `no matches for kind ${JSON.stringify(gvk.kind)} in version ${JSON.stringify(groupVersionString(gvk))}`,
      );
    }
    return mapping;
  }

  /**
   * The kind served by `resource`: Go's `KindFor`.
   *
   * @throws Error `no matches for g/v, Resource=r` (`/v1, Resource=r` for the core group) when discovery does not list it
   */
  async kindFor(resource: GroupVersionResource): Promise<GroupVersionKind> {
    return (await this.resourceMapping(resource)).groupVersionKind;
  }

  /**
   * The whole mapping of `resource`: its kind, scope and singular name.
   *
   * @throws Error `no matches for g/v, Resource=r` when discovery does not list it
   */
  async resourceMapping(resource: GroupVersionResource): Promise<RESTMapping> {
    const data = await this.#load();
    const mapping = data.byResource.get(groupVersionResourceKey(resource));
    if (mapping === undefined) {
      throw new Error(
        `no matches for ${resource.group}/${resource.version}, Resource=${resource.resource}`,
      );
    }
    return mapping;
  }

  #load(): Promise<MapperData> {
    if (this.#data === undefined) {
      const loading = serverPreferredResources(this.#discovery).then(({ resources, error }) => {
        if (resources.length === 0 && error !== undefined) throw error as Error;
        return buildMapperData(resources);
      });
      // A failed read is not cached: the next lookup tries again.
      loading.catch(() => {
        if (this.#data === loading) this.#data = undefined;
      });
      this.#data = loading;
    }
    return this.#data;
  }
}

function kindKey(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

function buildMapperData(lists: readonly APIResourceList[]): MapperData {
  const data: MapperData = { byKind: new Map(), byResource: new Map() };
  for (const list of lists) {
    let gv;
    try {
      gv = parseGroupVersion(list.groupVersion);
    } catch {
      continue;
    }
    for (const r of list.resources) {
      if (r.name.includes('/')) continue;
      const mapping: RESTMapping = {
        resource: { group: gv.group, version: gv.version, resource: r.name },
        groupVersionKind: { group: gv.group, version: gv.version, kind: r.kind },
        namespaced: r.namespaced,
        singular: r.singularName || r.kind.toLowerCase(),
      };
      data.byResource.set(groupVersionResourceKey(mapping.resource), mapping);
      // The first resource of a kind wins, as in restmapper's priority order.
      const key = kindKey(mapping.groupVersionKind);
      if (!data.byKind.has(key)) data.byKind.set(key, mapping);
    }
  }
  return data;
}
