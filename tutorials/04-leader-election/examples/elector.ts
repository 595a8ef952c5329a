// One candidate for leadership, as one replica of a controller manager runs
// it: it competes for a Lease in the cluster its kubeconfig points at, prints
// what happens, and releases the Lease when told to stop (SIGTERM, SIGINT).
//
//   npm run elector -w tutorials/04-leader-election -- --kubeconfig .kcm-ts/kubeconfig --identity replica-1
//
// The flags are kube-controller-manager's: --leader-elect-lease-duration,
// --leader-elect-renew-deadline and --leader-elect-retry-period take Go
// durations such as 15s or 500ms (defaults 15s, 10s, 2s).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseDuration } from '@kcm-ts/apimachinery';
import { createClient } from '@kcm-ts/client';
import { LeaseLock, LeaderElector } from '@kcm-ts/leader-election';

/** A flag's Go duration in milliseconds, or pflag's error naming the flag. */
function durationFlag(flag: string, text: string): number {
  try {
    return parseDuration(text);
  } catch (err) {
    throw new Error(`invalid argument "${text}" for "--${flag}" flag: ${(err as Error).message}`);
  }
}

function parseFlags(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      kubeconfig: { type: 'string' },
      identity: { type: 'string', default: `candidate-${process.pid}` },
      'leader-elect-lease-duration': { type: 'string', default: '15s' },
      'leader-elect-renew-deadline': { type: 'string', default: '10s' },
      'leader-elect-retry-period': { type: 'string', default: '2s' },
      'leader-elect-resource-name': { type: 'string', default: 'kcm-ts-course' },
      'leader-elect-resource-namespace': { type: 'string', default: 'kube-system' },
    },
  });
  const duration = (flag: keyof typeof values & `leader-elect-${string}`) =>
    durationFlag(flag, values[flag]);
  return {
    // A relative path is relative to where npm was run, not to this workspace.
    kubeconfig:
      values.kubeconfig === undefined
        ? undefined
        : path.resolve(process.env.INIT_CWD ?? process.cwd(), values.kubeconfig),
    identity: values.identity,
    leaseDuration: duration('leader-elect-lease-duration'),
    renewDeadline: duration('leader-elect-renew-deadline'),
    retryPeriod: duration('leader-elect-retry-period'),
    name: values['leader-elect-resource-name'],
    namespace: values['leader-elect-resource-namespace'],
  };
}

/** Runs one candidate until SIGTERM or SIGINT, printing each step. */
export async function main(argv: string[]): Promise<void> {
  const flags = parseFlags(argv);
  const say = (line: string): void => {
    process.stdout.write(`${new Date().toISOString()} ${flags.identity}: ${line}\n`);
  };

  //#region elector
  const client = createClient(flags.kubeconfig); // default: $KUBECONFIG or ~/.kube/config
  const lock = new LeaseLock({
    namespace: flags.namespace,
    name: flags.name,
    client: client.leases,
    lockConfig: { identity: flags.identity },
  });
  const elector = new LeaderElector({
    lock,
    leaseDuration: flags.leaseDuration,
    renewDeadline: flags.renewDeadline,
    retryPeriod: flags.retryPeriod,
    releaseOnCancel: true, // on a clean shutdown, hand over at once
    callbacks: {
      onStartedLeading: (leading) => {
        say('leading'); // a controller manager starts its controllers here...
        leading.addEventListener('abort', () => say('stop working')); // ...and stops them here
      },
      onStoppedLeading: () => say('stopped leading'),
      onNewLeader: (leader) => say(`the leader is ${leader}`),
    },
  });

  const shutdown = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => shutdown.abort());
  }
  await elector.run(shutdown.signal);
  //#endregion elector
  say('exited');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    await main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`elector: ${(err as Error).message}\n`);
    process.exitCode = 2;
  }
}
