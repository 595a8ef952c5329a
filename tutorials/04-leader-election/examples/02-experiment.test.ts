import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { expect, it } from 'vitest';
import { kubectlGetLease, run } from './02-experiment.js';

// Timings with room to spare: the machine may be busy running other tests.
const timings = { leaseDuration: 4_000, renewDeadline: 3_000, retryPeriod: 1_000 };

it(
  'a killed leader is replaced after its lease expires, a stopped one releases',
  { timeout: 300_000 },
  async () => {
    const lines: string[] = [];
    const seen: { holder: string | undefined; transitions: number | undefined; kubectl: string }[] =
      [];
    const result = await run({
      timings,
      log: (line) => lines.push(line),
      onLeader: async (identity, sandbox, kubeconfig) => {
        const lease = await sandbox
          .client<Lease>('coordination.k8s.io', 'leases')
          .inNamespace('kube-system')
          .get('kcm-ts-course');
        const kubectl = await kubectlGetLease(kubeconfig);
        expect(kubectl.split('\n')[1]).toMatch(new RegExp(`^kcm-ts-course\\s+${identity}\\s`));
        seen.push({
          holder: lease.spec?.holderIdentity,
          transitions: lease.spec?.leaseTransitions,
          kubectl,
        });
      },
    });

    // Three different leaders, each the Lease's holder when it led.
    expect(new Set(result.leaders).size).toBe(3);
    expect(seen.map((s) => s.holder)).toEqual(result.leaders);
    const transitions = seen.map((s) => s.transitions ?? -1);
    expect(transitions[0]).toBe(0);
    expect(transitions[1]).toBeGreaterThan(transitions[0]!);
    expect(transitions[2]).toBeGreaterThan(transitions[1]!);

    const [killed, stopped, last] = result.leaders as [string, string, string];
    const said = (who: string) =>
      lines.filter((l) => l.startsWith(`[${who}] `)).map((l) => l.slice(who.length + 3));
    // SIGKILL leaves no chance to stop or release.
    expect(said(killed)).not.toContain('stopped leading');
    // SIGTERM: the work stops first, then leadership, then the process.
    const s = said(stopped);
    expect(s.indexOf('stop working')).toBeGreaterThan(s.indexOf('leading'));
    expect(s.indexOf('stopped leading')).toBeGreaterThan(s.indexOf('stop working'));
    expect(s.indexOf('exited')).toBeGreaterThan(s.indexOf('stopped leading'));
    // The last leader announces itself, and is the one left running at the end.
    expect(said(last)).toContain(`the leader is ${last}`);
    expect(lines.at(-1)).toBe(`[${last}] exited`);
  },
);
