// Draws a trace of the lab (lab.ts) as an SVG sequence diagram: one column
// per actor, one row per step, an arrow from the actor that acted to the one
// it acted on, and the step's text beside it. The chapter's picture of one
// sync is this function's output for a real run (01-one-sync.test.ts writes
// it), so it cannot drift from the code.
import type { Lane, Step } from './lab.js';

const lanes: readonly { lane: Lane; title: string }[] = [
  { lane: 'api', title: 'API server' },
  { lane: 'informer', title: 'informers' },
  { lane: 'queue', title: 'workqueue' },
  { lane: 'worker', title: 'worker' },
];

const laneGap = 110;
const left = 70;
const textX = left + laneGap * (lanes.length - 1) + 50;
const rowHeight = 22;
const top = 86;

const escape = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const x = (lane: Lane): number => left + laneGap * lanes.findIndex((l) => l.lane === lane);

/** The class of a row, for its colour: writes to the API server stand out. */
function kind(s: Step): string {
  if (s.from === 'worker' && s.to === 'api') return 'write';
  if (s.from === 'api') return 'read';
  if (s.from === s.to) return 'note';
  return 'plain';
}

/** The SVG text of a sequence diagram of `steps`, titled `title`. */
export function sequenceDiagram(steps: readonly Step[], title: string): string {
  const width = textX + 520;
  const height = top + steps.length * rowHeight + 30;
  const bottom = top + steps.length * rowHeight;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="13">`,
    `  <title>${escape(title)}</title>`,
    '  <defs>',
    '    <marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker>',
    '    <style>',
    '      .lane { stroke: #c9d3de; stroke-width: 1; }',
    '      .name { font-weight: 600; }',
    '      .plain { stroke: #34506e; stroke-width: 1.5; }',
    '      .read { stroke: #2f6b3a; stroke-width: 1.5; }',
    '      .write { stroke: #b3261e; stroke-width: 1.5; }',
    '      .note { fill: #34506e; }',
    '      .t { font-size: 11px; fill: #777; }',
    '      .label { font-size: 12px; fill: #222; stroke: none; }',
    '      .label.write { fill: #b3261e; }',
    '      .label.read { fill: #2f6b3a; }',
    '      .key { font-size: 12px; fill: #444; }',
    '    </style>',
    '  </defs>',
    `  <rect x="0" y="0" width="${width}" height="${height}" fill="#fff"/>`,
    `  <text class="name" x="${left - 62}" y="22">${escape(title)}</text>`,
    `  <text class="key" x="${left - 62}" y="42">red: requests the controller sends; green: answers and events from the API server; dots: the worker's own steps</text>`,
  ];
  for (const { lane, title: name } of lanes) {
    out.push(
      `  <text class="name" x="${x(lane)}" y="${top - 22}" text-anchor="middle">${name}</text>`,
      `  <line class="lane" x1="${x(lane)}" y1="${top - 12}" x2="${x(lane)}" y2="${bottom}"/>`,
    );
  }
  out.push(`  <text class="name" x="${textX}" y="${top - 22}">what happens</text>`);
  steps.forEach((s, i) => {
    const y = top + i * rowHeight + rowHeight / 2;
    const k = kind(s);
    if (s.from === s.to) {
      out.push(`  <circle class="note" cx="${x(s.from)}" cy="${y}" r="4"/>`);
    } else {
      const x1 = x(s.from);
      const x2 = x(s.to);
      const dir = x2 > x1 ? 1 : -1;
      out.push(
        `  <line class="${k}" x1="${x1 + 4 * dir}" y1="${y}" x2="${x2 - 4 * dir}" y2="${y}" marker-end="url(#head)"/>`,
      );
    }
    out.push(
      `  <text class="t" x="${left - 62}" y="${y + 4}">${(s.t / 1000).toFixed(1)} s</text>`,
      `  <text class="label ${k}" x="${textX}" y="${y + 4}">${escape(s.text)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
