// The library's shared helpers: staging/src/k8s.io/endpointslice/util/
// controller_utils.go (semanticIgnoreResourceVersion, NewPortMapKey,
// ShouldPodBeInEndpoints, ShouldSetHostname, podEndpointsChanged,
// GetPodServiceMemberships, GetServicesToUpdateOnPodChange,
// determineNeededServiceUpdates, hostNameAndDomainAreEqual, portsInOrder,
// EndpointsEqualBeyondHash, boolPtrChanged, stringPtrChanged) and
// util/endpointset.go (hashEndpoint, EndpointSet).
//
// Go hashes ports and endpoints with FNV over a dump of the object; here the
// keys are canonical JSON strings, which group the same things and are never
// written anywhere.
import type { Endpoint, EndpointPort } from 'kubernetes-types/discovery/v1.js';
import type { ObjectReference, Pod, Service } from 'kubernetes-types/core/v1.js';
import {
  isDeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  selectorFromSet,
  type DeletedFinalStateUnknown,
} from '@kcm-ts/apimachinery';
import type { Lister } from '@kcm-ts/informer';
import { isPodReady, isPodTerminal } from '@kcm-ts/controller';

/**
 * The key that groups endpoints by the ports they serve on: the ports in a
 * canonical order. Go's `PortMapKey` (from `NewPortMapKey`).
 *
 * @internal
 */
export type PortMapKey = string;

const portKey = (p: EndpointPort): string =>
  JSON.stringify([p.name ?? '', p.port ?? null, p.protocol ?? '', p.appProtocol ?? null]);

/**
 * The key of a set of endpoint ports, whatever their order. Go's
 * `NewPortMapKey`.
 *
 * @internal
 */
export function newPortMapKey(endpointPorts: readonly EndpointPort[] | undefined): PortMapKey {
  return JSON.stringify((endpointPorts ?? []).map(portKey).sort());
}

/**
 * The identity of an endpoint: its addresses, hostname and target pod;
 * conditions and topology are left out so that they change in place. Go's
 * `hashEndpoint`.
 *
 * @internal
 */
export function hashEndpoint(endpoint: Endpoint): string {
  return JSON.stringify([
    [...(endpoint.addresses ?? [])].sort(),
    endpoint.hostname ?? '',
    endpoint.targetRef?.namespace ?? '',
    endpoint.targetRef?.name ?? '',
  ]);
}

/**
 * A set of endpoints keyed by {@link hashEndpoint}. Go's `EndpointSet`.
 *
 * @internal
 */
export class EndpointSet {
  readonly #items = new Map<string, Endpoint>();

  /** Adds the endpoints, replacing ones of the same identity. */
  insert(...items: Endpoint[]): this {
    for (const item of items) this.#items.set(hashEndpoint(item), item);
    return this;
  }
  /** Removes the endpoints of these identities. */
  delete(...items: Endpoint[]): this {
    for (const item of items) this.#items.delete(hashEndpoint(item));
    return this;
  }
  /** Whether an endpoint of this identity is in the set. */
  has(item: Endpoint): boolean {
    return this.#items.has(hashEndpoint(item));
  }
  /** The endpoint of this identity in the set, if any. */
  get(item: Endpoint): Endpoint | undefined {
    return this.#items.get(hashEndpoint(item));
  }
  /** The endpoints, in no promised order. */
  unsortedList(): Endpoint[] {
    return [...this.#items.values()];
  }
  /** Takes one endpoint out of the set. */
  popAny(): Endpoint | undefined {
    for (const [key, endpoint] of this.#items) {
      this.#items.delete(key);
      return endpoint;
    }
    return undefined;
  }
  /** The number of endpoints. */
  len(): number {
    return this.#items.size;
  }
}

/**
 * Whether the pod belongs in a Service's endpoints: not terminal, with an
 * IP, and (unless `includeTerminating`) not being deleted. Go's
 * `ShouldPodBeInEndpoints`.
 *
 * @category Pods
 */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (isPodTerminal(pod)) return false;
  if ((pod.status?.podIP ?? '') === '' && (pod.status?.podIPs ?? []).length === 0) return false;
  if (!includeTerminating && pod.metadata?.deletionTimestamp != null) return false;
  return true;
}

/**
 * Whether an endpoint carries the pod's hostname: the pod has one and its
 * subdomain is the Service, in the same namespace. Go's `ShouldSetHostname`.
 *
 * @category Pods
 */
export function shouldSetHostname(pod: Pod, svc: Service): boolean {
  return (
    (pod.spec?.hostname ?? '').length > 0 &&
    (pod.spec?.subdomain ?? '') === (svc.metadata?.name ?? '') &&
    (svc.metadata?.namespace ?? '') === (pod.metadata?.namespace ?? '')
  );
}

function sameStringMap(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  // Go's reflect.DeepEqual tells a nil map from an empty one.
  if (a === undefined || b === undefined) return a === b;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

/**
 * Whether a pod update may change its endpoints (deletion started,
 * readiness, IPs), and whether it may change which Services select it
 * (labels, hostname, subdomain). Go's `podEndpointsChanged`.
 *
 * @category Pods
 */
export function podEndpointsChanged(
  oldPod: Pod,
  newPod: Pod,
): [podChanged: boolean, labelsChanged: boolean] {
  const labelsChanged =
    !sameStringMap(newPod.metadata?.labels, oldPod.metadata?.labels) ||
    (newPod.spec?.hostname ?? '') !== (oldPod.spec?.hostname ?? '') ||
    (newPod.spec?.subdomain ?? '') !== (oldPod.spec?.subdomain ?? '');
  if (newPod.metadata?.deletionTimestamp !== oldPod.metadata?.deletionTimestamp) {
    return [true, labelsChanged];
  }
  if (isPodReady(oldPod) !== isPodReady(newPod)) return [true, labelsChanged];
  const oldIPs = oldPod.status?.podIPs ?? [];
  const newIPs = newPod.status?.podIPs ?? [];
  if (oldIPs.length !== newIPs.length) return [true, labelsChanged];
  for (let i = 0; i < oldIPs.length; i++) {
    if (oldIPs[i]!.ip !== newIPs[i]!.ip) return [true, labelsChanged];
  }
  return [false, labelsChanged];
}

/**
 * The keys of the Services in the pod's namespace whose selector matches
 * it (a Service without a selector matches nothing). Go's
 * `GetPodServiceMemberships`.
 *
 * @category Pods
 */
export function getPodServiceMemberships(serviceLister: Lister<Service>, pod: Pod): Set<string> {
  const set = new Set<string>();
  const labels = pod.metadata?.labels ?? {};
  for (const service of serviceLister.byNamespace(pod.metadata?.namespace ?? '').list()) {
    const selector = service.spec?.selector;
    if (selector == null) continue;
    if (selectorFromSet(selector).matches(labels)) set.add(metaNamespaceKeyFunc(service));
  }
  return set;
}

/**
 * The Services to sync after a pod update: none for a resync or an update
 * that changes nothing the endpoints show; those that select the pod when
 * only its endpoint changed; when its labels changed, the Services that
 * started or stopped selecting it (and every one on either side if its
 * endpoint changed too). Go's `GetServicesToUpdateOnPodChange`.
 *
 * @category Pods
 */
export function getServicesToUpdateOnPodChange(
  serviceLister: Lister<Service>,
  oldPod: Pod,
  newPod: Pod,
): Set<string> {
  if (newPod.metadata?.resourceVersion === oldPod.metadata?.resourceVersion) return new Set();
  const [podChanged, labelsChanged] = podEndpointsChanged(oldPod, newPod);
  if (!podChanged && !labelsChanged) return new Set();
  let services = getPodServiceMemberships(serviceLister, newPod);
  if (labelsChanged) {
    const oldServices = getPodServiceMemberships(serviceLister, oldPod);
    services = determineNeededServiceUpdates(oldServices, services, podChanged);
  }
  return services;
}

/**
 * All Services on either side when the pod changed, else those on one side
 * only. Go's `determineNeededServiceUpdates`.
 *
 * @internal
 */
export function determineNeededServiceUpdates(
  oldServices: ReadonlySet<string>,
  services: ReadonlySet<string>,
  podChanged: boolean,
): Set<string> {
  if (podChanged) return new Set([...services, ...oldServices]);
  const result = new Set<string>();
  for (const s of services) if (!oldServices.has(s)) result.add(s);
  for (const s of oldServices) if (!services.has(s)) result.add(s);
  return result;
}

/**
 * The pod of a delete notification, tombstone or not; undefined for a
 * tombstone that lost it. Go's `GetPodFromDeleteAction`.
 *
 * @internal
 */
export function getPodFromDeleteAction(obj: Pod | DeletedFinalStateUnknown<Pod>): Pod | undefined {
  return isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
}

const refChanged = (a: ObjectReference | undefined, b: ObjectReference | undefined): boolean => {
  if (a === undefined || b === undefined) return a !== b;
  return (
    (a.kind ?? '') !== (b.kind ?? '') ||
    (a.namespace ?? '') !== (b.namespace ?? '') ||
    (a.name ?? '') !== (b.name ?? '') ||
    (a.uid ?? '') !== (b.uid ?? '') ||
    (a.apiVersion ?? '') !== (b.apiVersion ?? '') ||
    (a.fieldPath ?? '') !== (b.fieldPath ?? '')
  );
};

/**
 * Whether two endpoints of the same identity also agree on what the
 * identity leaves out: node name, zone, the three conditions (unset differs
 * from false) and the target reference but for its resourceVersion. Go's
 * `EndpointsEqualBeyondHash`.
 *
 * @category Reconciler
 */
export function endpointsEqualBeyondHash(ep1: Endpoint, ep2: Endpoint): boolean {
  if (ep1.nodeName !== ep2.nodeName) return false;
  if (ep1.zone !== ep2.zone) return false;
  const c1 = ep1.conditions ?? {};
  const c2 = ep2.conditions ?? {};
  if (c1.ready !== c2.ready || c1.serving !== c2.serving || c1.terminating !== c2.terminating) {
    return false;
  }
  return !refChanged(ep1.targetRef, ep2.targetRef);
}
