// The transcript of the examples: each change the API server committed to a
// pod, a claim, a volume or a ControllerRevision, said in one line as
// `t= 2.0s  + pod web-1 created`, with the moments that matter for the
// chapter (created, scheduled, ready, deleting, gone; a claim bound; a
// revision made or renumbered). Status writes and the rest are left out.
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { isReady, nodeOf, type Change, type Cluster } from './cluster.js';

/** The line for one change, or undefined when it is not worth a line. */
export function describe(c: Cluster, ch: Change): string | undefined {
  const name = c.mask(ch.object.metadata?.name);
  if (ch.kind === 'Pod') {
    const pod = ch.object as Pod;
    const prev = ch.prev as Pod | undefined;
    const image = pod.spec?.containers[0]?.image ?? '';
    if (ch.type === 'ADDED') {
      // A DaemonSet's pod names its node from the start; others wait for the scheduler.
      const pinned = nodeOf(pod) === '?' ? '' : ` for ${nodeOf(pod)}`;
      return `+ pod ${name}${pinned}, ${image}`;
    }
    if (ch.type === 'DELETED') return `- pod ${name} on ${nodeOf(pod)} gone`;
    if (pod.metadata?.deletionTimestamp && !prev?.metadata?.deletionTimestamp) {
      return `  pod ${name} on ${nodeOf(pod)} deleting`;
    }
    if (pod.spec?.nodeName && !prev?.spec?.nodeName) {
      return `  pod ${name} scheduled to ${pod.spec.nodeName}`;
    }
    if (isReady(pod) && !isReady(prev)) return `  pod ${name} on ${nodeOf(pod)} ready`;
    return undefined;
  }
  if (ch.kind === 'PVC') {
    const claim = ch.object as PersistentVolumeClaim;
    const prev = ch.prev as PersistentVolumeClaim | undefined;
    if (ch.type === 'ADDED') return `+ claim ${name} ${claim.status?.phase ?? 'Pending'}`;
    if (ch.type === 'DELETED') return `- claim ${name} gone`;
    if (claim.status?.phase === 'Bound' && prev?.status?.phase !== 'Bound') {
      return `  claim ${name} Bound to ${c.mask(claim.spec?.volumeName)}`;
    }
    return undefined;
  }
  if (ch.kind === 'PV') {
    const pv = ch.object as PersistentVolume;
    if (ch.type !== 'ADDED') return undefined;
    const node =
      pv.spec?.nodeAffinity?.required?.nodeSelectorTerms[0]?.matchExpressions?.[0]?.values?.[0];
    return `+ volume ${name} on ${node ?? '?'} for ${pv.spec?.claimRef?.name ?? '?'}`;
  }
  if (ch.kind === 'ControllerRevision') {
    const r = ch.object as ControllerRevision;
    const prev = ch.prev as ControllerRevision | undefined;
    if (ch.type === 'ADDED') return `+ revision ${name} (revision ${r.revision})`;
    if (ch.type === 'DELETED') return `- revision ${name} gone`;
    if (prev !== undefined && prev.revision !== r.revision) {
      return `  revision ${name} renumbered ${prev.revision} -> ${r.revision}`;
    }
    return undefined;
  }
  return undefined;
}

/** The lines of the changes since `from` (an index into `c.changes`), with their times. */
export function lines(c: Cluster, from = 0): string[] {
  const out: string[] = [];
  for (const ch of c.changes.slice(from)) {
    const line = describe(c, ch);
    if (line !== undefined) out.push(`${c.at(ch.t)}  ${line}`);
  }
  return out;
}
