/**
 * An in-process Kubernetes API server: the sandbox every chapter, test and
 * benchmark of kcm-ts runs against, and that `kubectl` and
 * `@kubernetes/client-node` use like a real cluster. It keeps one global
 * resourceVersion, serves list and watch with selectors, pagination,
 * bookmarks and 410 Expired, takes optimistic writes and all four patch
 * types, and deletes with finalizers and grace periods, answering errors with
 * kube-apiserver's Status bodies.
 *
 * @packageDocumentation
 */
export { FaultLab } from './faults.js';
export type { FailureKind, FaultFilter, RequestCounts } from './faults.js';
export { startSandbox } from './sandbox.js';
export { stopWhenLauncherExits } from './launcher-watch.js';
export { podAnnotations } from './kubelet.js';
export type { Sandbox, SandboxOptions } from './sandbox.js';
export { Registry } from './registry.js';
export type { RegistryOptions, WriteResult } from './registry.js';
export { Watch } from './watch.js';
export type { WatchFilter, WatchStart } from './watch.js';
export { inProcessClient, inProcessMetadataClient } from './in-process-client.js';
export { resources, findResource, apiVersionOf } from './resources.js';
export type { ResourceInfo, Subresource, Verb } from './resources.js';
export {
  apiHandler,
  defaultWatchBufferBytes,
  maxRequestBodyBytes,
  serverVersion,
} from './server.js';
export type { ApiHandlerOptions, ServerVersion } from './server.js';
export type { InFlightLimits } from './inflight.js';
export type { PartialObjectMetadata, PartialObjectMetadataList } from './response.js';
export { kubeconfigObject, kubeconfigYaml, writeKubeconfig } from './kubeconfig.js';
export type { KubeconfigParams } from './kubeconfig.js';
export { makeCertificates } from './tls.js';
export type { SandboxCertificates } from './tls.js';
export { Storage } from './storage.js';
export type { StorageOptions, StoredEvent } from './storage.js';
