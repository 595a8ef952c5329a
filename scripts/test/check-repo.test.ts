import {
  copyFileSync,
  cpSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { read, repoRoot, runScript, tempDir, writeFiles } from './helpers.js';

const checkRepo = (root?: string) => runScript('check-repo.mjs', root ? ['--root', root] : []);

/**
 * The real repo's package.json, packages/, tutorials/ and docs/ (sources only), copied once.
 * Other tasks run beside this test (`attw --pack` writes and removes a tarball in a package
 * folder), so files that vanish while we copy are skipped rather than failing the copy.
 */
let template: string | undefined;
afterAll(() => {
  if (template !== undefined) rmSync(template, { recursive: true, force: true });
});
function templateOfRepo(): string {
  if (template !== undefined) return template;
  // Kept for the whole file, unlike tempDir's (removed after each test).
  const root = mkdtempSync(join(tmpdir(), 'kcm-ts-check-repo-template-'));
  const skip = new Set(['node_modules', 'dist', '.turbo', 'coverage']);
  const copy = (rel: string): void => {
    const from = join(repoRoot, rel);
    let stat;
    try {
      stat = lstatSync(from);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    if (stat.isDirectory()) {
      mkdirSync(join(root, rel), { recursive: true });
      for (const name of readdirSync(from))
        if (!skip.has(name) && !name.endsWith('.tgz')) copy(join(rel, name));
    } else if (stat.isFile()) {
      try {
        copyFileSync(from, join(root, rel));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  };
  for (const entry of ['package.json', 'packages', 'tutorials', 'docs']) copy(entry);
  template = root;
  return root;
}

/**
 * A repo of its own for one test: hard links to the template's files, which
 * cost no copying. Tests change files only through `writeFiles` (which
 * replaces a file rather than writing into it), `rmSync` and `cpSync`, so the
 * template is never changed through a link.
 */
function copyOfRepo(): string {
  const from = templateOfRepo();
  const root = tempDir('check-repo');
  const link = (rel: string): void => {
    const source = join(from, rel);
    if (lstatSync(source).isDirectory()) {
      mkdirSync(join(root, rel), { recursive: true });
      for (const name of readdirSync(source)) link(join(rel, name));
    } else linkSync(source, join(root, rel));
  };
  for (const name of readdirSync(from)) link(name);
  return root;
}

type Json = Record<string, unknown>;
const readJson = (root: string, rel: string): Json => JSON.parse(read(root, rel)) as Json;
const writeJson = (root: string, rel: string, value: unknown) =>
  writeFiles(root, { [rel]: `${JSON.stringify(value, null, 2)}\n` });
const editJson = (root: string, rel: string, edit: (json: Json) => Json | void) => {
  const json = readJson(root, rel);
  writeJson(root, rel, edit(json) ?? json);
};

describe('check-repo.mjs', () => {
  it('passes on the real repo', () => {
    const r = checkRepo();
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /^check-repo: \d+ packages and \d+ chapters have the expected shape\n$/,
    );
    expect(r.code).toBe(0);
  });

  it('passes on a copy of the real repo', () => {
    expect(checkRepo(copyOfRepo()).code).toBe(0);
  });

  const defects: [string, (root: string) => void, string][] = [
    [
      'package.json keys in the wrong order',
      (root) =>
        editJson(root, 'packages/workqueue/package.json', ({ version, name, ...rest }) => ({
          version,
          name,
          ...rest,
        })),
      'packages/workqueue/package.json: keys out of order: version, name,',
    ],
    [
      'a run-time import cycle inside a package',
      (root) =>
        writeFiles(root, {
          'packages/workqueue/src/cycle-a.ts':
            "import { b } from './cycle-b.js';\nexport const a = (): number => b() + 1;\n",
          'packages/workqueue/src/cycle-b.ts':
            "import {\n  type A,\n  a,\n} from './cycle-a.js';\nexport type { A };\nexport const b = (): number => a();\n",
        }),
      'packages/workqueue/src/cycle-a.ts: import cycle: cycle-a.ts → cycle-b.ts → cycle-a.ts',
    ],
    [
      'an import the dependency table forbids',
      (root) =>
        writeFiles(root, {
          'packages/apimachinery/src/bad.ts':
            "import { newQueue } from '@kcm-ts/workqueue';\nexport const q = newQueue;\n",
        }),
      'packages/apimachinery/src/bad.ts: imports @kcm-ts/workqueue, which the package dependency table does not allow for apimachinery',
    ],
    [
      'a missing file',
      (root) => rmSync(join(root, 'packages/workqueue/tsup.config.ts')),
      'packages/workqueue: missing tsup.config.ts',
    ],
    [
      'no test files',
      (root) => rmSync(join(root, 'packages/apimachinery/test'), { recursive: true }),
      'packages/apimachinery: no test/*.test.ts',
    ],
    [
      'a dependency the table forbids',
      (root) =>
        editJson(root, 'packages/apimachinery/package.json', (pkg) => {
          const { publishConfig, ...rest } = pkg;
          return { ...rest, dependencies: { '@kcm-ts/workqueue': '^0.1.0' }, publishConfig };
        }),
      'packages/apimachinery/package.json: dependencies has @kcm-ts/workqueue, which the package dependency table does not allow for apimachinery',
    ],
    [
      'an internal dependency without a caret range',
      (root) =>
        editJson(root, 'packages/workqueue/package.json', (pkg) => {
          pkg.dependencies = { '@kcm-ts/apimachinery': '*' };
        }),
      'packages/workqueue/package.json: dependencies.@kcm-ts/apimachinery should be a caret range like "^0.1.0", not "*"',
    ],
    [
      'an import not listed in dependencies',
      (root) =>
        editJson(root, 'packages/workqueue/package.json', (pkg) => {
          delete pkg.dependencies;
        }),
      'which packages/workqueue/package.json does not list in dependencies',
    ],
    [
      'a core package that imports @kubernetes/client-node',
      (root) =>
        writeFiles(root, {
          'packages/workqueue/src/client.ts':
            "import type { KubeConfig } from '@kubernetes/client-node';\nexport type K = KubeConfig;\n",
        }),
      'packages/workqueue/src/client.ts: core package imports @kubernetes/client-node',
    ],
    [
      'a core package that depends on @kubernetes/client-node',
      (root) =>
        editJson(root, 'packages/workqueue/package.json', (pkg) => {
          pkg.dependencies = { ...(pkg.dependencies as Json), '@kubernetes/client-node': '^1.0.0' };
        }),
      'packages/workqueue/package.json: core package lists @kubernetes/client-node in dependencies',
    ],
    [
      'a wrong package name',
      (root) =>
        editJson(root, 'packages/workqueue/package.json', (pkg) => void (pkg.name = 'workqueue')),
      'packages/workqueue/package.json: name is "workqueue", expected "@kcm-ts/workqueue"',
    ],
    [
      'exports that differ from the template',
      (root) =>
        editJson(root, 'packages/workqueue/package.json', (pkg) => {
          pkg.exports = { '.': './dist/index.js' };
        }),
      'packages/workqueue/package.json: exports is {".":"./dist/index.js"}',
    ],
    [
      'files that differ from the template',
      (root) =>
        editJson(
          root,
          'packages/workqueue/package.json',
          (pkg) => void (pkg.files = ['dist', 'src', 'test']),
        ),
      'packages/workqueue/package.json: files is ["dist","src","test"], expected ["dist","src","CHANGELOG.md"]',
    ],
    [
      'engines that differ from the template',
      (root) =>
        editJson(
          root,
          'packages/workqueue/package.json',
          (pkg) => void (pkg.engines = { node: '>=18' }),
        ),
      'packages/workqueue/package.json: engines is {"node":">=18"}, expected {"node":">=20.19"}',
    ],
    [
      'a script that differs from the template',
      (root) =>
        editJson(root, 'packages/workqueue/package.json', (pkg) => {
          (pkg.scripts as Json)['check:package'] = 'publint';
        }),
      'packages/workqueue/package.json: scripts.check:package should be "publint --strict && attw --pack ."',
    ],
    [
      'an unexpected package.json key',
      (root) =>
        editJson(root, 'packages/workqueue/package.json', (pkg) => void (pkg.author = 'me')),
      'packages/workqueue/package.json: unexpected key "author"',
    ],
    [
      'a README without a required section',
      (root) =>
        writeFiles(root, {
          'packages/workqueue/README.md': read(root, 'packages/workqueue/README.md').replace(
            /^## Learn it$/m,
            '## Learning',
          ),
        }),
      'packages/workqueue/README.md: lacks the section "## Learn it"',
    ],
    [
      'a package missing from the docs entry points',
      (root) =>
        editJson(root, 'docs/typedoc.json', (t) => {
          t.entryPoints = (t.entryPoints as string[]).filter((e) => !e.endsWith('/workqueue'));
        }),
      'docs/typedoc.json: entryPoints lacks "../packages/workqueue"',
    ],
    [
      'a package whose TSDoc the docs build does not require',
      (root) =>
        editJson(root, 'docs/typedoc.json', (t) => {
          t.packagesRequiringDocumentation = ['@kcm-ts/apimachinery'];
        }),
      'docs/typedoc.json: packagesRequiringDocumentation lacks "@kcm-ts/workqueue"',
    ],
    [
      'a package that is not in the dependency table',
      (root) =>
        cpSync(join(root, 'packages/workqueue'), join(root, 'packages/extra'), { recursive: true }),
      'packages/extra: not in the package dependency table of scripts/check-repo.mjs',
    ],
    [
      'a chapter without package.json',
      (root) => rmSync(join(root, 'tutorials/01-workqueue/package.json')),
      'tutorials/01-workqueue: missing package.json',
    ],
    [
      'a chapter package named after another folder',
      (root) =>
        editJson(
          root,
          'tutorials/01-workqueue/package.json',
          (pkg) => void (pkg.name = 'tutorial-01-queue'),
        ),
      'tutorials/01-workqueue/package.json: name is "tutorial-01-queue", expected "tutorial-01-workqueue"',
    ],
    [
      'a course index whose children are out of order',
      (root) =>
        writeFiles(root, {
          'tutorials/README.md': read(root, 'tutorials/README.md').replace(
            /( *- \.\/00-[^\n]*\n)( *- \.\/01-[^\n]*\n)/,
            '$2$1',
          ),
        }),
      'tutorials/README.md: frontmatter children should be ./00-',
    ],
    [
      'a course index that misses a chapter',
      (root) =>
        cpSync(join(root, 'tutorials/01-workqueue'), join(root, 'tutorials/99-extra'), {
          recursive: true,
        }),
      'tutorials/README.md: frontmatter children should be ./00-',
    ],
    [
      'a README that tells readers to install from the registry',
      (root) =>
        writeFiles(root, {
          'packages/informer/README.md':
            read(root, 'packages/informer/README.md') +
            '\n```sh\nnpm install @kcm-ts/informer\n```\n',
        }),
      'packages/informer/README.md: tells readers to run "npm install @kcm-ts/informer", which fails until the packages are published',
    ],
    [
      'an Install section that packs too few packages',
      (root) =>
        writeFiles(root, {
          'packages/replicaset/README.md': read(root, 'packages/replicaset/README.md').replace(
            ' -w packages/workqueue',
            '',
          ),
        }),
      'packages/replicaset/README.md: npm pack should pack packages/apimachinery, packages/controller, packages/informer, packages/replicaset, packages/workqueue (found: replicaset, apimachinery, controller, informer)',
    ],
    [
      'an Install section that forgets a peer of a dependency',
      (root) =>
        writeFiles(root, {
          'packages/manager/README.md': read(root, 'packages/manager/README.md').replace(
            '*.tgz @kubernetes/client-node',
            '*.tgz',
          ),
        }),
      'packages/manager/README.md: npm install of the tarballs should add the peers @kubernetes/client-node (found: none)',
    ],
    [
      'an Install section without npm pack',
      (root) =>
        writeFiles(root, {
          'packages/workqueue/README.md': read(root, 'packages/workqueue/README.md').replace(
            /npm pack [^\n]*\n/,
            '',
          ),
        }),
      'packages/workqueue/README.md: the Install section lacks `npm pack --pack-destination DIR -w packages/...`',
    ],
    [
      'a chapter that does not end with its navigation',
      (root) =>
        writeFiles(root, {
          'tutorials/02-informer/README.md': read(root, 'tutorials/02-informer/README.md').replace(
            /<!-- course: nav -->[\s\S]*$/,
            'The end.\n',
          ),
        }),
      'tutorials/02-informer/README.md: does not end with the chapter navigation',
    ],
    [
      'a chapter whose navigation is not at its end',
      (root) =>
        writeFiles(root, {
          'tutorials/03-object-store/README.md':
            read(root, 'tutorials/03-object-store/README.md') + '\nMore text after it.\n',
        }),
      'tutorials/03-object-store/README.md: does not end with the chapter navigation',
    ],
    [
      'a first chapter without the course map',
      (root) =>
        writeFiles(root, {
          'tutorials/00-introduction/README.md': read(
            root,
            'tutorials/00-introduction/README.md',
          ).replace(/<!-- course: map -->[\s\S]*?<!-- \/course -->/, ''),
        }),
      'tutorials/00-introduction/README.md: lacks the course map',
    ],
  ];

  it.each(defects)('fails on %s', (_what, breakIt, message) => {
    const root = copyOfRepo();
    breakIt(root);
    const r = checkRepo(root);
    expect(r.code).toBe(1);
    expect(r.lines.some((l) => l.startsWith(message) || l.includes(message))).toBe(true);
    expect(r.lines.at(-1)).toMatch(/^check-repo: \d+ problems?$/);
  });

  it('does not count type-only imports as a cycle', () => {
    const root = copyOfRepo();
    writeFiles(root, {
      'packages/workqueue/src/cycle-a.ts':
        "import type { B } from './cycle-b.js';\nexport interface A { b?: B }\nexport const a = 1;\n",
      'packages/workqueue/src/cycle-b.ts':
        "import { a } from './cycle-a.js';\nexport interface B { a: typeof a }\n",
    });
    expect(checkRepo(root).code).toBe(0);
  });

  it('checks docs/typedoc.json only when it exists', () => {
    const root = copyOfRepo();
    rmSync(join(root, 'docs'), { recursive: true, force: true });
    expect(checkRepo(root).code).toBe(0);
  });
});
