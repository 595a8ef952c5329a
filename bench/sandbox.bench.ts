// How many writes a second does the sandbox API server take, how long does
// one wait, and how fast does it fan the changes out to its watchers?
//
// The server runs as users run it, `kcm-ts-sandbox`, in a process of its
// own (plain HTTP on 127.0.0.1, no nodes); this process is only the load.
// For each case it opens W watches on one namespace's ConfigMaps (each
// read as bytes, counting lines, as cheap a reader as there is), then
// creates N ConfigMaps of about 1 KiB there, C requests in flight over
// keep-alive connections, timing each one. Figures per case:
//   - writes/s: N over the time from the first write sent to the last
//     answered;
//   - p50 and p99 of the write latencies;
//   - fan-out events/s: N × W over the time from the first write sent to
//     the last event read by the last watcher.
// Cases: 2 and 200 watchers, in memory (`--ephemeral`) and durable
// (`--data-dir`, SQLite), each from a fresh server.
//
// Run: npm run bench:sandbox -w bench
//   BENCH_WRITES (default 4000), BENCH_INFLIGHT (default 16),
//   BENCH_SANDBOX_CLI (another kcm-ts-sandbox source to measure, to compare two builds),
//   BENCH_SERVER_NODE_ARGS (node flags for the server, such as --cpu-prof),
//   BENCH_CASES (say `memory:200` to run one case).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const writes = Number(process.env.BENCH_WRITES ?? 4_000);
const inFlight = Number(process.env.BENCH_INFLIGHT ?? 16);
const cli =
  process.env.BENCH_SANDBOX_CLI ??
  fileURLToPath(new URL('../packages/sandbox/src/cli.ts', import.meta.url));
const tsx = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

interface Server {
  child: ChildProcess;
  url: string;
  token: string;
  dir: string;
}

/** Starts `kcm-ts-sandbox` in memory, or keeping its state in a fresh data directory. */
async function startServer(durable: boolean): Promise<Server> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kcm-ts-bench-sandbox-'));
  const args = ['--port', '0', '--nodes', '0', '--insecure-http'];
  args.push('--kubeconfig-out', path.join(dir, 'kubeconfig'));
  if (durable) args.push('--data-dir', path.join(dir, 'data'));
  else if (!process.env.BENCH_SANDBOX_CLI) args.push('--ephemeral');
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [...nodeArgs, '--import', tsx, '--conditions=@kcm-ts/source', cli, ...args],
    {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const found = /ready at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', (code) =>
      reject(new Error(`kcm-ts-sandbox exited ${String(code)}: ${out}`)),
    );
  });
  const token = /token: (\S+)/.exec(readFileSync(path.join(dir, 'kubeconfig'), 'utf8'))?.[1] ?? '';
  return { child, url, token, dir };
}

async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
  rmSync(server.dir, { recursive: true, force: true });
}

const agent = new Agent({ keepAlive: true, maxSockets: inFlight });

/** One request; resolves with the status and body once the answer is read. */
function call(
  server: Server,
  method: string,
  urlPath: string,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${urlPath}`,
      {
        method,
        agent,
        headers: {
          Authorization: `Bearer ${server.token}`,
          'Content-Type': 'application/json',
          ...(body ? { 'Content-Length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Watcher {
  lines: number;
  close: () => void;
}

/** A watch read as bytes: it counts the lines (events) and parses none. */
function openWatch(server: Server, ns: string, rv: string, onLine: () => void): Promise<Watcher> {
  return new Promise((resolve, reject) => {
    const w: Watcher = { lines: 0, close: () => undefined };
    const req = request(
      `${server.url}/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}&timeoutSeconds=3600`,
      { headers: { Authorization: `Bearer ${server.token}` } },
      (res) => {
        res.on('data', (chunk: Buffer) => {
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
            w.lines++;
            onLine();
          }
        });
        res.on('error', () => undefined);
        resolve(w);
      },
    );
    w.close = () => req.destroy();
    req.on('error', (err) => {
      if (w.lines === 0) reject(err);
    });
    req.end();
  });
}

/** CPU seconds the server process has used (Linux: utime + stime from /proc). */
function serverCpuSeconds(server: Server): number {
  try {
    const stat = readFileSync(`/proc/${server.child.pid ?? 0}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

interface Result {
  watchers: number;
  writesPerSecond: number;
  p50: number;
  p99: number;
  eventsPerSecond: number;
  /** Server CPU time per write, in microseconds, fan-out included. */
  cpuPerWrite: number;
  /** The share of one core the server and this (client) process used. */
  serverBusy: number;
  clientBusy: number;
}

async function runCase(server: Server, watchers: number, count = writes): Promise<Result> {
  const ns = `bench-${watchers}-${count}`;
  const made = await call(
    server,
    'POST',
    '/api/v1/namespaces',
    JSON.stringify({ metadata: { name: ns } }),
  );
  if (made.status !== 201) throw new Error(`namespace: ${made.status} ${made.body}`);
  const rv = (JSON.parse(made.body) as { metadata: { resourceVersion: string } }).metadata
    .resourceVersion;

  let seen = 0;
  let allSeen: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allSeen = resolve));
  const expected = watchers * count;
  const onLine = (): void => {
    if (++seen === expected) allSeen();
  };
  const open = await Promise.all(
    Array.from({ length: watchers }, () => openWatch(server, ns, rv, onLine)),
  );

  const payload = 'x'.repeat(1_000);
  const latencies: number[] = [];
  let next = 0;
  const cpu0 = serverCpuSeconds(server);
  const client0 = process.cpuUsage();
  const start = performance.now();
  const writer = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      const body = JSON.stringify({ metadata: { name: `cm-${i}` }, data: { payload } });
      const t0 = performance.now();
      const res = await call(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, body);
      latencies.push(performance.now() - t0);
      if (res.status !== 201) throw new Error(`create: ${res.status} ${res.body}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, writer));
  const written = performance.now() - start;
  await done;
  const fannedOut = performance.now() - start;
  const cpu = serverCpuSeconds(server) - cpu0;
  const client = process.cpuUsage(client0);
  for (const w of open) w.close();
  latencies.sort((a, b) => a - b);
  return {
    watchers,
    writesPerSecond: count / (written / 1000),
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    eventsPerSecond: expected / (fannedOut / 1000),
    cpuPerWrite: (cpu * 1e6) / count,
    serverBusy: cpu / (fannedOut / 1000),
    clientBusy: (client.user + client.system) / 1e3 / fannedOut,
  };
}

const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main(): Promise<void> {
  console.log(
    `sandbox bench: ${fmt(writes)} ConfigMap creates of ~1 KiB per case, ${inFlight} in flight, plain HTTP; server ${path.relative(process.cwd(), cli)}\n`,
  );
  console.log(
    '| storage | watchers | writes/s | p50 write | p99 write | fan-out events/s | server CPU per write | server busy | client busy |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const only = process.env.BENCH_CASES?.split(',');
  for (const durable of [false, true]) {
    for (const watchers of [2, 200]) {
      if (only && !only.includes(`${durable ? 'sqlite' : 'memory'}:${watchers}`)) continue;
      const server = await startServer(durable);
      try {
        // A first round warms the server up (JIT), and is not counted.
        await runCase(server, 2, Math.min(writes, 1_000));
        const r = await runCase(server, watchers);
        console.log(
          `| ${durable ? 'SQLite (--data-dir)' : 'memory'} | ${watchers} | ${fmt(r.writesPerSecond)} | ${fmt(r.p50, 2)} ms | ${fmt(r.p99, 2)} ms | ${fmt(r.eventsPerSecond)} | ${fmt(r.cpuPerWrite)} µs | ${fmt(r.serverBusy * 100)}% | ${fmt(r.clientBusy * 100)}% |`,
        );
      } finally {
        await stopServer(server);
      }
    }
    if (process.env.BENCH_SANDBOX_CLI) break; // another build may have no --data-dir
  }
  agent.destroy();
}

await main();
