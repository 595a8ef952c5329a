// Which Node lines kcm-ts supports, and the one pairing that cannot work:
// @kubernetes/client-node 2 needs Node 22.19 or later (its undici fails as
// it loads on older Node), while 1.4 runs on Node 20. The `kcm-ts` command
// checks before it loads anything that imports client-node, so a user sees
// what to install instead of a stack trace from inside undici.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function parse(version: string): [number, number, number] {
  const [major = 0, minor = 0, patch = 0] = version
    .replace(/^v/, '')
    .split('.')
    .map((p) => Number.parseInt(p, 10) || 0);
  return [major, minor, patch];
}

function atLeast(version: string, wanted: [number, number]): boolean {
  const [major, minor] = parse(version);
  return major > wanted[0] || (major === wanted[0] && minor >= wanted[1]);
}

/**
 * What is wrong with running on Node `nodeVersion` with client-node
 * `clientNodeVersion` installed, or undefined when the pair works (or
 * client-node is not installed: the command then fails on the import with
 * Node's own message).
 */
export function clientNodeProblem(
  nodeVersion: string,
  clientNodeVersion: string | undefined,
): string | undefined {
  if (!atLeast(nodeVersion, [20, 19])) {
    return `kcm-ts needs Node 20.19 or later (22 or 24 recommended); this is Node ${nodeVersion}.`;
  }
  if (clientNodeVersion === undefined) return undefined;
  if (parse(clientNodeVersion)[0] >= 2 && !atLeast(nodeVersion, [22, 19])) {
    return (
      `@kubernetes/client-node ${clientNodeVersion} needs Node 22.19 or later, and this is Node ${nodeVersion}. ` +
      `Use Node 22 or 24, or install the version that runs on Node 20: npm install @kubernetes/client-node@^1.4.0`
    );
  }
  return undefined;
}

/**
 * The version of the `@kubernetes/client-node` this package would load,
 * read from its package.json; undefined when none is installed.
 */
export function installedClientNodeVersion(): string | undefined {
  let entry: string;
  try {
    entry = fileURLToPath(import.meta.resolve('@kubernetes/client-node'));
  } catch {
    return undefined;
  }
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === '@kubernetes/client-node') return pkg.version;
    } catch {
      // not the package's root yet
    }
    if (dirname(dir) === dir) return undefined;
  }
}
