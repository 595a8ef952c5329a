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
export { startSandbox } from './sandbox.js';
export type { Sandbox, SandboxClientOptions, SandboxOptions } from './sandbox.js';
export { stopWhenLauncherExits } from './edge/launcher-watch.js';
export { makeCertificates, selfSignedNames } from './edge/tls.js';
export type { CertificateNames, SandboxCertificates } from './edge/tls.js';
export { FaultLab } from './lab/faults.js';
export type { FailureKind, FaultFilter, RequestCounts } from './lab/faults.js';
export { inProcessClient, inProcessMetadataClient } from './client/in-process-client.js';
export type { InProcessClientOptions } from './client/in-process-client.js';
export type { PartialObjectMetadata } from './apiserver/response.js';
export { resources, findResource } from './apiserver/resources.js';
export type { ResourceInfo, Subresource, Verb } from './apiserver/resources.js';
export { podAnnotations } from './node/kubelet.js';
// Types only: `Sandbox.registry` hands these out, and nothing outside constructs them.
export type { Registry, RegistryOptions, WriteResult } from './apiserver/registry/store.js';
export type { UserInfo } from './apiserver/authn.js';
export type { CompiledSelectors } from './apiserver/registry/compiled-selector.js';
export type { RegistryDeleteOptions } from './apiserver/registry/rest/delete.js';
export type { Storage, StorageOptions, StoredEvent } from './apiserver/storage/storage.js';
export type { Watch, WatchFilter, WatchStart } from './apiserver/storage/watch.js';
