// Can one client stall the sandbox API server for the others? A normal
// client's latency while another sends the worst it is allowed to.
//
// The server runs as users run it, `kcm-ts-sandbox`, in a process of its own
// (plain HTTP on 127.0.0.1, no nodes, 10,000 ConfigMaps of about 100 bytes);
// this process is the load. Each phase runs for BENCH_PHASE_MS while a normal
// client sends one request at a time and its latencies are kept:
//   - idle: nothing else;
//   - selector: three requests at a time list the ConfigMaps with the
//     longest label selector a 1 MiB request head allows (`!k0,!k1,...`,
//     about 90,000 terms, all true);
//   - table: three requests at a time list all 10,000 as a Table;
//   - stalled: 400 writes of the admin that send their head and stall their
//     body, while the normal client is the controller manager renewing its
//     Lease (GET + PUT, as the leader elector does).
// Figures per phase: the normal client's requests, p50, p99 and max in ms,
// and p99 over idle's p99. In the stalled phase also the admin's own GETs:
// how many got 429.
//
// Run: npm run bench:fairness -w bench
//   BENCH_OBJECTS (default 10000), BENCH_PHASE_MS (default 6000).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const objects = Number(process.env.BENCH_OBJECTS ?? 10_000);
const phaseMs = Number(process.env.BENCH_PHASE_MS ?? 6_000);
const cli = fileURLToPath(new URL('../packages/sandbox/src/cli.ts', import.meta.url));
const tsx = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const CMS = '/api/v1/namespaces/default/configmaps';
const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/bench';

interface Server {
  child: ChildProcess;
  url: string;
  port: number;
  admin: string;
  manager: string;
  dir: string;
}

async function startServer(): Promise<Server> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kcm-ts-bench-fairness-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  const child = spawn(
    process.execPath,
    [
      '--import',
      tsx,
      '--conditions=@kcm-ts/source',
      cli,
      '--port=0',
      '--nodes=0',
      '--insecure-http',
      '--ephemeral',
      `--kubeconfig-out=${kubeconfig}`,
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] },
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
  const tokenIn = (file: string) => /token: (\S+)/.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
  return {
    child,
    url,
    port: Number(new URL(url).port),
    admin: tokenIn(kubeconfig),
    manager: tokenIn(path.join(dir, 'controller-manager.conf')),
    dir,
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function send(
  server: Server,
  method: string,
  pathname: string,
  token: string,
  body?: string,
  accept = 'application/json',
): Promise<{ status: number; text: string; ms: number }> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${pathname}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          accept,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString(),
            ms: performance.now() - start,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function seed(server: Server): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < objects) {
      const i = next++;
      const res = await send(
        server,
        'POST',
        CMS,
        server.admin,
        JSON.stringify({
          metadata: { name: `cm-${i}`, labels: { i: String(i % 10) } },
          data: { a: 'b' },
        }),
      );
      if (res.status === 429)
        next--; // the admin's 49 seats: try again
      else if (res.status !== 201) throw new Error(`seed: ${res.status} ${res.text}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/** Runs `load` (loops that stop when told) while the normal client measures; returns its latencies. */
async function phase(
  normal: () => Promise<number>,
  load: (until: () => boolean) => Promise<unknown>[],
): Promise<number[]> {
  let done = false;
  const loads = load(() => done);
  await new Promise((r) => setTimeout(r, 200));
  const latencies: number[] = [];
  const end = performance.now() + phaseMs;
  while (performance.now() < end) latencies.push(await normal());
  done = true;
  await Promise.allSettled(loads);
  return latencies.sort((a, b) => a - b);
}

const pct = (xs: number[], p: number) =>
  xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;

/** The longest selector whose request line fits in 1 MiB with room for the other headers. */
function worstSelector(): string {
  const terms: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < 1_000_000; i++) {
    const term = `!k${i}`;
    terms.push(term);
    bytes += encodeURIComponent(term).length + 3;
  }
  return encodeURIComponent(terms.join(','));
}

function stalledWrite(server: Server): Socket {
  const socket = connect(server.port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    `POST ${CMS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.admin}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
  );
  return socket;
}

async function main(): Promise<void> {
  const server = await startServer();
  try {
    await seed(server);
    const getOne = async () => (await send(server, 'GET', `${CMS}/cm-1`, server.admin)).ms;
    const loops = (n: number, body: () => Promise<unknown>) => (until: () => boolean) =>
      Array.from({ length: n }, async () => {
        while (!until()) await body();
      });
    const selector = worstSelector();
    const rows: [string, number[], string][] = [];
    rows.push(['idle', await phase(getOne, () => []), '']);
    rows.push([
      'selector',
      await phase(
        getOne,
        loops(3, () => send(server, 'GET', `${CMS}?labelSelector=${selector}`, server.admin)),
      ),
      `${selector.length} bytes`,
    ]);
    rows.push([
      'table',
      await phase(
        getOne,
        loops(3, () =>
          send(
            server,
            'GET',
            CMS,
            server.admin,
            undefined,
            'application/json;as=Table;v=v1;g=meta.k8s.io',
          ),
        ),
      ),
      '',
    ]);
    const lease = {
      metadata: { name: 'bench' },
      spec: { holderIdentity: 'bench', leaseDurationSeconds: 15 },
    };
    await send(
      server,
      'POST',
      LEASE.replace(/\/bench$/, ''),
      server.manager,
      JSON.stringify(lease),
    );
    const renew = async () => {
      const start = performance.now();
      const got = await send(server, 'GET', LEASE, server.manager);
      const current = JSON.parse(got.text) as { spec: Record<string, unknown> };
      const put = await send(
        server,
        'PUT',
        LEASE,
        server.manager,
        JSON.stringify({
          ...current,
          spec: { ...current.spec, renewTime: new Date().toISOString().replace('Z', '000Z') },
        }),
      );
      if (put.status !== 200) throw new Error(`renew: ${put.status} ${put.text}`);
      return performance.now() - start;
    };
    const renewIdle = await phase(renew, () => []);
    const sockets: Socket[] = [];
    let refused = 0;
    let tried = 0;
    const renewStalled = await phase(renew, (until) => {
      for (let i = 0; i < 400; i++) sockets.push(stalledWrite(server));
      return [
        (async () => {
          while (!until()) {
            tried++;
            if ((await send(server, 'GET', `${CMS}/cm-2`, server.admin)).status === 429) refused++;
            await new Promise((r) => setTimeout(r, 250));
          }
        })(),
      ];
    });
    for (const s of sockets) s.destroy();
    const idleP99 = pct(rows[0]![1], 0.99);
    console.log(`fairness bench: ${objects} ConfigMaps, ${phaseMs} ms a phase`);
    console.log('phase       client        n     p50 ms   p99 ms   max ms   p99/idle  note');
    const line = (name: string, who: string, xs: number[], base: number, note: string) =>
      console.log(
        `${name.padEnd(11)} ${who.padEnd(12)} ${String(xs.length).padStart(5)} ${pct(xs, 0.5).toFixed(1).padStart(8)} ${pct(xs, 0.99).toFixed(1).padStart(8)} ${(xs.at(-1) ?? NaN).toFixed(1).padStart(8)} ${(pct(xs, 0.99) / base).toFixed(2).padStart(9)}  ${note}`,
      );
    for (const [name, xs, note] of rows) line(name, 'admin GET', xs, idleP99, note);
    const renewBase = pct(renewIdle, 0.99);
    line('idle', 'Lease renew', renewIdle, renewBase, '');
    line(
      'stalled',
      'Lease renew',
      renewStalled,
      renewBase,
      `400 stalled writes; admin GETs refused ${refused}/${tried}`,
    );
  } finally {
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    await exited;
    rmSync(server.dir, { recursive: true, force: true });
    agent.destroy();
  }
}

await main();
