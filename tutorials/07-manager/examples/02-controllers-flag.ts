// Chapter 7, second experiment: what `--controllers` turns on. Each list is
// parsed as kcm-ts parses its command line (kube-controller-manager's flag
// and validation), decided controller by controller with the registry's
// `isControllerEnabled`, and then given to a real `run()` to see which
// controllers it starts.
// Run: npm run controllers -w tutorials/07-manager
import {
  FlagError,
  completeOptions,
  controllerAliases,
  controllerManagerFlags,
  controllersDisabledByDefault,
  isControllerEnabled,
  parseFlags,
} from '@kcm-ts/manager';
import { startCluster, startManager } from './cluster.js';

/** The lists the example tries, as typed after `--controllers=`. */
export const lists = [
  '*',
  '*,-garbagecollector',
  'replicaset,deployment',
  '*,bootstrapsigner',
  '-replicaset,*,replicaset',
  'replicaset-controller,-deployment',
  'replicaset,nosuchcontroller',
];

/**
 * The controllers shown as columns: the four of chapters 5 to 7, and one that
 * is off by default. The `started` column lists every controller `run()`
 * started: the batch ones of chapter 9, the DaemonSet and StatefulSet ones of
 * chapter 10, and the pod garbage collector, node lifecycle, taint eviction
 * and volume protection controllers too.
 */
export const columns = [
  'namespace-controller',
  'garbage-collector-controller',
  'deployment-controller',
  'replicaset-controller',
  'bootstrap-signer-controller',
];

/** What one list gave. */
export interface Outcome {
  flag: string;
  /** The list as the completed configuration holds it (aliases resolved). */
  canonical?: string[];
  /** `isControllerEnabled` for each of {@link columns}. */
  enabled?: boolean[];
  /** What `run()` started with that list. */
  started?: readonly string[];
  /** The command line's error, for a list it refuses. */
  error?: string;
}

/** Runs the experiment, printing one row per list. */
export async function run(log: (line: string) => void = console.log): Promise<Outcome[]> {
  const c = await startCluster();
  const outcomes: Outcome[] = [];
  try {
    for (const list of lists) {
      const flag = `--controllers=${list}`;
      //#region decide
      let config;
      try {
        config = completeOptions(parseFlags([flag], controllerManagerFlags).values).config;
      } catch (err) {
        if (!(err instanceof FlagError)) throw err;
        outcomes.push({ flag, error: err.message });
        continue;
      }
      const canonical = config.generic.controllers;
      const off = new Set(controllersDisabledByDefault());
      const enabled = columns.map((name) => isControllerEnabled(name, off, canonical));
      //#endregion decide

      const manager = startManager(c, { configure: (cfg) => (cfg.generic = config.generic) });
      await c.until(() => manager.started() !== undefined);
      await manager.stop();
      outcomes.push({ flag, canonical, enabled, started: manager.started() ?? [] });
    }
  } finally {
    await c.stop();
  }

  // Shown by their short names, the aliases `--controllers` also accepts.
  const alias = new Map([...controllerAliases()].map(([a, name]) => [name, a]));
  const short = (name: string) => alias.get(name) ?? name;
  const width = Math.max(...outcomes.map((o) => o.flag.length)) + 2;
  const widths = columns.map((n) => short(n).length + 2);
  log(`${''.padEnd(width)}${columns.map((n, i) => short(n).padEnd(widths[i]!)).join('')}started`);
  for (const o of outcomes) {
    if (o.error !== undefined) {
      log(`${o.flag.padEnd(width)}error: ${o.error}`);
      continue;
    }
    const cells = o.enabled!.map((on, i) => (on ? 'on' : '-').padEnd(widths[i]!)).join('');
    log(`${o.flag.padEnd(width)}${cells}${o.started!.map(short).join(', ') || '(none)'}`);
  }
  return outcomes;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
