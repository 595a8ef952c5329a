import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

/** The repo this checkout of scripts/ belongs to. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr, split into lines, without empty ones. */
  lines: string[];
}

/** Runs `node scripts/<script> ...args` in `cwd` and collects what it printed. */
export function runScript(script: string, args: string[], cwd = repoRoot): RunResult {
  const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', script), ...args], {
    cwd,
    encoding: 'utf8',
  });
  const lines = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => l !== '');
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, lines };
}

// Each test removes its own copies: removing them all at the end of the file
// can outlast a hook timeout on a loaded machine.
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp dir (removed after the test), optionally filled with `files`. */
export function tempDir(prefix: string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), `kcm-ts-${prefix}-`));
  made.push(dir);
  writeFiles(dir, files);
  return dir;
}

/**
 * Writes each file anew: an existing one is removed first, so a file that is
 * a hard link to another tree's (check-repo's copies) is replaced, not changed.
 */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    rmSync(join(root, rel), { force: true });
    writeFileSync(join(root, rel), text);
  }
}

export const read = (root: string, rel: string): string => readFileSync(join(root, rel), 'utf8');

/** Lines joined with `\n`, so fixtures read as the files they stand for. */
export const lines = (...ls: string[]): string => ls.join('\n');
