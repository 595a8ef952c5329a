// The reconciler's helpers: staging/src/k8s.io/endpointslice/utils.go
// (podToEndpoint, getEndpointPorts, getEndpointAddresses, newEndpointSlice,
// getEndpointSlicePrefix, ownedBy, getSliceToFill, addTriggerTimeAnnotation,
// ServiceControllerKey, setEndpointSliceLabels, isReservedLabelKey,
// endpointSliceEndpointLen, getAddressTypesForService, unchangedSlices,
// hintsEnabled, isServiceIPSet, FindPort), and the names the controller
// writes (k8s.io/api discovery/v1 and core/v1 well-known labels and
// annotations).
import type { Endpoint, EndpointPort, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Node, Pod, PodStatus, Service, ServicePort } from 'kubernetes-types/core/v1.js';
import {
  isDNS1123Subdomain,
  newControllerRef,
  noopLogger,
  type GroupVersionKind,
  type Logger,
} from '@kcm-ts/apimachinery';
import { isPodReady } from '@kcm-ts/controller';
import { shouldSetHostname } from './reconciler-util.js';

/**
 * The label naming the Service an EndpointSlice belongs to
 * (`kubernetes.io/service-name`). Go's `discovery.LabelServiceName`.
 *
 * @category Names
 */
export const labelServiceName = 'kubernetes.io/service-name';

/**
 * The label naming the controller that manages an EndpointSlice
 * (`endpointslice.kubernetes.io/managed-by`). Go's `discovery.LabelManagedBy`.
 *
 * @category Names
 */
export const labelManagedBy = 'endpointslice.kubernetes.io/managed-by';

/**
 * The label set on the EndpointSlices of a headless Service
 * (`service.kubernetes.io/headless`). Go's `v1.IsHeadlessService`.
 *
 * @category Names
 */
export const isHeadlessServiceLabel = 'service.kubernetes.io/headless';

/**
 * The annotation carrying the time of the last pod or Service change that
 * the slice reflects (`endpoints.kubernetes.io/last-change-trigger-time`).
 * Go's `v1.EndpointsLastChangeTriggerTime`.
 *
 * @category Names
 */
export const endpointsLastChangeTriggerTime = 'endpoints.kubernetes.io/last-change-trigger-time';

/**
 * The node label whose value becomes an endpoint's `zone`
 * (`topology.kubernetes.io/zone`). Go's `v1.LabelTopologyZone`.
 *
 * @category Names
 */
export const labelTopologyZone = 'topology.kubernetes.io/zone';

/** The annotations that turn on Topology Aware Routing (read, not acted on here). */
const annotationTopologyMode = 'service.kubernetes.io/topology-mode';
const deprecatedAnnotationTopologyAwareHints = 'service.kubernetes.io/topology-aware-hints';

/**
 * An EndpointSlice address type: `IPv4`, `IPv6` or `FQDN`. Go's
 * `discovery.AddressType`.
 *
 * @category Reconciler
 */
export type AddressType = 'IPv4' | 'IPv6' | 'FQDN';

const serviceKind: GroupVersionKind = Object.freeze({ group: '', version: 'v1', kind: 'Service' });

/**
 * The ports and address type the slices of one group share: Go's
 * `endpointMeta`.
 *
 * @category Reconciler
 */
export interface EndpointMeta {
  /** The ports every endpoint of the group serves on. */
  ports: EndpointPort[];
  /** The address type of the group's slices. */
  addressType: AddressType;
}

/** Whether `ip` is an IPv6 address (IPv4-mapped ones count as IPv4), as Go's `utilnet.IsIPv6`. */
function splitIP(ip: string): { v6: boolean; text: string } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return { v6: false, text: normalizeIPv4(mapped[1]!) };
  if (ip.includes(':')) return { v6: true, text: ip.toLowerCase() };
  return { v6: false, text: normalizeIPv4(ip) };
}

/** An IPv4 address re-stringified as `ParseIPSloppy` reads it (leading zeros are decimal). */
function normalizeIPv4(ip: string): string {
  const parts = ip.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return ip;
  return parts.map((p) => String(Number(p))).join('.');
}

//#region pod-to-endpoint
/**
 * The endpoint a pod gives the Service for one address type: its addresses
 * of that type; `serving` when the pod is ready, `terminating` when it is
 * being deleted, `ready` when serving and not terminating (always, under
 * `publishNotReadyAddresses`); a target reference to the pod; its node's
 * name and zone; its hostname when its subdomain is the Service. Go's
 * `podToEndpoint`.
 *
 * @category Reconciler
 */
export function podToEndpoint(
  pod: Pod,
  node: Node | undefined,
  service: Service,
  addressType: AddressType,
): Endpoint {
  const serving = isPodReady(pod);
  const terminating = pod.metadata?.deletionTimestamp != null;
  const ready = (service.spec?.publishNotReadyAddresses ?? false) || (serving && !terminating);
  const ep: Endpoint = {
    addresses: getEndpointAddresses(pod.status, addressType),
    conditions: { ready, serving, terminating },
    targetRef: {
      kind: 'Pod',
      namespace: pod.metadata?.namespace ?? '',
      name: pod.metadata?.name ?? '',
      uid: pod.metadata?.uid ?? '',
    },
  };
  const nodeName = pod.spec?.nodeName ?? '';
  if (nodeName !== '') ep.nodeName = nodeName;
  const zone = node?.metadata?.labels?.[labelTopologyZone] ?? '';
  if (zone !== '') ep.zone = zone;
  if (shouldSetHostname(pod, service)) ep.hostname = pod.spec?.hostname ?? '';
  return ep;
}
//#endregion pod-to-endpoint

/**
 * The Service's ports as this pod serves them, named target ports resolved
 * against the pod's containers (ports the pod lacks are left out); none for
 * a headless Service without ports. Go's `getEndpointPorts`.
 *
 * @category Reconciler
 */
export function getEndpointPorts(
  service: Service,
  pod: Pod,
  logger: Logger = noopLogger,
): EndpointPort[] {
  const ports = service.spec?.ports ?? [];
  const endpointPorts: EndpointPort[] = [];
  if (ports.length === 0 && service.spec?.clusterIP === 'None') return endpointPorts;
  for (const servicePort of ports) {
    const portNum = findPort(pod, servicePort);
    if (portNum instanceof Error) {
      logger.v(4).info('Failed to find port for service', {
        service: `${service.metadata?.namespace ?? ''}/${service.metadata?.name ?? ''}`,
        err: portNum.message,
      });
      continue;
    }
    const port: EndpointPort = {
      name: servicePort.name ?? '',
      port: portNum,
      protocol: servicePort.protocol ?? 'TCP',
    };
    if (servicePort.appProtocol !== undefined) port.appProtocol = servicePort.appProtocol;
    endpointPorts.push(port);
  }
  return endpointPorts;
}

/**
 * The pod's IPs of one address type, re-stringified. Go's
 * `getEndpointAddresses`.
 *
 * @category Reconciler
 */
export function getEndpointAddresses(
  podStatus: PodStatus | undefined,
  addressType: AddressType,
): string[] {
  const addresses: string[] = [];
  for (const podIP of podStatus?.podIPs ?? []) {
    const { v6, text } = splitIP(podIP.ip ?? '');
    if (v6 && addressType === 'IPv6') addresses.push(text);
    if (!v6 && addressType === 'IPv4') addresses.push(text);
  }
  return addresses;
}

/**
 * A new, empty EndpointSlice for the Service: named from
 * `generateName` `<service>-`, owned by the Service (a controller
 * reference, so the garbage collector deletes it with the Service),
 * labelled with the Service's labels, its name and the managing controller.
 * Go's `newEndpointSlice`.
 *
 * @category Reconciler
 */
export function newEndpointSlice(
  service: Service,
  endpointMeta: EndpointMeta,
  controllerName: string,
  logger: Logger = noopLogger,
): EndpointSlice {
  const slice: EndpointSlice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      labels: {},
      generateName: getEndpointSlicePrefix(service.metadata?.name ?? ''),
      ownerReferences: [newControllerRef(service, serviceKind)],
      namespace: service.metadata?.namespace ?? '',
    },
    ports: endpointMeta.ports,
    addressType: endpointMeta.addressType,
    endpoints: [],
  };
  slice.metadata!.labels = setEndpointSliceLabels(slice, service, controllerName, logger)[0];
  return slice;
}

/**
 * The `generateName` of a Service's slices: `<name>-`, or the bare name
 * when the dash would make too long a prefix. Go's `getEndpointSlicePrefix`.
 *
 * @category Reconciler
 */
export function getEndpointSlicePrefix(serviceName: string): string {
  const prefix = `${serviceName}-`;
  // A prefix is checked with its trailing dash masked, as a generated suffix follows it.
  return isDNS1123Subdomain(`${serviceName}a`).length !== 0 ? serviceName : prefix;
}

/**
 * Whether the slice has an owner reference to this Service (by uid, kind
 * `Service`, apiVersion `v1`). Go's `ownedBy`.
 *
 * @category Reconciler
 */
export function ownedBy(endpointSlice: EndpointSlice, svc: Service): boolean {
  return (endpointSlice.metadata?.ownerReferences ?? []).some(
    (o) => o.uid === svc.metadata?.uid && o.kind === 'Service' && o.apiVersion === 'v1',
  );
}

/**
 * The slice that would be closest to full after `numEndpoints` more
 * endpoints, among those with room for them; undefined if none has room.
 * Go's `getSliceToFill`.
 *
 * @category Reconciler
 */
export function getSliceToFill(
  endpointSlices: readonly EndpointSlice[],
  numEndpoints: number,
  maxEndpoints: number,
): EndpointSlice | undefined {
  let closestDiff = maxEndpoints;
  let closest: EndpointSlice | undefined;
  for (const slice of endpointSlices) {
    const currentDiff = maxEndpoints - (numEndpoints + (slice.endpoints ?? []).length);
    if (currentDiff >= 0 && currentDiff < closestDiff) {
      closestDiff = currentDiff;
      closest = slice;
      if (closestDiff === 0) return closest;
    }
  }
  return closest;
}

/**
 * Formats a time as Go's `time.RFC3339Nano` in UTC: trailing zeros of the
 * fraction dropped, and the dot too when nothing is left.
 *
 * @internal
 */
export function formatRFC3339Nano(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-01-01T00:00:00.123Z
  return iso.replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac === '' ? 'Z' : `.${frac}Z`));
}

/**
 * Sets the slice's `endpoints.kubernetes.io/last-change-trigger-time`
 * annotation to `triggerTime` (milliseconds since the epoch), or removes it
 * when there is none. Go's `addTriggerTimeAnnotation`.
 *
 * @category Reconciler
 */
export function addTriggerTimeAnnotation(
  endpointSlice: EndpointSlice,
  triggerTime: number | undefined,
): void {
  const metadata = (endpointSlice.metadata ??= {});
  const annotations = (metadata.annotations ??= {});
  if (triggerTime !== undefined) {
    annotations[endpointsLastChangeTriggerTime] = formatRFC3339Nano(triggerTime);
  } else {
    delete annotations[endpointsLastChangeTriggerTime];
  }
}

/**
 * The queue key (`namespace/name`) of the Service a slice belongs to, from
 * its `kubernetes.io/service-name` label. Go's `ServiceControllerKey`.
 *
 * @throws Error if the slice lacks the label
 * @category Reconciler
 */
export function serviceControllerKey(endpointSlice: EndpointSlice): string {
  const serviceName = endpointSlice.metadata?.labels?.[labelServiceName] ?? '';
  if (serviceName === '') throw new Error(`EndpointSlice missing ${labelServiceName} label`);
  return `${endpointSlice.metadata?.namespace ?? ''}/${serviceName}`;
}

/**
 * Whether a label key is one the controller owns on its slices
 * (`kubernetes.io/service-name`, `endpointslice.kubernetes.io/managed-by`,
 * `service.kubernetes.io/headless`). Go's `isReservedLabelKey`.
 *
 * @category Reconciler
 */
export function isReservedLabelKey(label: string): boolean {
  return label === labelServiceName || label === labelManagedBy || label === isHeadlessServiceLabel;
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

/**
 * The labels a slice of the Service should carry (the Service's own, the
 * headless label when it has no cluster IP, the service name and the
 * managing controller), and whether the slice's non-reserved labels differ
 * from the Service's. Go's `setEndpointSliceLabels`.
 *
 * @category Reconciler
 */
export function setEndpointSliceLabels(
  epSlice: EndpointSlice,
  service: Service,
  controllerName: string,
  logger: Logger = noopLogger,
): [labels: Record<string, string>, updated: boolean] {
  const epLabels: Record<string, string> = {};
  const svcLabels: Record<string, string> = {};
  for (const [key, value] of Object.entries(epSlice.metadata?.labels ?? {})) {
    if (!isReservedLabelKey(key)) epLabels[key] = value;
  }
  for (const [key, value] of Object.entries(service.metadata?.labels ?? {})) {
    if (isReservedLabelKey(key)) {
      logger.info('Service using reserved endpoint slices label', {
        service: `${service.metadata?.namespace ?? ''}/${service.metadata?.name ?? ''}`,
        skipping: key,
        label: value,
      });
      continue;
    }
    svcLabels[key] = value;
  }
  const updated = !sameLabels(epLabels, svcLabels);
  if (!isServiceIPSet(service)) svcLabels[isHeadlessServiceLabel] = '';
  else delete svcLabels[isHeadlessServiceLabel];
  svcLabels[labelServiceName] = service.metadata?.name ?? '';
  svcLabels[labelManagedBy] = controllerName;
  return [svcLabels, updated];
}

/**
 * Orders slices fullest first. Go's `endpointSliceEndpointLen`.
 *
 * @internal
 */
export function byEndpointLenDescending(a: EndpointSlice, b: EndpointSlice): number {
  return (b.endpoints ?? []).length - (a.endpoints ?? []).length;
}

/**
 * The address types the Service's slices have: from `spec.ipFamilies`; for
 * a Service without them, the family of its cluster IP, or both for a
 * headless one. Go's `getAddressTypesForService`.
 *
 * @category Reconciler
 */
export function getAddressTypesForService(
  service: Service,
  logger: Logger = noopLogger,
): Set<AddressType> {
  const types = new Set<AddressType>();
  for (const family of service.spec?.ipFamilies ?? []) {
    if (family === 'IPv4') types.add('IPv4');
    if (family === 'IPv6') types.add('IPv6');
  }
  if (types.size > 0) return types;
  const clusterIP = service.spec?.clusterIP ?? '';
  const key = `${service.metadata?.namespace ?? ''}/${service.metadata?.name ?? ''}`;
  if (clusterIP.length > 0 && clusterIP !== 'None') {
    const addrType: AddressType = splitIP(clusterIP).v6 ? 'IPv6' : 'IPv4';
    types.add(addrType);
    logger.v(2).info("Couldn't find ipfamilies for service; using the family of its ClusterIP", {
      service: key,
      addressType: addrType,
      clusterIP,
    });
    return types;
  }
  types.add('IPv4');
  types.add('IPv6');
  logger.v(2).info("Couldn't find ipfamilies for headless service; using both families", {
    service: key,
  });
  return types;
}

/**
 * The existing slices that are neither updated nor deleted. Go's
 * `unchangedSlices`.
 *
 * @internal
 */
export function unchangedSlices(
  existingSlices: readonly EndpointSlice[],
  slicesToUpdate: readonly EndpointSlice[],
  slicesToDelete: readonly EndpointSlice[],
): EndpointSlice[] {
  const changed = new Set<string>();
  for (const s of slicesToUpdate) changed.add(s.metadata?.name ?? '');
  for (const s of slicesToDelete) changed.add(s.metadata?.name ?? '');
  return existingSlices.filter((s) => !changed.has(s.metadata?.name ?? ''));
}

/**
 * Whether the Service asks for Topology Aware Routing hints
 * (`service.kubernetes.io/topology-aware-hints`, else
 * `service.kubernetes.io/topology-mode`, set to `Auto` or `auto`). Go's
 * `hintsEnabled`.
 *
 * @category Reconciler
 */
export function hintsEnabled(annotations: Readonly<Record<string, string>> | undefined): boolean {
  const val =
    annotations?.[deprecatedAnnotationTopologyAwareHints] ?? annotations?.[annotationTopologyMode];
  return val === 'Auto' || val === 'auto';
}

/**
 * Whether the Service has a cluster IP (neither empty nor `None`). Go's
 * `isServiceIPSet`.
 *
 * @category Reconciler
 */
export function isServiceIPSet(service: Service): boolean {
  const ip = service.spec?.clusterIP ?? '';
  return ip !== 'None' && ip !== '';
}

/**
 * The container port a Service port's `targetPort` names on this pod: a
 * number as it is; a name looked up among the ports of the pod's containers
 * and sidecars (init containers with `restartPolicy: Always`) with the same
 * protocol. An Error when the pod has no such port. Go's `FindPort`.
 *
 * @category Reconciler
 */
export function findPort(pod: Pod, svcPort: ServicePort): number | Error {
  const target = svcPort.targetPort ?? svcPort.port;
  const protocol = svcPort.protocol ?? 'TCP';
  if (typeof target === 'number') return target;
  for (const container of pod.spec?.containers ?? []) {
    for (const port of container.ports ?? []) {
      if (port.name === target && (port.protocol ?? 'TCP') === protocol) return port.containerPort;
    }
  }
  for (const container of pod.spec?.initContainers ?? []) {
    if (container.restartPolicy !== 'Always') continue;
    for (const port of container.ports ?? []) {
      if (port.name === target && (port.protocol ?? 'TCP') === protocol) return port.containerPort;
    }
  }
  return new Error(`no suitable port for manifest: ${pod.metadata?.uid ?? ''}`);
}
