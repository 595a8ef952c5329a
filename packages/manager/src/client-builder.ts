// Clients for the controllers: client-go's controller-manager clientbuilder
// (SimpleControllerClientBuilder: one client per controller, its user agent
// ending in the controller's name) over a rest config's rate limiter
// (rest/config.go QPS and Burst → flowcontrol.NewTokenBucketRateLimiter, one
// bucket per client) and the REST client metrics (rest/request.go, which
// observes every request).
import {
  isStatusError,
  realClock,
  type Clock,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { ResourceClientSource } from '@kcm-ts/informer';
import { BucketRateLimiter } from '@kcm-ts/workqueue';
import type { RestClientMetrics } from './metrics/prometheus.js';

/**
 * Where the manager's clients come from: anything that makes a resource
 * client for a group/version/resource, such as `@kcm-ts/client`'s `Client`
 * or a sandbox. A source that understands `userAgent` sends it.
 *
 * @category Clients
 */
export interface RestClientSource {
  /** An unscoped client for `gvr`. */
  resource<T extends KubeObject>(
    gvr: GroupVersionResource,
    opts: { namespaced: boolean; kind: string; userAgent?: string; metadataOnly?: boolean },
  ): ResourceClient<T>;
}

/**
 * Hands each controller its own client: Go's `ControllerClientBuilder`.
 *
 * @category Clients
 */
export interface ControllerClientBuilder {
  /**
   * The client of the controller called `name`; `qpsScale` and `burstScale`
   * multiply its rate limit (the garbage collector's QPS is doubled, the
   * namespace controller's QPS ×20 and burst ×100, as upstream).
   */
  client(name: string, opts?: ClientScale): ResourceClientSource;
  /**
   * The metadata-only client of the controller called `name` (client-go's
   * `metadata` client: objects come as PartialObjectMetadata), with its own
   * rate limit as {@link ControllerClientBuilder.client}'s.
   */
  metadataClient(name: string, opts?: ClientScale): ResourceClientSource;
}

/**
 * Multipliers of a client's rate limit.
 *
 * @category Clients
 */
export interface ClientScale {
  /** Multiplies `--kube-api-qps`. */
  qpsScale?: number;
  /** Multiplies `--kube-api-burst`. */
  burstScale?: number;
}

/**
 * Options for {@link newClientBuilder}.
 *
 * @category Clients
 */
export interface ClientBuilderOptions {
  /** `--kube-api-qps`: requests per second per client; `Infinity` or ≤ 0 turns limiting off. */
  qps: number;
  /** `--kube-api-burst`. */
  burst: number;
  /** The user agent before `/<controller name>`, such as `kube-controller-manager/v0.1.0 (linux/x64) kcm-ts`. */
  userAgent: string;
  /** Observes every request, when set. */
  metrics?: RestClientMetrics;
  /** The API server's host, for the metrics' `host` label. */
  host?: string;
  /** The clock the rate limiter waits on. */
  clock?: Clock;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A client whose every request waits for a token and is observed. */
function limitedClient<T extends KubeObject>(
  inner: ResourceClient<T>,
  limiter: BucketRateLimiter<string> | undefined,
  clock: Clock,
  metrics: RestClientMetrics | undefined,
  host: string,
): ResourceClient<T> {
  async function call<R>(
    method: Method,
    signal: AbortSignal | undefined,
    fn: () => Promise<R>,
  ): Promise<R> {
    //#region token-bucket
    if (limiter) {
      const wait = limiter.when('');
      if (wait > 0) await clock.sleep(wait, signal);
      if (signal?.aborted) throw signal.reason;
    }
    //#endregion token-bucket
    if (!metrics) return fn();
    const start = clock.now();
    try {
      const out = await fn();
      metrics.observe(
        method,
        host,
        method === 'POST' ? '201' : '200',
        (clock.now() - start) / 1000,
      );
      return out;
    } catch (err) {
      const code = isStatusError(err) && err.code ? String(err.code) : '<error>';
      metrics.observe(method, host, code, (clock.now() - start) / 1000);
      throw err;
    }
  }
  const wrap = (c: ResourceClient<T>): ResourceClient<T> => ({
    get namespace() {
      return c.namespace;
    },
    inNamespace: (ns) => wrap(c.inNamespace(ns)),
    list: (o) => call('GET', o?.signal, () => c.list(o)),
    watch: (o) => call('GET', o?.signal, () => c.watch(o)),
    get: (name, o) => call('GET', o?.signal, () => c.get(name, o)),
    create: (obj, o) => call('POST', o?.signal, () => c.create(obj, o)),
    update: (obj, o) => call('PUT', o?.signal, () => c.update(obj, o)),
    updateStatus: (obj, o) => call('PUT', o?.signal, () => c.updateStatus(obj, o)),
    patch: (name, p, o) => call('PATCH', o?.signal, () => c.patch(name, p, o)),
    patchStatus: (name, p, o) => call('PATCH', o?.signal, () => c.patchStatus(name, p, o)),
    delete: (name, o) => call('DELETE', o?.signal, () => c.delete(name, o)),
    deleteCollection: (o, lo) => call('DELETE', o?.signal, () => c.deleteCollection(o, lo)),
  });
  return wrap(inner);
}

/**
 * Makes a client builder over `source`: each controller's client has its own
 * token bucket of `qps`/`burst`, as each Go clientset gets its own rate
 * limiter, and the user agent `<userAgent>/<controller name>`.
 *
 * @category Clients
 */
export function newClientBuilder(
  source: RestClientSource,
  opts: ClientBuilderOptions,
): ControllerClientBuilder {
  const clock = opts.clock ?? realClock;
  //#region client-per-controller
  const make = (
    name: string,
    scale: ClientScale | undefined,
    metadataOnly: boolean,
  ): ResourceClientSource => {
    const qps = opts.qps * (scale?.qpsScale ?? 1);
    const burst = Math.max(1, Math.floor(opts.burst * (scale?.burstScale ?? 1)));
    const limiter =
      qps > 0 && Number.isFinite(qps)
        ? new BucketRateLimiter<string>({ qps, burst, clock })
        : undefined;
    const userAgent = `${opts.userAgent}/${name}`;
    return {
      resource<T extends KubeObject>(
        gvr: GroupVersionResource,
        ro: { namespaced: boolean; kind: string },
      ): ResourceClient<T> {
        return limitedClient(
          source.resource<T>(gvr, { ...ro, userAgent, ...(metadataOnly ? { metadataOnly } : {}) }),
          limiter,
          clock,
          opts.metrics,
          opts.host ?? '',
        );
      },
    };
  };
  //#endregion client-per-controller
  return {
    client: (name, scale) => make(name, scale, false),
    metadataClient: (name, scale) => make(name, scale, true),
  };
}
