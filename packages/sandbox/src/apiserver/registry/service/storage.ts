// What is special about Services when they are written: the v1 defaults
// (pkg/apis/core/v1/defaults.go, SetDefaults_Service), the ClusterIP and
// NodePort allocation of the service storage (pkg/registry/core/service/
// storage/alloc.go: initIPFamilyFields, allocateCreate), and
// storage.go's patchAllocatedValues, which keeps what an update left out.
import { GoLiteral, invalid } from '../field-errors.js';
import type { FieldError } from '../field-errors.js';
import {
  allocatedBy,
  checkClusterIP,
  checkNodePort,
  isIPv4,
  nextClusterIP,
  nextNodePort,
} from './allocation.js';
import { type Obj, obj } from '../../unstructured.js';

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** SetDefaults_Service and the v1 conversion of clusterIP/clusterIPs. */
export function defaultService(svc: Obj): void {
  const spec = obj(svc.spec);
  svc.spec = spec;
  if (spec.type === undefined || spec.type === '') spec.type = 'ClusterIP';
  if (spec.sessionAffinity === undefined || spec.sessionAffinity === '')
    spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const config = obj(spec.sessionAffinityConfig);
    const clientIP = obj(config.clientIP);
    if (clientIP.timeoutSeconds === undefined) clientIP.timeoutSeconds = 10800;
    spec.sessionAffinityConfig = { ...config, clientIP };
  }
  if (Array.isArray(spec.ports)) {
    spec.ports = spec.ports.map((p: unknown) => {
      const port = { ...obj(p) };
      if (port.protocol === undefined || port.protocol === '') port.protocol = 'TCP';
      if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '')
        port.targetPort = port.port;
      return port;
    });
  }
  const type = spec.type;
  if ((type === 'NodePort' || type === 'LoadBalancer') && !spec.externalTrafficPolicy)
    spec.externalTrafficPolicy = 'Cluster';
  if (type !== 'ExternalName' && spec.internalTrafficPolicy === undefined)
    spec.internalTrafficPolicy = 'Cluster';
  if (type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined)
    spec.allocateLoadBalancerNodePorts = true;
  // Convert_v1_ServiceSpec_To_core_ServiceSpec: either field gives the other.
  const ips = list(spec.clusterIPs);
  if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '' && ips.length === 0)
    spec.clusterIPs = [spec.clusterIP];
  else if ((spec.clusterIP === undefined || spec.clusterIP === '') && typeof ips[0] === 'string')
    spec.clusterIP = ips[0];
}

/** A new Service's status: an empty load balancer (no cloud gives it an address). */
export function initialServiceStatus(): Obj {
  return { loadBalancer: {} };
}

// storage.go, patchAllocatedValues: an update that leaves out the ClusterIP
// or a NodePort keeps the allocated one (kubectl apply and replace send
// manifests without them).
function keepAllocated(spec: Obj, old: Obj): void {
  const was = obj(old.spec);
  const needsIP = (t: unknown): boolean => t !== 'ExternalName';
  if (needsIP(spec.type) && needsIP(was.type) && (spec.clusterIP ?? '') === '') {
    if (was.clusterIP !== undefined) spec.clusterIP = was.clusterIP;
    if (was.clusterIPs !== undefined) spec.clusterIPs = was.clusterIPs;
  }
  if (spec.type !== 'NodePort' && spec.type !== 'LoadBalancer') return;
  const oldPorts = list(was.ports).map(obj);
  for (const p of list(spec.ports)) {
    const port = obj(p);
    if (port.nodePort !== undefined && port.nodePort !== 0) continue;
    const same = oldPorts.find(
      (o) => o.port === port.port && o.protocol === port.protocol && o.nodePort !== undefined,
    );
    if (same) port.nodePort = same.nodePort;
  }
}

// alloc.go, initIPFamilyFields, for a single-stack IPv4 cluster.
function initIPFamilies(spec: Obj): void {
  if (spec.type === 'ExternalName') {
    delete spec.ipFamilies;
    delete spec.ipFamilyPolicy;
    return;
  }
  const selectorless = Object.keys(obj(spec.selector)).length === 0;
  if (spec.clusterIP === 'None' && selectorless) {
    // Headless without a selector is not bound to the cluster's families.
    spec.ipFamilyPolicy ??= 'RequireDualStack';
    spec.ipFamilies ??= spec.ipFamilyPolicy === 'SingleStack' ? ['IPv4'] : ['IPv4', 'IPv6'];
    return;
  }
  spec.ipFamilyPolicy ??= 'SingleStack';
  spec.ipFamilies ??= ['IPv4'];
}

/**
 * Gives `svc` what it needs and does not have: a ClusterIP (unless headless
 * or ExternalName), NodePorts for NodePort and LoadBalancer types, and its
 * IP families; checks the ones it asked for. `stored` are every Service
 * stored now; `old` is the stored version of `svc` on an update.
 */
export function allocateService(
  svc: Obj,
  old: Obj | undefined,
  stored: readonly Obj[],
  random: () => number,
): FieldError[] {
  const spec = obj(svc.spec);
  svc.spec = spec;
  if (old) keepAllocated(spec, old);
  const taken = allocatedBy(stored, old);
  const errs = [
    ...allocateClusterIP(spec, old, taken.clusterIPs, random),
    ...allocateNodePorts(spec, old, taken.nodePorts, random),
  ];
  initIPFamilies(spec);
  return errs;
}

/** alloc.go, allocClusterIPs: the ClusterIP asked for, checked, or the next free one. */
function allocateClusterIP(
  spec: Obj,
  old: Obj | undefined,
  taken: ReadonlySet<string>,
  random: () => number,
): FieldError[] {
  if (spec.type === 'ExternalName') {
    delete spec.clusterIPs;
    return [];
  }
  if (spec.clusterIP === 'None') {
    spec.clusterIPs = ['None'];
    return [];
  }
  const asked = typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? spec.clusterIP : '';
  const keeping = old !== undefined && asked !== '' && obj(old.spec).clusterIP === asked;
  if (asked !== '' && isIPv4(asked) && !keeping) {
    const err = checkClusterIP(asked, taken);
    return err ? [err] : [];
  }
  if (asked !== '') return [];
  const ip = nextClusterIP(taken, random);
  if (ip === undefined) {
    return [
      invalid(
        'spec.clusterIPs',
        new GoLiteral('[]string(nil)'),
        'failed to allocate a serviceIP: range is full',
      ),
    ];
  }
  spec.clusterIP = ip;
  spec.clusterIPs = [ip];
  return [];
}

/** alloc.go, initNodePorts: NodePort and LoadBalancer Services get one per port. */
function allocateNodePorts(
  spec: Obj,
  old: Obj | undefined,
  taken: ReadonlySet<number>,
  random: () => number,
): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
    // The Service's own ports are not in `taken`: keeping them is no clash.
    const used = new Set(taken);
    list(spec.ports).forEach((p, i) => {
      const port = obj(p);
      if (typeof port.nodePort === 'number' && port.nodePort !== 0) {
        const err = checkNodePort(`spec.ports[${i}].nodePort`, port.nodePort, used);
        if (err) errs.push(err);
        used.add(port.nodePort);
        return;
      }
      const next = nextNodePort(used, random);
      if (next !== undefined) {
        port.nodePort = next;
        used.add(next);
      }
    });
  } else if (old) {
    // strategy.go, dropTypeDependentFields: leaving NodePort or LoadBalancer
    // drops the node ports the update left as they were.
    const oldPorts = new Set(list(obj(old.spec).ports).map((p) => obj(p).nodePort));
    for (const p of list(spec.ports)) {
      const port = obj(p);
      if (oldPorts.has(port.nodePort)) delete port.nodePort;
    }
  }
  return errs;
}
