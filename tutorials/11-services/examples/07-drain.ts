// Chapter 11, seventh experiment: a drain meets a budget. The manager
// package's test environment runs the sandbox with two workers and
// kube-controller-manager's own `run()` with the Deployment, ReplicaSet and
// disruption controllers. The Deployment `web` runs four pods, two on each
// worker, under a PodDisruptionBudget of `minAvailable: 3`: one pod may be
// disrupted at a time. Then node-2 is drained as `kubectl drain` drains it
// (k8s.io/kubectl/pkg/drain): cordoned, then each of its pods evicted
// through the eviction API, an eviction answered 429 tried again every five
// seconds. The first eviction spends the budget; the second waits until the
// first pod's replacement is ready on node-3 and the disruption controller
// has counted it.
// Run: npm run drain -w tutorials/11-services
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { Status } from 'kubernetes-types/meta/v1.js';
import { informerResources } from '@kcm-ts/informer';
import {
  implementedControllers,
  startTestEnvironment,
  type TestEnvironment,
} from '@kcm-ts/manager';

/** The controllers this example runs. */
export const drainControllers = [
  'deployment-controller',
  'replicaset-controller',
  'disruption-controller',
];

/** One answer of the eviction API. */
export interface Eviction {
  pod: string;
  code: number;
  message: string;
  /** The cause's message, on a 429: what the budget needs and has. */
  cause: string;
}

/** What the experiment found, for its test. */
export interface DrainRun {
  /** The budget's status before the drain. */
  before: PodDisruptionBudget['status'];
  /** Every eviction the drain asked for, in order. */
  evictions: Eviction[];
  /** The DisruptionTarget condition the evicted pods were given. */
  disruptionTargets: string[];
  /** Ready pods at every moment of the drain: never fewer than minAvailable. */
  fewestReady: number;
  /** Where the pods run after the drain. */
  nodesAfter: string[];
  /** Seconds from the cordon to `drained`. */
  seconds: number;
  /** For the picture: each pod's node and times (ms since the cordon), in order of creation. */
  pods: {
    name: string;
    node: string;
    created?: number;
    ready?: number;
    deleting?: number;
    gone?: number;
  }[];
  /** For the picture: each eviction, when and how it was answered. */
  attempts: { t: number; pod: string; code: number }[];
  /** For the picture: the budget's disruptionsAllowed from the cordon on, as it changed. */
  allowed: { t: number; n: number }[];
  /** ms from the cordon to the end of the run. */
  end: number;
}

/** The Deployment `web`: four nginx pods. */
function webDeployment(): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 4,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
      },
    },
  };
}

//#region pdb
/** `kubectl create poddisruptionbudget web --selector=app=web --min-available=3` */
function webBudget(): PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'web' },
    spec: { selector: { matchLabels: { app: 'web' } }, minAvailable: 3 },
  };
}
//#endregion pdb

const isReady = (p: Pod): boolean =>
  !p.metadata?.deletionTimestamp &&
  (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** POST pods/NAME/eviction, as kubectl's `EvictPod` does. */
async function evict(env: TestEnvironment, pod: string): Promise<Eviction> {
  const res = await fetch(`${env.sandbox.url}/api/v1/namespaces/default/pods/${pod}/eviction`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${env.sandbox.token}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: pod, namespace: 'default' },
    }),
  });
  const status = (await res.json()) as Status;
  return {
    pod,
    code: res.status,
    message: status.message ?? '',
    cause: status.details?.causes?.[0]?.message ?? '',
  };
}

/** A drain of a deployment's pods, and its budget, on a fake clock. */
export async function run(log: (line: string) => void = console.log): Promise<DrainRun> {
  const env = await startTestEnvironment({ nodes: 3, tick: 100, finishNamespaces: false });
  const clock = env.clock;
  let start = clock.now();
  const at = (): string => `t=${((clock.now() - start) / 1000).toFixed(1).padStart(5)}s`;
  // Pod names with their random suffixes shown as letters, in order of creation.
  const names = new Map<string, string>();
  const mask = (name: string): string => names.get(name) ?? name;
  const timeline: string[] = [];
  const disruptionTargets: string[] = [];
  let watching = false;
  const since = (): number => clock.now() - start;
  const podTimes = new Map<string, DrainRun['pods'][number]>();
  const allowed: DrainRun['allowed'] = [];
  const unsubscribe = env.sandbox.registry.storage.subscribe((e) => {
    const meta = e.object.metadata;
    if (e.storage === 'pods') {
      const pod = e.object as Pod;
      const prev = e.prev as Pod | undefined;
      const name = meta?.name ?? '';
      if (!names.has(name)) names.set(name, `web-${String.fromCharCode(97 + names.size)}`);
      if (!watching) return;
      const times = podTimes.get(mask(name)) ?? { name: mask(name), node: '', created: since() };
      podTimes.set(mask(name), times);
      if (pod.spec?.nodeName) times.node = pod.spec.nodeName;
      if (isReady(pod) && times.ready === undefined) times.ready = since();
      if (pod.metadata?.deletionTimestamp && times.deleting === undefined) times.deleting = since();
      if (e.type === 'DELETED') times.gone = since();
      const cond = (pod.status?.conditions ?? []).find((c) => c.type === 'DisruptionTarget');
      const had = (prev?.status?.conditions ?? []).some((c) => c.type === 'DisruptionTarget');
      const n = mask(name);
      if (e.type === 'ADDED') timeline.push(`${at()}    pod ${n} created`);
      else if (e.type === 'DELETED') timeline.push(`${at()}    pod ${n} gone`);
      else if (cond && !had) {
        const c = `${cond.type} ${cond.status} ${cond.reason ?? ''}: ${cond.message ?? ''}`;
        disruptionTargets.push(c);
        timeline.push(`${at()}    pod ${n}: condition ${c}`);
      } else if (isReady(pod) && !(prev && isReady(prev))) {
        timeline.push(`${at()}    pod ${n} ready on ${pod.spec?.nodeName ?? ''}`);
      }
    }
    if (e.storage === 'poddisruptionbudgets.policy' && watching) {
      const s = (e.object as PodDisruptionBudget).status;
      const p = (e.prev as PodDisruptionBudget | undefined)?.status;
      if (
        s?.disruptionsAllowed === p?.disruptionsAllowed &&
        s?.currentHealthy === p?.currentHealthy
      )
        return;
      allowed.push({ t: since(), n: s?.disruptionsAllowed ?? 0 });
      timeline.push(
        `${at()}    pdb web: expected ${s?.expectedPods ?? 0}, healthy ${s?.currentHealthy ?? 0}, desired ${s?.desiredHealthy ?? 0}, allowed ${s?.disruptionsAllowed ?? 0}`,
      );
    }
  });
  const flush = (): void => {
    for (const l of timeline.splice(0)) log(l);
  };
  const manager = env.runManager({
    controllers: implementedControllers,
    configure: (config) => {
      config.generic.controllers = drainControllers;
    },
  });
  try {
    await env.until(() => manager.started() !== undefined);
    const pods = env.client<Pod>(informerResources.pods, 'default');
    const nodes = env.client<Node>(informerResources.nodes);
    const pdbs = env.client<PodDisruptionBudget>(informerResources.podDisruptionBudgets, 'default');
    const deployments = env.client<Deployment>(informerResources.deployments, 'default');
    const live = async (): Promise<Pod[]> =>
      (await pods.list()).items.sort((a, b) =>
        mask(a.metadata?.name ?? '').localeCompare(mask(b.metadata?.name ?? '')),
      );

    await deployments.create(webDeployment());
    await env.until(async () => (await live()).filter(isReady).length === 4);
    await pdbs.create(webBudget());
    await env.until(async () => (await pdbs.get('web')).status?.disruptionsAllowed === 1);
    const before = (await pdbs.get('web')).status;
    log('kubectl create deployment web --image=nginx:1.27 --replicas=4');
    for (const p of await live())
      log(`  pod ${mask(p.metadata?.name ?? '')} on ${p.spec?.nodeName ?? ''}`);
    log('kubectl create poddisruptionbudget web --selector=app=web --min-available=3');
    log(
      `  status: expectedPods ${before?.expectedPods}, currentHealthy ${before?.currentHealthy}, desiredHealthy ${before?.desiredHealthy}, disruptionsAllowed ${before?.disruptionsAllowed}`,
    );
    log('');

    const rest = clock.now() % 1000;
    if (rest !== 0) await env.step(1000 - rest);
    start = clock.now();
    watching = true;
    for (const p of await live()) {
      const name = mask(p.metadata?.name ?? '');
      podTimes.set(name, { name, node: p.spec?.nodeName ?? '', ready: 0 });
    }
    allowed.push({ t: 0, n: before?.disruptionsAllowed ?? 0 });
    const attempts: DrainRun['attempts'] = [];
    let fewestReady = 4;
    const evictions: Eviction[] = [];
    // Each answer of the eviction API, kept for the test and the picture.
    const record = (answer: Eviction): Eviction => {
      evictions.push({ ...answer, pod: mask(answer.pod) });
      attempts.push({ t: since(), pod: mask(answer.pod), code: answer.code });
      return answer;
    };
    const out = (line: string): void => {
      flush();
      log(`${at()}  ${line}`);
    };

    //#region drain
    log('kubectl drain node-2 --ignore-daemonsets --delete-emptydir-data');
    // Cordon: no new pod lands on the node (RunCordonOrUncordon).
    await nodes.patch('node-2', { type: 'strategic', body: { spec: { unschedulable: true } } });
    out('node/node-2 cordoned');
    // The pods to evict (GetPodsForDeletion): here, the Deployment's two on node-2.
    const victims = (await live()).filter((p) => p.spec?.nodeName === 'node-2');
    // One loop per pod, all at once (evictPods): 429 means try again in 5 s.
    const evictOne = async (pod: Pod): Promise<void> => {
      const name = pod.metadata?.name ?? '';
      for (;;) {
        out(`evicting pod default/${mask(name)}`);
        const answer = record(await evict(env, name));
        if (answer.code === 201 || answer.code === 404) break;
        if (answer.code !== 429) throw new Error(`eviction of ${name}: ${answer.message}`);
        out(
          `error when evicting pods/"${mask(name)}" -n "default" (will retry after 5s): ${answer.message}`,
        );
        await clock.sleep(5000);
      }
      // Then wait for the pod to be gone (waitForDelete).
      while (await pods.get(name).catch(() => undefined)) await clock.sleep(1000);
      out(`pod/${mask(name)} evicted`);
    };
    const drained = Promise.all(victims.map(evictOne));
    let done = false;
    void drained.then(() => (done = true));
    await env.until(async () => {
      fewestReady = Math.min(fewestReady, (await live()).filter(isReady).length);
      return done;
    });
    await drained;
    out('node/node-2 drained');
    //#endregion drain
    const seconds = (clock.now() - start) / 1000;
    await env.step(3000);
    flush();
    const nodesAfter = (await live()).map((p) => p.spec?.nodeName ?? '');
    log('');
    log('kubectl get pods -o wide');
    for (const p of await live())
      log(`  pod ${mask(p.metadata?.name ?? '')} on ${p.spec?.nodeName ?? ''}`);
    log('kubectl uncordon node-2');
    await nodes.patch('node-2', { type: 'strategic', body: { spec: { unschedulable: false } } });
    log(`  node-2 schedulable again: ${String(!(await nodes.get('node-2')).spec?.unschedulable)}`);
    return {
      before,
      evictions,
      disruptionTargets,
      fewestReady,
      nodesAfter,
      seconds,
      pods: [...podTimes.values()],
      attempts,
      allowed,
      end: since(),
    };
  } finally {
    unsubscribe();
    await manager.stop();
    await env.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
