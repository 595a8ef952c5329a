// Chapter 6, first experiment: apply the walkthrough's nginx Deployment and
// look at what the two controllers made of it. Labels and selectors say which
// objects belong together; ownerReferences say who manages whom; the
// pod-template-hash keeps one template's pods apart from another's.
// Run: npm run ownership -w tutorials/06-deployment
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { LabelSelector, OwnerReference } from 'kubernetes-types/meta/v1.js';
import { computeHash } from '@kcm-ts/controller';
import { rolledOut, startCluster } from './cluster.js';
import { nginxDeployment } from './manifests.js';

/** What the experiment found, for its test. */
export interface Ownership {
  deployment: Deployment;
  replicaSets: ReplicaSet[];
  pods: Pod[];
  /** The hash computed here from the Deployment's template. */
  hash: string;
  /** The same template's hash with `status.collisionCount` 1. */
  hashAfterCollision: string;
}

const labels = (m: Record<string, string> | undefined): string =>
  Object.entries(m ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
const selector = (s: LabelSelector | undefined): string => labels(s?.matchLabels);
const owner = (ref: OwnerReference | undefined, uid: string | undefined): string =>
  ref === undefined
    ? 'none'
    : `${ref.kind} ${ref.name} (controller: ${ref.controller}, blockOwnerDeletion: ${ref.blockOwnerDeletion}, uid ${ref.uid === uid ? 'matches' : 'differs'})`;

/** Runs the experiment, printing the three levels of objects. */
export async function run(log: (line: string) => void = console.log): Promise<Ownership> {
  const c = await startCluster();
  try {
    await c.deployments.create(nginxDeployment());
    await c.until(() => rolledOut(c, 'nginx-deployment'));

    const deployment = await c.deployments.get('nginx-deployment');
    const replicaSets = (await c.replicaSets.list()).items;
    const pods = (await c.pods.list()).items;
    const rs = replicaSets[0]!;

    //#region hash
    // The hash is computed over the Deployment's template, before the label is added.
    const hash = computeHash(deployment.spec!.template, deployment.status?.collisionCount);
    const hashAfterCollision = computeHash(deployment.spec!.template, 1);
    //#endregion hash

    log(`Deployment ${deployment.metadata?.name}`);
    log(`  selector:    ${selector(deployment.spec?.selector)}`);
    log(`  annotations: ${labels(deployment.metadata?.annotations)}`);
    log(`ReplicaSet ${rs.metadata?.name} (${rs.spec?.replicas} replicas)`);
    log(`  labels:      ${labels(rs.metadata?.labels)}`);
    log(`  selector:    ${selector(rs.spec?.selector)}`);
    log(`  owner:       ${owner(rs.metadata?.ownerReferences?.[0], deployment.metadata?.uid)}`);
    log(`  annotations: ${labels(rs.metadata?.annotations)}`);
    for (const pod of pods) {
      // The last five characters are random (generateName): shown as xxxxx.
      log(`Pod ${pod.metadata?.name?.replace(/-[a-z0-9]{5}$/, '-xxxxx')}`);
      log(`  labels:      ${labels(pod.metadata?.labels)}`);
      log(`  owner:       ${owner(pod.metadata?.ownerReferences?.[0], rs.metadata?.uid)}`);
    }
    log('');
    log(`pod-template-hash of the Deployment's template:   ${hash}`);
    log(`the same template with status.collisionCount = 1: ${hashAfterCollision}`);
    return { deployment, replicaSets, pods, hash, hashAfterCollision };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
