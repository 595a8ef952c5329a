// Chapter 5: one ReplicaSet of 3, followed from the informer event that
// announces it to its 3 Ready pods. The first sync is shown step by step; the
// rest one line per sync and per change the informer delivers.
// Run: npm run one-sync -w tutorials/05-replicaset
import type { ReplicaSetStatus } from 'kubernetes-types/apps/v1.js';
import { replicaSet, startLab, summarize, type Step } from './lab.js';
import { sequenceDiagram } from './sequence-svg.js';

const lanes = { api: 'API server', informer: 'informer', queue: 'workqueue', worker: 'worker' };

/** One step as a line: `t=0.100s  worker → API server  create pod ...`. */
export function showStep(s: Step): string {
  const who = s.from === s.to ? lanes[s.from] : `${lanes[s.from]} → ${lanes[s.to]}`;
  return `t=${(s.t / 1000).toFixed(3)}s  ${who.padEnd(22)} ${s.text}`;
}

/** What the run saw. */
export interface OneSync {
  /** The steps of the first sync, from the ReplicaSet's ADDED event to the worker's `done`. */
  firstSync: Step[];
  /** Every step. */
  steps: Step[];
  /** The ReplicaSet's status at the end. */
  status: ReplicaSetStatus | undefined;
  /** Pod creates sent, and syncs run. */
  creates: number;
  syncs: number;
  /** The events the controller recorded. */
  events: string[];
  /** The diagram of the first sync, as SVG. */
  svg: string;
}

/** Creates a ReplicaSet of 3 and follows the controller until its pods are ready. */
export async function run(log: (line: string) => void = console.log): Promise<OneSync> {
  const lab = await startLab({ trace: true });
  try {
    //#region scenario
    await lab.replicaSets.create(replicaSet('web', 3)); // what `kubectl apply` sends
    await lab.until(async () => (await lab.get('web')).status?.readyReplicas === 3);
    await lab.step(1000); // nothing more happens
    //#endregion scenario
    const steps = lab.steps.map((s) => ({ ...s, text: lab.alias(s.text) }));
    const end = steps.findIndex((s) => s.from === 'worker' && s.to === 'queue') + 1;
    const firstSync = steps.slice(0, end);
    log('--- the first sync, step by step ---');
    for (const s of firstSync) log(showStep(s));
    log('--- then, one line per sync ---');
    for (const line of summarize(steps.slice(end), 2)) log(line);
    const status = (await lab.get('web')).status;
    log(`status: ${JSON.stringify(status)}`);
    return {
      firstSync,
      steps,
      status,
      creates: lab.creates,
      syncs: lab.syncs,
      events: lab.events,
      svg: sequenceDiagram(
        firstSync,
        'One sync of ReplicaSet default/web (3 replicas, no pods yet)',
      ),
    };
  } finally {
    await lab.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
