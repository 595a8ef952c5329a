#!/usr/bin/env node
// Expands and checks the include markers in the repo's markdown (STYLE.md §4.12):
//
//   <!-- include: ../../packages/workqueue/src/queue.ts#queue-get -->
//   ...generated: a caption with the repo-relative path, then a fenced block...
//   <!-- /include -->
//
// The path is relative to the markdown file; `#region` picks the lines between
// `//#region NAME` and `//#endregion NAME` (dedented, other region markers
// stripped), and without it the whole file is included.
//
// Usage: node scripts/snippets.mjs [--check] [--root DIR] [files...]
//   (no files: README.md, packages/*/README.md, tutorials/**/*.md, docs/*.md)
//   --check  write nothing; exit 1 listing every problem as `file:line: message`
//            (stale blocks, missing paths or regions, unclosed markers, and
//            fenced blocks outside includes that are not shell commands).
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
const OPEN = /^\s*<!--\s*include:\s*(.*?)\s*-->\s*$/;
const CLOSE = /^\s*<!--\s*\/include\s*-->\s*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const REGION = /^\s*\/\/\s*#(region|endregion)\b[ \t]*(\S*)/;
const SHELL_LANGS = new Set(['sh', 'bash', 'console', 'shell']);
const COMMAND = /^(npm |npx kcm-ts(\s|$)|kubectl )/;

const toPosix = (p) => p.split(path.sep).join('/');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

// ---- sources and regions -------------------------------------------------

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
    if (CLOSE.test(line)) {
      problems.push({ line: i + 1, message: 'include end marker without an include marker' });
      continue;
    }
    const open = OPEN.exec(line);
    if (!open) continue;
    // Find the end marker, skipping fenced blocks (generated code may quote markers).
    let end = -1;
    for (let j = i + 1, inner = null; j < lines.length && end === -1; j++) {
      if (inner) inner = fenceCloses(lines[j], inner) ? null : inner;
      else if ((inner = openFence(lines[j], j + 1))) continue;
      else if (CLOSE.test(lines[j])) end = j;
      else if (OPEN.test(lines[j])) break;
    }
    if (end === -1) {
      problems.push({
        line: i + 1,
        message: `include marker is never closed with <!-- /include -->: ${open[1]}`,
      });
      continue;
    }
    includes++;
    const old = lines.slice(i + 1, end);
    const block = renderInclude(root, mdFile, open[1]);
    if (block.error) problems.push({ line: i + 1, message: block.error });
    else if (block.lines.join('\n') !== old.join('\n')) {
      problems.push({
        line: i + 1,
        stale: true,
        message: `include of ${open[1]} is out of date (run: node scripts/snippets.mjs)`,
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
