// Draws one-process.svg from the map 03-one-process.ts records: the API
// server on the left; the informers that list and watch it (the shared
// factory's, and the garbage collector's own metadata informers); the
// controllers they feed, each with the client it writes through; and the
// work queues each controller made. Every box, line and label comes from
// the run: nothing in the picture is drawn by hand.
// Run: npm run one-process-svg -w tutorials/07-manager
import { writeFile } from 'node:fs/promises';
import { run, type ControllerUse, type ProcessMap } from './03-one-process.js';

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Splits `text` into lines of at most `width` characters, at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `  ${word}`;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** `verb, verb: resource, resource` lines for the requests other than list and watch. */
function writes(requests: Map<string, Set<string>>): string[] {
  const byVerbs = new Map<string, string[]>();
  for (const [resource, verbs] of [...requests].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const rest = [...verbs].filter((v) => v !== 'list' && v !== 'watch').sort();
    if (rest.length === 0) continue;
    const key = rest.join(', ');
    byVerbs.set(key, [...(byVerbs.get(key) ?? []), resource]);
  }
  return [...byVerbs].map(([verbs, resources]) => `${verbs}: ${resources.join(', ')}`);
}

const row = 22;
const colors = {
  server: '#34506e',
  shared: '#e8f0f8',
  gc: '#f4ece0',
  controller: '#eef6ee',
  queue: '#fff7d6',
  edge: '#5b6b7b',
};

/** The picture, as an SVG document. */
export function renderProcess(map: ProcessMap): string {
  const out: string[] = [];
  const add = (s: string): number => out.push(`  ${s}`);
  const text = (x: number, y: number, s: string, cls = '') =>
    add(`<text x="${x}" y="${y}"${cls ? ` class="${cls}"` : ''}>${esc(s)}</text>`);
  const client = (name: string) => map.clients.find((c) => c.name === name);

  const top = 70;
  const informerX = 190;
  const informerW = 300;
  const controllerX = 580;
  const controllerW = 340;
  const queueX = controllerX + controllerW + 50;
  const queueW = 250;

  // Informers: the shared factory's, then the garbage collector's own.
  const rows = new Map<string, number>(); // informer → y of its row's middle
  let y = top;
  const group = (title: string, note: string, items: string[], fill: string) => {
    const y0 = y;
    const h = 44 + items.length * row;
    add(
      `<rect x="${informerX}" y="${y0}" width="${informerW}" height="${h}" rx="6" fill="${fill}" stroke="#8795a3"/>`,
    );
    text(informerX + 10, y0 + 18, title, 'title');
    text(informerX + 10, y0 + 34, note, 'note');
    items.forEach((item, i) => {
      const ry = y0 + 42 + i * row;
      add(
        `<rect x="${informerX + 10}" y="${ry}" width="${informerW - 20}" height="${row - 4}" rx="3" fill="#fff" stroke="#b8c2cc"/>`,
      );
      text(informerX + 18, ry + 14, item);
    });
    y += h + 24;
    return { y0, h };
  };
  const shared = group(
    'shared informer factory',
    'client shared-informers: list, watch',
    map.sharedInformers,
    colors.shared,
  );
  map.sharedInformers.forEach((item, i) => rows.set(item, shared.y0 + 42 + i * row + 9));
  const gc = group(
    "the collector's metadata informers",
    'client generic-garbage-collector: list, watch',
    map.gcMonitors,
    colors.gc,
  );
  const gcMiddle = gc.y0 + 22;
  const informersBottom = y - 24;

  // Controllers, in the order of where their inputs are, so lines cross little.
  const inputsY = (u: ControllerUse) => {
    const ys = u.informers.map((i) => rows.get(i) ?? 0);
    return ys.length > 0 ? ys.reduce((a, b) => a + b, 0) / ys.length : gcMiddle;
  };
  const controllers = [...map.controllers].sort((a, b) => inputsY(a) - inputsY(b));
  let cy = top;
  const boxes: { use: ControllerUse; y0: number; h: number }[] = [];
  for (const use of controllers) {
    const lines: string[] = [];
    for (const name of use.clients) {
      const cl = client(name);
      if (!cl) continue;
      lines.push(
        ...wrap(
          `client ${name}${cl.metadataOnly ? ' (metadata)' : ''}: ${cl.qps} qps, burst ${cl.burst}`,
          54,
        ),
      );
      for (const w of writes(cl.requests)) lines.push(...wrap(w, 54));
    }
    const h = 30 + lines.length * 16;
    add(
      `<rect x="${controllerX}" y="${cy}" width="${controllerW}" height="${h}" rx="6" fill="${colors.controller}" stroke="#7d9b80"/>`,
    );
    text(controllerX + 10, cy + 19, use.name, 'title');
    lines.forEach((l, i) => text(controllerX + 10, cy + 38 + i * 16, l, 'note'));
    boxes.push({ use, y0: cy, h });
    cy += h + 18;
  }

  // Informer → controller: which event handlers each informer calls.
  for (const { use, y0, h } of boxes) {
    const ins = use.informers.length > 0 ? use.informers.map((i) => rows.get(i)!) : [gcMiddle];
    ins.forEach((from, i) => {
      const to = y0 + ((i + 1) * h) / (ins.length + 1);
      const x1 = informerX + informerW;
      const x2 = controllerX;
      const mid = (x1 + x2) / 2;
      add(
        `<path class="edge" d="M${x1},${from} C${mid},${from} ${mid},${to} ${x2},${to}" marker-end="url(#arrow)"/>`,
      );
    });
  }

  // Controller → its work queues.
  let qy = top;
  for (const { use, y0, h } of boxes) {
    qy = Math.max(qy, y0);
    use.queues.forEach((queue, i) => {
      const ry = Math.max(qy, y0 + (h - use.queues.length * row) / 2) + i * row;
      add(
        `<rect x="${queueX}" y="${ry}" width="${queueW}" height="${row - 4}" rx="3" fill="${colors.queue}" stroke="#c9b458"/>`,
      );
      text(queueX + 8, ry + 14, queue);
      add(
        `<line class="edge" x1="${controllerX + controllerW}" y1="${y0 + h / 2}" x2="${queueX}" y2="${ry + 9}" marker-end="url(#arrow)"/>`,
      );
    });
    qy = y0 + h + 18;
  }

  // What run() itself talks to the API server through.
  const bottom = Math.max(informersBottom, cy - 18) + 30;
  const own = ['leader-election', 'event-broadcaster'].map((n) => client(n)).filter((c) => !!c);
  text(informerX, bottom + 4, 'run() itself:', 'title');
  own.forEach((cl, i) => {
    const oy = bottom + 14 + i * 50;
    add(
      `<rect x="${informerX}" y="${oy}" width="${informerW}" height="40" rx="6" fill="#f1f1f1" stroke="#999"/>`,
    );
    text(informerX + 10, oy + 16, `client ${cl.name}: ${cl.qps} qps, burst ${cl.burst}`, 'note');
    text(informerX + 10, oy + 32, writes(cl.requests).join('; '), 'note');
  });
  const serverBottom = bottom + 14 + own.length * 50 - 10;
  const height = serverBottom + 20;

  // The API server, which every client talks to.
  add(
    `<rect x="20" y="${top}" width="120" height="${serverBottom - top}" rx="6" fill="${colors.server}"/>`,
  );
  text(34, top + 24, 'API server', 'server');
  text(34, top + 42, '(the sandbox)', 'server-note');
  for (const { y0 } of [shared, gc]) {
    add(
      `<line class="edge" x1="140" y1="${y0 + 22}" x2="${informerX}" y2="${y0 + 22}" marker-end="url(#arrow)"/>`,
    );
  }
  for (const i of own.keys()) {
    const ly = bottom + 34 + i * 50;
    add(
      `<line class="edge" x1="${informerX}" y1="${ly}" x2="140" y2="${ly}" marker-end="url(#arrow)"/>`,
    );
  }

  text(
    20,
    26,
    `One kcm-ts process: every client's user agent is ${map.userAgentPrefix}/<name>`,
    'title',
  );
  text(
    20,
    46,
    'Informers list and watch; their handlers feed the controllers; each controller queues keys and writes through its own client.',
    'note',
  );
  text(informerX, top - 8, 'informers', 'head');
  text(controllerX, top - 8, 'controllers (and the writes of their clients)', 'head');
  text(queueX, top - 8, 'work queues (metric label name)', 'head');

  const width = queueX + queueW + 20;
  const title = `How the controllers of one kcm-ts process share informers, and which clients and queues each has`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `  <title>${esc(title)}</title>`,
    '  <defs>',
    '    <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">',
    `      <path d="M0,0 L10,5 L0,10 z" fill="${colors.edge}"/>`,
    '    </marker>',
    '    <style>',
    `      .edge { stroke: ${colors.edge}; stroke-width: 1.2; fill: none; }`,
    '      .title { font-weight: 600; font-size: 13px; }',
    '      .head { font-weight: 600; font-size: 12px; fill: #444; }',
    '      .note { font-size: 11px; fill: #333; }',
    '      .server { font-weight: 600; font-size: 13px; fill: #fff; }',
    '      .server-note { font-size: 11px; fill: #dde6ef; }',
    '    </style>',
    '  </defs>',
    `  <rect x="0" y="0" width="${width}" height="${height}" fill="#fff"/>`,
    ...out,
    '</svg>',
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const svg = renderProcess(await run(() => {}));
  await writeFile(new URL('../one-process.svg', import.meta.url), svg);
  console.log('wrote tutorials/07-manager/one-process.svg');
}
