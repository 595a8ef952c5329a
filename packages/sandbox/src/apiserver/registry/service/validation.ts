// Service validation as kube-apiserver v1.32 does it, with its field errors:
// pkg/apis/core/validation/validation.go (ValidateService, validateServicePort,
// ValidateServiceUpdate, validateServiceClusterIPsRelatedFields) and the
// name and port checks of apimachinery's util/validation (IsDNS1035Label,
// IsValidPortName, IsValidPortNum).
import { isDNS1123Label, isDNS1123Subdomain } from '@kcm-ts/apimachinery';
import {
  GoLiteral,
  duplicate,
  forbidden,
  invalid,
  notSupported,
  required,
} from '../field-errors.js';
import type { FieldError } from '../field-errors.js';
import { isIPv4 } from './allocation.js';
import { validateStringMap } from '../validation.js';
import { type Obj, obj } from '../../unstructured.js';

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export const serviceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const protocols = ['SCTP', 'TCP', 'UDP'];
const portRange = 'must be between 1 and 65535, inclusive';

/** IsDNS1035Label: Service names start with a letter, as they become DNS names. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(value)) {
    errs.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return errs;
}

/** IsValidPortName: an IANA service name, as a targetPort may be. */
export function isValidPortName(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(value))
    errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(value)) errs.push('must contain at least one letter (a-z)');
  if (value.includes('--')) errs.push('must not contain consecutive hyphens');
  if (value.startsWith('-') || value.endsWith('-'))
    errs.push('must not begin or end with a hyphen');
  return errs;
}

const validPortNum = (n: unknown): boolean =>
  typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 65535;

// The key validation.go puts in its duplicate error: a ServicePort with only
// the port and protocol set, as Go's %#v prints it.
const portKey = (port: unknown, protocol: unknown): GoLiteral =>
  new GoLiteral(
    `core.ServicePort{Name:"", Protocol:${JSON.stringify(protocol)}, AppProtocol:(*string)(nil), Port:${String(port)}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
  );

function validatePorts(errs: FieldError[], spec: Obj, type: string): void {
  const ports = list(spec.ports);
  const headless = spec.clusterIP === 'None';
  if (ports.length === 0 && !headless && type !== 'ExternalName') {
    errs.push(required('spec.ports'));
  }
  const names = new Set<string>();
  const keys = new Set<string>();
  ports.forEach((p, i) => {
    const port = obj(p);
    const at = `spec.ports[${i}]`;
    const name = typeof port.name === 'string' ? port.name : '';
    if (name === '') {
      if (ports.length > 1) errs.push(required(`${at}.name`));
    } else {
      for (const msg of isDNS1123Label(name)) errs.push(invalid(`${at}.name`, name, msg));
      if (names.has(name)) errs.push(duplicate(`${at}.name`, name));
      names.add(name);
    }
    if (!validPortNum(port.port)) errs.push(invalid(`${at}.port`, port.port ?? 0, portRange));
    if (typeof port.protocol !== 'string' || port.protocol === '') {
      errs.push(required(`${at}.protocol`));
    } else if (!protocols.includes(port.protocol)) {
      errs.push(notSupported(`${at}.protocol`, port.protocol, protocols));
    }
    const target = port.targetPort;
    if (typeof target === 'string') {
      for (const msg of isValidPortName(target))
        errs.push(invalid(`${at}.targetPort`, target, msg));
    } else if (!validPortNum(target)) {
      errs.push(invalid(`${at}.targetPort`, target ?? 0, portRange));
    }
    if (type === 'ClusterIP' && port.nodePort !== undefined && port.nodePort !== 0) {
      errs.push(forbidden(`${at}.nodePort`, "may not be used when `type` is 'ClusterIP'"));
    }
    const key = `${String(port.port)}/${String(port.protocol)}`;
    if (keys.has(key)) errs.push(duplicate(at, portKey(port.port, port.protocol)));
    keys.add(key);
  });
}

function validateClusterIP(errs: FieldError[], spec: Obj, type: string): void {
  const ip = spec.clusterIP;
  if (type === 'ExternalName') {
    if (typeof ip === 'string' && ip !== '') {
      errs.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    }
    return;
  }
  if (ip === 'None' && (type === 'NodePort' || type === 'LoadBalancer')) {
    errs.push(invalid('spec.clusterIPs[0]', ip, `may not be set to 'None' for ${type} services`));
  }
  if (typeof ip === 'string' && ip !== '' && ip !== 'None' && !isIPv4(ip)) {
    errs.push(
      invalid(
        'spec.clusterIPs[0]',
        ip,
        'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      ),
    );
  }
}

/**
 * ValidateService: type, ports, selector, session affinity, ClusterIP and
 * ExternalName (the name, a DNS-1035 label, is checked with the metadata).
 */
export function validateService(svc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(svc.spec);
  const type = typeof spec.type === 'string' ? spec.type : '';
  if (!serviceTypes.includes(type)) errs.push(notSupported('spec.type', spec.type, serviceTypes));
  validatePorts(errs, spec, type);
  validateStringMap(errs, 'spec.selector', spec.selector, true);
  const affinity = spec.sessionAffinity;
  if (affinity !== 'None' && affinity !== 'ClientIP') {
    errs.push(notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  }
  validateClusterIP(errs, spec, type);
  if (type === 'ExternalName') {
    const external = spec.externalName;
    if (typeof external !== 'string' || external === '') {
      errs.push(required('spec.externalName'));
    } else {
      for (const msg of isDNS1123Subdomain(external.replace(/\.$/, '')))
        errs.push(invalid('spec.externalName', external, msg));
    }
  }
  return errs;
}

/** ValidateServiceUpdate: a ClusterIP, once set, stays (unless the type becomes ExternalName). */
export function validateServiceUpdate(next: Obj, old: Obj): FieldError[] {
  const was = obj(old.spec);
  const now = obj(next.spec);
  if (now.type === 'ExternalName' || was.type === 'ExternalName') return [];
  const oldIP = typeof was.clusterIP === 'string' ? was.clusterIP : '';
  const newIPs = list(now.clusterIPs).filter((ip): ip is string => typeof ip === 'string');
  if (oldIP === '' || newIPs[0] === oldIP) return [];
  return [
    invalid(
      'spec.clusterIPs[0]',
      new GoLiteral(`[]string{${newIPs.map((ip) => JSON.stringify(ip)).join(', ')}}`),
      'may not change once set',
    ),
  ];
}
