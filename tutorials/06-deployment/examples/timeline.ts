// Draws the chapter's picture of a rolling update, rollout-timeline.svg,
// from the samples of 02-rolling-update.ts: for every moment the API server
// held, the pods of the old and the new ReplicaSet, ready or not, stacked,
// with the two limits of the strategy drawn across. Nothing in it is drawn
// by hand: run the example and this file writes the picture again.
// Run: npm run timeline -w tutorials/06-deployment
import { writeFile } from 'node:fs/promises';
import { run, type Trace } from './02-rolling-update.js';

const width = 900;
const height = 400;
const left = 70;
const right = 680;
const top = 50;
const bottom = 310;

const colors = {
  oldReady: '#34506e',
  oldNotReady: '#a9bdd3',
  newReady: '#2f6b3a',
  newNotReady: '#b7dcbf',
};

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const num = (n: number): string => String(Math.round(n * 10) / 10);

/** The picture, as an SVG document. */
export function renderTimeline(trace: Trace): string {
  const { samples, replicas, maxSurge, maxUnavailable } = trace;
  const end = trace.completeAt + 1000;
  const maxPods = replicas + maxSurge + 1;
  const x = (t: number): number => left + ((right - left) * t) / end;
  const y = (pods: number): number => bottom - ((bottom - top) * pods) / maxPods;
  const out: string[] = [];
  const add = (s: string): number => out.push(`  ${s}`);

  // The stacked pods, one column per interval between two samples.
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    const x0 = x(s.t);
    const x1 = x(samples[i + 1]?.t ?? end);
    const layers: [keyof typeof colors, number][] = [
      ['oldReady', s.oldReady],
      ['newReady', s.newReady],
      ['oldNotReady', s.oldPods - s.oldReady],
      ['newNotReady', s.newPods - s.newReady],
    ];
    let base = 0;
    for (const [layer, n] of layers) {
      if (n <= 0) continue;
      add(
        `<rect x="${num(x0)}" y="${num(y(base + n))}" width="${num(x1 - x0)}" height="${num(y(base) - y(base + n))}" fill="${colors[layer]}"/>`,
      );
      if (x1 - x0 > 24 && n >= 1) {
        const fill = layer.endsWith('NotReady') ? '#222' : '#fff';
        add(
          `<text x="${num((x0 + x1) / 2)}" y="${num((y(base) + y(base + n)) / 2 + 4)}" text-anchor="middle" fill="${fill}">${n}</text>`,
        );
      }
      base += n;
    }
  }

  // The two limits of the strategy.
  const most = replicas + maxSurge;
  const fewest = replicas - maxUnavailable;
  const limits: [number, string, string][] = [
    [most, `${most} = replicas + maxSurge:`, 'never more pods than this'],
    [fewest, `${fewest} = replicas − maxUnavailable:`, 'never fewer ready pods'],
  ];
  for (const [pods, line1, line2] of limits) {
    add(
      `<line class="limit" x1="${left}" y1="${num(y(pods))}" x2="${right + 8}" y2="${num(y(pods))}"/>`,
    );
    add(`<text class="note" x="${right + 14}" y="${num(y(pods) - 2)}">${esc(line1)}</text>`);
    add(`<text class="note" x="${right + 14}" y="${num(y(pods) + 13)}">${esc(line2)}</text>`);
  }

  // When the image changed, and when the Deployment called the rollout complete.
  for (const [t, label] of [
    [trace.changedAt, 'kubectl set image'],
    [trace.completeAt, 'complete'],
  ] as const) {
    add(`<line class="mark" x1="${num(x(t))}" y1="${top - 10}" x2="${num(x(t))}" y2="${bottom}"/>`);
    add(`<text class="note" x="${num(x(t) + 4)}" y="${top - 14}">${esc(label)}</text>`);
  }

  // Axes.
  add(`<line class="axis" x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}"/>`);
  add(`<line class="axis" x1="${left}" y1="${top - 10}" x2="${left}" y2="${bottom}"/>`);
  for (let t = 0; t <= end; t += 1000) {
    add(
      `<line class="axis" x1="${num(x(t))}" y1="${bottom}" x2="${num(x(t))}" y2="${bottom + 5}"/>`,
    );
    add(`<text x="${num(x(t))}" y="${bottom + 20}" text-anchor="middle">${t / 1000} s</text>`);
  }
  for (let p = 0; p <= most; p += 5) {
    add(`<text x="${left - 8}" y="${num(y(p) + 4)}" text-anchor="end">${p}</text>`);
  }
  add(
    `<text class="note" x="${left - 50}" y="${num((top + bottom) / 2)}" transform="rotate(-90 ${left - 50} ${num((top + bottom) / 2)})" text-anchor="middle">pods</text>`,
  );

  // Legend.
  const legend: [keyof typeof colors, string][] = [
    ['oldReady', 'old ReplicaSet, ready'],
    ['oldNotReady', 'old ReplicaSet, not ready'],
    ['newReady', 'new ReplicaSet, ready'],
    ['newNotReady', 'new ReplicaSet, starting'],
  ];
  const present = legend.filter(([layer]) =>
    samples.some((s) =>
      layer === 'oldReady'
        ? s.oldReady > 0
        : layer === 'newReady'
          ? s.newReady > 0
          : layer === 'oldNotReady'
            ? s.oldPods > s.oldReady
            : s.newPods > s.newReady,
    ),
  );
  present.forEach(([layer, label], i) => {
    const lx = left + i * 200;
    add(`<rect x="${lx}" y="${bottom + 40}" width="14" height="14" fill="${colors[layer]}"/>`);
    add(`<text x="${lx + 20}" y="${bottom + 52}">${esc(label)}</text>`);
  });

  const title =
    `A rolling update of ${replicas} pods with maxSurge ${maxSurge} and maxUnavailable ${maxUnavailable}: ` +
    `pods of the old and the new ReplicaSet over time`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="13">`,
    `  <title>${esc(title)}</title>`,
    '  <defs>',
    '    <style>',
    '      .axis { stroke: #444; stroke-width: 1; }',
    '      .limit { stroke: #b3261e; stroke-width: 1.5; stroke-dasharray: 6 4; }',
    '      .mark { stroke: #666; stroke-width: 1; stroke-dasharray: 2 3; }',
    '      .note { font-size: 12px; fill: #444; }',
    '    </style>',
    '  </defs>',
    `  <rect x="0" y="0" width="${width}" height="${height}" fill="#fff"/>`,
    ...out,
    '</svg>',
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const svg = renderTimeline(await run(() => {}));
  await writeFile(new URL('../rollout-timeline.svg', import.meta.url), svg);
  console.log('wrote tutorials/06-deployment/rollout-timeline.svg');
}
