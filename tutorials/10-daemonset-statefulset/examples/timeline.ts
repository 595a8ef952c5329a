// Draws the chapter's two pictures from the pods the runs recorded:
// rollout-timeline.svg from 02-rollout.ts (one row per node: the DaemonSet's
// pod there, its image, and the gap when an old pod goes before its
// replacement comes) and statefulset-timeline.svg from 03-statefulset.ts
// (one row per identity, web-0 to web-2: the pods that held it, one after
// the other, never two at once). Each bar runs from the pod's creation to
// its end: waiting to start, then ready, then terminating. Nothing in them
// is drawn by hand: run the examples and this file draws them again.
// Run: npm run timeline -w tutorials/10-daemonset-statefulset
import { writeFile } from 'node:fs/promises';
import { run as runRollout, type RolloutRun } from './02-rollout.js';
import { run as runStatefulSet, type StatefulSetRun } from './03-statefulset.js';
import type { PodLife } from './lives.js';

const width = 900;
const left = 175;
const right = 870;
const rowHeight = 30;

const palette = ['#2b5c8a', '#2f6b3a', '#8a5a00', '#6b2f6b'];
const pending = '#d5d9de';
const terminating = '#e8b4b0';

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const num = (n: number): string => String(Math.round(n * 10) / 10);

/** What one picture shows. */
export interface Timeline {
  title: string;
  rows: { label: string; pods: PodLife[] }[];
  marks: { t: number; text: string }[];
  end: number;
  /** The colour of a ready pod, by its image. */
  images: string[];
}

/** The picture, as an SVG document. */
export function renderTimeline(tl: Timeline): string {
  const end = Math.ceil(tl.end / 2000) * 2000;
  const x = (t: number): number => left + ((right - left) * t) / end;
  const color = (image: string): string =>
    palette[Math.max(0, tl.images.indexOf(image)) % palette.length]!;
  const out: string[] = [];
  const add = (s: string): number => out.push(`  ${s}`);
  const top = 40 + tl.marks.length * 14;
  let y = top;
  for (const row of tl.rows) {
    add(
      `<text class="row" x="${left - 10}" y="${num(y + 19)}" text-anchor="end">${esc(row.label)}</text>`,
    );
    for (const p of row.pods) {
      const ready = p.ready ?? p.deleting ?? p.gone ?? tl.end;
      const deleting = p.deleting ?? p.gone ?? tl.end;
      const gone = p.gone ?? tl.end;
      const bar = (from: number, to: number, fill: string): void => {
        if (to > from) {
          add(
            `<rect x="${num(x(from))}" y="${num(y + 8)}" width="${num(x(to) - x(from))}" height="16" fill="${fill}"/>`,
          );
        }
      };
      bar(p.created, ready, pending);
      bar(ready, deleting, color(p.image));
      bar(deleting, gone, terminating);
      add(
        `<line class="start" x1="${num(x(p.created))}" y1="${num(y + 5)}" x2="${num(x(p.created))}" y2="${num(y + 27)}"/>`,
      );
    }
    y += rowHeight;
  }
  const bottom = y + 4;

  // What was done to the workload, and when.
  tl.marks.forEach((m, i) => {
    add(
      `<line class="mark" x1="${num(x(m.t))}" y1="${num(30 + i * 14)}" x2="${num(x(m.t))}" y2="${num(bottom)}"/>`,
    );
    // Past the middle, the note goes to the left of its line.
    const late = x(m.t) > (left + right) / 2;
    add(
      `<text class="note" x="${num(x(m.t) + (late ? -4 : 4))}" y="${num(30 + i * 14)}"${late ? ' text-anchor="end"' : ''}>${esc(m.text)}</text>`,
    );
  });

  // Axis.
  add(`<line class="axis" x1="${left}" y1="${num(bottom)}" x2="${right}" y2="${num(bottom)}"/>`);
  for (let t = 0; t <= end; t += 2000) {
    add(
      `<line class="axis" x1="${num(x(t))}" y1="${num(bottom)}" x2="${num(x(t))}" y2="${num(bottom + 5)}"/>`,
    );
    add(`<text x="${num(x(t))}" y="${num(bottom + 20)}" text-anchor="middle">${t / 1000} s</text>`);
  }

  // Legend.
  const legend: [string, string][] = [
    [pending, 'created, not ready'],
    ...tl.images.map((image): [string, string] => [color(image), `ready, ${image}`]),
    [terminating, 'terminating'],
  ];
  let lx = left;
  for (const [fill, label] of legend) {
    add(`<rect x="${lx}" y="${num(bottom + 38)}" width="14" height="14" fill="${fill}"/>`);
    add(`<text x="${lx + 20}" y="${num(bottom + 50)}">${esc(label)}</text>`);
    lx += 40 + label.length * 7;
  }
  const height = Math.ceil(bottom + 70);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="13">`,
    `  <title>${esc(tl.title)}</title>`,
    '  <defs>',
    '    <style>',
    '      .axis { stroke: #444; stroke-width: 1; }',
    '      .mark { stroke: #666; stroke-width: 1; stroke-dasharray: 2 3; }',
    '      .start { stroke: #222; stroke-width: 1.5; }',
    '      .note { font-size: 12px; fill: #444; }',
    '      .row { font-weight: 600; }',
    '    </style>',
    '  </defs>',
    `  <rect x="0" y="0" width="${width}" height="${height}" fill="#fff"/>`,
    ...out,
    '</svg>',
    '',
  ].join('\n');
}

/** The DaemonSet's rollout: a row per node. */
export function rolloutTimeline(r: RolloutRun): Timeline {
  const nodes = ['node-1', 'node-2', 'node-3'];
  return {
    title:
      'A DaemonSet with maxUnavailable 2 on three nodes: a new image replaces the pods of two nodes, then of the third; the undo does the same back',
    rows: nodes.map((node) => ({ label: node, pods: r.pods.filter((p) => p.node === node) })),
    marks: r.marks,
    end: r.end,
    images: ['fluent/fluent-bit:3.1', 'fluent/fluent-bit:3.2'],
  };
}

/** The StatefulSet's identities: a row per pod name. */
export function statefulSetTimeline(r: StatefulSetRun): Timeline {
  const names = ['web-0', 'web-1', 'web-2'];
  return {
    title:
      'The StatefulSet web: web-0, web-1 and web-2 start one after the other; a deleted web-1 comes back under its name; scaling down goes from the top',
    rows: names.map((name) => ({
      label: `${name} · www-${name}`,
      pods: r.pods.filter((p) => p.name === name),
    })),
    marks: r.marks,
    end: r.end,
    images: ['registry.k8s.io/nginx-slim:0.24'],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rollout = renderTimeline(rolloutTimeline(await runRollout(() => {})));
  await writeFile(new URL('../rollout-timeline.svg', import.meta.url), rollout);
  const sts = renderTimeline(statefulSetTimeline(await runStatefulSet(() => {})));
  await writeFile(new URL('../statefulset-timeline.svg', import.meta.url), sts);
  console.log(
    'wrote rollout-timeline.svg and statefulset-timeline.svg in tutorials/10-daemonset-statefulset',
  );
}
