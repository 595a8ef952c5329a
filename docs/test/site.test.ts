// The built docs site, walked in headless Chromium at a phone's width: the
// pages load without a console error, every internal link and anchor leads
// somewhere, every diagram is drawn, nothing pushes the page sideways, and
// the search finds chapters and API symbols. The browser opens every chapter,
// every package page and a fixed sample of the API pages (they share one
// template and its scripts); the links and anchors of the pages it does not
// open are read from their HTML, so every link of the site is checked.
// `npm run test:full` (DOCS_SITE_FULL=1) opens every page: about seven
// minutes on two cores against two for the sample, too long for every run.
//
// It reads the site from dist/, which turbo builds first (docs/turbo.json:
// this workspace's `test` depends on its `docs`). By hand:
// `npx turbo run test --filter=docs-site`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, ConsoleMessage, HTTPRequest, HTTPResponse, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.js';
import { serveStatic, type StaticSite } from './serve.js';

const docsDir = fileURLToPath(new URL('..', import.meta.url));
const siteDir = join(docsDir, 'dist');
const tutorialsDir = join(docsDir, '..', 'tutorials');

// An iPhone 12–15's CSS width.
const PHONE = { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };
const TABS = 3;
// Every API page whose place in the sorted list is a multiple of this is opened.
const SAMPLE_EVERY = process.env.DOCS_SITE_FULL ? 1 : 5;

/** The pages the browser opens: chapters, the top pages, package pages, and a sample of the rest. */
const opensInBrowser = (page: string, index: number) =>
  !page.includes('/') ||
  page.startsWith('documents/') ||
  page.startsWith('modules/') ||
  index % SAMPLE_EVERY === 0;

const entities: Record<string, string> = { amp: '&', quot: '"', lt: '<', gt: '>', apos: "'" };
const unescapeHtml = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) =>
    name.startsWith('#x') || name.startsWith('#X')
      ? String.fromCodePoint(parseInt(name.slice(2), 16))
      : name.startsWith('#')
        ? String.fromCodePoint(Number(name.slice(1)))
        : (entities[name] ?? whole),
  );

/** The ids and links of a page as its HTML file has them, for pages the browser does not open. */
function readPage(path: string, origin: string): Pick<PageReport, 'ids' | 'links'> {
  const html = readFileSync(join(siteDir, path), 'utf8');
  const base = new URL(encodeURI(path), origin);
  return {
    ids: [
      ...[...html.matchAll(/\sid="([^"]*)"/g)].map((m) => unescapeHtml(m[1] as string)),
      ...[...html.matchAll(/<a\s[^>]*?\bname="([^"]*)"/g)].map((m) => unescapeHtml(m[1] as string)),
    ],
    links: [...html.matchAll(/<a\s[^>]*?\bhref="([^"]*)"/g)].map(
      (m) => new URL(unescapeHtml(m[1] as string), base).href,
    ),
  };
}

interface Image {
  src: string;
  decoded: boolean;
  naturalWidth: number;
  shownWidth: number;
  right: number;
}

interface PageReport {
  path: string;
  /** The page's language, from <html lang>. */
  lang: string;
  /** Where the page's language switch leads (absolute URLs), if it has one. */
  switchTo: string[];
  errors: string[];
  ids: string[];
  links: string[];
  images: Image[];
  /** Mermaid sources left as text: the site has no mermaid renderer. */
  mermaid: number;
  clientWidth: number;
  scrollWidth: number;
  /** The outermost elements that stick out past the viewport's right edge. */
  culprits: string[];
}

/** Every file of the site, as a path relative to its root with `/` separators. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'));
}

/** What one page shows once its scripts have run (collected inside the page). */
async function collect(): Promise<Omit<PageReport, 'path' | 'errors'>> {
  // TypeDoc hides the body until its script has set the page up (at most
  // 500 ms), and navigation.js fills the sidebar, whose links are checked
  // too. Waited for here rather than with waitForFunction, which injects
  // Puppeteer's helper script into every page and triples the crawl's cost.
  const ready = () =>
    document.body.style.display !== 'none' &&
    document.querySelector('#tsd-nav-container li') !== null;
  for (let waited = 0; !ready(); waited += 50) {
    if (waited > 30_000) throw new Error(`${location.pathname}: the page never finished showing`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const images = [...document.images];
  const decoded = await Promise.all(
    images.map((img) =>
      img.decode().then(
        () => true,
        () => false,
      ),
    ),
  );
  const doc = document.documentElement;
  const clientWidth = doc.clientWidth;
  const scrollWidth = Math.max(doc.scrollWidth, document.body.scrollWidth);
  const culprits: string[] = [];
  if (scrollWidth > clientWidth) {
    // For the message only: the outermost elements, or text in them, that
    // reach past the right edge, outside fixed layers (the phone menu) and
    // outside boxes that scroll or clip their own content.
    const reach = (el: Element, style: CSSStyleDeclaration) => {
      const rect = el.getBoundingClientRect();
      return (
        rect.left +
        (style.overflowX === 'visible' ? Math.max(rect.width, el.scrollWidth) : rect.width)
      );
    };
    const walk = (el: Element) => {
      for (const child of el.children) {
        const style = getComputedStyle(child);
        if (culprits.length >= 5 || style.position === 'fixed') continue;
        const right = reach(child, style);
        if (right <= clientWidth + 0.5) continue;
        const before = culprits.length;
        if (style.overflowX === 'visible') walk(child);
        if (culprits.length === before) {
          const classes = typeof child.className === 'string' ? child.className.trim() : '';
          const text = (child.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
          culprits.push(
            `<${child.tagName.toLowerCase()}${classes ? `.${classes.split(/\s+/).join('.')}` : ''}> "${text}" reaches ${Math.round(right)}px`,
          );
        }
      }
    };
    walk(document.body);
  }
  return {
    lang: doc.lang,
    switchTo: [...document.querySelectorAll('nav.kcm-lang a[href]')]
      .filter((a): a is HTMLAnchorElement => a instanceof HTMLAnchorElement)
      .map((a) => a.href),
    ids: [
      ...[...document.querySelectorAll('[id]')].map((el) => el.id),
      ...[...document.querySelectorAll('a[name]')].map((a) => a.getAttribute('name') ?? ''),
    ],
    links: [...document.querySelectorAll('a[href]')]
      .filter((a): a is HTMLAnchorElement => a instanceof HTMLAnchorElement)
      .map((a) => a.href),
    images: images.map((img, i) => {
      const rect = img.getBoundingClientRect();
      return {
        src: img.currentSrc || img.src,
        decoded: decoded[i] ?? false,
        naturalWidth: img.naturalWidth,
        shownWidth: rect.width,
        right: rect.right,
      };
    }),
    mermaid: document.querySelectorAll('code.language-mermaid, pre.mermaid, div.mermaid').length,
    clientWidth,
    scrollWidth,
    culprits,
  };
}

/** A browser tab that visits pages one after another and reports what each showed. */
async function openTab(browser: Browser, site: StaticSite) {
  // A window of its own: headless Chromium renders only the front tab of a
  // window, and a tab left behind another may never fire 'load'.
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport(PHONE);
  // esbuild (under vitest) may keep function names by wrapping functions in
  // a __name() helper; collect() runs in the page, which has none.
  await page.evaluateOnNewDocument('self.__name = (f) => f');
  let errors: string[] = [];
  page.on('console', (msg: ConsoleMessage) => {
    if (msg.type() === 'error')
      errors.push(`console error: ${msg.text()} (${msg.location().url ?? 'no url'})`);
  });
  page.on('pageerror', (err: unknown) =>
    errors.push(`uncaught: ${err instanceof Error ? err.message : String(err)}`),
  );
  page.on('requestfailed', (req: HTTPRequest) => {
    const why = req.failure()?.errorText ?? '?';
    // The browser fetches the tab's icon after 'load'; going on to the next
    // page cancels it. Any other failure, or an icon that is missing (404), counts.
    if (
      why === 'net::ERR_ABORTED' &&
      req.resourceType() === 'other' &&
      req.url().endsWith('/favicon.svg')
    )
      return;
    errors.push(`request failed: ${req.url()} (${why})`);
  });
  page.on('response', (res: HTTPResponse) => {
    if (res.status() >= 400) errors.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  return {
    async visit(path: string): Promise<PageReport> {
      errors = [];
      await page.goto(new URL(encodeURI(path), site.origin).href, { waitUntil: 'load' });
      const shown = await page.evaluate(collect);
      return { path, errors, ...shown };
    },
    close: () => context.close(),
  };
}

let site: StaticSite;
let browser: Browser;
let files: string[];
const reports = new Map<string, PageReport>();

beforeAll(async () => {
  if (!existsSync(join(siteDir, 'index.html')))
    throw new Error('docs/dist has no site: build it first (npm run docs)');
  files = filesUnder(siteDir);
  site = await serveStatic(siteDir);
  browser = await launchChromium();
  const pages = files.filter((f) => f.endsWith('.html')).filter(opensInBrowser);
  let next = 0;
  await Promise.all(
    Array.from({ length: TABS }, async () => {
      const tab = await openTab(browser, site);
      for (let path = pages[next++]; path !== undefined; path = pages[next++])
        reports.set(path, await tab.visit(path));
      await tab.close();
    }),
  );
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

describe('the docs site in a browser', () => {
  it('loads the pages without a console error, failed request or uncaught exception', () => {
    const pages = files.filter((f) => f.endsWith('.html'));
    expect(reports.size).toBe(pages.filter(opensInBrowser).length);
    expect(reports.size).toBeGreaterThanOrEqual(pages.length / SAMPLE_EVERY);
    const problems = [...reports.values()].flatMap((r) => r.errors.map((e) => `${r.path}: ${e}`));
    expect(problems).toEqual([]);
  });

  it('resolves every internal link to a file, and every #anchor to an element on it', () => {
    const present = new Set(files);
    const broken: string[] = [];
    const seen = new Set<string>();
    let checked = 0;
    const pages = files.filter((f) => f.endsWith('.html'));
    const read = new Map<string, string[]>();
    const ids = (path: string): string[] => {
      const known = reports.get(path)?.ids ?? read.get(path);
      if (known) return known;
      const found = readPage(path, site.origin).ids;
      read.set(path, found);
      return found;
    };
    for (const path of pages) {
      const report = reports.get(path) ?? { path, ...readPage(path, site.origin) };
      for (const link of report.links) {
        const url = new URL(link);
        if (`${url.origin}/` !== site.origin) {
          // Outside links cannot be followed here (no network); they must at
          // least not point back at a development server.
          if (!/^(https:|mailto:)/.test(link)) broken.push(`${report.path} → ${link}`);
          continue;
        }
        if (seen.has(link)) continue;
        seen.add(link);
        checked++;
        let target = decodeURIComponent(url.pathname).slice(1);
        if (target === '' || target.endsWith('/')) target += 'index.html';
        if (!present.has(target)) {
          broken.push(`${report.path} → ${link}: no such file`);
          continue;
        }
        const anchor = decodeURIComponent(url.hash.slice(1));
        if (anchor && target.endsWith('.html') && !ids(target).includes(anchor))
          broken.push(`${report.path} → ${target}#${anchor}: no such anchor`);
      }
    }
    expect(broken).toEqual([]);
    // Every page's sidebar links to every other page, so this many at least.
    expect(checked).toBeGreaterThan(pages.length);
  });

  it('draws every diagram the chapters include', () => {
    const failed: string[] = [];
    const drawn = new Set<string>();
    for (const report of reports.values()) {
      for (const img of report.images) {
        if (!img.decoded || img.naturalWidth === 0 || img.shownWidth === 0)
          failed.push(`${report.path}: ${img.src} (decoded ${img.decoded}, ${img.naturalWidth}px)`);
        else drawn.add(decodeURIComponent(new URL(img.src).pathname.split('/').pop() ?? ''));
      }
      if (report.mermaid > 0)
        failed.push(`${report.path}: ${report.mermaid} mermaid block(s) shown as text`);
    }
    expect(failed).toEqual([]);
    // The pictures the chapters embed, in either language.
    const embedded = new Set<string>();
    for (const chapter of readdirSync(tutorialsDir, { withFileTypes: true })) {
      if (!chapter.isDirectory()) continue;
      for (const readme of ['README.md', 'README.zh-CN.md']) {
        const file = join(tutorialsDir, chapter.name, readme);
        if (!existsSync(file)) continue;
        for (const m of readFileSync(file, 'utf8').matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g))
          embedded.add((m[1] as string).split('/').pop() as string);
      }
    }
    expect(embedded.size).toBeGreaterThan(0);
    expect([...embedded].filter((name) => !drawn.has(name))).toEqual([]);
  });

  it(`keeps every page within a ${PHONE.width} px wide screen`, () => {
    const wide = [...reports.values()]
      .filter((r) => r.clientWidth !== PHONE.width || r.scrollWidth > r.clientWidth)
      .map((r) => `${r.path}: ${r.scrollWidth}px in ${r.clientWidth}px ${r.culprits.join(', ')}`);
    expect(wide).toEqual([]);
    const images = [...reports.values()].flatMap((r) =>
      r.images
        .filter((img) => img.right > r.clientWidth + 0.5)
        .map((img) => `${r.path}: ${img.src} ends at ${Math.round(img.right)}px`),
    );
    expect(images).toEqual([]);
  });
});

/** The course's chapters, by number, as the tutorials folder has them (English and Chinese). */
function chaptersOnDisk(): { number: number; dir: string; chinese: boolean }[] {
  return readdirSync(tutorialsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && /^\d\d-/.test(e.name))
    .filter((e) => existsSync(join(tutorialsDir, e.name, 'README.md')))
    .map((e) => ({
      number: Number(e.name.slice(0, 2)),
      dir: e.name,
      chinese: existsSync(join(tutorialsDir, e.name, 'README.zh-CN.md')),
    }));
}

/** The site path of chapter `n`'s page in one language. */
const chapterPage = (n: number, chinese: boolean) =>
  new RegExp(`^documents/Course\\.${n}\\._[^/]*?${chinese ? '\\.zh-CN' : '(?<!\\.zh-CN)'}\\.html$`);

/** The site paths (no origin, no #anchor) a page links to. */
function pathsLinkedFrom(report: PageReport): string[] {
  return report.links
    .map((link) => new URL(link))
    .filter((url) => `${url.origin}/` === site.origin)
    .map((url) => decodeURIComponent(url.pathname).slice(1));
}

describe('the two editions', () => {
  const ZH_INDEX = 'documents/Course.zh-CN.html';

  it('opens on the course: the landing page lists every chapter, and so does its Chinese edition', () => {
    const chapters = chaptersOnDisk();
    expect(chapters.length).toBeGreaterThanOrEqual(12);
    const landing = reports.get('index.html');
    const zhIndex = reports.get(ZH_INDEX);
    expect(landing, 'index.html').toBeDefined();
    expect(zhIndex, ZH_INDEX).toBeDefined();
    const fromLanding = pathsLinkedFrom(landing as PageReport);
    const fromZh = pathsLinkedFrom(zhIndex as PageReport);
    const missing: string[] = [];
    for (const { number, dir, chinese } of chapters) {
      if (!fromLanding.some((p) => chapterPage(number, false).test(p)))
        missing.push(`index.html does not link to chapter ${number} (${dir})`);
      if (!chinese) continue;
      if (!fromZh.some((p) => chapterPage(number, true).test(p)))
        missing.push(`${ZH_INDEX} does not link to chapter ${number}'s Chinese page (${dir})`);
    }
    expect(missing).toEqual([]);
    // The landing page switches to the Chinese course, which switches back to the English one.
    expect(landing?.switchTo.map((href) => decodeURIComponent(new URL(href).pathname))).toEqual([
      `/${ZH_INDEX}`,
    ]);
    expect(zhIndex?.lang).toBe('zh-CN');
  });

  it('gives every Chinese page lang="zh-CN" and a switch to the same page in English, and back', () => {
    const zhPages = files.filter((f) => f.endsWith('.zh-CN.html'));
    const chinese = chaptersOnDisk().filter((c) => c.chinese);
    // Every chapter's Chinese page, and the Chinese course index.
    expect(zhPages.length).toBe(chinese.length + 1);
    const problems: string[] = [];
    for (const path of zhPages) {
      const report = reports.get(path);
      if (!report) {
        problems.push(`${path}: not opened`);
        continue;
      }
      if (report.lang !== 'zh-CN') problems.push(`${path}: lang="${report.lang}"`);
      const english = report.switchTo.map((href) =>
        decodeURIComponent(new URL(href).pathname).slice(1),
      );
      const expected = path.replace(/\.zh-CN\.html$/, '.html');
      if (english.length !== 1 || english[0] !== expected) {
        problems.push(`${path}: switches to ${english.join(', ') || 'nothing'}, not ${expected}`);
        continue;
      }
      const back = reports.get(expected);
      if (back?.lang !== 'en') problems.push(`${expected}: lang="${back?.lang}"`);
      const again = back?.switchTo.map((href) =>
        decodeURIComponent(new URL(href).pathname).slice(1),
      );
      if (again?.length !== 1 || again[0] !== path)
        problems.push(
          `${expected}: switches to ${again?.join(', ') || 'nothing'}, not back to ${path}`,
        );
    }
    expect(problems).toEqual([]);
  });

  it('switches language in the browser: a Chinese chapter to its English page', async () => {
    const page = await browser.newPage();
    try {
      const zh = files.find((f) => chapterPage(5, true).test(f)) as string;
      await page.goto(new URL(encodeURI(zh), site.origin).href, { waitUntil: 'load' });
      expect(await page.$eval('html', (h) => h.lang)).toBe('zh-CN');
      // TypeDoc's Chinese page furniture: "On This Page" is 目录.
      expect(await page.$eval('.page-menu', (m) => m.textContent ?? '')).toMatch(/目录/);
      await Promise.all([page.waitForNavigation(), page.click('nav.kcm-lang a')]);
      expect(decodeURIComponent(new URL(page.url()).pathname).slice(1)).toMatch(
        chapterPage(5, false),
      );
      expect(await page.$eval('html', (h) => h.lang)).toBe('en');
      expect(await page.$eval('h1', (h) => h.textContent)).toContain('ReplicaSet');
    } finally {
      await page.close();
    }
  });
});

describe('the site search', () => {
  let page: Page;
  beforeAll(async () => {
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
  });
  afterAll(async () => {
    await page?.close();
  });

  /** Types `query` into the search box of the home page; returns the result links once `wanted` is among them. */
  async function search(query: string, wanted: string): Promise<string[]> {
    await page.goto(new URL('index.html', site.origin).href, { waitUntil: 'load' });
    await page.click('#tsd-search-trigger');
    await page.waitForSelector('#tsd-search-input', { visible: true });
    await page.type('#tsd-search-input', query);
    const results = () => page.$$eval('#tsd-search-results a', (as) => as.map((a) => a.href));
    await page
      .waitForFunction(
        (end: string) =>
          [...document.querySelectorAll<HTMLAnchorElement>('#tsd-search-results a')].some((a) =>
            decodeURIComponent(a.href).endsWith(end),
          ),
        { timeout: 15_000 },
        wanted,
      )
      .catch(() => undefined); // the assertion below shows what came instead
    return (await results()).map((href) => decodeURIComponent(new URL(href).pathname).slice(1));
  }

  /** Types `query` and returns the results, each as its page and its label, once there are any. */
  async function ranked(query: string): Promise<{ path: string; label: string }[]> {
    await page.goto(new URL('index.html', site.origin).href, { waitUntil: 'load' });
    await page.click('#tsd-search-trigger');
    await page.waitForSelector('#tsd-search-input', { visible: true });
    // The whole query in one input event, as an input method commits it, so
    // that no result of a prefix is read. The index loads and inflates
    // asynchronously, and a search before that shows nothing: ask again.
    for (let tries = 0; tries < 30; tries++) {
      await page.$eval(
        '#tsd-search-input',
        (el, q) => {
          (el as HTMLInputElement).value = q;
          el.dispatchEvent(new Event('input'));
        },
        query,
      );
      const shown = await page
        .waitForSelector('#tsd-search-results a', { timeout: 500 })
        .then(() => true)
        .catch(() => false);
      if (shown) break;
    }
    return page.$$eval('#tsd-search-results a', (as) =>
      as.map((a) => ({
        path: decodeURIComponent(new URL(a.href).pathname).slice(1),
        label: (a.textContent ?? '').replace(/\s+/g, ' ').trim(),
      })),
    );
  }

  // A Chinese term anywhere in a sentence, not only after a space; the first
  // result is a chapter that teaches it (rolling updates: chapter 6's
  // Deployments or chapter 10's DaemonSets and StatefulSets).
  it.each([
    ['控制器', [0]],
    ['滚动更新', [6, 10]],
    ['水平触发', [0]],
  ])('finds the Chinese term %s in the chapters that teach it', async (query, chapters) => {
    const found = await ranked(query);
    expect(found.length).toBeGreaterThan(0);
    const first = found[0] as { path: string; label: string };
    expect(
      chapters.some((n) => chapterPage(n, true).test(first.path)),
      first.path,
    ).toBe(true);
    expect(first.label).toMatch(/^第 \d+ 章 · /);
  });

  it.each([
    ['expectations', 5],
    ['slow start', 5],
  ])(
    'puts the chapter that teaches "%s" before the API symbols named after it',
    async (query, n) => {
      const found = await ranked(query);
      const first = found[0] as { path: string; label: string };
      expect(first?.path).toMatch(chapterPage(n, false));
      // Labelled by the chapter's heading, not by its place in the document tree.
      expect(first?.label).toBe(`Chapter ${n} · The ReplicaSet controller`);
    },
  );

  it('finds a chapter', async () => {
    const found = await search('Leader election', 'documents/Course.4._Leader_election.html');
    expect(found).toContain('documents/Course.4._Leader_election.html');
    await page.click('#tsd-search-results a[href$="Course.4._Leader_election.html"]');
    await page.waitForSelector('h1');
    expect(await page.$eval('h1', (h) => h.textContent)).toContain('Leader election');
  });

  it('finds an API symbol', async () => {
    const found = await search(
      'RateLimitingQueue',
      'interfaces/_kcm-ts_workqueue.RateLimitingQueue.html',
    );
    expect(found).toContain('interfaces/_kcm-ts_workqueue.RateLimitingQueue.html');
    await page.click('#tsd-search-results a[href$="_kcm-ts_workqueue.RateLimitingQueue.html"]');
    await page.waitForSelector('h1');
    expect(await page.$eval('h1', (h) => h.textContent)).toContain('RateLimitingQueue');
  });
});
