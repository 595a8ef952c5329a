// Draws the chapter's picture of the pod failure backoff,
// backoff-timeline.svg, from the pods 04-backoff.ts recorded: one row per
// pod, grouped by Job, a bar from its creation to its end (waiting to start,
// then running, green when it succeeded and red when it failed), and the
// wait between a failure and the pod that replaces it. Nothing in it is
// drawn by hand: run the example and this file writes the picture again.
// Run: npm run timeline -w tutorials/09-job
import { writeFile } from 'node:fs/promises';
import { run, type Backoff, type PodLife } from './04-backoff.js';

const width = 900;
const left = 40;
const right = 860;
const top = 70;
const rowHeight = 26;
const groupGap = 14;

const colors = {
  pending: '#d5d9de',
  succeeded: '#2f6b3a',
  failed: '#b3261e',
  wait: '#8a5a00',
};

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const num = (n: number): string => String(Math.round(n * 10) / 10);

/** The picture, as an SVG document. */
export function renderTimeline(trace: Backoff): string {
  const end = Math.ceil(trace.end / 10_000) * 10_000;
  const x = (t: number): number => left + ((right - left) * t) / end;
  const out: string[] = [];
  const add = (s: string): number => out.push(`  ${s}`);
  const jobs = ['flaky', 'broken'];
  let y = top;
  const rowOf = new Map<PodLife, number>();

  for (const job of jobs) {
    const pods = trace.pods.filter((p) => p.job === job);
    const spec =
      job === 'flaky'
        ? "completions 5, parallelism 1, backoffLimit 6; its pods exit with the ConfigMap's EXIT_CODE"
        : 'completions 1, backoffLimit 3; its pods always exit 1';
    add(`<text class="job" x="${left}" y="${num(y + 12)}">Job ${esc(job)}</text>`);
    add(
      `<text class="note" x="${num(left + 16 + (4 + job.length) * 8)}" y="${num(y + 12)}">${esc(spec)}</text>`,
    );
    y += 18;
    for (const pod of pods) {
      rowOf.set(pod, y);
      const started = pod.running ?? pod.finished ?? trace.end;
      const finished = pod.finished ?? trace.end;
      add(
        `<rect x="${num(x(pod.created))}" y="${num(y + 10)}" width="${num(x(started) - x(pod.created))}" height="14" fill="${colors.pending}"/>`,
      );
      const fill = pod.phase === 'Failed' ? colors.failed : colors.succeeded;
      add(
        `<rect x="${num(x(started))}" y="${num(y + 10)}" width="${num(x(finished) - x(started))}" height="14" fill="${fill}"/>`,
      );
      if (pod.exitCode !== undefined) {
        add(
          `<text class="small" x="${num(x(finished) + 4)}" y="${num(y + 21)}">exit ${pod.exitCode}</text>`,
        );
      }
      y += rowHeight;
    }
    // The wait before each replacement: from the last failure to the next creation.
    const sorted = [...pods].sort((a, b) => a.created - b.created);
    const drawn = new Set<number>();
    for (const w of trace.waits.filter((w) => w.job === job)) {
      const next = sorted.find(
        (p) =>
          !drawn.has(p.created) &&
          sorted.some((f) => f.phase === 'Failed' && f.finished! + w.waited === p.created),
      );
      if (next === undefined) continue;
      drawn.add(next.created);
      const from = next.created - w.waited;
      const rowY = rowOf.get(next)!;
      add(
        `<line class="wait" x1="${num(x(from))}" y1="${num(rowY + 17)}" x2="${num(x(next.created))}" y2="${num(rowY + 17)}"/>`,
      );
      add(
        `<text class="waitlabel" x="${num((x(from) + x(next.created)) / 2)}" y="${num(rowY + 13)}" text-anchor="middle">${w.waited / 1000} s after ${w.failures} failure${w.failures === 1 ? '' : 's'}${w.pods > 1 ? `, then ${w.pods} pods` : ''}</text>`,
      );
    }
    y += groupGap;
  }
  const bottom = y - groupGap + 6;

  // What happened to the Jobs.
  for (const m of trace.marks) {
    add(
      `<line class="mark" x1="${num(x(m.t))}" y1="${top - 18}" x2="${num(x(m.t))}" y2="${num(bottom)}"/>`,
    );
  }
  const marks = [...trace.marks].sort((a, b) => a.t - b.t);
  marks.forEach((m, i) => {
    add(
      `<text class="note" x="${num(x(m.t) - 4)}" y="${num(top - 44 + i * 14)}" text-anchor="end">${esc(`${m.job}: ${m.text}`)}</text>`,
    );
  });

  // Axis.
  add(`<line class="axis" x1="${left}" y1="${num(bottom)}" x2="${right}" y2="${num(bottom)}"/>`);
  for (let t = 0; t <= end; t += 10_000) {
    add(
      `<line class="axis" x1="${num(x(t))}" y1="${num(bottom)}" x2="${num(x(t))}" y2="${num(bottom + 5)}"/>`,
    );
    add(`<text x="${num(x(t))}" y="${num(bottom + 20)}" text-anchor="middle">${t / 1000} s</text>`);
  }

  // Legend.
  const legend: [string, string][] = [
    [colors.pending, 'created, not started'],
    [colors.succeeded, 'running, then Succeeded'],
    [colors.failed, 'running, then Failed'],
  ];
  legend.forEach(([fill, label], i) => {
    const lx = left + i * 220;
    add(`<rect x="${lx}" y="${num(bottom + 38)}" width="14" height="14" fill="${fill}"/>`);
    add(`<text x="${lx + 20}" y="${num(bottom + 50)}">${esc(label)}</text>`);
  });
  const height = Math.ceil(bottom + 70);

  const title =
    'Two Jobs whose pods fail: each replacement waits 10 s after one failure, 20 s after two, 40 s after three; ' +
    'flaky recovers once its cause is fixed, broken fails at its backoffLimit';
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="13">`,
    `  <title>${esc(title)}</title>`,
    '  <defs>',
    '    <style>',
    '      .axis { stroke: #444; stroke-width: 1; }',
    '      .mark { stroke: #666; stroke-width: 1; stroke-dasharray: 2 3; }',
    `      .wait { stroke: ${colors.wait}; stroke-width: 1.5; stroke-dasharray: 6 4; }`,
    `      .waitlabel { font-size: 11px; fill: ${colors.wait}; }`,
    '      .note { font-size: 12px; fill: #444; }',
    '      .small { font-size: 10px; fill: #444; }',
    '      .job { font-weight: 600; }',
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
  await writeFile(new URL('../backoff-timeline.svg', import.meta.url), svg);
  console.log('wrote tutorials/09-job/backoff-timeline.svg');
}
