// What a pod asks of a node: k8s.io/component-helpers/resource/helpers.go
// (PodRequests, AggregateContainerRequests) and the scheduler's Resource
// (pkg/scheduler/framework/types.go: Add, SetMaxResource). The regular
// containers run together, so their requests add up; init containers run
// one after the other, so the pod needs the largest of them (each with the
// sidecars, restartable init containers, started before it); the pod's
// overhead comes on top.
import type { Container, Pod, ResourceRequirements } from 'kubernetes-types/core/v1.js';
import { quantityMilliValue, quantityValue } from './quantity.js';

/** A ResourceList as numbers: milli-CPUs for `cpu`, whole units for the rest. */
export type ResourceAmounts = Map<string, number>;

/**
 * The scheduler's view of a set of resources (Go's `framework.Resource`):
 * CPU in thousandths, memory and ephemeral storage in bytes, the number of
 * pods, and the other ("scalar") resources such as `hugepages-2Mi` or
 * `nvidia.com/gpu` by name.
 */
export interface Resource {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  allowedPodNumber: number;
  scalar: Map<string, number>;
}

/** The requests the scheduler assumes for a container that asks for no CPU or memory: 100m and 200 MiB (DefaultMilliCPURequest, DefaultMemoryRequest). */
export const defaultMilliCPURequest = 100;
export const defaultMemoryRequest = 200 * 1024 * 1024;

export function emptyResource(): Resource {
  return { milliCPU: 0, memory: 0, ephemeralStorage: 0, allowedPodNumber: 0, scalar: new Map() };
}

/**
 * Whether `name` is counted as a scalar resource (schedutil.IsScalarResourceName):
 * an extended resource (`example.com/dongle`), huge pages, a prefixed native
 * resource (`kubernetes.io/...`) or attachable volumes; not `cpu`, `memory`,
 * `ephemeral-storage` or `pods`.
 */
export function isScalarResourceName(name: string): boolean {
  if (['cpu', 'memory', 'ephemeral-storage', 'pods'].includes(name)) return false;
  if (name.startsWith('requests.')) return false;
  return (
    name.includes('/') || name.startsWith('hugepages-') || name.startsWith('attachable-volumes-')
  );
}

/** A quantity in the unit the scheduler keeps for `name`. */
function amount(name: string, q: string | number): number {
  return name === 'cpu' ? quantityMilliValue(q) : quantityValue(q);
}

/** A ResourceList (wire format) as amounts. */
export function resourceAmounts(
  list: Record<string, string | number> | undefined,
): ResourceAmounts {
  const out: ResourceAmounts = new Map();
  for (const [name, q] of Object.entries(list ?? {})) out.set(name, amount(name, q));
  return out;
}

/** Resource.Add: a ResourceList added to `r`. */
export function addAmounts(r: Resource, list: ResourceAmounts): void {
  for (const [name, v] of list) {
    if (name === 'cpu') r.milliCPU += v;
    else if (name === 'memory') r.memory += v;
    else if (name === 'pods') r.allowedPodNumber += v;
    else if (name === 'ephemeral-storage') r.ephemeralStorage += v;
    else if (isScalarResourceName(name)) r.scalar.set(name, (r.scalar.get(name) ?? 0) + v);
  }
}

/** Resource.SetMaxResource on an empty Resource: the pod's requests as the scheduler keeps them. */
export function resourceOf(list: ResourceAmounts): Resource {
  const r = emptyResource();
  for (const [name, v] of list) {
    if (name === 'cpu') r.milliCPU = Math.max(r.milliCPU, v);
    else if (name === 'memory') r.memory = Math.max(r.memory, v);
    else if (name === 'ephemeral-storage') r.ephemeralStorage = Math.max(r.ephemeralStorage, v);
    else if (isScalarResourceName(name)) r.scalar.set(name, Math.max(r.scalar.get(name) ?? 0, v));
  }
  return r;
}

/**
 * A container's requests as the API server stores them: a resource with a
 * limit and no request requests its limit (SetDefaults_Pod, pkg/apis/core/v1/
 * defaults.go). The sandbox does not default them, so the scheduler does.
 */
function containerRequests(c: Container): ResourceAmounts {
  const res: ResourceRequirements = c.resources ?? {};
  const requests = resourceAmounts(res.requests);
  for (const [name, v] of resourceAmounts(res.limits)) {
    if (!requests.has(name)) requests.set(name, v);
  }
  return requests;
}

function add(into: ResourceAmounts, list: ResourceAmounts): void {
  for (const [name, v] of list) into.set(name, (into.get(name) ?? 0) + v);
}

function max(into: ResourceAmounts, list: ResourceAmounts): void {
  for (const [name, v] of list) into.set(name, Math.max(into.get(name) ?? 0, v));
}

/**
 * The requests a container is taken to make when it names no CPU or memory
 * request (NonMissingContainerRequests): used for scoring, so that pods
 * that ask for nothing still spread.
 */
export type NonMissing = ReadonlyMap<string, number>;

/** The non-zero defaults of the least-allocated score: 100m CPU, 200 MiB memory. */
export const nonZeroDefaults: NonMissing = new Map([
  ['cpu', defaultMilliCPURequest],
  ['memory', defaultMemoryRequest],
]);

/**
 * PodRequests: the sum of the regular containers' requests (and of the
 * sidecars'), at least the largest need of any init container, plus the
 * pod's overhead. With `nonMissing`, a container without a CPU or memory
 * request counts as making the default one.
 */
export function podRequests(pod: Pod, nonMissing?: NonMissing): ResourceAmounts {
  const withDefaults = (reqs: ResourceAmounts): ResourceAmounts => {
    if (nonMissing === undefined) return reqs;
    const out = new Map(reqs);
    for (const [name, v] of nonMissing) if (!out.has(name)) out.set(name, v);
    return out;
  };
  const reqs: ResourceAmounts = new Map();
  for (const c of pod.spec?.containers ?? []) add(reqs, withDefaults(containerRequests(c)));
  // Init containers: each needs its own requests plus the sidecars started before it.
  const sidecars: ResourceAmounts = new Map();
  const initNeeds: ResourceAmounts = new Map();
  for (const c of pod.spec?.initContainers ?? []) {
    const own = withDefaults(containerRequests(c));
    if (c.restartPolicy === 'Always') {
      add(reqs, own);
      add(sidecars, own);
      max(initNeeds, sidecars);
    } else {
      const need = new Map(own);
      add(need, sidecars);
      max(initNeeds, need);
    }
  }
  max(reqs, initNeeds);
  add(reqs, resourceAmounts(pod.spec?.overhead));
  return reqs;
}
