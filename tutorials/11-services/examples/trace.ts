// The transcript of the examples: each change the API server committed to
// an EndpointSlice, said in one line as `t= 2.0s  + slice web-a (3
// endpoints)` or `t= 4.0s    slice web-a (3 endpoints): 10.244.2.3
// serving terminating`, naming the endpoints that were added, removed or changed
// conditions. Pods get a line when they start being deleted, are gone, or
// change readiness. An Endpoints object gets a line when its addresses
// change: `t= 2.0s    endpoints web (3 addresses): 10.244.2.3 not ready`.
import type { Endpoints, Pod } from 'kubernetes-types/core/v1.js';
import type { Endpoint, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { isReady, type Change, type Cluster } from './cluster.js';

/** An endpoint's conditions as words: `ready serving`, `serving terminating`, `not ready`. */
export function conditions(e: Endpoint): string {
  const c = e.conditions ?? {};
  const words = [
    c.ready === true ? 'ready' : '',
    c.serving === true ? 'serving' : '',
    c.terminating === true ? 'terminating' : '',
  ].filter((w) => w !== '');
  return words.length === 0 ? 'not ready' : words.join(' ');
}

const byAddress = (s: EndpointSlice | undefined): Map<string, Endpoint> =>
  new Map((s?.endpoints ?? []).map((e) => [e.addresses[0] ?? '', e]));

/** What changed between two versions of a slice's endpoints, at most `max` items named. */
export function endpointDiff(prev: EndpointSlice | undefined, cur: EndpointSlice, max = 4): string {
  const before = byAddress(prev);
  const after = byAddress(cur);
  const items: string[] = [];
  for (const [ip, e] of after) {
    const old = before.get(ip);
    if (old === undefined) items.push(`+${ip} ${conditions(e)}`);
    else if (conditions(old) !== conditions(e)) items.push(`${ip} ${conditions(e)}`);
  }
  for (const ip of before.keys()) if (!after.has(ip)) items.push(`-${ip}`);
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown}, ... (${items.length} in all)` : shown;
}

/** The addresses of an Endpoints object, each as `ready` or `not ready` (by IP). */
function addressesOf(ep: Endpoints | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of ep?.subsets ?? []) {
    for (const a of s.addresses ?? []) out.set(a.ip, 'ready');
    for (const a of s.notReadyAddresses ?? []) out.set(a.ip, 'not ready');
  }
  return out;
}

/** What changed between two versions of an Endpoints object's addresses, at most `max` named. */
export function addressDiff(prev: Endpoints | undefined, cur: Endpoints, max = 4): string {
  const before = addressesOf(prev);
  const after = addressesOf(cur);
  const items: string[] = [];
  for (const [ip, state] of after) {
    const old = before.get(ip);
    if (old === undefined) items.push(`+${ip} ${state}`);
    else if (old !== state) items.push(`${ip} ${state}`);
  }
  for (const ip of before.keys()) if (!after.has(ip)) items.push(`-${ip}`);
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown}, ... (${items.length} in all)` : shown;
}

/** The line for one change, or undefined when it is not worth a line. */
export function describe(c: Cluster, ch: Change): string | undefined {
  const name = c.mask(ch.object.metadata?.name);
  if (ch.kind === 'EndpointSlice') {
    const slice = ch.object as EndpointSlice;
    const n = (slice.endpoints ?? []).length;
    if (ch.type === 'ADDED') {
      const diff = n === 0 ? 'empty' : endpointDiff(undefined, slice);
      return `+ slice ${name} (${n} endpoints): ${diff}`;
    }
    if (ch.type === 'DELETED') return `- slice ${name} gone`;
    const prev = ch.prev as EndpointSlice | undefined;
    const diff = endpointDiff(prev, slice);
    if (diff === '') return undefined;
    return `  slice ${name} (${n} endpoints): ${diff}`;
  }
  if (ch.kind === 'Endpoints') {
    const ep = ch.object as Endpoints;
    const size = addressesOf(ep).size;
    const n = `${size} address${size === 1 ? '' : 'es'}`;
    if (ch.type === 'DELETED') return `- endpoints ${name} gone`;
    const diff = addressDiff(ch.type === 'ADDED' ? undefined : (ch.prev as Endpoints), ep);
    if (ch.type === 'ADDED') return `+ endpoints ${name} (${n}): ${diff || 'empty'}`;
    if (diff === '') return undefined;
    return `  endpoints ${name} (${n}): ${diff}`;
  }
  const pod = ch.object as Pod;
  const prev = ch.prev as Pod | undefined;
  const ip = pod.status?.podIP ?? '';
  if (ch.type === 'DELETED') return `- pod ${name} ${ip} gone`;
  if (pod.metadata?.deletionTimestamp && !prev?.metadata?.deletionTimestamp) {
    return `  pod ${name} ${ip} deleting`;
  }
  if (ip !== '' && (prev?.status?.podIP ?? '') === '') {
    return `  pod ${name} ${ip} on ${pod.spec?.nodeName ?? '?'} started`;
  }
  if (isReady(pod) !== isReady(prev) && ch.type === 'MODIFIED') {
    return `  pod ${name} ${ip} ${isReady(pod) ? 'ready' : 'not ready'}`;
  }
  return undefined;
}

/** The lines of the changes since `from` (an index into `c.changes`), with their times. */
export function lines(c: Cluster, from = 0, kinds: Change['kind'][] = ['EndpointSlice', 'Pod']) {
  const out: string[] = [];
  for (const ch of c.changes.slice(from)) {
    if (!kinds.includes(ch.kind)) continue;
    const line = describe(c, ch);
    if (line !== undefined) out.push(`${c.at(ch.t)}  ${line}`);
  }
  return out;
}

/** The syncs since `from` (an index into `c.syncs`), as `3 syncs: 3 success`. */
export function syncSummary(c: Cluster, from = 0): string {
  const syncs = c.syncs.slice(from);
  const counts = new Map<string, number>();
  for (const s of syncs) counts.set(s.result, (counts.get(s.result) ?? 0) + 1);
  const parts = [...counts].map(([r, n]) => `${n} ${r}`);
  return `${syncs.length} sync${syncs.length === 1 ? '' : 's'}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}
