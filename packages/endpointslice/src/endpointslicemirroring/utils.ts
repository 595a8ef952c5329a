// The mirroring controller's helpers: pkg/controller/endpointslicemirroring/
// utils.go (addrTypePortMapKey, newAddrTypePortMapKey, addressType,
// newEndpointSlice, addressToEndpoint, epPortsToEpsPorts,
// endpointsControllerKey, skipMirror, hasLeaderElection, cloneAndRemoveKeys,
// managedByChanged, managedByController) and the names it uses (k8s.io/api
// discovery/v1 LabelSkipMirror, core/v1 LastAppliedConfigAnnotation).
import type { Endpoint, EndpointPort, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type {
  EndpointAddress,
  EndpointPort as CoreEndpointPort,
  Endpoints,
} from 'kubernetes-types/core/v1.js';
import { newControllerRef, type GroupVersionKind } from '@kcm-ts/apimachinery';
import { leaderElectionRecordAnnotationKey } from '../endpoint/endpoints-controller.js';
import { ipToString, parseIPSloppy, to4 } from '../net.js';
import { newPortMapKey } from '../reconciler-util.js';
import {
  endpointsLastChangeTriggerTime,
  getEndpointSlicePrefix,
  labelManagedBy,
  labelServiceName,
  type AddressType,
} from '../utils.js';

/**
 * The value of the `endpointslice.kubernetes.io/managed-by` label on the
 * slices the mirroring controller manages
 * (`endpointslicemirroring-controller.k8s.io`). Go's `controllerName`
 * constant of the package.
 *
 * @category Names
 */
export const mirroringControllerQualifiedName = 'endpointslicemirroring-controller.k8s.io';

/**
 * The label that keeps an Endpoints object from being mirrored when set to
 * `"true"` (`endpointslice.kubernetes.io/skip-mirror`). Go's
 * `discovery.LabelSkipMirror`.
 *
 * @category Names
 */
export const labelSkipMirror = 'endpointslice.kubernetes.io/skip-mirror';

/**
 * The annotation `kubectl apply` keeps its last configuration in
 * (`kubectl.kubernetes.io/last-applied-configuration`); not mirrored. Go's
 * `v1.LastAppliedConfigAnnotation`.
 *
 * @category Names
 */
export const lastAppliedConfigAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

const endpointsKind: GroupVersionKind = Object.freeze({
  group: '',
  version: 'v1',
  kind: 'Endpoints',
});

/**
 * The key that groups mirrored endpoints by address type and ports:
 * `<addressType>-<port map key>`. Go's `addrTypePortMapKey`.
 *
 * @internal
 */
export type AddrTypePortMapKey = string;

/**
 * The key of a set of ports for one address type. Go's
 * `newAddrTypePortMapKey`.
 *
 * @internal
 */
export function newAddrTypePortMapKey(
  endpointPorts: readonly EndpointPort[] | undefined,
  addrType: AddressType,
): AddrTypePortMapKey {
  return `${addrType}-${newPortMapKey(endpointPorts)}`;
}

/**
 * The address type a key was made for. Go's `addrTypePortMapKey.addressType`.
 *
 * @internal
 */
export function addressTypeOfKey(key: AddrTypePortMapKey): AddressType {
  return key.startsWith('IPv6') ? 'IPv6' : 'IPv4';
}

/**
 * A new EndpointSlice mirroring an Endpoints object for one set of ports
 * and address type: owned by the Endpoints object, with its labels (the
 * service name and managing controller set over them) and its annotations
 * but the trigger time and kubectl's last applied configuration; named
 * `sliceName`, or generated from `<name>-` when it is empty. Go's
 * `newEndpointSlice` of the mirroring controller.
 *
 * @category EndpointSlice mirroring
 */
export function newMirroredEndpointSlice(
  endpoints: Endpoints,
  ports: EndpointPort[],
  addrType: AddressType,
  sliceName: string,
): EndpointSlice {
  const labels: Record<string, string> = { ...endpoints.metadata?.labels };
  labels[labelServiceName] = endpoints.metadata?.name ?? '';
  labels[labelManagedBy] = mirroringControllerQualifiedName;
  const annotations: Record<string, string> = {};
  for (const [key, value] of Object.entries(endpoints.metadata?.annotations ?? {})) {
    if (key === endpointsLastChangeTriggerTime || key === lastAppliedConfigAnnotation) continue;
    annotations[key] = value;
  }
  const slice: EndpointSlice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      labels,
      annotations,
      ownerReferences: [newControllerRef(endpoints, endpointsKind)],
      namespace: endpoints.metadata?.namespace ?? '',
    },
    ports,
    addressType: addrType,
    endpoints: [],
  };
  if (sliceName === '')
    slice.metadata!.generateName = getEndpointSlicePrefix(endpoints.metadata?.name ?? '');
  else slice.metadata!.name = sliceName;
  return slice;
}

/**
 * The endpoint an Endpoints address becomes, with its address type: the IP
 * re-stringified in canonical form, `ready` as given, the target reference,
 * node name and hostname carried over; undefined when the IP is not an
 * IP. Go's `addressToEndpoint`.
 *
 * @category EndpointSlice mirroring
 */
export function addressToEndpoint(
  address: EndpointAddress,
  ready: boolean,
): [endpoint: Endpoint, addressType: AddressType] | undefined {
  const ip = parseIPSloppy(address.ip ?? '');
  if (ip === undefined) return undefined;
  const addressType: AddressType = to4(ip) === undefined ? 'IPv6' : 'IPv4';
  const endpoint: Endpoint = { addresses: [ipToString(ip)], conditions: { ready } };
  if (address.targetRef !== undefined) endpoint.targetRef = structuredClone(address.targetRef);
  if (address.nodeName != null) endpoint.nodeName = address.nodeName;
  if ((address.hostname ?? '') !== '') endpoint.hostname = address.hostname;
  return [endpoint, addressType];
}

/**
 * The EndpointSlice ports of an Endpoints subset's ports: name, port and
 * protocol always set, the app protocol when there is one. Go's
 * `epPortsToEpsPorts`.
 *
 * @category EndpointSlice mirroring
 */
export function epPortsToEpsPorts(
  epPorts: readonly CoreEndpointPort[] | undefined,
): EndpointPort[] {
  return (epPorts ?? []).map((p) => {
    const port: EndpointPort = { name: p.name ?? '', port: p.port, protocol: p.protocol ?? '' };
    if (p.appProtocol !== undefined) port.appProtocol = p.appProtocol;
    return port;
  });
}

/**
 * The queue key (`namespace/name`) of the Endpoints object a mirrored slice
 * belongs to, from its `kubernetes.io/service-name` label. Go's
 * `endpointsControllerKey`.
 *
 * @throws Error if the slice lacks the label
 * @category EndpointSlice mirroring
 */
export function endpointsControllerKey(endpointSlice: EndpointSlice): string {
  const serviceName = endpointSlice.metadata?.labels?.[labelServiceName] ?? '';
  if (serviceName === '') throw new Error(`EndpointSlice missing ${labelServiceName} label`);
  return `${endpointSlice.metadata?.namespace ?? ''}/${serviceName}`;
}

/**
 * Whether the labels carry `endpointslice.kubernetes.io/skip-mirror: "true"`.
 * Go's `skipMirror`.
 *
 * @category EndpointSlice mirroring
 */
export function skipMirror(labels: Readonly<Record<string, string>> | undefined): boolean {
  return labels?.[labelSkipMirror] === 'true';
}

/**
 * Whether the annotations hold a leader-election record. Go's
 * `hasLeaderElection`.
 *
 * @category EndpointSlice mirroring
 */
export function hasLeaderElection(
  annotations: Readonly<Record<string, string>> | undefined,
): boolean {
  return annotations?.[leaderElectionRecordAnnotationKey] !== undefined;
}

/**
 * A copy of the map without `keys` (the map itself when there are no
 * keys). Go's `cloneAndRemoveKeys`.
 *
 * @internal
 */
export function cloneAndRemoveKeys(
  a: Readonly<Record<string, string>> | undefined,
  ...keys: string[]
): Readonly<Record<string, string>> | undefined {
  if (keys.length === 0) return a;
  const out: Record<string, string> = { ...a };
  for (const key of keys) delete out[key];
  return out;
}

/**
 * Whether the slice's managed-by label names the mirroring controller. Go's
 * `managedByController`.
 *
 * @category EndpointSlice mirroring
 */
export function managedByMirroringController(endpointSlice: EndpointSlice): boolean {
  return endpointSlice.metadata?.labels?.[labelManagedBy] === mirroringControllerQualifiedName;
}

/**
 * Whether exactly one of the slices is managed by the mirroring controller.
 * Go's `managedByChanged`.
 *
 * @category EndpointSlice mirroring
 */
export function mirroringManagedByChanged(a: EndpointSlice, b: EndpointSlice): boolean {
  return managedByMirroringController(a) !== managedByMirroringController(b);
}
