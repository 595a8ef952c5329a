// How long does a hand-over take, against the bound the timings promise?
//
// Each round is chapter 4's experiment (tutorials/04-leader-election,
// examples/02-experiment.ts): three candidate processes against one sandbox;
// the leader is killed with SIGKILL, and the time until another candidate
// leads is measured; then that one is stopped with SIGTERM (it releases its
// Lease) and the time until the last one leads is measured.
// Each figure is reported as a ratio to its bound:
//   - after SIGKILL: leaseDuration + retryPeriod (the Lease must expire, by
//     the follower's own clock, then the follower must try again);
//   - after a release: retryPeriod (the follower's next try finds an empty
//     holder and takes it at once).
// Followers retry after a jittered wait of 1 to 2.2 retry periods, and the
// expiry is counted from when a follower last saw the Lease change, so single
// rounds land on either side of 1; the mean over rounds is the figure.
import { run, type Timings } from 'tutorial-04-leader-election/examples/02-experiment.js';

const configs: { name: string; timings: Timings; rounds: number }[] = [
  {
    name: 'kube-controller-manager defaults (15s/10s/2s)',
    timings: { leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 2_000 },
    rounds: Number(process.env.DEFAULT_ROUNDS ?? 3),
  },
  {
    name: 'fast (2s/1.5s/0.5s)',
    timings: { leaseDuration: 2_000, renewDeadline: 1_500, retryPeriod: 500 },
    rounds: Number(process.env.FAST_ROUNDS ?? 8),
  },
];

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const fmt = (xs: number[]): string =>
  `mean ${(mean(xs) / 1000).toFixed(2)} s (min ${(Math.min(...xs) / 1000).toFixed(2)}, max ${(Math.max(...xs) / 1000).toFixed(2)})`;

const rows: string[] = [];
for (const { name, timings, rounds } of configs) {
  const kills: number[] = [];
  const releases: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const r = await run({ timings, log: () => {} });
    kills.push(r.afterKill);
    releases.push(r.afterRelease);
    process.stderr.write(
      `${name}: round ${i + 1}/${rounds} kill ${r.afterKill} ms, release ${r.afterRelease} ms\n`,
    );
  }
  const killBound = timings.leaseDuration + timings.retryPeriod;
  const releaseBound = timings.retryPeriod;
  rows.push(
    `| ${name} | SIGKILL | ${fmt(kills)} | ${(killBound / 1000).toFixed(1)} s | ${(mean(kills) / killBound).toFixed(2)} |`,
    `| ${name} | release | ${fmt(releases)} | ${(releaseBound / 1000).toFixed(1)} s | ${(mean(releases) / releaseBound).toFixed(2)} |`,
  );
}
console.log('| timings | leader stopped by | failover | bound | ratio |');
console.log('|---|---|---|---|---|');
for (const row of rows) console.log(row);
