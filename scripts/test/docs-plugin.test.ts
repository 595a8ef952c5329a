// @ts-expect-error: markdown-it (TypeDoc's parser) ships no types
import MarkdownItModule from 'markdown-it';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM module with no types (the docs site's TypeDoc plugin)
import * as course from '../../docs/plugins/course.mjs';

interface Token {
  type: string;
  content: string;
  children: Token[] | null;
}
interface MarkdownIt {
  parse(src: string, env: object): Token[];
  render(src: string): string;
}
const MarkdownItCtor = MarkdownItModule as new (options: object) => MarkdownIt;

interface Plugin {
  dropRenderedNote(text: string): string;
  anchorOf(text: string): string;
  configureMarkdown(parser: MarkdownIt): void;
  sections(markdown: string): { heading: string; body: string }[];
  declaredNames(code: string): Set<string>;
}
const plugin = course as Plugin;

const site = () => {
  const md = new MarkdownItCtor({ html: true, linkify: true });
  plugin.configureMarkdown(md);
  return md;
};

describe('docs/plugins/course.mjs', () => {
  it('keeps code spans in headings as text (for the outline and the anchor), still shown as code', () => {
    const md = site();
    const tokens = md.parse('## The basic queue (`queue.go`)', {});
    const inline = tokens.find((t) => t.type === 'inline');
    const text = (inline?.children ?? [])
      .filter((t) => t.type === 'text')
      .map((t) => t.content)
      .join('');
    expect(text).toBe('The basic queue (queue.go)');
    expect(md.render('## The basic queue (`queue.go`)')).toBe(
      '<h2>The basic queue (<code>queue.go</code>)</h2>\n',
    );
    // Code spans elsewhere are left alone.
    expect(md.render('a `b` c')).toBe('<p>a <code>b</code> c</p>\n');
  });

  it('links URLs with a scheme, not bare domain names like an API group', () => {
    const md = site();
    expect(md.render('a Lease of coordination.k8s.io/v1')).toBe(
      '<p>a Lease of coordination.k8s.io/v1</p>\n',
    );
    expect(md.render('see https://kubernetes.io/docs')).toContain(
      '<a href="https://kubernetes.io/docs">',
    );
  });

  it('drops the header note meant for GitHub readers, across a quote line break', () => {
    expect(
      plugin.dropRenderedNote(
        ' · Rendered on the docs site\n> under _Course → 1. Workqueue_.\n\nChapter 0 ended',
      ),
    ).toBe('\n\nChapter 0 ended');
    expect(
      plugin.dropRenderedNote(
        '> Rendered on the docs site under _Course → 0. Introduction_. Go source:',
      ),
    ).toBe('> Go source:');
  });

  it("computes TypeDoc's anchor for a heading", () => {
    expect(plugin.anchorOf('The cache: Store, ThreadSafeStore and Indexer')).toBe(
      'the-cache-store-threadsafestore-and-indexer',
    );
    expect(plugin.anchorOf('1. The reflector: list, then watch')).toBe(
      '1-the-reflector-list-then-watch',
    );
  });

  it('splits a chapter into sections, ignoring # lines inside code blocks', () => {
    const found = plugin.sections(
      ['# Chapter', 'intro', '## One', '```sh', '# a comment', '```', '### Two', 'text'].join('\n'),
    );
    expect(found.map((s) => s.heading)).toEqual(['Chapter', 'One', 'Two']);
    expect(found[1]?.body).toContain('# a comment');
  });

  it('finds the names that included code declares', () => {
    const names = plugin.declaredNames(
      [
        'export function newIndexer<T>(keyFunc: KeyFunc): Indexer<T> {',
        'export async function run(): Promise<void> {}',
        'export class Reflector<T> {',
        'export interface Store<T> {',
        'export type IndexFunc<T> = (obj: T) => string[];',
        'export const namespaceIndex = "namespace";',
        'function helper() {}',
        '  const local = 1;',
      ].join('\n'),
    );
    expect([...names].sort()).toEqual([
      'IndexFunc',
      'Reflector',
      'Store',
      'namespaceIndex',
      'newIndexer',
      'run',
    ]);
  });
});
