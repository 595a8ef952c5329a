// The idea behind every controller, with no Kubernetes around it: compare
// what is wanted with what is there, and act on the difference. This is the
// core of `manageReplicas` in pkg/controller/replicaset/replica_set.go, which
// chapter 5 builds for real.
import { pathToFileURL } from 'node:url';
import { realClock, type Clock } from '@kcm-ts/apimachinery';

export interface ExampleOptions {
  clock: Clock;
  log: (line: string) => void;
}

/** What the controller decides to do about one observation. */
export type Action = { create: number } | { delete: string[] } | 'nothing';

//#region reconcile
/**
 * Level-triggered: the decision depends only on the state observed now,
 * never on which events led to it. Run it twice on the same state and the
 * second run asks for nothing.
 */
export function reconcile(desired: number, pods: readonly string[]): Action {
  const diff = desired - pods.length;
  if (diff > 0) return { create: diff };
  if (diff < 0) return { delete: pods.slice(diff) }; // the newest ones go first
  return 'nothing';
}
//#endregion reconcile

/** A scripted world: someone edits the spec, something kills a pod. */
export async function run({ clock, log }: ExampleOptions): Promise<string[]> {
  const start = clock.now();
  let desired = 3;
  let pods: string[] = [];
  let nextPod = 1;

  //#region loop
  const observeAndAct = (why: string) => {
    const action = reconcile(desired, pods);
    if (typeof action === 'object' && 'create' in action) {
      for (let i = 0; i < action.create; i++) pods.push(`pod-${nextPod++}`);
    } else if (typeof action === 'object') {
      pods = pods.filter((pod) => !action.delete.includes(pod));
    }
    const t = String(Math.round(clock.since(start))).padStart(5);
    log(
      `${t}ms  ${why.padEnd(24)} desired=${desired}  → ${JSON.stringify(action)}  pods=[${pods.join(' ')}]`,
    );
  };
  //#endregion loop

  observeAndAct('controller starts');
  await clock.sleep(1000);
  pods.splice(1, 1);
  observeAndAct('a pod crashed');
  await clock.sleep(1000);
  desired = 2;
  observeAndAct('spec scaled down to 2');
  await clock.sleep(1000);
  observeAndAct('nothing changed');
  return pods;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run({ clock: realClock, log: (line) => console.log(line) });
}
