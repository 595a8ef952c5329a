// What an API server serves, as controllers ask for it: the part of
// client-go's discovery.DiscoveryInterface they use
// (discovery/discovery_client.go: ServerPreferredResources,
// ErrGroupDiscoveryFailed, IsGroupDiscoveryFailedError). `@kcm-ts/client`
// answers it from a server's /api and /apis; a sandbox or a test from a list.
import type { APIResourceList } from 'kubernetes-types/meta/v1.js';

/**
 * The resources an API server offers, one `APIResourceList` per group
 * version: what the garbage collector and the namespace controller read.
 *
 * @category Discovery
 */
export interface ResourceDiscovery {
  /**
   * The resources of every group at its preferred version, without
   * subresources (no `deployments/status`): Go's `ServerPreferredResources`.
   * When some group versions cannot be read, it rejects with a
   * {@link GroupDiscoveryFailedError} that carries what could be read.
   */
  serverPreferredResources(signal?: AbortSignal): Promise<APIResourceList[]>;
}

const brand = Symbol.for('@kcm-ts/apimachinery/GroupDiscoveryFailedError');

/**
 * Discovery failed for some group versions but not all: Go's
 * `discovery.ErrGroupDiscoveryFailed`. Go returns the partial result beside
 * the error; here the error carries it in
 * {@link GroupDiscoveryFailedError.resources}. Test for it with
 * {@link isGroupDiscoveryFailedError}, which also recognises an instance
 * from another copy of this package.
 *
 * @category Discovery
 */
export class GroupDiscoveryFailedError extends Error {
  /** Always `'GroupDiscoveryFailedError'`. */
  override readonly name = 'GroupDiscoveryFailedError';
  /** Why each failing group version (such as `metrics.k8s.io/v1beta1`) failed. */
  readonly groups: ReadonlyMap<string, unknown>;
  /** The resource lists of the group versions that could be read. */
  readonly resources: readonly APIResourceList[];
  /** @internal */
  readonly [brand] = true;

  /**
   * @param groups - the failing group versions and their errors
   * @param resources - what was read from the others
   */
  constructor(groups: ReadonlyMap<string, unknown>, resources: readonly APIResourceList[] = []) {
    const parts = [...groups]
      .map(([gv, err]) => `${gv}: ${err instanceof Error ? err.message : String(err)}`)
      .sort();
    super(`unable to retrieve the complete list of server APIs: ${parts.join(', ')}`);
    this.groups = groups;
    this.resources = resources;
  }
}

/**
 * True when `err` is a {@link GroupDiscoveryFailedError}, from this copy of
 * the package or another (ESM and CJS builds side by side): Go's
 * `discovery.IsGroupDiscoveryFailedError`.
 *
 * @category Discovery
 */
export function isGroupDiscoveryFailedError(err: unknown): err is GroupDiscoveryFailedError {
  return typeof err === 'object' && err !== null && (err as { [brand]?: unknown })[brand] === true;
}

/**
 * The failing group versions if `err` is a {@link GroupDiscoveryFailedError}:
 * Go's `discovery.GroupDiscoveryFailedErrorGroups`.
 *
 * @category Discovery
 */
export function groupDiscoveryFailedErrorGroups(
  err: unknown,
): ReadonlyMap<string, unknown> | undefined {
  return isGroupDiscoveryFailedError(err) ? err.groups : undefined;
}
