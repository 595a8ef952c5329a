// The course on the docs site: chapters that read as well here as on GitHub,
// and API pages that point back at the chapter section that teaches them.
//
// - Markdown: a heading keeps its code spans in the page outline and in its
//   anchor (TypeDoc reads only a heading's plain text); bare domain names
//   such as coordination.k8s.io/v1 are not turned into links (GitHub links
//   only URLs with a scheme or www., and so does the site).
// - Chapters link to API symbols as GitHub does, with a markdown link to the
//   source file: [`Clock`](../../packages/apimachinery/src/clock.ts). On the
//   site such a link goes to the symbol's page.
// - The chapter header's "Rendered on the docs site under …" note is for
//   GitHub readers: it is dropped on the site.
// - Every class, interface, function, type and variable page that a chapter
//   teaches ends with a link to that chapter's section: the section whose
//   included code declares it, or else the first whose heading names it, or
//   else the first whose prose names it (as code or in bold).
// - Search ranks chapters above API members: a reader who types "leader
//   election" wants the chapter first, not the ten symbols named after it.
// - The Chinese edition is a site of its own beside the English one: the
//   Chinese course index (tutorials/README.zh-CN.md) holds every chapter's
//   README.zh-CN.md (the chapters list them as their own children, for
//   GitHub), titled in Chinese from each one's first heading, at the English
//   page's address plus `.zh-CN`; its pages say lang="zh-CN" and use
//   TypeDoc's Chinese page furniture; every page with a counterpart has a
//   switch to it.
// - Search finds Chinese: lunr splits only at spaces and then trims every
//   non-ASCII character off a word's ends, so a run of Chinese text was no
//   word at all. Each run of CJK characters is indexed as one word fenced by
//   underscores, and the search box's own `*query*` wildcards then match any
//   substring of it: every character n-gram, as a reader types it.
//   Results are labelled with a page's heading, not its path.
// - The navigation names the packages "Packages" (not their npm scope) and
//   puts the course, then its Chinese edition, first.
import { Buffer } from 'node:buffer';
import { inflateSync, deflateSync } from 'node:zlib';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  Application,
  DefaultTheme,
  IndexEvent,
  JSX,
  KindRouter,
  PageEvent,
  ReflectionKind,
  RendererEvent,
} from 'typedoc';

const SOURCE_LINK = /^(?:\.\.\/)+packages\/([^/]+)\/src\/[^#]*$/;
const RENDERED_NOTE = /\s*(?:·\s*)?Rendered on the docs site(?:\s|>)+under(?:\s|>)+_[^_]*_\.?/;
// Search weights, tried against the queries in test/site.test.ts: a concept
// ("expectations", "slow start") finds its chapter before the class members
// named after it, and an exact API name (RateLimitingQueue, Clock) still finds
// its symbol first. English chapters weigh more than Chinese ones, so that an
// English query (which the Chinese pages' code also matches) finds the
// English page first; Chinese queries match only Chinese pages.
const CHAPTER_SEARCH_BOOST = 60;
const CHINESE_CHAPTER_SEARCH_BOOST = 10;
const MEMBER_SEARCH_BOOST = 0.3;
/** Weight of a document's headings and bold terms, where a chapter names what it teaches. */
const TERMS_FIELD_WEIGHT = 3;
const TAUGHT_KINDS =
  ReflectionKind.Class |
  ReflectionKind.Interface |
  ReflectionKind.Function |
  ReflectionKind.TypeAlias |
  ReflectionKind.Variable |
  ReflectionKind.Enum;

/** The language of the Chinese edition, as pages declare it. */
export const CHINESE = 'zh-CN';
const CJK_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u30fc]+/gu;

/** Text for the search index: each run of CJK characters becomes one word, `_run_`, that lunr keeps whole. */
export const searchableText = (text) => text.replace(CJK_RUN, (run) => ` _${run}_ `);

/** A document's first level-one heading, without code marks. */
export function headingOf(markdown) {
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^ {0,3}(```|~~~)/.test(line)) fence = !fence;
    const m = !fence && /^# +(.+?)\s*$/.exec(line);
    if (m) return m[1].replace(/`/g, '');
  }
  return undefined;
}

/** What a document names as its subjects: its headings and its bold phrases, outside code. */
export function termsOf(markdown) {
  const terms = [];
  for (const section of sections(markdown)) {
    terms.push(section.heading.replace(/`/g, ''));
    const prose = section.body.replace(/^ {0,3}(```|~~~)[^\n]*\n[\s\S]*?^ {0,3}\1\s*$/gm, '');
    for (const m of prose.matchAll(/\*\*([^*\n]+)\*\*/g)) terms.push(m[1].replace(/`/g, ''));
  }
  return terms;
}

/** A Chinese chapter's navigation title from its heading: "第 5 章 · ReplicaSet 控制器" → "5. ReplicaSet 控制器". */
export function chineseTitle(heading, fallback) {
  const m = /^第\s*(\d+)\s*章\s*[·:：]?\s*(.+)$/.exec(heading ?? '');
  return m ? `${m[1]}. ${m[2]}` : fallback;
}

/** A chapter header's text without the GitHub-only "Rendered on the docs site under …" note. */
export const dropRenderedNote = (text) => text.replace(RENDERED_NOTE, '');

/** TypeDoc's anchor for a heading's text (its Slugger, first occurrence, lower case). */
export function anchorOf(text) {
  const slug = text
    .trim()
    .replace(/[\u2000-\u206F\u2E00-\u2E7F\\'!"#$%&()*+,./:;<=>?@[\]^`{|}~]/g, '')
    .replace(/\s/g, '-')
    .replace(/--+/, '-');
  return (slug || '_').toLocaleLowerCase();
}

/** Markdown-it settings for the site: see the file's header. */
export function configureMarkdown(parser) {
  parser.linkify.set({ fuzzyLink: false, fuzzyEmail: false });
  parser.core.ruler.push('heading-code-spans', (state) => {
    const tokens = state.tokens;
    for (let i = 1; i < tokens.length; i++) {
      if (tokens[i - 1].type !== 'heading_open' || tokens[i].type !== 'inline') continue;
      const children = [];
      for (const child of tokens[i].children ?? []) {
        if (child.type !== 'code_inline') {
          children.push(child);
          continue;
        }
        const open = new state.Token('html_inline', '', 0);
        open.content = '<code>';
        const text = new state.Token('text', '', 0);
        text.content = child.content;
        const close = new state.Token('html_inline', '', 0);
        close.content = '</code>';
        children.push(open, text, close);
      }
      tokens[i].children = children;
    }
  });
}

const textOf = (parts) => parts.map((p) => p.text).join('');

/** The sections of a chapter's markdown: heading text and the text under it. */
export function sections(markdown) {
  const out = [];
  let current = { heading: '', body: '' };
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^ {0,3}(```|~~~)/.test(line)) fence = !fence;
    const m = !fence && /^(#{1,3}) +(.+?)\s*$/.exec(line);
    if (m) {
      out.push(current);
      current = { heading: m[2], body: '' };
    } else current.body += `${line}\n`;
  }
  out.push(current);
  return out.filter((s) => s.heading !== '');
}

/** The names a block of included code declares at its top level or as a class's members. */
export function declaredNames(code) {
  const names = new Set();
  for (const m of code.matchAll(
    /^\s*export\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class|interface|type|const|let|enum)\s+([A-Za-z_$][\w$]*)/gm,
  ))
    names.add(m[1]);
  return names;
}

/** The two editions of the course, found in the merged project (see arrangeCourse). */
const editions = {
  /** Reflection id → the same page in the other language. */
  counterpart: new Map(),
  /** Ids of the Chinese pages. */
  chinese: new Set(),
  /** The English course index and the Chinese one. */
  course: undefined,
  zhCourse: undefined,
};

const textOfDoc = (doc) => doc.content.map((p) => p.text).join('');

/**
 * Moves each chapter's Chinese page from under the English chapter to the
 * Chinese course index, titles it in Chinese, and pairs every page with its
 * counterpart. The project page (the landing) pairs with the Chinese index.
 */
export function arrangeCourse(project, logger) {
  editions.counterpart.clear();
  editions.chinese.clear();
  const pathOf = (refl) => project.files.getReflectionPath(refl) ?? '';
  const documents = project.documents ?? [];
  const course = documents.find((d) => pathOf(d).endsWith('tutorials/README.md'));
  const zhCourse = documents.find((d) => pathOf(d).endsWith('tutorials/README.zh-CN.md'));
  editions.course = course;
  editions.zhCourse = zhCourse;
  if (!course || !zhCourse) {
    logger.warn('The course needs both tutorials/README.md and tutorials/README.zh-CN.md');
    return;
  }
  const pair = (en, zh) => {
    editions.counterpart.set(en.id, zh);
    editions.counterpart.set(zh.id, en);
    editions.chinese.add(zh.id);
  };
  pair(course, zhCourse);
  editions.counterpart.set(project.id, zhCourse);
  for (const chapter of course.children ?? []) {
    const zh = chapter.children?.find((c) => pathOf(c).endsWith('README.zh-CN.md'));
    if (!zh) {
      logger.warn(`${chapter.name} has no Chinese edition (README.zh-CN.md) among its children`);
      continue;
    }
    chapter.children = chapter.children.filter((c) => c !== zh);
    if (chapter.children.length === 0) chapter.children = undefined;
    const siblings = project.reflectionChildren.get(chapter.id);
    siblings.splice(siblings.indexOf(zh.id), 1);
    zh.parent = zhCourse;
    zhCourse.addChild(zh);
    project.reflectionChildren.get(zhCourse.id).push(zh.id);
    zh.name = chineseTitle(headingOf(textOfDoc(zh)), zh.name.replace(/\s*·\s*简体中文$/, ''));
    pair(chapter, zh);
  }
}

/** The kind router, with every Chinese page at its English counterpart's address plus `.zh-CN`. */
export class CourseRouter extends KindRouter {
  getIdealBaseName(reflection) {
    if (editions.chinese.has(reflection.id)) {
      const english = editions.counterpart.get(reflection.id);
      return `${super.getIdealBaseName(english)}.${CHINESE}`;
    }
    return super.getIdealBaseName(reflection);
  }
}

/** The default theme, with the navigation in reading order under plain names. */
export class CourseTheme extends DefaultTheme {
  buildNavigation(project) {
    const nav = super.buildNavigation(project);
    for (const node of nav) if (!node.path && node.text === '@kcm-ts') node.text = 'Packages';
    const rank = (node) =>
      node.path && node.path === this.router.getFullUrl(editions.course ?? project)
        ? 0
        : node.path && node.path === this.router.getFullUrl(editions.zhCourse ?? project)
          ? 1
          : 2;
    return nav.sort((a, b) => rank(a) - rank(b));
  }
}

/** How a search result names a page: documents by their heading rather than by their path. */
const searchLabels = new Map();

export function load(app) {
  app.renderer.defineRouter('kcm-ts', CourseRouter);
  app.renderer.defineTheme('kcm-ts', CourseTheme);
  app.on(Application.EVENT_PROJECT_REVIVE, (project) => arrangeCourse(project, app.logger), 100);

  // Chinese pages: lang="zh-CN" and TypeDoc's Chinese strings. A page is
  // rendered synchronously from BEGIN to END, so the locale is set for it alone.
  app.renderer.on(PageEvent.BEGIN, (page) => {
    if (editions.chinese.has(page.model.id)) app.internationalization.setLocale('zh');
  });
  app.renderer.on(PageEvent.END, (page) => {
    if (!editions.chinese.has(page.model.id)) return;
    app.internationalization.setLocale(app.lang);
    page.contents = page.contents?.replace(/(<html\b[^>]*?\blang=")[^"]*"/, `$1${CHINESE}"`);
  });

  // A switch to the same page in the other language, at the top of every page that has one.
  app.renderer.hooks.on('content.begin', (context) => {
    const model = context.page.model;
    const other = editions.counterpart.get(model.id);
    if (!other) return JSX.createElement(JSX.Fragment, null);
    const chinese = editions.chinese.has(model.id);
    const link = (label, lang) =>
      JSX.createElement('a', { href: context.urlTo(other), hreflang: lang, lang }, label);
    const here = (label, lang) => JSX.createElement('strong', { lang }, label);
    return JSX.createElement(
      'nav',
      { class: 'kcm-lang', 'aria-label': chinese ? '语言' : 'Language' },
      chinese ? link('English', 'en') : here('English', 'en'),
      ' | ',
      chinese ? here('简体中文', CHINESE) : link('简体中文', CHINESE),
    );
  });

  // Search: Chinese indexed as words, documents labelled by their heading.
  app.renderer.on(IndexEvent.PREPARE_INDEX, (event) => {
    searchLabels.clear();
    event.searchFieldWeights.terms = TERMS_FIELD_WEIGHT;
    event.searchResults.forEach((refl, i) => {
      const fields = event.searchFields[i];
      if (/[^ -~]/.test(refl.name)) fields.name = searchableText(refl.name);
      if (
        refl.isDeclaration() &&
        !refl.parent?.kindOf(ReflectionKind.SomeModule | ReflectionKind.Project)
      )
        refl.relevanceBoost = (refl.relevanceBoost ?? 1) * MEMBER_SEARCH_BOOST;
      if (!refl.isDocument()) return;
      const text = refl.content.map((part) => part.text).join('\n');
      fields.document = searchableText(text);
      fields.terms = searchableText(termsOf(text).join('\n'));
      const label =
        refl === editions.course || refl === editions.zhCourse
          ? refl.name
          : headingOf(textOfDoc(refl));
      if (label) searchLabels.set(app.renderer.router.getFullUrl(refl), label);
    });
  });
  app.renderer.on(RendererEvent.BEGIN, () => {
    app.renderer.postRenderAsyncJobs.push(async (event) => {
      const file = join(event.outputDirectory, 'assets', 'search.js');
      const js = await readFile(file, 'utf8');
      const m = /^window\.searchData = "([^"]*)";$/.exec(js.trim());
      if (!m) {
        app.logger.warn(`${file} is not the search index this plugin knows how to relabel`);
        return;
      }
      const data = JSON.parse(inflateSync(Buffer.from(m[1], 'base64')).toString('utf8'));
      for (const row of data.rows) {
        const label = searchLabels.get(row.url);
        if (label === undefined) continue;
        row.name = label;
        delete row.parent;
      }
      const packed = deflateSync(Buffer.from(JSON.stringify(data))).toString('base64');
      await writeFile(file, `window.searchData = "${packed}";`);
    });
  });

  app.on(Application.EVENT_BOOTSTRAP_END, () => {
    const previous = app.options.getValue('markdownItLoader');
    app.options.setValue('markdownItLoader', (parser) => {
      previous?.(parser);
      configureMarkdown(parser);
    });
  });

  /** Reflection id to { doc, heading } of the section that teaches it. */
  const taughtBy = new Map();

  // In packages mode the project documents join the merged project after
  // conversion, so this runs when rendering begins, on the whole project.
  app.renderer.on(RendererEvent.BEGIN, (event) => {
    const project = event.project;
    const moduleOf = (pkg) => project.children?.find((c) => c.name === `@kcm-ts/${pkg}`);
    const docs = project.getReflectionsByKind(ReflectionKind.Document);
    for (const doc of docs) {
      const parts = doc.content;
      // The GitHub-only note.
      for (const part of parts) {
        if (part.kind === 'text') part.text = dropRenderedNote(part.text);
      }
      // The chapter's own "English | 简体中文" line, for GitHub: the site's
      // switch (see content.begin) stands in its place.
      for (let i = 1; i < parts.length - 1; i++) {
        const [before, link, after] = [parts[i - 1], parts[i], parts[i + 1]];
        if (link.kind !== 'relative-link' || before.kind !== 'text' || after.kind !== 'text')
          continue;
        const english =
          /> English \| \[简体中文\]\($/.test(before.text) && after.text.startsWith(')');
        const chinese =
          /> \[English\]\($/.test(before.text) && after.text.startsWith(') | 简体中文');
        if (!english && !chinese) continue;
        before.text = before.text.replace(/(?:English \| \[简体中文\]|\[English\])\($/, '');
        after.text = after.text.slice(english ? 1 : ') | 简体中文'.length);
        parts.splice(i, 1);
        break;
      }
      // [`Name`](../../packages/pkg/src/file.ts) → a link to Name's page. The
      // lexer gives text "…[", code "`Name`", text "](", the link, text ")…".
      for (let i = 3; i < parts.length - 1; i++) {
        const part = parts[i];
        const m = part.kind === 'relative-link' && SOURCE_LINK.exec(part.text);
        if (!m) continue;
        const [open, code, middle, after] = [
          parts[i - 3],
          parts[i - 2],
          parts[i - 1],
          parts[i + 1],
        ];
        const name = code.kind === 'code' && /^`([A-Za-z_$][\w$]*)`$/.exec(code.text)?.[1];
        if (
          !name ||
          open.kind !== 'text' ||
          !open.text.endsWith('[') ||
          middle.kind !== 'text' ||
          middle.text !== '](' ||
          after.kind !== 'text' ||
          !after.text.startsWith(')')
        )
          continue;
        const target = moduleOf(m[1])?.getChildByName(name);
        if (!target) {
          app.logger.warn(
            `${doc.name}: [\`${name}\`](${part.text}) names no export of @kcm-ts/${m[1]}`,
          );
          continue;
        }
        open.text = open.text.slice(0, -1);
        after.text = after.text.slice(1);
        parts.splice(i - 2, 3, { kind: 'inline-tag', tag: '@linkcode', text: name, target });
        i -= 2;
      }
    }
    // Which chapter section teaches each exported symbol.
    const chapters = docs.filter((d) => /^\d+\. /.test(d.name));
    const english = chapters.filter((d) => !editions.chinese.has(d.id));
    for (const doc of chapters)
      doc.relevanceBoost =
        (doc.relevanceBoost ?? 1) *
        (editions.chinese.has(doc.id) ? CHINESE_CHAPTER_SEARCH_BOOST : CHAPTER_SEARCH_BOOST);
    const exported = new Map();
    for (const refl of project.getReflectionsByKind(TAUGHT_KINDS)) {
      if (refl.parent?.kind !== ReflectionKind.Module) continue;
      if (!exported.has(refl.name)) exported.set(refl.name, []);
      exported.get(refl.name).push(refl);
    }
    const byCode = new Map();
    const byHeading = new Map();
    const byProse = new Map();
    for (const doc of english) {
      for (const section of sections(textOf(doc.content))) {
        const code = [...section.body.matchAll(/^```\w*\n([\s\S]*?)^```/gm)]
          .map((m) => m[1])
          .join('\n');
        const prose = section.body.replace(/^```\w*\n[\s\S]*?^```/gm, '');
        for (const name of declaredNames(code))
          if (!byCode.has(name)) byCode.set(name, { doc, heading: section.heading });
        for (const word of section.heading.replace(/`/g, '').match(/[A-Za-z_$][\w$]*/g) ?? []) {
          const name = word.toLowerCase();
          if (!byHeading.has(name)) byHeading.set(name, { doc, heading: section.heading });
        }
        for (const m of prose.matchAll(/`([A-Za-z_$][\w$]*)(?:\(\))?`|\*\*([A-Z][\w$]*)\*\*/g)) {
          const name = m[1] ?? m[2];
          if (!byProse.has(name)) byProse.set(name, { doc, heading: section.heading });
        }
      }
    }
    for (const [name, refls] of exported) {
      const where = byCode.get(name) ?? byHeading.get(name.toLowerCase()) ?? byProse.get(name);
      if (where) for (const refl of refls) taughtBy.set(refl.id, where);
    }
  });

  app.renderer.hooks.on('content.end', (context) => {
    const where = taughtBy.get(context.page.model.id);
    if (!where) return JSX.createElement(JSX.Fragment, null);
    const heading = where.heading.replace(/`/g, '');
    const zh = editions.counterpart.get(where.doc.id);
    return JSX.createElement(
      'p',
      { class: 'kcm-taught-in' },
      'Taught in the course: ',
      JSX.createElement(
        'a',
        { href: `${context.urlTo(where.doc)}#${anchorOf(heading)}` },
        `${where.doc.name} › ${heading}`,
      ),
      ...(zh
        ? [
            ' · ',
            JSX.createElement(
              'a',
              { href: context.urlTo(zh), hreflang: CHINESE, lang: CHINESE },
              `简体中文：${zh.name}`,
            ),
          ]
        : []),
    );
  });
}
