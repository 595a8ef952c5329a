// What kube-apiserver checks and defaults of v1 Endpoints and
// discovery.k8s.io/v1 EndpointSlices: pkg/apis/core/validation/validation.go
// (ValidateEndpoints, validateEndpointSubsets, validateEndpointAddress,
// validateEndpointPort), pkg/apis/discovery/validation/validation.go
// (ValidateEndpointSlice, validateEndpoints, validatePorts,
// ValidateEndpointSliceUpdate), and the ports' TCP default
// (SetDefaults_EndpointPort in both groups), for IPv4 addresses.
import { isDNS1123Label, isDNS1123Subdomain } from '@kcm-ts/apimachinery';
import { duplicate, invalid, notSupported, required } from '../field-errors.js';
import type { FieldError } from '../field-errors.js';
import { isIPv4 } from '../service/allocation.js';
import { type Obj, isObj, obj } from '../../unstructured.js';

const protocols = ['SCTP', 'TCP', 'UDP'];
const addressTypes = ['FQDN', 'IPv4', 'IPv6'];
const maxEndpoints = 1000;
const maxPorts = 100;
const maxAddresses = 100;

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);

/** Ports without a protocol get TCP. */
function defaultPorts(ports: unknown): unknown {
  if (!Array.isArray(ports)) return ports;
  return (ports as unknown[]).map((p) =>
    isObj(p) && p.protocol === undefined ? { ...p, protocol: 'TCP' } : p,
  );
}

/** SetDefaults_EndpointPort, for every port of every subset. */
export function defaultEndpoints(o: Obj): void {
  if (!Array.isArray(o.subsets)) return;
  o.subsets = (o.subsets as unknown[]).map((s) =>
    isObj(s) ? { ...s, ports: defaultPorts(s.ports) } : s,
  );
}

/** SetDefaults_EndpointPort, for the slice's ports. */
export function defaultEndpointSlice(o: Obj): void {
  if (Array.isArray(o.ports)) o.ports = defaultPorts(o.ports);
}

/** An endpoint's address: an IP, not in a range no pod can have. */
function validateIP(errs: FieldError[], field: string, ip: unknown): void {
  if (typeof ip !== 'string' || ip === '') {
    errs.push(required(field, ''));
  } else if (!isIPv4(ip)) {
    errs.push(invalid(field, ip, 'must be a valid IP address'));
  } else if (ip.startsWith('127.')) {
    errs.push(invalid(field, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  } else if (ip.startsWith('169.254.')) {
    errs.push(invalid(field, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  }
}

function validatePort(errs: FieldError[], field: string, port: Obj, needName: boolean): void {
  const name = port.name;
  if (needName && (typeof name !== 'string' || name === '')) {
    errs.push(required(`${field}.name`, ''));
  } else if (typeof name === 'string' && name !== '') {
    for (const msg of isDNS1123Label(name)) errs.push(invalid(`${field}.name`, name, msg));
  }
  const n = port.port;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 65535) {
    errs.push(invalid(`${field}.port`, n ?? null, 'must be between 1 and 65535, inclusive'));
  }
  if (typeof port.protocol !== 'string' || !protocols.includes(port.protocol)) {
    errs.push(notSupported(`${field}.protocol`, port.protocol ?? null, protocols));
  }
}

/** ValidateEndpoints' subsets. */
export function validateEndpoints(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  list(o.subsets).forEach((subset, i) => {
    const at = `subsets[${i}]`;
    const addresses = list(subset.addresses);
    const notReady = list(subset.notReadyAddresses);
    if (addresses.length === 0 && notReady.length === 0) {
      errs.push(required(at, 'must specify `addresses` or `notReadyAddresses`'));
    }
    addresses.forEach((a, j) => validateIP(errs, `${at}.addresses[${j}].ip`, a.ip));
    notReady.forEach((a, j) => validateIP(errs, `${at}.notReadyAddresses[${j}].ip`, a.ip));
    const ports = list(subset.ports);
    ports.forEach((p, j) => validatePort(errs, `${at}.ports[${j}]`, p, ports.length > 1));
  });
  return errs;
}

/** ValidateEndpointSlice. */
export function validateEndpointSlice(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const addressType = o.addressType;
  if (addressType === undefined || addressType === '') {
    errs.push(required('addressType', ''));
  } else if (typeof addressType !== 'string' || !addressTypes.includes(addressType)) {
    errs.push(notSupported('addressType', addressType, addressTypes));
  }
  const endpoints = list(o.endpoints);
  if (endpoints.length > maxEndpoints) {
    errs.push({
      type: 'FieldValueTooMany',
      field: 'endpoints',
      value: endpoints.length,
      detail: `must have at most ${maxEndpoints} items`,
    });
  }
  endpoints.forEach((e, i) => {
    const at = `endpoints[${i}]`;
    const addresses = Array.isArray(e.addresses) ? (e.addresses as unknown[]) : [];
    if (addresses.length === 0)
      errs.push(required(`${at}.addresses`, 'must contain at least 1 address'));
    if (addresses.length > maxAddresses) {
      errs.push(
        invalid(`${at}.addresses`, addresses.length, `must have at most ${maxAddresses} items`),
      );
    }
    addresses.forEach((a, j) => {
      const field = `${at}.addresses[${j}]`;
      if (addressType === 'IPv4' && (typeof a !== 'string' || !isIPv4(a))) {
        errs.push(invalid(field, a, 'must be a valid IPv4 address'));
      } else if (
        addressType === 'FQDN' &&
        (typeof a !== 'string' || isDNS1123Subdomain(a).length > 0)
      ) {
        errs.push(invalid(field, a, 'must be a valid FQDN'));
      }
    });
    if (e.nodeName !== undefined && typeof e.nodeName === 'string') {
      for (const msg of isDNS1123Subdomain(e.nodeName))
        errs.push(invalid(`${at}.nodeName`, e.nodeName, msg));
    }
  });
  const ports = list(o.ports);
  if (ports.length > maxPorts) {
    errs.push(invalid('ports', ports.length, `must have at most ${maxPorts} items`));
  }
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const at = `ports[${i}]`;
    const name = typeof p.name === 'string' ? p.name : '';
    if (name !== '')
      for (const msg of isDNS1123Label(name)) errs.push(invalid(`${at}.name`, name, msg));
    if (names.has(name)) errs.push(duplicate(`${at}.name`, name));
    names.add(name);
    if (p.port !== undefined && p.port !== null) {
      const n = p.port;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 65535) {
        errs.push(invalid(`${at}.port`, n, 'must be between 1 and 65535, inclusive'));
      }
    }
    if (typeof p.protocol !== 'string' || !protocols.includes(p.protocol)) {
      errs.push(notSupported(`${at}.protocol`, p.protocol ?? null, protocols));
    }
  });
  return errs;
}

/** ValidateEndpointSliceUpdate: the address type is fixed. */
export function validateEndpointSliceUpdate(next: Obj, old: Obj): FieldError[] {
  if (next.addressType !== old.addressType) {
    return [invalid('addressType', next.addressType ?? null, 'field is immutable')];
  }
  return [];
}
