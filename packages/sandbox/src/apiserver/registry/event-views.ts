import { type Obj } from '../unstructured.js';
// core/v1 and events.k8s.io/v1 Events are one storage seen two ways
// (pkg/apis/events/v1/conversion.go): the sandbox stores the core form and
// renames fields when an events.k8s.io client reads or writes.

// [events.k8s.io name, core name]
const renames: readonly (readonly [string, string])[] = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
  ['reportingController', 'reportingComponent'],
];

function rename(o: Obj, from: 0 | 1, apiVersion: string): Obj {
  const to = from === 0 ? 1 : 0;
  const out: Obj = { ...o, apiVersion };
  for (const pair of renames) {
    const src = pair[from];
    const dst = pair[to];
    delete out[src];
    if (o[src] !== undefined) out[dst] = o[src];
  }
  return out;
}

/** An events.k8s.io/v1 Event in its stored (core/v1) form. */
export function eventToCore(o: Obj): Obj {
  return rename(o, 0, 'v1');
}

/** A stored (core/v1) Event as events.k8s.io/v1 shows it. */
export function eventFromCore(o: Obj): Obj {
  return rename(o, 1, 'events.k8s.io/v1');
}
