#!/usr/bin/env node
// Checks that the repo has the shape its README's "Repository layout" describes: every
// package has the same files and package.json (the template below), depends only on
// what the dependency table below allows, has no run-time import cycle among its sources,
// is in the docs site, and has a README with the required sections; every chapter is a workspace named after its folder, listed,
// in order, in the course index (tutorials/README.md), and ends with the navigation
// that scripts/snippets.mjs writes (chapter 0 also holds the course map).
//
// Usage: node scripts/check-repo.mjs [--root DIR]    (exit 1: one line per problem)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const rootAt = process.argv.indexOf('--root');
const root = path.resolve(
  rootAt === -1 ? fileURLToPath(new URL('..', import.meta.url)) : process.argv[rootAt + 1],
);

const words = (text) => text.trim().split(/\s+/);

// The package dependency table: each package may depend only on what its line names,
// so the course's packages stay small and build on one another in chapter order.
const ALLOWED = {
  apimachinery: [],
  workqueue: words('apimachinery'),
  informer: words('apimachinery'),
  'object-store': words('informer apimachinery'),
  'leader-election': words('apimachinery'),
  controller: words('workqueue informer apimachinery'),
  replicaset: words('controller workqueue informer apimachinery'),
  deployment: words('controller workqueue informer apimachinery'),
  job: words('controller workqueue informer apimachinery'),
  cronjob: words('controller workqueue informer apimachinery'),
  daemonset: words('controller workqueue informer apimachinery'),
  statefulset: words('controller workqueue informer apimachinery'),
  endpointslice: words('controller workqueue informer apimachinery'),
  client: words('apimachinery'), // + peer @kubernetes/client-node
  sandbox: words('object-store informer workqueue apimachinery'),
};
ALLOWED.manager = Object.keys(ALLOWED); // all of the above
// Tests may run a package against the sandbox (an in-process API server with a
// fake clock, simulated nodes and the fault lab), as envtest serves controller
// tests: a devDependency only, for the packages the sandbox does not itself
// stand on; src/ may still import only what ALLOWED names. The Deployment
// controller's tests run the ReplicaSet controller beside it, and the CronJob
// controller's the Job controller, as a cluster does.
const TEST_ONLY = {
  sandbox: words(
    'leader-election controller replicaset deployment job cronjob daemonset statefulset endpointslice client',
  ),
  replicaset: words('deployment'),
  job: words('cronjob'),
};
// The course's packages talk to interfaces, never to @kubernetes/client-node.
const CORE = words(
  'apimachinery workqueue informer object-store leader-election controller replicaset deployment job cronjob daemonset statefulset endpointslice',
);

// The files every package has, and its package.json template.
const FILES = words(`package.json README.md LICENSE src/index.ts tsconfig.json tsconfig.build.json
  tsup.config.ts vitest.config.ts`);
const KEYS =
  words(`name version description keywords license homepage repository bugs type sideEffects
  engines exports main module types files bin scripts dependencies peerDependencies devDependencies
  publishConfig`);
const DEP_FIELDS = words('dependencies peerDependencies devDependencies');
const OPTIONAL = new Set(['bin', ...DEP_FIELDS]);
const TEMPLATE = {
  license: 'Apache-2.0',
  type: 'module',
  sideEffects: false,
  engines: { node: '>=20.19' },
  exports: {
    '.': {
      '@kcm-ts/source': './src/index.ts',
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
    },
    './package.json': './package.json',
  },
  main: './dist/index.cjs',
  module: './dist/index.js',
  types: './dist/index.d.cts',
  files: ['dist', 'src', 'CHANGELOG.md'],
};
const SCRIPTS = {
  build: 'tsup',
  typecheck: 'tsc -p tsconfig.json --noEmit',
  lint: 'eslint .',
  test: 'vitest run',
  'check:package': 'publint --strict && attw --pack .',
};
const README_SECTIONS = ['## Install', '## Quick start', '## Learn it'];

const problems = [];
const problem = (where, message) => problems.push(`${where}: ${message}`);
const read = (...p) => readFileSync(path.join(root, ...p), 'utf8');
const readJson = (...p) => JSON.parse(read(...p));
const exists = (...p) => existsSync(path.join(root, ...p));
const dirs = (dir) =>
  exists(dir)
    ? readdirSync(path.join(root, dir))
        .filter((d) => statSync(path.join(root, dir, d)).isDirectory())
        .sort()
    : [];
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const show = (v) => JSON.stringify(v);

/** True when `version` satisfies the caret range `range` (`^1.2.3`, `^0.2.3`, `^0.0.3`). */
function caretAllows(range, version) {
  const r = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range)?.slice(1).map(Number);
  const v = /^(\d+)\.(\d+)\.(\d+)/.exec(version)?.slice(1).map(Number);
  if (!r || !v) return false;
  const fixed = r[0] > 0 ? 1 : r[1] > 0 ? 2 : 3; // leading parts that must match
  if (!r.slice(0, fixed).every((n, i) => n === v[i])) return false;
  return v[0] !== r[0] ? v[0] > r[0] : v[1] !== r[1] ? v[1] > r[1] : v[2] >= r[2];
}

/** Every module specifier imported or required by the .ts files under `dir`. */
function importsIn(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...importsIn(file));
    else if (/\.[mc]?tsx?$/.test(entry.name)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(
        /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm,
      )) {
        found.push({ file: path.relative(root, file).split(path.sep).join('/'), specifier: m[1] });
      }
    }
  }
  return found;
}

/**
 * The import cycles among the .ts files under `dir`, each as the files around it, first to
 * last. Only imports that stay at run time count: `import type` and `export type` are
 * erased, while `import { type X }` is kept (verbatimModuleSyntax). In a cycle, which
 * module sees the other's bindings uninitialised depends on which one is imported first.
 */
function importCyclesIn(dir) {
  const files = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const file = path.join(d, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(file);
    }
  };
  walk(dir);
  files.sort();
  const known = new Set(files);
  const resolve = (from, specifier) => {
    const base = path.resolve(path.dirname(from), specifier);
    const stem = base.replace(/\.[mc]?js$/, '');
    for (const candidate of [`${stem}.ts`, `${stem}.tsx`, base, path.join(base, 'index.ts')]) {
      if (known.has(candidate)) return candidate;
    }
    return undefined;
  };
  const edges = new Map();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set();
    const statements = [
      ...text.matchAll(
        /^(?:import|export)\b(?!\s+type\b)[^;]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/gm,
      ),
      ...text.matchAll(/^import\s*['"](\.{1,2}\/[^'"]+)['"]/gm),
    ];
    for (const m of statements) {
      const target = resolve(file, m[1]);
      if (target !== undefined) targets.add(target);
    }
    edges.set(file, [...targets].sort());
  }
  const cycles = [];
  const seen = new Set();
  const state = new Map(); // 1: on the path, 2: done
  const stack = [];
  const visit = (file) => {
    state.set(file, 1);
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 1) {
        const cycle = stack.slice(stack.indexOf(next));
        const id = [...cycle].sort().join('\n');
        if (!seen.has(id)) {
          seen.add(id);
          cycles.push(cycle);
        }
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 2);
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return cycles;
}

const packageDirs = dirs('packages');
const versions = Object.fromEntries(
  packageDirs
    .filter((d) => exists('packages', d, 'package.json'))
    .map((d) => [d, readJson('packages', d, 'package.json').version]),
);

for (const dir of packageDirs) {
  const where = `packages/${dir}`;
  for (const file of FILES) if (!exists(where, file)) problem(where, `missing ${file}`);
  const tests = exists(where, 'test')
    ? readdirSync(path.join(root, where, 'test')).filter((f) => f.endsWith('.test.ts'))
    : [];
  if (tests.length === 0) problem(where, 'no test/*.test.ts');
  if (!(dir in ALLOWED))
    problem(
      where,
      `not in the package dependency table of scripts/check-repo.mjs (${Object.keys(ALLOWED).join(', ')})`,
    );
  const allowed = ALLOWED[dir] ?? [];

  if (exists(where, 'package.json')) {
    const pkg = readJson(where, 'package.json');
    const at = `${where}/package.json`;
    const keys = Object.keys(pkg);
    for (const key of keys) if (!KEYS.includes(key)) problem(at, `unexpected key "${key}"`);
    for (const key of KEYS)
      if (!OPTIONAL.has(key) && !(key in pkg)) problem(at, `missing key "${key}"`);
    const known = keys.filter((k) => KEYS.includes(k));
    const expected = KEYS.filter((k) => k in pkg);
    if (!same(known, expected))
      problem(at, `keys out of order: ${known.join(', ')} (template: ${expected.join(', ')})`);
    if (pkg.name !== `@kcm-ts/${dir}`)
      problem(at, `name is ${show(pkg.name)}, expected "@kcm-ts/${dir}"`);
    if (pkg.private) problem(at, 'packages are published: remove "private"');
    for (const [key, value] of Object.entries(TEMPLATE)) {
      if (key in pkg && !same(pkg[key], value))
        problem(at, `${key} is ${show(pkg[key])}, expected ${show(value)}`);
    }
    if (pkg.repository?.directory !== where)
      problem(at, `repository.directory should be "${where}"`);
    if (pkg.publishConfig?.access !== 'public')
      problem(at, 'publishConfig.access should be "public"');
    for (const [name, command] of Object.entries(SCRIPTS)) {
      if (pkg.scripts?.[name] !== command) problem(at, `scripts.${name} should be "${command}"`);
    }
    for (const field of DEP_FIELDS) {
      for (const [name, range] of Object.entries(pkg[field] ?? {})) {
        if (name === '@kubernetes/client-node' && CORE.includes(dir)) {
          problem(at, `core package lists @kubernetes/client-node in ${field}`);
        }
        if (!name.startsWith('@kcm-ts/')) continue;
        const dep = name.slice('@kcm-ts/'.length);
        const testOnly = field === 'devDependencies' && TEST_ONLY[dep]?.includes(dir);
        if (!allowed.includes(dep) && !testOnly)
          problem(
            at,
            `${field} has ${name}, which the package dependency table does not allow for ${dir}`,
          );
        else if (!/^\^\d+\.\d+\.\d+$/.test(range))
          problem(at, `${field}.${name} should be a caret range like "^0.1.0", not ${show(range)}`);
        else if (versions[dep] && !caretAllows(range, versions[dep])) {
          problem(
            at,
            `${field}.${name} is ${range}, which does not allow the workspace's version ${versions[dep]}`,
          );
        }
      }
    }
    const declared = { ...pkg.dependencies, ...pkg.peerDependencies };
    if (exists(where, 'src')) {
      for (const { file, specifier } of importsIn(path.join(root, where, 'src'))) {
        if (CORE.includes(dir) && /^@kubernetes\/client-node(\/|$)/.test(specifier)) {
          problem(file, `core package imports ${specifier}`);
        }
        const m = /^@kcm-ts\/([^/]+)/.exec(specifier);
        if (!m || m[1] === dir) continue;
        if (!allowed.includes(m[1]))
          problem(
            file,
            `imports @kcm-ts/${m[1]}, which the package dependency table does not allow for ${dir}`,
          );
        else if (!(`@kcm-ts/${m[1]}` in declared))
          problem(file, `imports @kcm-ts/${m[1]}, which ${at} does not list in dependencies`);
      }
    }
  }

  if (exists(where, 'src')) {
    for (const cycle of importCyclesIn(path.join(root, where, 'src'))) {
      const rel = (f) => path.relative(root, f).split(path.sep).join('/');
      const names = [...cycle, cycle[0]].map((f) => path.basename(f));
      problem(rel(cycle[0]), `import cycle: ${names.join(' → ')}`);
    }
  }

  if (exists(where, 'README.md')) {
    const headings = read(where, 'README.md')
      .split(/\r?\n/)
      .map((l) => l.trimEnd());
    for (const section of README_SECTIONS) {
      if (!headings.includes(section))
        problem(`${where}/README.md`, `lacks the section "${section}"`);
    }
  }
}

// Until the packages are on npm, each README's Install section packs the package with
// every @kcm-ts package it needs (dependencies and peers, transitively) and installs the
// tarballs together with the closure's other peers; no shell block may tell a reader to
// `npm install @kcm-ts/...` from the registry. scripts/pack-smoke.mjs runs the same path.
const manifests = Object.fromEntries(
  packageDirs
    .filter((d) => exists('packages', d, 'package.json'))
    .map((d) => [d, readJson('packages', d, 'package.json')]),
);
function needs(dir) {
  const seen = new Set();
  const visit = (d) => {
    if (seen.has(d) || !manifests[d]) return;
    seen.add(d);
    const pkg = manifests[d];
    for (const name of Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies }))
      if (name.startsWith('@kcm-ts/')) visit(name.slice('@kcm-ts/'.length));
  };
  visit(dir);
  const peers = new Set();
  for (const d of seen)
    for (const name of Object.keys(manifests[d].peerDependencies ?? {}))
      if (!name.startsWith('@kcm-ts/')) peers.add(name);
  return { packages: [...seen].sort(), peers: [...peers].sort() };
}
const shellLines = (text) =>
  [...text.matchAll(/^```(?:sh|bash|shell|console)[ \t]*\r?\n([\s\S]*?)^```/gm)].flatMap((m) =>
    m[1].split(/\r?\n/).map((l) => l.trim()),
  );
for (const dir of packageDirs) {
  if (!exists('packages', dir, 'README.md') || !manifests[dir]) continue;
  const at = `packages/${dir}/README.md`;
  const text = read('packages', dir, 'README.md');
  for (const line of shellLines(text).filter((l) => /^npm (install|i|add) .*@kcm-ts\//.test(l)))
    problem(at, `tells readers to run "${line}", which fails until the packages are published`);
  const install = /^## Install\s*$([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(text)?.[1] ?? '';
  const lines = shellLines(install);
  const { packages, peers } = needs(dir);
  const pack = lines.find((l) => l.startsWith('npm pack '));
  const dest = /--pack-destination[ =](\S+)/.exec(pack ?? '')?.[1];
  if (!pack || !dest) {
    problem(at, 'the Install section lacks `npm pack --pack-destination DIR -w packages/...`');
    continue;
  }
  const packed = [...pack.matchAll(/(?:-w|--workspace)[ =]packages\/(\S+)/g)].map((m) => m[1]);
  if (!same([...packed].sort(), packages))
    problem(
      at,
      `npm pack should pack ${packages.map((p) => `packages/${p}`).join(', ')} (found: ${packed.join(', ') || 'none'})`,
    );
  const tgz = `${dest}/kcm-ts-*.tgz`;
  const add = lines.find((l) => l.startsWith('npm install ') && l.includes(tgz));
  if (!add) problem(at, `the Install section lacks \`npm install ${tgz}\``);
  else {
    const extra = add
      .split(/\s+/)
      .slice(2)
      .filter((w) => !w.startsWith('-') && w !== tgz)
      .sort();
    if (!same(extra, peers))
      problem(
        at,
        `npm install of the tarballs should add the peers ${peers.join(', ') || '(none)'} (found: ${extra.join(', ') || 'none'})`,
      );
  }
}

// The docs site lists every package: in its entry points, in the packages whose TSDoc it
// requires, and (for turbo's cache) in its devDependencies.
if (exists('docs', 'typedoc.json')) {
  const typedoc = readJson('docs', 'typedoc.json');
  const entries = (typedoc.entryPoints ?? []).map((e) =>
    path
      .relative(root, path.resolve(root, 'docs', e))
      .split(path.sep)
      .join('/'),
  );
  for (const dir of packageDirs) {
    if (!entries.includes(`packages/${dir}`))
      problem('docs/typedoc.json', `entryPoints lacks "../packages/${dir}"`);
  }
  // TypeDoc checks TSDoc coverage only for the packages named here.
  const documented = typedoc.packagesRequiringDocumentation ?? [];
  for (const dir of packageDirs) {
    if (!documented.includes(`@kcm-ts/${dir}`))
      problem('docs/typedoc.json', `packagesRequiringDocumentation lacks "@kcm-ts/${dir}"`);
  }
  const devDependencies = exists('docs', 'package.json')
    ? (readJson('docs', 'package.json').devDependencies ?? {})
    : {};
  for (const dir of packageDirs) {
    if (!(`@kcm-ts/${dir}` in devDependencies))
      problem('docs/package.json', `devDependencies lacks "@kcm-ts/${dir}": "*"`);
  }
}

// Chapters: tutorials/NN-slug with README.md and a private workspace "tutorial-NN-slug".
const chapters = dirs('tutorials').filter((d) => /^\d\d-/.test(d));
for (const dir of chapters) {
  const where = `tutorials/${dir}`;
  for (const file of ['README.md', 'package.json'])
    if (!exists(where, file)) problem(where, `missing ${file}`);
  if (exists(where, 'package.json')) {
    const pkg = readJson(where, 'package.json');
    if (pkg.name !== `tutorial-${dir}`)
      problem(`${where}/package.json`, `name is ${show(pkg.name)}, expected "tutorial-${dir}"`);
    if (pkg.private !== true)
      problem(`${where}/package.json`, 'a chapter is a private workspace: set "private": true');
  }
}
// Every chapter ends with its navigation (the previous and the next chapter), and the
// first chapter holds the course map; scripts/snippets.mjs writes both and checks that
// they are up to date with the chapters that exist.
for (const [i, dir] of chapters.entries()) {
  if (!exists('tutorials', dir, 'README.md')) continue;
  const text = read('tutorials', dir, 'README.md');
  const nav = /<!--\s*course:\s*nav\s*-->[\s\S]*?<!--\s*\/course\s*-->\s*$/.test(text);
  if (!nav) {
    problem(
      `tutorials/${dir}/README.md`,
      'does not end with the chapter navigation: add <!-- course: nav --> and <!-- /course --> as its last lines, then run node scripts/snippets.mjs',
    );
  }
  if (i === 0 && !/<!--\s*course:\s*map\s*-->/.test(text)) {
    problem(
      `tutorials/${dir}/README.md`,
      'lacks the course map: add <!-- course: map --> and <!-- /course -->, then run node scripts/snippets.mjs',
    );
  }
}
if (chapters.length > 0) {
  if (!exists('tutorials', 'README.md'))
    problem('tutorials', 'missing README.md (the course index)');
  else {
    const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(read('tutorials', 'README.md'))?.[1] ?? '';
    const list = /^children:[ \t]*\r?\n((?:[ \t]*-.*(?:\r?\n|$))*)/m.exec(front)?.[1] ?? '';
    const children = [...list.matchAll(/^[ \t]*-[ \t]*['"]?(.*?)['"]?[ \t]*$/gm)].map((m) =>
      path.posix.normalize(m[1]),
    );
    const expected = chapters.map((d) => `${d}/README.md`);
    if (!same(children, expected)) {
      problem(
        'tutorials/README.md',
        `frontmatter children should be ${expected.map((c) => `./${c}`).join(', ')} (found: ${children.map((c) => `./${c}`).join(', ') || 'none'})`,
      );
    }
  }
}

for (const line of problems) console.error(line);
if (problems.length > 0) {
  console.error(`check-repo: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  process.exitCode = 1;
} else {
  console.log(
    `check-repo: ${packageDirs.length} packages and ${chapters.length} chapters have the expected shape`,
  );
}
