/**
 * The kubelet's object managers (`pkg/kubelet/util/manager`) in TypeScript:
 * how a node keeps the Secrets and ConfigMaps its pods reference without
 * asking the API server on every read. Reference-counted stores with a TTL
 * strategy, a watch strategy and a direct one. Chapter 3 of the course walks
 * through them.
 *
 * @packageDocumentation
 */
export { NotRegisteredError } from './manager.js';
export type { GetObjectFunc, Manager, Store } from './manager.js';
export {
  getConfigMapNames,
  getSecretNames,
  visitPodConfigMapNames,
  visitPodSecretNames,
} from './pod-references.js';
export type { NameVisitor } from './pod-references.js';
export { ObjectStore, getObjectTTLFromNodeFunc, objectTTLAnnotationKey } from './object-store.js';
export type { GetObjectTTLFunc, ObjectStoreOptions } from './object-store.js';
export { CacheBasedManager } from './cache-based-manager.js';
export type { GetReferencedObjects } from './cache-based-manager.js';
export { ObjectCache, minIdleTime, newWatchBasedManager } from './watch-based-manager.js';
export type {
  ObjectCacheOptions,
  StoppableManager,
  WatchBasedManagerOptions,
} from './watch-based-manager.js';
export {
  defaultObjectTTL,
  defaultResyncInterval,
  newConfigMapManager,
  newSecretManager,
} from './kubelet-managers.js';
export type { ChangeDetectionStrategy, KubeletManagerOptions } from './kubelet-managers.js';
