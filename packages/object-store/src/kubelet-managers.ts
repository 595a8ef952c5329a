// The kubelet's Secret and ConfigMap managers and its three strategies:
// pkg/kubelet/secret/secret_manager.go, pkg/kubelet/configmap/configmap_manager.go
// (NewSimpleSecretManager, NewCachingSecretManager, NewWatchingSecretManager
// and their ConfigMap twins), chosen in pkg/kubelet/kubelet.go by
// ConfigMapAndSecretChangeDetectionStrategy.
import {
  realClock,
  type Clock,
  type GroupResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import { CacheBasedManager, type GetReferencedObjects } from './cache-based-manager.js';
import { ObjectStore, type GetObjectTTLFunc } from './object-store.js';
import { getConfigMapNames, getSecretNames } from './pod-references.js';
import { newWatchBasedManager, type StoppableManager } from './watch-based-manager.js';

/**
 * How the kubelet learns that a Secret or ConfigMap changed, as its config
 * field `configMapAndSecretChangeDetectionStrategy` says:
 *
 * - `Get`: ask the API server on every read;
 * - `Cache`: keep each object for a TTL ({@link ObjectStore});
 * - `Watch` (the default): watch each referenced object ({@link ObjectCache}).
 *
 * @category Kubelet managers
 */
export type ChangeDetectionStrategy = 'Get' | 'Cache' | 'Watch';

/**
 * How long the `Cache` strategy keeps an object when the node does not say
 * otherwise: one minute, Go's `defaultTTL`.
 *
 * @category Kubelet managers
 */
export const defaultObjectTTL = 60_000;

/**
 * The kubelet's default sync frequency, which sets the `Watch` strategy's
 * idle time (five intervals): one minute.
 *
 * @category Kubelet managers
 */
export const defaultResyncInterval = 60_000;

/**
 * Options for {@link newSecretManager} and {@link newConfigMapManager}.
 *
 * @category Kubelet managers
 */
export interface KubeletManagerOptions {
  /** The strategy; `Watch` by default, as the kubelet's. */
  strategy?: ChangeDetectionStrategy | undefined;
  /** `Cache` only: the TTL to use now, such as {@link getObjectTTLFromNodeFunc}. */
  getTTL?: GetObjectTTLFunc | undefined;
  /** `Watch` only: the kubelet's sync frequency, in milliseconds. */
  resyncInterval?: number | undefined;
  /** Stops the `Watch` strategy's watches and timers. Required for `Watch`. */
  signal?: AbortSignal | undefined;
  /** The clock; defaults to the real clock. */
  clock?: Clock | undefined;
}

interface Kind<T> {
  groupResource: GroupResource;
  getReferencedObjects: GetReferencedObjects;
  isImmutable: (obj: T) => boolean;
}

/** `Get`: every read goes to the API server, and registrations are not tracked. */
function simpleManager<T extends KubeObject>(client: ResourceClient<T>): StoppableManager<T> {
  return {
    getObject: (namespace, name) => client.inNamespace(namespace).get(name),
    registerPod: () => {},
    unregisterPod: () => {},
    stopped: () => Promise.resolve(),
  };
}

function newManager<T extends KubeObject>(
  client: ResourceClient<T>,
  kind: Kind<T>,
  opts: KubeletManagerOptions,
): StoppableManager<T> {
  const strategy = opts.strategy ?? 'Watch';
  const clock = opts.clock ?? realClock;
  switch (strategy) {
    case 'Get':
      return simpleManager(client);
    case 'Cache': {
      const store = new ObjectStore<T>({
        getObject: (namespace, name, getOpts) => client.inNamespace(namespace).get(name, getOpts),
        defaultTTL: defaultObjectTTL,
        getTTL: opts.getTTL,
        clock,
      });
      const manager = new CacheBasedManager(store, kind.getReferencedObjects);
      return Object.assign(manager, { stopped: () => Promise.resolve() });
    }
    case 'Watch': {
      if (opts.signal === undefined) {
        throw new TypeError('the Watch strategy needs a signal to stop its watches');
      }
      return newWatchBasedManager<T>({
        listObject: (namespace, listOpts) => client.inNamespace(namespace).list(listOpts),
        watchObject: (namespace, listOpts) => client.inNamespace(namespace).watch(listOpts),
        isImmutable: kind.isImmutable,
        groupResource: kind.groupResource,
        signal: opts.signal,
        clock,
        resyncInterval: opts.resyncInterval ?? defaultResyncInterval,
        getReferencedObjects: kind.getReferencedObjects,
      });
    }
    default:
      throw new TypeError(
        `unknown change detection strategy ${JSON.stringify(strategy)}: expected Get, Cache or Watch`,
      );
  }
}

/**
 * The kubelet's Secret manager: pods' Secrets through `client`, with the
 * chosen strategy.
 *
 * @example
 * ```ts
 * const secrets = newSecretManager(client.secrets, { signal });
 * secrets.registerPod(pod);
 * const secret = await secrets.getObject('default', 'db-password');
 * ```
 *
 * @category Kubelet managers
 */
export function newSecretManager(
  client: ResourceClient<Secret>,
  opts: KubeletManagerOptions = {},
): StoppableManager<Secret> {
  return newManager(
    client,
    {
      groupResource: { group: '', resource: 'secrets' },
      getReferencedObjects: getSecretNames,
      isImmutable: (s) => s.immutable === true,
    },
    opts,
  );
}

/**
 * The kubelet's ConfigMap manager: pods' ConfigMaps through `client`, with
 * the chosen strategy.
 *
 * @category Kubelet managers
 */
export function newConfigMapManager(
  client: ResourceClient<ConfigMap>,
  opts: KubeletManagerOptions = {},
): StoppableManager<ConfigMap> {
  return newManager(
    client,
    {
      groupResource: { group: '', resource: 'configmaps' },
      getReferencedObjects: getConfigMapNames,
      isImmutable: (c) => c.immutable === true,
    },
    opts,
  );
}
