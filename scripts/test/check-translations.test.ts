import { describe, expect, it } from 'vitest';
import { lines, runScript, tempDir } from './helpers.js';

const EN = 'tutorials/01-demo/README.md';
const ZH = 'tutorials/01-demo/README.zh-CN.md';

const include = (spec: string, ...body: string[]) =>
  lines(`<!-- include: ${spec} -->`, ...body, '<!-- /include -->');

const english = lines(
  '---',
  "title: '1. Demo'",
  '---',
  '',
  '# Chapter 1 · Demo',
  '',
  '## The queue',
  '',
  include('../../packages/demo/src/queue.ts#queue-get', '```ts', '# not a heading', '```'),
  '',
  '### Getting',
  '',
  '```sh',
  '# a comment, not a heading',
  'npm start',
  '```',
  '',
  include('./examples/out.txt'),
  '',
  '## Next',
  '',
  '<!-- course: nav -->',
  '**Next:** [Chapter 2](../02-next/README.md)',
  '<!-- /course -->',
  '',
);

const chinese = lines(
  '---',
  "title: '1. 演示'",
  '---',
  '',
  '# 第 1 章 · 演示',
  '',
  '> [English](./README.md) | 简体中文',
  '',
  '## 队列',
  '',
  include('../../packages/demo/src/queue.ts#queue-get', '```ts', '# not a heading', '```'),
  '',
  '### 取出',
  '',
  '```sh',
  'npm start',
  '```',
  '',
  include('./examples/out.txt'),
  '',
  '## 下一章',
  '',
  '<!-- course: nav -->',
  '**下一章：** [第 2 章](../02-next/README.md)',
  '<!-- /course -->',
  '',
);

const check = (root: string) => runScript('check-translations.mjs', ['--root', root]);

describe('check-translations.mjs', () => {
  it('passes on the real repo (a chapter without a translation is only a warning)', () => {
    const r = runScript('check-translations.mjs', []);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^check-translations: \d+ of \d+ chapters translated/);
    for (const line of r.stderr.split('\n').filter(Boolean)) {
      expect(line).toMatch(/^warning: tutorials\/\d\d-[^/]+\/README\.zh-CN\.md: missing/);
    }
  });

  it('passes when a translation has the same includes and sections as its original', () => {
    const root = tempDir('translations', { [EN]: english, [ZH]: chinese });
    const r = check(root);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      "check-translations: 1 of 1 chapters translated, each with its original's blocks and sections\n",
    );
    expect(r.code).toBe(0);
  });

  it('warns about a chapter with no translation, and still passes', () => {
    const root = tempDir('translations', {
      [EN]: english,
      [ZH]: chinese,
      'tutorials/02-new/README.md': '# Chapter 2\n',
      'tutorials/README.md': '# The course\n',
    });
    const r = check(root);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'warning: tutorials/02-new/README.zh-CN.md: missing (chapter 02-new has no Chinese edition yet)\n',
    );
    expect(r.stdout).toMatch(/^check-translations: 1 of 2 chapters translated/);
  });

  it('fails when an include block is missing, naming the chapter and the block', () => {
    const root = tempDir('translations', {
      [EN]: english,
      [ZH]: chinese.replace(include('./examples/out.txt'), ''),
    });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'tutorials/01-demo/README.zh-CN.md: has 1 include block, the English original 2 (tutorials/01-demo/README.md)',
    );
    expect(r.stderr).toContain(
      'block 2 differs: line 27 has <!-- course: nav -->, the English original <!-- include: ./examples/out.txt --> (line 22)',
    );
    expect(r.stderr).toMatch(/check-translations: 2 differences \(1 of 1 chapters translated\)\n$/);
  });

  it('fails when a translation has an extra include block', () => {
    const root = tempDir('translations', {
      [EN]: english,
      [ZH]: chinese + include('./examples/more.txt') + '\n',
    });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('has 3 include blocks, the English original 2');
    expect(r.stderr).toContain(
      'block 4 differs: line 31 has <!-- include: ./examples/more.txt -->, the English original none',
    );
  });

  it('fails when an include names another region or path', () => {
    const root = tempDir('translations', {
      [EN]: english,
      [ZH]: chinese.replace('queue.ts#queue-get', 'queue.ts#queue-add'),
    });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'block 1 differs: line 11 has <!-- include: ../../packages/demo/src/queue.ts#queue-add -->, ' +
        'the English original <!-- include: ../../packages/demo/src/queue.ts#queue-get --> (line 9)',
    );
    expect(r.stderr).not.toContain('block 2');
    expect(r.stderr).not.toContain('include blocks,');
  });

  it('fails when the include blocks come in another order', () => {
    const a = include(
      '../../packages/demo/src/queue.ts#queue-get',
      '```ts',
      '# not a heading',
      '```',
    );
    const b = include('./examples/out.txt');
    const swapped = chinese.replace(a, '@A@').replace(b, a).replace('@A@', b);
    const root = tempDir('translations', { [EN]: english, [ZH]: swapped });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'block 1 differs: line 11 has <!-- include: ./examples/out.txt -->, ' +
        'the English original <!-- include: ../../packages/demo/src/queue.ts#queue-get --> (line 9)',
    );
  });

  it('fails when a course block (the chapter navigation or the map) is missing', () => {
    const root = tempDir('translations', {
      [EN]: english,
      [ZH]: chinese.replace(/<!-- course: nav -->[\s\S]*<!-- \/course -->\n/, ''),
    });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('has 0 course blocks, the English original 1');
    expect(r.stderr).toContain(
      'block 3 differs: it has none, the English original <!-- course: nav --> (line 27)',
    );
  });

  it('fails when a heading level has another number of sections, listing both', () => {
    const root = tempDir('translations', {
      [EN]: english,
      [ZH]: chinese.replace('### 取出', '## 取出'),
    });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'tutorials/01-demo/README.zh-CN.md: has 3 level-2 headings (##), the English original 2: ' +
        'English "The queue", "Next"; Chinese "队列", "取出", "下一章"',
    );
    expect(r.stderr).toContain(
      'has 0 level-3 headings (###), the English original 1: English "Getting"; Chinese none',
    );
  });

  it('does not count lines starting with # in code blocks, includes or frontmatter', () => {
    const root = tempDir('translations', {
      [EN]: english,
      [ZH]: chinese
        .replace("title: '1. 演示'", "title: '1. 演示'\n# a YAML comment")
        .replace('npm start', '# 注释\nnpm start')
        .concat(lines('~~~text', '## not a heading either', '~~~', '')),
    });
    const r = check(root);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('reports every chapter that differs, and nothing for the ones that match', () => {
    const root = tempDir('translations', {
      [EN]: english,
      [ZH]: chinese,
      'tutorials/02-other/README.md': english,
      'tutorials/02-other/README.zh-CN.md': chinese.replace('## 下一章', 'Next'),
    });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('01-demo');
    expect(r.stderr).toContain(
      'tutorials/02-other/README.zh-CN.md: has 1 level-2 heading (##), the English original 2',
    );
  });
});
