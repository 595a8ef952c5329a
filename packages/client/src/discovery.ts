// What a server serves, read the way client-go's discovery client reads it
// (discovery/discovery_client.go: ServerGroups, ServerResourcesForGroupVersion,
// ServerPreferredResources, ErrGroupDiscoveryFailed) from the legacy
// endpoints every API server has: /api, /api/v1, /apis and /apis/{g}/{v};
// plus the /healthz probe of controller-manager/app/helper.go
// (WaitForAPIServer). Its GETs are retried as the resource clients' are
// (with-retry.ts), since client-go's discovery client is a REST client too.
import type { APIGroupList, APIResourceList, APIVersions } from 'kubernetes-types/meta/v1.js';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  GroupDiscoveryFailedError,
  realClock,
  type Clock,
  type ResourceDiscovery,
} from '@kcm-ts/apimachinery';
import { errorFromResponse } from './errors.js';
import { loadKubeConfig, type KubeConfigSource } from './kubeconfig.js';
import { readBody, transportFor, type Exchange } from './transport.js';
import { defaultMaxRetries, retryBrokenGets, sendWithRetry } from './with-retry.js';

/**
 * Reads what an API server serves: the part of Go's `DiscoveryInterface`
 * controllers use.
 *
 * @category Discovery
 */
export interface DiscoveryClient extends ResourceDiscovery {
  /**
   * Every group's resources at its preferred version, without subresources:
   * Go's `ServerPreferredResources`. Rejects with a
   * {@link GroupDiscoveryFailedError} carrying the rest when some group
   * versions fail.
   */
  serverPreferredResources(signal?: AbortSignal): Promise<APIResourceList[]>;
  /** The resources of one group version (`v1`, `apps/v1`), subresources included. */
  serverResourcesForGroupVersion(
    groupVersion: string,
    signal?: AbortSignal,
  ): Promise<APIResourceList>;
  /** Resolves when `/healthz` answers 200 `ok`; rejects with what it answered otherwise. */
  healthz(signal?: AbortSignal): Promise<void>;
}

/**
 * A discovery client for the cluster of a kubeconfig (a path, a kubeconfig
 * object, or client-node's `KubeConfig`), sharing connections with the
 * resource clients made from the same `KubeConfig`. Its GETs are retried as
 * the resource clients' are: `opts.maxRetries` (default 10) times on a 429 or
 * a 5xx with `Retry-After`, waiting on `opts.clock`.
 *
 * @example
 * ```ts
 * const discovery = newDiscoveryClient(client.kubeconfig);
 * const lists = await discovery.serverPreferredResources();
 * ```
 *
 * @category Discovery
 */
export function newDiscoveryClient(
  source: KubeConfigSource,
  opts: { maxRetries?: number; clock?: Clock } = {},
): DiscoveryClient {
  const kc: KubeConfig = loadKubeConfig(source);
  const transport = transportFor(kc);
  const get = (path: string, signal: AbortSignal | undefined): Promise<Exchange> =>
    sendWithRetry(() => transport.send({ method: 'GET', path, signal }), {
      method: 'GET',
      maxRetries: opts.maxRetries ?? defaultMaxRetries,
      clock: opts.clock ?? realClock,
      signal,
      isErrorRetryable: retryBrokenGets,
    });

  async function getJson<T>(path: string, signal: AbortSignal | undefined): Promise<T> {
    const exchange = await get(path, signal);
    const body = await readBody(exchange, signal);
    const code = exchange.res.statusCode ?? 0;
    if (code < 200 || code > 299) {
      throw errorFromResponse({
        code,
        verb: 'GET',
        contentType: exchange.res.headers['content-type'],
        retryAfter: undefined,
        body,
        resource: undefined,
        name: '',
      });
    }
    return JSON.parse(body.toString('utf8')) as T;
  }

  const resourcesFor = async (gv: string, signal?: AbortSignal): Promise<APIResourceList> => {
    const list = await getJson<APIResourceList>(
      gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`,
      signal,
    );
    return { ...list, groupVersion: list.groupVersion || gv, resources: list.resources ?? [] };
  };

  return {
    serverResourcesForGroupVersion: resourcesFor,

    async serverPreferredResources(signal) {
      const core = await getJson<APIVersions>('/api', signal);
      const groups = await getJson<APIGroupList>('/apis', signal);
      const preferred = [
        ...(core.versions.includes('v1') ? ['v1'] : core.versions.slice(0, 1)),
        ...groups.groups
          .map((g) => g.preferredVersion?.groupVersion ?? g.versions[0]?.groupVersion ?? '')
          .filter(Boolean),
      ];
      const failed = new Map<string, unknown>();
      const lists: APIResourceList[] = [];
      const results = await Promise.allSettled(preferred.map((gv) => resourcesFor(gv, signal)));
      results.forEach((r, i) => {
        const gv = preferred[i]!;
        if (r.status === 'rejected') failed.set(gv, r.reason);
        else {
          const resources = r.value.resources.filter((res) => !res.name.includes('/'));
          if (resources.length > 0) lists.push({ ...r.value, resources });
        }
      });
      if (failed.size > 0) throw new GroupDiscoveryFailedError(failed, lists);
      return lists;
    },

    async healthz(signal) {
      const exchange = await get('/healthz', signal);
      const body = (await readBody(exchange, signal)).toString('utf8');
      if (exchange.res.statusCode !== 200) {
        throw new Error(`APIServer isn't healthy: ${body}`);
      }
    },
  };
}
