#!/usr/bin/env node
// Expands and checks the include markers in the repo's markdown (the root README's
// "Contributing" section says why chapters never hold pasted code):
//
//   <!-- include: ../../packages/workqueue/src/queue.ts#queue-get -->
//   ...generated: a caption with the repo-relative path, then a fenced block...
//   <!-- /include -->
//
// The path is relative to the markdown file; `#region` picks the lines between
// `//#region NAME` and `//#endregion NAME` (dedented, other region markers
// stripped), and without it the whole file is included. A region of code must
// be balanced: one that opens a `{`, `(` or `[` it does not close (a function
// cut off before its closing brace) is refused; only a class's or an
// interface's body may stay open, to show its head and fields.
//
// It also writes the course's navigation from the chapters that exist
// (tutorials/NN-slug/README.md), so that it cannot go stale:
//
//   <!-- course: map -->   chapter 0's course map: every chapter, its packages
//   <!-- /course -->       (the package READMEs whose "Learn it" links to it)
//                          and its Go source (from the chapter's header note)
//   <!-- course: nav -->   the previous and next chapter; every chapter ends
//   <!-- /course -->       with one (the last chapter has no next)
//
// Usage: node scripts/snippets.mjs [--check] [--root DIR] [files...]
//   (no files: README.md, packages/*/README.md, tutorials/**/*.md, docs/*.md)
//   --check  write nothing; exit 1 listing every problem as `file:line: message`
//            (stale blocks, missing paths or regions, unbalanced regions,
//            unclosed markers, stale course blocks, TypeDoc tags such as
//            {@link} in a README's prose, which GitHub shows raw, and fenced
//            blocks outside includes that are not shell commands).
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LANGS = {
  ts: 'ts',
  mts: 'ts',
  cts: 'ts',
  js: 'js',
  mjs: 'js',
  cjs: 'js',
  json: 'json',
  yaml: 'yaml',
  yml: 'yaml',
  sh: 'sh',
  txt: 'text',
  md: 'md',
};
const OPEN = /^\s*<!--\s*(include|course):\s*(.*?)\s*-->\s*$/;
const CLOSE = /^\s*<!--\s*\/(include|course)\s*-->\s*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const REGION = /^\s*\/\/\s*#(region|endregion)\b[ \t]*(\S*)/;
const RAW_TAG = /\{@(link|linkcode|linkplain|includeCode|include)\b/;
const SHELL_LANGS = new Set(['sh', 'bash', 'console', 'shell']);
const COMMAND = /^(npm |npx kcm-ts(\s|$)|kubectl )/;

const toPosix = (p) => p.split(path.sep).join('/');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

// ---- sources and regions -------------------------------------------------

const CODE_LANGS = new Set(['ts', 'js']);
const PAIRS = { '{': '}', '(': ')', '[': ']' };
const CLOSERS = { '}': '{', ')': '(', ']': '[' };
// After these a `/` starts a regular expression; elsewhere it divides.
const BEFORE_REGEX = new Set([...'(,=:[!&|?{};+-*%<>~^', '']);
const REGEX_WORDS = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'yield',
  'await',
]);

/**
 * The first bracket of `lines` (TypeScript or JavaScript) that is not matched
 * within them, skipping strings, template literals, comments and regular
 * expressions: `{ line, message }` with `line` 0-based, or undefined when
 * every `{`, `(` and `[` the lines open they also close.
 */
export function unbalanced(lines) {
  const text = lines.join('\n');
  const stack = []; // { ch, line }; ch '${' marks a template substitution
  let line = 0;
  let prev = ''; // the last significant character, or the last word
  let i = 0;
  const lineAt = (to) => {
    for (; i < to && i < text.length; i++) if (text[i] === '\n') line++;
    i = to;
  };
  const unclosed = (what, from) => ({ line: from, message: `${what} is never closed` });
  // Scans a template literal's text from `i`; stops after its closing backtick
  // (returns true) or after a `${` (pushed on the stack; returns false).
  const template = () => {
    const from = line;
    while (i < text.length) {
      const c = text[i];
      if (c === '\\') lineAt(i + 2);
      else if (c === '`') {
        i++;
        return true;
      } else if (c === '$' && text[i + 1] === '{') {
        stack.push({ ch: '${', line });
        i += 2;
        return false;
      } else lineAt(i + 1);
    }
    throw unclosed('a template literal', from);
  };
  try {
    while (i < text.length) {
      const c = text[i];
      if (c === '\n' || c === ' ' || c === '\t' || c === '\r') {
        lineAt(i + 1);
        continue;
      }
      if (c === '/' && text[i + 1] === '/') {
        const end = text.indexOf('\n', i);
        lineAt(end === -1 ? text.length : end);
        continue;
      }
      if (c === '/' && text[i + 1] === '*') {
        const end = text.indexOf('*/', i + 2);
        if (end === -1) throw unclosed('a comment', line);
        lineAt(end + 2);
        continue;
      }
      if (c === '"' || c === "'") {
        let j = i + 1;
        while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
        if (text[j] !== c) throw unclosed('a string', line);
        lineAt(j + 1);
        prev = 'x';
        continue;
      }
      if (c === '`') {
        i++;
        template();
        prev = 'x';
        continue;
      }
      if (c === '/' && (BEFORE_REGEX.has(prev) || REGEX_WORDS.has(prev))) {
        let j = i + 1;
        let inClass = false;
        while (j < text.length && text[j] !== '\n' && (inClass || text[j] !== '/')) {
          if (text[j] === '\\') j++;
          else if (text[j] === '[') inClass = true;
          else if (text[j] === ']') inClass = false;
          j++;
        }
        if (text[j] !== '/') throw unclosed('a regular expression', line);
        i = j + 1;
        prev = 'x';
        continue;
      }
      if (PAIRS[c]) stack.push({ ch: c, line });
      else if (CLOSERS[c]) {
        const top = stack.pop();
        if (top === undefined)
          return { line, message: `a \`${c}\` closes what the region did not open` };
        if (top.ch === '${' && c === '}') {
          i++;
          if (!template()) continue;
          prev = 'x';
          continue;
        }
        if (top.ch !== CLOSERS[c])
          return { line, message: `a \`${c}\` closes the \`${top.ch}\` of line ${top.line}` };
      }
      const word = /^[A-Za-z_$][\w$]*/.exec(text.slice(i, i + 64));
      if (word) {
        prev = word[0];
        i += word[0].length;
      } else {
        prev = /[\d.]/.test(c) ? 'x' : c;
        i++;
      }
    }
  } catch (err) {
    if (err && typeof err.message === 'string' && typeof err.line === 'number') return err;
    throw err;
  }
  // A region may show a class's (or an interface's) head and fields without
  // its end; every other bracket it opens it must close.
  while (
    stack.length > 0 &&
    /^\s*(export\s+)?(default\s+)?(abstract\s+)?(class|interface)\b/.test(
      lines[stack.at(-1).line] ?? '',
    )
  )
    stack.pop();
  const open = stack.pop();
  if (open === undefined) return undefined;
  const what = open.ch === '${' ? 'a template literal' : `a \`${open.ch}\``;
  return { line: open.line, message: `${what} opened here is never closed` };
}

/** The lines an include stands for, or `{ error }`. */
export function sourceLines(file, region, shown) {
  const lines = readFileSync(file, 'utf8').replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  let body = lines;
  if (region) {
    const opens = [];
    const closes = [];
    lines.forEach((line, i) => {
      const m = REGION.exec(line);
      if (m && m[2] === region) (m[1] === 'region' ? opens : closes).push(i);
    });
    if (opens.length === 0) return { error: `region "${region}" not found in ${shown}` };
    if (opens.length > 1) {
      const at = opens.map((i) => i + 1).join(', ');
      return { error: `region "${region}" is opened twice in ${shown} (lines ${at})` };
    }
    const close = closes.find((i) => i > opens[0]);
    if (close === undefined) return { error: `region "${region}" is never closed in ${shown}` };
    if (closes.length > 1) return { error: `region "${region}" is closed twice in ${shown}` };
    body = lines.slice(opens[0] + 1, close);
    if (CODE_LANGS.has(LANGS[path.extname(file).slice(1).toLowerCase()])) {
      const wrong = unbalanced(body);
      if (wrong) {
        const at = opens[0] + 2 + wrong.line;
        return {
          error: `region "${region}" in ${shown} is unbalanced: ${wrong.message} (line ${at}); move its markers so it holds whole statements`,
        };
      }
    }
  }
  body = body.filter((line) => !REGION.test(line)).map((line) => line.trimEnd());
  while (body.length > 0 && body[0] === '') body.shift();
  while (body.length > 0 && body.at(-1) === '') body.pop();
  const indents = body.filter((l) => l !== '').map((l) => /^[ \t]*/.exec(l)[0].length);
  const cut = indents.length > 0 ? Math.min(...indents) : 0;
  return { lines: body.map((l) => l.slice(cut)) };
}

/** The generated block (between the markers) for one include, or `{ error }`. */
export function renderInclude(root, mdFile, spec) {
  const hash = spec.indexOf('#');
  const rel = hash === -1 ? spec : spec.slice(0, hash);
  const region = hash === -1 ? '' : spec.slice(hash + 1);
  if (rel === '') return { error: 'include marker names no path' };
  const abs = path.resolve(path.dirname(mdFile), rel);
  const shown = toPosix(path.relative(root, abs));
  if (shown.startsWith('../') || path.isAbsolute(shown)) {
    return { error: `include path ${rel} is outside the repository` };
  }
  if (!existsSync(abs) || !statSync(abs).isFile())
    return { error: `include path not found: ${rel}` };
  const src = sourceLines(abs, region, shown);
  if (src.error) return src;
  const ext = path.extname(abs).slice(1).toLowerCase();
  const longest = Math.max(2, ...src.lines.map((l) => /^\s*(`*)/.exec(l)[1].length));
  const fence = '`'.repeat(longest + 1);
  return { lines: ['`' + shown + '`', '', fence + (LANGS[ext] ?? 'text'), ...src.lines, fence] };
}

// ---- the course's navigation -------------------------------------------------

const CHAPTER_DIR = /^\d\d-/;
const WORDS = {
  'README.md': { previous: 'Previous', next: 'Next', all: 'All chapters' },
  'README.zh-CN.md': { previous: '上一章', next: '下一章', all: '全部章节' },
};

/** The H1 of a markdown text, skipping its frontmatter. */
function heading(text) {
  const body = text.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '');
  return /^# +(.+?)\s*$/m.exec(body)?.[1];
}

/** The chapters that exist, in order: tutorials/NN-slug folders with a README.md. */
export function courseChapters(root) {
  const tutorials = path.join(root, 'tutorials');
  return listDirs(tutorials)
    .filter((d) => CHAPTER_DIR.test(d) && existsSync(path.join(tutorials, d, 'README.md')))
    .map((dir) => ({ dir, number: Number.parseInt(dir, 10) }));
}

/** What chapter 0's map says of one chapter: its packages and its Go source. */
function chapterFacts(root, dir) {
  const text = readFileSync(path.join(root, 'tutorials', dir, 'README.md'), 'utf8');
  // The packages whose README's "Learn it" section links to this chapter.
  const packages = [];
  for (const pkg of listDirs(path.join(root, 'packages'))) {
    const readme = path.join(root, 'packages', pkg, 'README.md');
    if (!existsSync(readme)) continue;
    const learn = /^## Learn it\s*$([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(
      readFileSync(readme, 'utf8'),
    );
    if (learn && learn[1].includes(`tutorials/${dir}/`)) packages.push(`\`@kcm-ts/${pkg}\``);
  }
  // The code spans after "Go source:" in the header note (the first quote block).
  const body = text.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '');
  const note = (/^>.*(?:\r?\n>.*)*/m.exec(body)?.[0] ?? '')
    .replace(/^>\s?/gm, '')
    .replace(/\s+/g, ' ');
  const go = /Go source:\s*((?:`[^`]+`(?:,\s*|\s+and\s+)?)+)/.exec(note)?.[1] ?? '';
  const spans = go.match(/`[^`]+`/g) ?? [];
  return { packages, spans };
}

/** The generated lines of a `<!-- course: map|nav -->` block, or `{ error }`. */
export function renderCourse(root, mdFile, spec) {
  const rel = toPosix(path.relative(path.join(root, 'tutorials'), mdFile)).split('/');
  const here = rel.length === 2 && CHAPTER_DIR.test(rel[0]) ? rel[0] : undefined;
  const base = path.basename(mdFile);
  const chapters = courseChapters(root);
  const target = (dir) => {
    const file = existsSync(path.join(root, 'tutorials', dir, base)) ? base : 'README.md';
    return { file, href: `../${dir}/${file}` };
  };
  const label = (dir) => {
    const { file } = target(dir);
    const text = readFileSync(path.join(root, 'tutorials', dir, file), 'utf8');
    return heading(text) ?? dir;
  };
  if (spec === 'nav') {
    if (here === undefined)
      return { error: 'a course: nav block belongs in a chapter (tutorials/NN-slug/*.md)' };
    const at = chapters.findIndex((c) => c.dir === here);
    const words = WORDS[base] ?? WORDS['README.md'];
    const parts = [];
    const prev = chapters[at - 1];
    const next = chapters[at + 1];
    if (prev) parts.push(`**${words.previous}:** [${label(prev.dir)}](${target(prev.dir).href})`);
    if (next) parts.push(`**${words.next}:** [${label(next.dir)}](${target(next.dir).href})`);
    const index = existsSync(path.join(root, 'tutorials', base)) ? base : 'README.md';
    parts.push(`[${words.all}](../${index})`);
    return { lines: [parts.join(' · ')] };
  }
  if (spec === 'map') {
    const rows = chapters.map(({ dir }) => {
      const { packages, spans } = chapterFacts(root, dir);
      const name = label(dir);
      const cell = dir === here ? `${name} (this page)` : `[${name}](${target(dir).href})`;
      return `| ${cell} | ${packages.join(', ') || '—'} | ${spans.join(', ') || '—'} |`;
    });
    return { lines: ['', '| chapter | package | Go source |', '|---|---|---|', ...rows, ''] };
  }
  return { error: `unknown course block "${spec}" (map or nav)` };
}

// ---- commands typed in prose -----------------------------------------------

function workspaceDirs(root) {
  const byName = new Map();
  const rootPkg = path.join(root, 'package.json');
  const patterns = existsSync(rootPkg) ? (readJson(rootPkg).workspaces ?? []) : [];
  for (const pattern of patterns) {
    const dirs = pattern.endsWith('/*')
      ? listDirs(path.join(root, pattern.slice(0, -2))).map((d) =>
          path.join(pattern.slice(0, -2), d),
        )
      : [pattern];
    for (const dir of dirs) {
      const file = path.join(root, dir, 'package.json');
      if (existsSync(file)) byName.set(readJson(file).name, path.join(root, dir));
    }
  }
  return byName;
}

function nearestPackageJson(root, from) {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'package.json');
    if (dir === root || path.dirname(dir) === dir) return undefined;
  }
}

/** Problems with one shell line outside an include (empty when it is fine). */
export function checkCommand(root, mdFile, command) {
  if (!COMMAND.test(command)) {
    return [
      `not a command to type (npm, npx kcm-ts or kubectl); code must be included from a file: ${command}`,
    ];
  }
  const words = command.split(/\s+/);
  if (words[0] !== 'npm' || !['run', 'run-script'].includes(words[1] ?? '')) return [];
  let script;
  const workspaces = [];
  for (let i = 2; i < words.length; i++) {
    const w = words[i];
    if (w === '--') break;
    if (w === '-w' || w === '--workspace') workspaces.push(words[++i] ?? '');
    else if (/^(-w|--workspace)=/.test(w)) workspaces.push(w.slice(w.indexOf('=') + 1));
    else if (w === '-ws' || w === '--workspaces' || w === '--if-present') return [];
    else if (!w.startsWith('-') && script === undefined) script = w;
  }
  if (script === undefined) return [];
  const targets = [];
  for (const ws of workspaces) {
    let file = path.join(root, ws, 'package.json');
    if (!existsSync(file)) file = path.join(workspaceDirs(root).get(ws) ?? '\0', 'package.json');
    if (!existsSync(file)) return [`${command}: no package.json for workspace ${ws}`];
    targets.push(file);
  }
  if (workspaces.length === 0) {
    const file = nearestPackageJson(root, path.dirname(mdFile));
    if (!file) return [`${command}: no package.json at or above this file`];
    targets.push(file);
  }
  return targets
    .filter((file) => !Object.hasOwn(readJson(file).scripts ?? {}, script))
    .map((file) => `${command}: no script "${script}" in ${toPosix(path.relative(root, file))}`);
}

function checkFence(root, mdFile, fence, problems) {
  if (!SHELL_LANGS.has(fence.lang)) {
    const lang = fence.lang === '' ? 'no language' : `language "${fence.lang}"`;
    problems.push({
      line: fence.line,
      message: `code block outside an include (${lang}): only sh, bash, console or shell blocks of commands may be typed; include code from a file`,
    });
    return;
  }
  let continued = false;
  for (const { text, line } of fence.body) {
    const t = text.trim();
    const isContinuation = continued;
    continued = t.endsWith('\\');
    if (t === '' || t.startsWith('#') || isContinuation) continue;
    for (const part of t
      .replace(/\\$/, '')
      .split(/\s*(?:&&|\|\||;)\s*/)
      .filter(Boolean)) {
      for (const message of checkCommand(root, mdFile, part)) problems.push({ line, message });
    }
  }
}

// ---- one markdown file -------------------------------------------------------

function fenceCloses(line, fence) {
  const m = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return m !== null && m[1][0] === fence.char && m[1].length >= fence.len;
}

function openFence(line, lineNo) {
  const m = FENCE.exec(line);
  if (!m || (m[1][0] === '`' && m[2].includes('`'))) return null;
  return {
    char: m[1][0],
    len: m[1].length,
    lang: m[2].trim().split(/\s+/)[0].toLowerCase(),
    line: lineNo,
    body: [],
  };
}

/** Expands one markdown text. Returns the new text, the include count and the problems. */
export function processMarkdown(root, mdFile, text) {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const out = [];
  const problems = [];
  let includes = 0;
  let fence = null;
  // Originals only: a translation follows its original when it is next translated.
  const rawTags = path.basename(mdFile) === 'README.md';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    out.push(line);
    if (fence) {
      if (fenceCloses(line, fence)) {
        checkFence(root, mdFile, fence, problems);
        fence = null;
      } else fence.body.push({ text: line, line: i + 1 });
      continue;
    }
    if ((fence = openFence(line, i + 1))) continue;
    if (rawTags && RAW_TAG.test(line.replace(/`[^`]*`/g, ''))) {
      problems.push({
        line: i + 1,
        message:
          'TypeDoc syntax such as {@link ...} reads raw on GitHub: link to the source file instead, [`Name`](../../packages/pkg/src/file.ts), which the docs site turns into a link to the API page',
      });
    }
    const closing = CLOSE.exec(line);
    if (closing) {
      const kind = closing[1];
      problems.push({ line: i + 1, message: `${kind} end marker without an ${kind} marker` });
      continue;
    }
    const open = OPEN.exec(line);
    if (!open) continue;
    const [, kind, spec] = open;
    // Find the end marker, skipping fenced blocks (generated code may quote markers).
    let end = -1;
    for (let j = i + 1, inner = null; j < lines.length && end === -1; j++) {
      if (inner) inner = fenceCloses(lines[j], inner) ? null : inner;
      else if ((inner = openFence(lines[j], j + 1))) continue;
      else if (CLOSE.exec(lines[j])?.[1] === kind) end = j;
      else if (OPEN.test(lines[j])) break;
    }
    if (end === -1) {
      problems.push({
        line: i + 1,
        message: `${kind} marker is never closed with <!-- /${kind} -->: ${spec}`,
      });
      continue;
    }
    if (kind === 'include') includes++;
    const old = lines.slice(i + 1, end);
    const block =
      kind === 'include' ? renderInclude(root, mdFile, spec) : renderCourse(root, mdFile, spec);
    if (block.error) problems.push({ line: i + 1, message: block.error });
    else if (block.lines.join('\n') !== old.join('\n')) {
      const what = kind === 'include' ? `include of ${spec}` : `course ${spec}`;
      problems.push({
        line: i + 1,
        stale: true,
        message: `${what} is out of date (run: node scripts/snippets.mjs)`,
      });
    }
    out.push(...(block.lines ?? old), lines[end]);
    i = end;
  }
  if (fence) {
    problems.push({ line: fence.line, message: 'code block is never closed' });
    checkFence(root, mdFile, fence, problems);
  }
  problems.sort((a, b) => a.line - b.line);
  return { text: out.join(eol), includes, problems };
}

// ---- files and the command line -------------------------------------------------

function listDirs(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter(
      (d) =>
        d.isDirectory() && !['node_modules', 'dist'].includes(d.name) && !d.name.startsWith('.'),
    )
    .map((d) => d.name)
    .sort();
}

function markdownIn(dir, recursive) {
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.md'))
    .map((d) => path.join(dir, d.name));
  if (recursive)
    for (const sub of listDirs(dir)) files.push(...markdownIn(path.join(dir, sub), true));
  return files;
}

export function defaultFiles(root) {
  const files = [path.join(root, 'README.md')].filter((f) => existsSync(f));
  for (const pkg of listDirs(path.join(root, 'packages'))) {
    const readme = path.join(root, 'packages', pkg, 'README.md');
    if (existsSync(readme)) files.push(readme);
  }
  files.push(
    ...markdownIn(path.join(root, 'tutorials'), true),
    ...markdownIn(path.join(root, 'docs'), false),
  );
  return [...new Set(files)].sort();
}

function main(argv) {
  const check = argv.includes('--check');
  const rootAt = argv.indexOf('--root');
  const root = path.resolve(
    rootAt === -1 ? fileURLToPath(new URL('..', import.meta.url)) : argv[rootAt + 1],
  );
  const args = argv.filter(
    (a, i) => a !== '--check' && (rootAt === -1 || (i !== rootAt && i !== rootAt + 1)),
  );
  const files =
    args.length > 0 ? [...new Set(args.map((f) => path.resolve(f)))].sort() : defaultFiles(root);
  const report = [];
  let includes = 0;
  let written = 0;
  for (const file of files) {
    const shown = toPosix(path.relative(root, file));
    if (!existsSync(file)) {
      report.push(`${shown}: file not found`);
      continue;
    }
    const text = readFileSync(file, 'utf8');
    const result = processMarkdown(root, file, text);
    includes += result.includes;
    for (const p of result.problems)
      if (check || !p.stale) report.push(`${shown}:${p.line}: ${p.message}`);
    if (!check && result.text !== text) {
      writeFileSync(file, result.text);
      written++;
    }
  }
  for (const line of report) console.error(line);
  const summary = `${includes} includes in ${files.length} files`;
  if (report.length > 0) {
    console.error(
      `snippets: ${report.length} problem${report.length === 1 ? '' : 's'} (${summary})`,
    );
    return 1;
  }
  console.log(
    check
      ? `snippets: ${summary}, all up to date`
      : `snippets: ${summary}, ${written} files rewritten`,
  );
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
