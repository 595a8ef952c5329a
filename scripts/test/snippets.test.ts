import { describe, expect, it } from 'vitest';
import { lines, read, runScript, tempDir, writeFiles } from './helpers.js';

const CHAPTER = 'tutorials/01-demo/README.md';

const QUEUE_TS = lines(
  "import { helper } from './helper.js';",
  '',
  '//#region types',
  'export type Item = string;',
  '//#endregion types',
  '',
  'export class Queue {',
  '  //#region queue-get',
  '  get(): number {',
  '    // #region inner',
  '    const n = helper();',
  '    //#endregion inner',
  '',
  '    return n;',
  '  }',
  '  //#endregion queue-get',
  '',
  '  //#region first',
  '  a(): void {}',
  '  //#region second',
  '  b(): void {}',
  '  //#endregion first',
  '  c(): void {}',
  '  //#endregion second',
  '}',
  '',
);

/** A small repo: root and workspace package.json files, a package source and a chapter. */
function repo(files: Record<string, string> = {}): string {
  return tempDir('snippets', {
    'package.json': JSON.stringify({
      name: 'root',
      private: true,
      workspaces: ['packages/*', 'tutorials/*'],
      scripts: { build: 'turbo run build' },
    }),
    'packages/demo/package.json': JSON.stringify({
      name: '@kcm-ts/demo',
      scripts: { build: 'tsup' },
    }),
    'packages/demo/src/queue.ts': QUEUE_TS,
    'tutorials/01-demo/package.json': JSON.stringify({
      name: 'tutorial-01-demo',
      scripts: { start: 'tsx x.ts', 'start:step': 'tsx y.ts' },
    }),
    ...files,
  });
}

const include = (spec: string, ...body: string[]) =>
  lines(`<!-- include: ${spec} -->`, ...body, '<!-- /include -->');

const check = (root: string, ...files: string[]) =>
  runScript('snippets.mjs', ['--root', root, '--check', ...files]);
const expand = (root: string, ...files: string[]) =>
  runScript('snippets.mjs', ['--root', root, ...files]);

describe('snippets.mjs: expanding', () => {
  it('expands a region: caption, blank line, fenced and dedented lines, inner markers stripped', () => {
    const root = repo({
      [CHAPTER]: lines(
        '# Demo',
        '',
        include('../../packages/demo/src/queue.ts#queue-get'),
        '',
        'After.',
        '',
      ),
    });
    const r = expand(root);
    expect(r.code).toBe(0);
    expect(read(root, CHAPTER)).toBe(
      lines(
        '# Demo',
        '',
        '<!-- include: ../../packages/demo/src/queue.ts#queue-get -->',
        '`packages/demo/src/queue.ts`',
        '',
        '```ts',
        'get(): number {',
        '  const n = helper();',
        '',
        '  return n;',
        '}',
        '```',
        '<!-- /include -->',
        '',
        'After.',
        '',
      ),
    );
  });

  it('includes a whole file when there is no #region, without its region markers', () => {
    const root = repo({ [CHAPTER]: include('../../packages/demo/src/queue.ts') + '\n' });
    expect(expand(root).code).toBe(0);
    const text = read(root, CHAPTER);
    expect(text).toContain(
      "```ts\nimport { helper } from './helper.js';\n\nexport type Item = string;\n",
    );
    expect(text).not.toMatch(/#(end)?region/);
    expect(text).toMatch(/ {2}c\(\): void \{\}\n\}\n```\n<!-- \/include -->\n$/);
  });

  it('dedents by the common indentation only', () => {
    const root = repo({
      'tutorials/01-demo/examples/step.ts': lines(
        'function f() {',
        '    //#region body',
        '    if (x) {',
        '',
        '\t\t',
        '      y();',
        '    }',
        '    //#endregion body',
        '}',
      ),
      [CHAPTER]: include('./examples/step.ts#body'),
    });
    expect(expand(root).code).toBe(0);
    expect(read(root, CHAPTER)).toContain('```ts\nif (x) {\n\n\n  y();\n}\n```');
  });

  it('strips the markers of overlapping regions from the included lines', () => {
    const root = repo({
      [CHAPTER]: lines(
        include('../../packages/demo/src/queue.ts#first'),
        include('../../packages/demo/src/queue.ts#second'),
      ),
    });
    expect(expand(root).code).toBe(0);
    const text = read(root, CHAPTER);
    expect(text).toContain('```ts\na(): void {}\nb(): void {}\n```');
    expect(text).toContain('```ts\nb(): void {}\nc(): void {}\n```');
  });

  it('takes the fence language from the extension', () => {
    const exts = {
      ts: 'ts',
      mjs: 'js',
      js: 'js',
      json: 'json',
      yaml: 'yaml',
      yml: 'yaml',
      sh: 'sh',
      txt: 'text',
      md: 'md',
    };
    const files: Record<string, string> = {};
    const md: string[] = [];
    for (const ext of Object.keys(exts)) {
      files[`tutorials/01-demo/examples/file.${ext}`] = `content of ${ext}\n`;
      md.push(include(`./examples/file.${ext}`));
    }
    const root = repo({ ...files, [CHAPTER]: md.join('\n\n') });
    expect(expand(root).code).toBe(0);
    const text = read(root, CHAPTER);
    for (const [ext, lang] of Object.entries(exts)) {
      expect(text).toContain(
        `\`tutorials/01-demo/examples/file.${ext}\`\n\n\`\`\`${lang}\ncontent of ${ext}\n\`\`\``,
      );
    }
  });

  it('uses a longer fence when the included file has fences of its own', () => {
    const root = repo({
      'docs/snippet.md': lines('Run:', '', '```sh', 'npm test', '```', ''),
      'docs/index.md': include('./snippet.md'),
    });
    expect(expand(root).code).toBe(0);
    expect(read(root, 'docs/index.md')).toContain(
      '````md\nRun:\n\n```sh\nnpm test\n```\n````\n<!-- /include -->',
    );
    expect(check(root).code).toBe(0);
  });

  it('is idempotent: a second run changes nothing and --check then passes', () => {
    const root = repo({
      [CHAPTER]: lines(
        include('../../packages/demo/src/queue.ts#queue-get', 'stale text'),
        '',
        include('../../packages/demo/src/queue.ts'),
        '',
        '```sh',
        'npm start',
        '```',
        '',
      ),
    });
    expect(expand(root).code).toBe(0);
    const once = read(root, CHAPTER);
    const again = expand(root);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('0 files rewritten');
    expect(read(root, CHAPTER)).toBe(once);
    const checked = check(root);
    expect(checked.lines).toEqual(['snippets: 2 includes in 1 files, all up to date']);
    expect(checked.code).toBe(0);
  });

  it('leaves a block it cannot expand alone, and still fails', () => {
    const root = repo({ [CHAPTER]: include('./nope.ts', 'kept') });
    const r = expand(root);
    expect(r.code).toBe(1);
    expect(r.lines).toContain(`${CHAPTER}:1: include path not found: ./nope.ts`);
    expect(read(root, CHAPTER)).toBe(include('./nope.ts', 'kept'));
  });

  it('expands only the files it is given, relative to the working directory', () => {
    const root = repo({
      [CHAPTER]: include('../../packages/demo/src/queue.ts#types'),
      'docs/index.md': include('./missing.ts'),
    });
    const r = runScript('snippets.mjs', ['--root', root, 'README.md'], `${root}/tutorials/01-demo`);
    expect(r.code).toBe(0);
    expect(read(root, CHAPTER)).toContain('export type Item = string;');
  });
});

describe('snippets.mjs --check', () => {
  const failures: [string, Record<string, string>, string][] = [
    [
      'a block that differs from what it would write',
      { [CHAPTER]: lines('text', '', include('../../packages/demo/src/queue.ts#types', 'old')) },
      `${CHAPTER}:3: include of ../../packages/demo/src/queue.ts#types is out of date (run: node scripts/snippets.mjs)`,
    ],
    [
      'a path that does not exist',
      { [CHAPTER]: include('./nope.ts#x') },
      `${CHAPTER}:1: include path not found: ./nope.ts`,
    ],
    [
      'a path outside the repository',
      { [CHAPTER]: include('../../../outside.ts') },
      `${CHAPTER}:1: include path ../../../outside.ts is outside the repository`,
    ],
    [
      'a missing region',
      { [CHAPTER]: include('../../packages/demo/src/queue.ts#nope') },
      `${CHAPTER}:1: region "nope" not found in packages/demo/src/queue.ts`,
    ],
    [
      'a region opened twice',
      {
        'packages/demo/src/dup.ts': lines(
          '//#region dup',
          'a',
          '//#endregion dup',
          '//#region dup',
          'b',
          '//#endregion dup',
        ),
        [CHAPTER]: include('../../packages/demo/src/dup.ts#dup'),
      },
      `${CHAPTER}:1: region "dup" is opened twice in packages/demo/src/dup.ts (lines 1, 4)`,
    ],
    [
      'a region never closed',
      {
        'packages/demo/src/open.ts': lines('//#region open', 'a', '//#endregion other'),
        [CHAPTER]: include('../../packages/demo/src/open.ts#open'),
      },
      `${CHAPTER}:1: region "open" is never closed in packages/demo/src/open.ts`,
    ],
    [
      'an unclosed include marker',
      { [CHAPTER]: lines('a', '<!-- include: ../../packages/demo/src/queue.ts#types -->', 'b') },
      `${CHAPTER}:2: include marker is never closed with <!-- /include -->: ../../packages/demo/src/queue.ts#types`,
    ],
    [
      'an include marker opened inside another',
      {
        [CHAPTER]: lines(
          '<!-- include: ../../packages/demo/src/queue.ts#types -->',
          include('../../packages/demo/src/queue.ts#types'),
        ),
      },
      `${CHAPTER}:1: include marker is never closed with <!-- /include -->: ../../packages/demo/src/queue.ts#types`,
    ],
    [
      'an end marker with no include',
      { [CHAPTER]: lines('a', '<!-- /include -->') },
      `${CHAPTER}:2: include end marker without an include marker`,
    ],
    [
      'code typed by hand outside an include',
      { [CHAPTER]: lines('Look:', '', '```ts', 'const x = 1;', '```') },
      `${CHAPTER}:3: code block outside an include (language "ts"): only sh, bash, console or shell blocks of commands may be typed; include code from a file`,
    ],
    [
      'a fence with no language outside an include',
      { [CHAPTER]: lines('~~~', 'anything', '~~~') },
      `${CHAPTER}:1: code block outside an include (no language): only sh, bash, console or shell blocks of commands may be typed; include code from a file`,
    ],
    [
      'a shell line that is not a command to type',
      { [CHAPTER]: lines('```sh', 'npm test', 'echo hello', '```') },
      `${CHAPTER}:3: not a command to type (npm, npx kcm-ts or kubectl); code must be included from a file: echo hello`,
    ],
    [
      'a command chained after an allowed one',
      { [CHAPTER]: lines('```bash', 'npm ci && node x.js', '```') },
      `${CHAPTER}:2: not a command to type (npm, npx kcm-ts or kubectl); code must be included from a file: node x.js`,
    ],
    [
      'npm run of a script missing from the nearest package.json',
      { [CHAPTER]: lines('```sh', 'npm run bench', '```') },
      `${CHAPTER}:2: npm run bench: no script "bench" in tutorials/01-demo/package.json`,
    ],
    [
      'npm run of a script missing from the nearest package.json above a nested file',
      { 'tutorials/01-demo/notes/deep.md': lines('```sh', 'npm run build', '```') },
      'tutorials/01-demo/notes/deep.md:2: npm run build: no script "build" in tutorials/01-demo/package.json',
    ],
    [
      'npm run -w <path> of a script that package lacks',
      { [CHAPTER]: lines('```shell', 'npm run start -w packages/demo', '```') },
      `${CHAPTER}:2: npm run start -w packages/demo: no script "start" in packages/demo/package.json`,
    ],
    [
      'npm run -w <path> with no package.json there',
      { [CHAPTER]: lines('```console', 'npm run bench -w bench', '```') },
      `${CHAPTER}:2: npm run bench -w bench: no package.json for workspace bench`,
    ],
    [
      'a region that stops before its function closes',
      {
        'packages/demo/src/cut.ts': lines(
          'export function f(): number {',
          '  //#region cut',
          '  const n = 1;',
          '  if (n > 0) {',
          '    return n;',
          '  //#endregion cut',
          '  }',
          '  return 0;',
          '}',
        ),
        [CHAPTER]: include('../../packages/demo/src/cut.ts#cut'),
      },
      `${CHAPTER}:1: region "cut" in packages/demo/src/cut.ts is unbalanced: a \`{\` opened here is never closed (line 4); move its markers so it holds whole statements`,
    ],
    [
      'a region that holds a function without its closing brace',
      {
        'packages/demo/src/head.ts': lines(
          '//#region head',
          'export function f(list: number[]): number {',
          '  return list.length;',
          '//#endregion head',
          '}',
        ),
        [CHAPTER]: include('../../packages/demo/src/head.ts#head'),
      },
      `${CHAPTER}:1: region "head" in packages/demo/src/head.ts is unbalanced: a \`{\` opened here is never closed (line 2); move its markers so it holds whole statements`,
    ],
    [
      'a region that closes what it did not open',
      {
        'packages/demo/src/tail.ts': lines(
          'export function f(): void {',
          '  //#region tail',
          '  g();',
          '}',
          '//#endregion tail',
        ),
        [CHAPTER]: include('../../packages/demo/src/tail.ts#tail'),
      },
      `${CHAPTER}:1: region "tail" in packages/demo/src/tail.ts is unbalanced: a \`}\` closes what the region did not open (line 4); move its markers so it holds whole statements`,
    ],
    [
      'a region that ends inside a template literal',
      {
        'packages/demo/src/tpl.js': lines(
          '//#region tpl',
          'const s = `a ${b} and',
          '//#endregion tpl',
          'c`;',
        ),
        [CHAPTER]: include('../../packages/demo/src/tpl.js#tpl'),
      },
      `${CHAPTER}:1: region "tpl" in packages/demo/src/tpl.js is unbalanced: a template literal is never closed (line 2); move its markers so it holds whole statements`,
    ],
    [
      'TypeDoc link syntax in prose, which GitHub shows raw',
      { [CHAPTER]: lines('Take a {@link "@kcm-ts/demo"!Clock} here.') },
      `${CHAPTER}:1: TypeDoc syntax such as {@link ...} reads raw on GitHub: link to the source file instead, [\`Name\`](../../packages/pkg/src/file.ts), which the docs site turns into a link to the API page`,
    ],
    [
      'a course block of an unknown kind',
      { [CHAPTER]: lines('<!-- course: toc -->', '<!-- /course -->') },
      `${CHAPTER}:1: unknown course block "toc" (map or nav)`,
    ],
    [
      'a chapter navigation outside a chapter',
      { 'docs/index.md': lines('<!-- course: nav -->', '<!-- /course -->') },
      'docs/index.md:1: a course: nav block belongs in a chapter (tutorials/NN-slug/*.md)',
    ],
    [
      'a stale chapter navigation',
      {
        'tutorials/00-start/README.md': '# Chapter 0 · Start\n',
        [CHAPTER]: lines(
          '# Chapter 1 · Demo',
          '',
          '<!-- course: nav -->',
          'old',
          '<!-- /course -->',
        ),
      },
      `${CHAPTER}:3: course nav is out of date (run: node scripts/snippets.mjs)`,
    ],
    [
      'an unclosed course block',
      { [CHAPTER]: lines('<!-- course: nav -->', 'text') },
      `${CHAPTER}:1: course marker is never closed with <!-- /course -->: nav`,
    ],
  ];

  it('accepts balanced regions: brackets in strings, templates, comments and regexes, and an open class body', () => {
    const root = repo({
      'packages/demo/src/ok.ts': lines(
        '//#region fields',
        'export class Store<T> {',
        '  readonly #items = new Map<string, T>();',
        '  #count = 0;',
        '//#endregion fields',
        '',
        '  //#region tricky',
        '  key(x: { a: string }): string {',
        "    const open = '{(['; // a comment with { and (",
        '    /* a block comment with ] and } */',
        '    const t = `${x.a}-${`${open}}`}-{`;',
        '    const re = /[{(]\\}/g;',
        '    return (t.replace(re, "}") + open).slice(0, [1, 2].length / 2);',
        '  }',
        '  //#endregion tricky',
        '}',
      ),
      [CHAPTER]: lines(
        include('../../packages/demo/src/ok.ts#fields'),
        include('../../packages/demo/src/ok.ts#tricky'),
      ),
    });
    const r = expand(root);
    expect(r.lines).toEqual(['snippets: 2 includes in 1 files, 1 files rewritten']);
    expect(r.code).toBe(0);
  });

  it.each(failures)('fails on %s, and writes nothing', (_what, files, message) => {
    const root = repo(files);
    const before = Object.keys(files).map((f) => read(root, f));
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.lines).toContain(message);
    expect(r.lines.at(-1)).toMatch(/^snippets: \d+ problems? \(/);
    expect(Object.keys(files).map((f) => read(root, f))).toEqual(before);
  });

  it('accepts the commands a reader may type', () => {
    const root = repo({
      [CHAPTER]: lines(
        '```sh',
        '# comments and blank lines are fine',
        '',
        'npm ci',
        'npm install',
        'npm install @kcm-ts/demo',
        'npm test',
        'npm start',
        'npm start -w tutorials/01-demo',
        'npm test -w packages/demo',
        'npm run start:step',
        'npm run build -w packages/demo',
        'npm run build --workspace=packages/demo',
        'npm run build -w @kcm-ts/demo',
        'npm run start:step -- --watch',
        'npx kcm-ts up',
        'kubectl get pods \\',
        '  --all-namespaces',
        '```',
        '',
        '```bash',
        'npm ci && npm test',
        '```',
        '',
        '```console',
        'kubectl get deployments',
        '```',
      ),
      'packages/demo/README.md': lines('```sh', 'npm run build', '```'),
      'README.md': lines('```sh', 'npm run build', '```'),
    });
    const r = check(root);
    expect(r.lines).toEqual(['snippets: 0 includes in 3 files, all up to date']);
    expect(r.code).toBe(0);
  });

  it('does not read include markers inside a fenced block', () => {
    const root = repo({
      [CHAPTER]: lines('```sh', '# <!-- include: ./nope.ts -->', 'npm test', '```'),
    });
    expect(check(root).code).toBe(0);
  });

  it('lists every problem, sorted by file and line, the same way every time', () => {
    const root = repo({
      [CHAPTER]: lines(
        include('./nope.ts'),
        '```js',
        'x',
        '```',
        include('../../packages/demo/src/queue.ts#types', 'old'),
      ),
      'docs/index.md': lines('```sh', 'rm -rf /', '```'),
    });
    const first = check(root);
    expect(first.stderr.trim().split('\n')).toEqual([
      'docs/index.md:2: not a command to type (npm, npx kcm-ts or kubectl); code must be included from a file: rm -rf /',
      `${CHAPTER}:1: include path not found: ./nope.ts`,
      `${CHAPTER}:3: code block outside an include (language "js"): only sh, bash, console or shell blocks of commands may be typed; include code from a file`,
      `${CHAPTER}:6: include of ../../packages/demo/src/queue.ts#types is out of date (run: node scripts/snippets.mjs)`,
      'snippets: 4 problems (2 includes in 2 files)',
    ]);
    expect(check(root).stderr).toBe(first.stderr);
  });

  it('checks README.md, packages/*/README.md, tutorials/**/*.md and docs/*.md by default, skipping node_modules and dist', () => {
    const bad = lines('```ts', 'x', '```');
    const root = repo({
      'README.md': bad,
      'packages/demo/README.md': bad,
      'packages/demo/docs/other.md': bad,
      'packages/demo/dist/README.md': bad,
      'tutorials/README.md': bad,
      'tutorials/01-demo/deeper/notes.md': bad,
      'tutorials/01-demo/node_modules/dep/README.md': bad,
      'tutorials/01-demo/dist/x.md': bad,
      'docs/index.md': bad,
      'docs/sub/page.md': bad,
      'node_modules/dep/README.md': bad,
    });
    const files = check(root)
      .stderr.trim()
      .split('\n')
      .filter((l) => l.includes(':1: '))
      .map((l) => l.slice(0, l.indexOf(':')));
    expect(files).toEqual([
      'README.md',
      'docs/index.md',
      'packages/demo/README.md',
      'tutorials/01-demo/deeper/notes.md',
      'tutorials/README.md',
    ]);
  });

  it('passes on a file whose includes are up to date and changes nothing', () => {
    const root = repo({ [CHAPTER]: include('../../packages/demo/src/queue.ts#types') });
    expect(expand(root).code).toBe(0);
    const expanded = read(root, CHAPTER);
    writeFiles(root, { 'packages/demo/src/unrelated.ts': 'export {};\n' });
    expect(check(root).code).toBe(0);
    expect(read(root, CHAPTER)).toBe(expanded);
  });
});

describe('snippets.mjs: the course navigation', () => {
  /** Three chapters, two packages whose READMEs' "Learn it" link to chapters 0 and 1. */
  function course(extra: Record<string, string> = {}): string {
    const nav = lines('<!-- course: nav -->', '<!-- /course -->', '');
    return repo({
      'packages/demo/README.md': lines(
        '# @kcm-ts/demo',
        '',
        '## Learn it',
        '',
        '[Chapter 1](../../tutorials/01-demo/README.md)',
        '',
      ),
      'packages/base/README.md': lines(
        '# @kcm-ts/base',
        '',
        '## Learn it',
        '',
        'See [chapter 0](../../tutorials/00-start/README.md).',
        '',
        '## Other',
        '',
        '[not this one](../../tutorials/01-demo/README.md)',
        '',
      ),
      'tutorials/00-start/README.md': lines(
        '---',
        "title: '0. Start'",
        '---',
        '',
        '# Chapter 0 · Start',
        '',
        '> Go source: `cmd/a.go`, `pkg/b/`',
        '> and `pkg/c.go` · More.',
        '',
        '<!-- course: map -->',
        '<!-- /course -->',
        '',
        nav,
      ),
      [CHAPTER]: lines('# Chapter 1 · Demo', '', '> Go source: `pkg/demo/`', '', nav),
      'tutorials/02-last/README.md': lines('# Chapter 2 · Last', '', nav),
      'tutorials/02-last/README.zh-CN.md': lines('# 第 2 章 · 最后', '', nav),
      'tutorials/01-demo/README.zh-CN.md': lines('# 第 1 章 · 演示', '', nav),
      'tutorials/notes/README.md': '# not a chapter\n',
      ...extra,
    });
  }

  it("writes the map and every chapter's previous and next links from the chapters that exist", () => {
    const root = course();
    const r = expand(root);
    expect(r.code).toBe(0);
    expect(read(root, 'tutorials/00-start/README.md')).toContain(
      lines(
        '<!-- course: map -->',
        '',
        '| chapter | package | Go source |',
        '|---|---|---|',
        '| Chapter 0 · Start (this page) | `@kcm-ts/base` | `cmd/a.go`, `pkg/b/`, `pkg/c.go` |',
        '| [Chapter 1 · Demo](../01-demo/README.md) | `@kcm-ts/demo` | `pkg/demo/` |',
        '| [Chapter 2 · Last](../02-last/README.md) | — | — |',
        '',
        '<!-- /course -->',
        '',
        '<!-- course: nav -->',
        '**Next:** [Chapter 1 · Demo](../01-demo/README.md) · [All chapters](../README.md)',
        '<!-- /course -->',
      ),
    );
    expect(read(root, CHAPTER)).toContain(
      '**Previous:** [Chapter 0 · Start](../00-start/README.md) · **Next:** [Chapter 2 · Last](../02-last/README.md) · [All chapters](../README.md)',
    );
    // The last chapter has no next one.
    expect(read(root, 'tutorials/02-last/README.md')).toContain(
      lines(
        '<!-- course: nav -->',
        '**Previous:** [Chapter 1 · Demo](../01-demo/README.md) · [All chapters](../README.md)',
        '<!-- /course -->',
      ),
    );
    // A translation links to its neighbours' translations where they exist.
    expect(read(root, 'tutorials/02-last/README.zh-CN.md')).toContain(
      '**上一章:** [第 1 章 · 演示](../01-demo/README.zh-CN.md) · [全部章节](../README.md)',
    );
    expect(read(root, 'tutorials/01-demo/README.zh-CN.md')).toContain(
      '**上一章:** [Chapter 0 · Start](../00-start/README.md) · **下一章:** [第 2 章 · 最后](../02-last/README.zh-CN.md)',
    );
    expect(check(root).code).toBe(0);
  });

  it('finds the navigation stale once a new chapter lands', () => {
    const root = course();
    expect(expand(root).code).toBe(0);
    writeFiles(root, {
      'tutorials/03-next/README.md': lines(
        '# Chapter 3 · Next',
        '',
        '<!-- course: nav -->',
        '<!-- /course -->',
        '',
      ),
    });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.lines).toContain(
      'tutorials/00-start/README.md:10: course map is out of date (run: node scripts/snippets.mjs)',
    );
    expect(r.lines).toContain(
      'tutorials/02-last/README.md:3: course nav is out of date (run: node scripts/snippets.mjs)',
    );
    expect(r.lines).toContain(
      'tutorials/03-next/README.md:3: course nav is out of date (run: node scripts/snippets.mjs)',
    );
    expect(expand(root).code).toBe(0);
    expect(read(root, 'tutorials/02-last/README.md')).toContain(
      '**Next:** [Chapter 3 · Next](../03-next/README.md)',
    );
    expect(check(root).code).toBe(0);
  });
});
