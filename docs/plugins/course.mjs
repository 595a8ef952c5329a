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
import { Application, JSX, ReflectionKind, RendererEvent } from 'typedoc';

const SOURCE_LINK = /^(?:\.\.\/)+packages\/([^/]+)\/src\/[^#]*$/;
const RENDERED_NOTE = /\s*(?:·\s*)?Rendered on the docs site(?:\s|>)+under(?:\s|>)+_[^_]*_\.?/;
const CHAPTER_SEARCH_BOOST = 10;
const TAUGHT_KINDS =
  ReflectionKind.Class |
  ReflectionKind.Interface |
  ReflectionKind.Function |
  ReflectionKind.TypeAlias |
  ReflectionKind.Variable |
  ReflectionKind.Enum;

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

export function load(app) {
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
    for (const doc of chapters)
      doc.relevanceBoost = (doc.relevanceBoost ?? 1) * CHAPTER_SEARCH_BOOST;
    const exported = new Map();
    for (const refl of project.getReflectionsByKind(TAUGHT_KINDS)) {
      if (refl.parent?.kind !== ReflectionKind.Module) continue;
      if (!exported.has(refl.name)) exported.set(refl.name, []);
      exported.get(refl.name).push(refl);
    }
    const byCode = new Map();
    const byHeading = new Map();
    const byProse = new Map();
    for (const doc of chapters) {
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
    return JSX.createElement(
      'p',
      { class: 'kcm-taught-in' },
      'Taught in the course: ',
      JSX.createElement(
        'a',
        { href: `${context.urlTo(where.doc)}#${anchorOf(heading)}` },
        `${where.doc.name} › ${heading}`,
      ),
    );
  });
}
