// The life of each pod of a run, read from the changes the API server
// committed: when it was created, became ready, started being deleted and
// was gone, with its node and image. The timelines are drawn from these.
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isReady, nodeOf, type Cluster } from './cluster.js';

/** One pod, from creation to its end (times in ms since the timer started). */
export interface PodLife {
  name: string;
  node: string;
  image: string;
  created: number;
  ready?: number;
  deleting?: number;
  gone?: number;
}

/** Every pod the run saw, in creation order. */
export function podLives(c: Cluster): PodLife[] {
  const byUid = new Map<string, PodLife>();
  for (const ch of c.changes) {
    if (ch.kind !== 'Pod') continue;
    const pod = ch.object as Pod;
    const uid = pod.metadata?.uid ?? '';
    let life = byUid.get(uid);
    if (life === undefined) {
      life = {
        name: c.mask(pod.metadata?.name),
        node: nodeOf(pod),
        image: pod.spec?.containers[0]?.image ?? '',
        created: ch.t,
      };
      byUid.set(uid, life);
    }
    life.node = nodeOf(pod);
    if (isReady(pod) && life.ready === undefined) life.ready = ch.t;
    if (pod.metadata?.deletionTimestamp && life.deleting === undefined) life.deleting = ch.t;
    if (ch.type === 'DELETED') life.gone = ch.t;
  }
  return [...byUid.values()];
}
