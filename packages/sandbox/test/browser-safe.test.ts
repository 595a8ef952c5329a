// The parts of the cluster that could run inside a browser page (the
// registry, the storage and watch, the simulated node, the fault lab and the
// in-process client) and everything they import: no Node-only module, and no
// `process` or `Buffer` global. Files, sockets, TLS and the database stay at
// the edge (src/edge, src/apiserver/handlers, the server, the CLI).
import { builtinModules } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src', import.meta.url));
const roots = ['apiserver/registry', 'apiserver/storage', 'node', 'lab', 'client'];
const nodeOnly = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

const tsFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? tsFiles(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  );

/** The code of a file without its comments and string contents, for the global check. */
const codeOnly = (text: string) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g, "''");

it('keeps the registry, storage, node, lab and in-process client free of Node-only modules and globals', () => {
  const seen = new Set<string>();
  const problems: string[] = [];
  const queue = roots.flatMap((r) => tsFiles(join(src, r)));
  expect(queue.length).toBeGreaterThan(20);
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const where = relative(src, file);
    for (const m of text.matchAll(
      /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm,
    )) {
      const specifier = m[1] as string;
      if (specifier.startsWith('.'))
        queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (nodeOnly.has(specifier)) problems.push(`${where}: imports ${specifier}`);
    }
    const code = codeOnly(text);
    for (const global of ['process', 'Buffer'])
      if (new RegExp(`(?<![.\\w])${global}\\b`).test(code))
        problems.push(`${where}: uses ${global}`);
  }
  expect(problems).toEqual([]);
});
