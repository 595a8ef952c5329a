// A sandbox's data directory, laid out as a k3s server keeps its own
// (/var/lib/rancher/k3s/server: db/state.db for kine's SQLite, tls/ for the
// CA and serving certificate, token; k3s pkg/daemons/control/deps/deps.go
// names the files): what a restart needs to be the same cluster to its
// clients. Files are written whole or not at all (a temporary file renamed
// over the old one), so a crash leaves either the old content or the new.
import { X509Certificate, createPrivateKey, randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { SqliteBackend } from './sqlite-backend.js';
import { makeCertificates } from './tls.js';
import type { SandboxCertificates } from './tls.js';

/** What a sandbox keeps in its data directory, open for one run. */
export interface DataDir {
  /** The bearer token, kept from the first start (or the one asked for). */
  readonly token: string;
  /** The objects and revisions, in `db/state.db`. */
  readonly backend: SqliteBackend;
  /** The kept CA and serving certificate, made at the first start that needs them. */
  certificates(now: Date): SandboxCertificates;
  /** Closes the database and frees the directory for the next run. */
  release(): void;
}

// Directories open in this process: the lock file names a live process, us.
const openHere = new Set<string>();

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes `file` whole, or leaves its old content: write aside, flush, rename. */
function writeWhole(file: string, data: string, mode: number): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One sandbox per directory, as etcd locks its data directory: a lock file
 * with the owner's pid. One left by a process that is gone (killed) is taken
 * over.
 */
function lock(dir: string): void {
  const file = path.join(dir, 'lock');
  const owner = Number(readIfExists(file)?.trim());
  const mine = owner === process.pid;
  if (Number.isInteger(owner) && owner > 0 && (mine ? openHere.has(dir) : alive(owner))) {
    const err: NodeJS.ErrnoException = new Error(
      `the data directory ${dir} is in use by process ${owner}: stop that sandbox, or start this one with another data directory (or none, in memory)`,
    );
    err.code = 'EBUSY';
    throw err;
  }
  writeWhole(file, `${process.pid}\n`, 0o600);
  openHere.add(dir);
}

// k3s renews certificates that expire within 90 days when it starts.
const renewWithinMs = 90 * 86_400_000;

function keptCertificates(tls: string, now: Date): SandboxCertificates | undefined {
  const caCert = readIfExists(path.join(tls, 'server-ca.crt'));
  const cert = readIfExists(path.join(tls, 'serving-kube-apiserver.crt'));
  const key = readIfExists(path.join(tls, 'serving-kube-apiserver.key'));
  if (!caCert || !cert || !key) return undefined;
  try {
    const ca = new X509Certificate(caCert);
    const serving = new X509Certificate(cert);
    // A set half replaced by a crash does not hang together: make a new one.
    const whole =
      serving.checkPrivateKey(createPrivateKey(key)) &&
      serving.checkIssued(ca) &&
      serving.verify(ca.publicKey);
    const expires = Date.parse(serving.validTo);
    return whole && expires - now.getTime() > renewWithinMs ? { caCert, cert, key } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Opens the data directory `dir` (creating it), locking it for this process,
 * with its token (or `token`, kept from now on) and its database.
 */
export function openDataDir(dir: string, token?: string): DataDir {
  const root = path.resolve(dir);
  mkdirSync(path.join(root, 'db'), { recursive: true, mode: 0o700 });
  lock(root);
  try {
    const tokenFile = path.join(root, 'token');
    const kept = readIfExists(tokenFile)?.trim();
    const chosen = token ?? (kept || randomBytes(24).toString('base64url'));
    if (chosen !== kept) writeWhole(tokenFile, `${chosen}\n`, 0o600);
    const backend = new SqliteBackend(path.join(root, 'db', 'state.db'));
    return {
      token: chosen,
      backend,
      certificates(now) {
        const tls = path.join(root, 'tls');
        const found = keptCertificates(tls, now);
        if (found) return found;
        const made = makeCertificates(now);
        mkdirSync(tls, { recursive: true, mode: 0o700 });
        writeWhole(path.join(tls, 'serving-kube-apiserver.key'), made.key, 0o600);
        writeWhole(path.join(tls, 'serving-kube-apiserver.crt'), made.cert, 0o644);
        writeWhole(path.join(tls, 'server-ca.crt'), made.caCert, 0o644);
        return made;
      },
      release() {
        backend.close();
        rmSync(path.join(root, 'lock'), { force: true });
        openHere.delete(root);
      },
    };
  } catch (err) {
    rmSync(path.join(root, 'lock'), { force: true });
    openHere.delete(root);
    throw err;
  }
}
