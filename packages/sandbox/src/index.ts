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
export { FaultLab } from './lab/faults.js';
export type { FailureKind, FaultFilter, RequestCounts } from './lab/faults.js';
export { startSandbox } from './sandbox.js';
export { stopWhenLauncherExits } from './edge/launcher-watch.js';
export { podAnnotations } from './node/kubelet.js';
export type { Sandbox, SandboxClientOptions, SandboxOptions } from './sandbox.js';
export { Registry } from './apiserver/registry/store.js';
export type { RegistryOptions, WriteResult } from './apiserver/registry/store.js';
export { Watch } from './apiserver/storage/watch.js';
export type { WatchFilter, WatchStart } from './apiserver/storage/watch.js';
export { inProcessClient, inProcessMetadataClient } from './client/in-process-client.js';
export type { InProcessClientOptions } from './client/in-process-client.js';
export { resources, findResource, apiVersionOf } from './apiserver/resources.js';
export type { ResourceInfo, Subresource, Verb } from './apiserver/resources.js';
export {
  apiHandler,
  defaultWatchBufferBytes,
  maxRequestBodyBytes,
  serverVersion,
} from './apiserver/server.js';
export type { ApiHandlerOptions, ServerVersion } from './apiserver/server.js';
export type { InFlightLimits } from './apiserver/inflight.js';
export type { PartialObjectMetadata, PartialObjectMetadataList } from './apiserver/response.js';
export { kubeconfigObject, kubeconfigYaml, writeKubeconfig } from './edge/kubeconfig.js';
export type { KubeconfigParams } from './edge/kubeconfig.js';
export { makeCertificates } from './edge/tls.js';
export type { SandboxCertificates } from './edge/tls.js';
export { Storage } from './apiserver/storage/storage.js';
export type { StorageOptions, StoredEvent } from './apiserver/storage/storage.js';
