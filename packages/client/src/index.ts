/**
 * The bridge from kcm-ts to a real Kubernetes cluster: loads a kubeconfig
 * through `@kubernetes/client-node` (its credentials and TLS handling) and gives
 * resource clients for any group, version and resource that implement the
 * `ResourceClient` and `ListerWatcher` interfaces of `@kcm-ts/apimachinery`,
 * keeping objects as wire-format JSON, streaming watches, and rejecting with
 * `StatusError`s. The same controller code then runs against the sandbox or a
 * real cluster.
 *
 * @packageDocumentation
 */

// Kubeconfig
export { contextNamespace, loadKubeConfig } from './kubeconfig.js';
export type {
  KubeConfigCluster,
  KubeConfigContext,
  KubeConfigObject,
  KubeConfigSource,
  KubeConfigUser,
  LoadKubeConfigOptions,
} from './kubeconfig.js';

// Resource clients
export { newResourceClient } from './resource-client.js';
export type { ResourceClientOptions } from './resource-client.js';
export type { DecodeHints } from './drop-managed-fields.js';
export type { PartialObjectMetadata } from './metadata.js';
export { createClient } from './client.js';
export type { Client, CreateClientOptions } from './client.js';
export { defaultMaxRetries } from './with-retry.js';

// Discovery
export { newDiscoveryClient } from './discovery.js';
export type { DiscoveryClient } from './discovery.js';
