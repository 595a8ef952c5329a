// Crash safety with real processes: a `kcm-ts-sandbox --data-dir` killed
// with SIGKILL in the middle of a burst of writes comes back with every
// write it acknowledged, and nothing half-written: each object it serves
// is whole (its payload matches the checksum written beside it), and
// revisions go on past every one it handed out.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const tsx = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

let dir: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-crash-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Starts the CLI on the data directory; resolves with its URL once it is ready. */
function start(): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      tsx,
      '--conditions=@kcm-ts/source',
      cli,
      ...['--port', '0', '--nodes', '0', '--insecure-http', '--data-dir', 'data'],
    ],
    { cwd: dir },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /ready at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url) resolve({ child, url });
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`exited ${String(code)}:\n${out}${err}`)));
  });
}

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

it('keeps every acknowledged write through a SIGKILL, and nothing half-written', async () => {
  const { child, url } = await start();
  const token = (await readFile(path.join(dir, 'data', 'token'), 'utf8')).trim();
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  const base = `${url}/api/v1/namespaces/default/configmaps`;
  const body = (name: string, n: number, resourceVersion?: string): string => {
    // Payloads of up to 48 KiB, so a write is many pages of the log.
    const payload = randomBytes(64 + Math.floor(Math.random() * 36_000)).toString('base64');
    return JSON.stringify({
      metadata: { name, ...(resourceVersion ? { resourceVersion } : {}) },
      data: { n: String(n), payload, sha: sha(payload) },
    });
  };

  // Each worker creates objects and updates its own counter object in turn;
  // it records what the server acknowledged and what it only sent.
  const acked = new Map<string, number>(); // created name -> its resourceVersion
  const counters = Array.from({ length: 12 }, () => ({ acked: -1, sent: -1 }));
  let maxRV = 0;
  let killed = false;
  const worker = async (w: number): Promise<void> => {
    let rv: string | undefined;
    for (let i = 0; !killed; i++) {
      try {
        if (i % 3 === 0) {
          const name = `w${w}-${i}`;
          const res = await fetch(base, { method: 'POST', headers, body: body(name, i) });
          if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
          const created = (await res.json()) as { metadata: { resourceVersion: string } };
          acked.set(name, Number(created.metadata.resourceVersion));
          maxRV = Math.max(maxRV, Number(created.metadata.resourceVersion));
        } else {
          const name = `counter-${w}`;
          counters[w]!.sent = i;
          const res = rv
            ? await fetch(`${base}/${name}`, { method: 'PUT', headers, body: body(name, i, rv) })
            : await fetch(base, { method: 'POST', headers, body: body(name, i) });
          if (res.status !== 200 && res.status !== 201)
            throw new Error(`write: ${res.status} ${await res.text()}`);
          const stored = (await res.json()) as { metadata: { resourceVersion: string } };
          rv = stored.metadata.resourceVersion;
          counters[w]!.acked = i;
          maxRV = Math.max(maxRV, Number(rv));
        }
      } catch (err) {
        if (killed) return;
        throw err;
      }
      // Kill the server once enough writes are acknowledged, while the
      // other workers' writes are still in flight.
      if (maxRV >= 600 && !killed) {
        killed = true;
        child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(counters.map((_, w) => worker(w)));
  if (child.exitCode === null && child.signalCode === null)
    await new Promise((resolve) => child.once('exit', resolve));
  expect(child.signalCode).toBe('SIGKILL');

  // Back up on the same directory: the lock of the killed process is taken over.
  const again = await start();
  const after = `${again.url}/api/v1/namespaces/default/configmaps`;
  const res = await fetch(after, { headers });
  expect(res.status).toBe(200);
  const list = (await res.json()) as {
    metadata: { resourceVersion: string };
    items: { metadata: { name: string; resourceVersion: string }; data: Record<string, string> }[];
  };
  const byName = new Map(list.items.map((item) => [item.metadata.name, item]));
  for (const [name, rv] of acked) {
    expect(byName.get(name)?.metadata.resourceVersion, name).toBe(String(rv));
  }
  for (const [w, counter] of counters.entries()) {
    if (counter.acked < 0) continue;
    const n = Number(byName.get(`counter-${w}`)?.data.n);
    expect(n).toBeGreaterThanOrEqual(counter.acked);
    expect(n).toBeLessThanOrEqual(counter.sent);
  }
  for (const item of list.items) {
    expect(sha(item.data.payload ?? ''), item.metadata.name).toBe(item.data.sha);
    expect(Number(item.metadata.resourceVersion)).toBeLessThanOrEqual(
      Number(list.metadata.resourceVersion),
    );
  }
  expect(Number(list.metadata.resourceVersion)).toBeGreaterThanOrEqual(maxRV);
  // A new write gets a revision after every one handed out before the crash.
  const next = await fetch(after, { method: 'POST', headers, body: body('after', 0) });
  const created = (await next.json()) as { metadata: { resourceVersion: string } };
  expect(Number(created.metadata.resourceVersion)).toBeGreaterThan(maxRV);
  again.child.kill('SIGTERM');
  await new Promise((resolve) => again.child.once('exit', resolve));
  expect(again.child.exitCode).toBe(0);
});
