// Draws the chapter's two pictures from the runs of its examples:
// placement.svg from 02-placement.ts (one row per step: the Service's
// slices, how full each is out of 100, and which ones the step wrote) and
// watch-bytes.svg from 04-watch-bytes.ts (the bytes one watcher received
// for the same change, from one Endpoints object and from the slices), and
// drain.svg from 07-drain.ts (each pod of the drained Deployment over time,
// on which node, the evictions and their answers, and the disruptions the
// budget allowed).
// Nothing in them is drawn by hand: run the examples and this file draws
// them again.
// Run: npm run diagrams -w tutorials/11-services
import { writeFile } from 'node:fs/promises';
import { run as runPlacement, type Step } from './02-placement.js';
import { run as runBytes, type BytesRun } from './04-watch-bytes.js';
import { run as runDrain, type DrainRun } from './07-drain.js';

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const num = (n: number): string => String(Math.round(n * 10) / 10);

const written = '#c0392b';
const fill = '#2b5c8a';
const empty = '#e4e8ec';

/** An SVG document around `body`. */
function svg(title: string, width: number, height: number, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="13">`,
    `  <title>${esc(title)}</title>`,
    `  <rect x="0" y="0" width="${width}" height="${height}" fill="#fff"/>`,
    ...body.map((l) => `  ${l}`),
    '</svg>',
    '',
  ].join('\n');
}

/** The slices of each step of the placement experiment. */
export function placementPicture(steps: readonly Step[]): string {
  const left = 150;
  const box = 170;
  const gap = 20;
  const rowHeight = 46;
  const capacity = 100;
  const out: string[] = [];
  steps.forEach((step, row) => {
    const y = 20 + row * rowHeight;
    out.push(
      `<text x="${left - 12}" y="${y + 19}" text-anchor="end" font-weight="600">${esc(step.label)}</text>`,
    );
    step.slices.forEach((s, i) => {
      const x = left + i * (box + gap);
      const w = (box * Math.min(s.endpoints, capacity)) / capacity;
      out.push(`<rect x="${x}" y="${y}" width="${box}" height="26" fill="${empty}"/>`);
      if (w > 0) out.push(`<rect x="${x}" y="${y}" width="${num(w)}" height="26" fill="${fill}"/>`);
      if (s.writes > 0) {
        out.push(
          `<rect x="${x - 1.5}" y="${y - 1.5}" width="${box + 3}" height="29" fill="none" stroke="${written}" stroke-width="3"/>`,
        );
      }
      const label = `${s.name}: ${s.endpoints}${s.deleted ? ' (deleted)' : ''}`;
      out.push(
        `<text x="${x + 6}" y="${y + 18}" fill="#fff" stroke="${fill}" stroke-width="3" paint-order="stroke">${esc(label)}</text>`,
      );
    });
  });
  const bottom = 20 + steps.length * rowHeight + 6;
  const legend: [string, string, string][] = [
    [fill, 'none', 'endpoints in the slice'],
    [empty, 'none', 'room left, out of 100'],
    ['#fff', written, 'written by this step'],
  ];
  let lx = left;
  for (const [f, stroke, label] of legend) {
    out.push(
      `<rect x="${lx}" y="${bottom}" width="14" height="14" fill="${f}" stroke="${stroke}" stroke-width="${stroke === 'none' ? 0 : 3}"/>`,
    );
    out.push(`<text x="${lx + 20}" y="${bottom + 12}">${esc(label)}</text>`);
    lx += 40 + label.length * 7;
  }
  const width = left + 3 * (box + gap) + 20;
  return svg(
    'The slices of the Service web (at most 100 endpoints each) after each step, and the ones each step wrote',
    width,
    bottom + 30,
    out,
  );
}

/** The bytes one watcher received for the same change, per kind of object. */
export function bytesPicture(r: BytesRun): string {
  const left = 300;
  const right = 840;
  const rows: [string, number][] = [
    [`Endpoints: 1 object of ${r.pods} addresses`, r.endpointsBytes],
    [`EndpointSlices: ${r.slices} slices of ≤ 100`, r.slicesBytes],
  ];
  const max = Math.max(...rows.map(([, b]) => b));
  const out: string[] = [];
  rows.forEach(([label, bytes], i) => {
    const y = 20 + i * 44;
    const w = ((right - left) * bytes) / max;
    out.push(
      `<text x="${left - 12}" y="${y + 18}" text-anchor="end" font-weight="600">${esc(label)}</text>`,
    );
    out.push(
      `<rect x="${left}" y="${y}" width="${num(w)}" height="26" fill="${i === 0 ? written : fill}"/>`,
    );
    const kb = `${(bytes / 1024).toFixed(1)} KiB`;
    const inside = w > 90;
    out.push(
      `<text x="${num(inside ? left + w - 8 : left + w + 8)}" y="${y + 18}"${inside ? ' text-anchor="end" fill="#fff"' : ''}>${esc(kb)}</text>`,
    );
  });
  out.push(
    `<text x="20" y="${20 + rows.length * 44 + 8}" fill="#444">${esc(`received by one watcher while one pod of ${r.pods} went not ready and ready again (${r.events} events each)`)}</text>`,
  );
  return svg(
    'Bytes a watcher receives for one pod’s readiness change: one Endpoints object against EndpointSlices',
    right + 40,
    20 + rows.length * 44 + 24,
    out,
  );
}

/** The drain: one row per pod, its time on each node, the evictions, the budget's allowance. */
export function drainPicture(r: DrainRun): string {
  const left = 70;
  const right = 700;
  const rowHeight = 30;
  const top = 30;
  const x = (t: number): number => left + ((right - left) * Math.min(t, r.end)) / r.end;
  const nodeColour: Record<string, string> = { 'node-2': fill, 'node-3': '#5f8f4e' };
  const out: string[] = [];
  out.push(
    `<text x="${left}" y="18" fill="#444">${esc('kubectl drain node-2: pods of web over time (seconds since the cordon)')}</text>`,
  );
  r.pods.forEach((p, row) => {
    const y = top + row * rowHeight;
    out.push(
      `<text x="${left - 10}" y="${y + 16}" text-anchor="end" font-weight="600">${esc(p.name)}</text>`,
    );
    const colour = nodeColour[p.node] ?? '#888';
    const end = p.deleting ?? p.gone ?? r.end;
    if (p.created !== undefined && p.ready !== undefined && p.ready > p.created) {
      out.push(
        `<rect x="${num(x(p.created))}" y="${y + 4}" width="${num(x(p.ready) - x(p.created))}" height="14" fill="${colour}" opacity="0.35"/>`,
      );
    }
    if (p.ready !== undefined && end > p.ready) {
      out.push(
        `<rect x="${num(x(p.ready))}" y="${y + 4}" width="${num(x(end) - x(p.ready))}" height="14" fill="${colour}"/>`,
      );
    }
    if (p.deleting !== undefined) {
      const gone = p.gone ?? r.end;
      out.push(
        `<rect x="${num(x(p.deleting))}" y="${y + 4}" width="${num(Math.max(2, x(gone) - x(p.deleting)))}" height="14" fill="${written}" opacity="0.5"/>`,
      );
    }
    const last = p.gone ?? r.end;
    out.push(
      `<text x="${num(Math.min(x(last) + 6, right + 6))}" y="${y + 16}" fill="#444">${esc(p.node)}</text>`,
    );
  });
  for (const a of r.attempts) {
    const row = r.pods.findIndex((p) => p.name === a.pod);
    const y = top + row * rowHeight + 11;
    const cx = x(a.t);
    if (a.code === 201) {
      out.push(
        `<circle cx="${num(cx)}" cy="${y}" r="6" fill="#fff" stroke="${written}" stroke-width="3"/>`,
      );
    } else {
      out.push(
        `<path d="M${num(cx - 5)} ${y - 5} L${num(cx + 5)} ${y + 5} M${num(cx + 5)} ${y - 5} L${num(cx - 5)} ${y + 5}" stroke="${written}" stroke-width="3"/>`,
      );
    }
  }
  // The budget's allowance as a step line under the rows.
  const base = top + r.pods.length * rowHeight + 30;
  const level = (n: number): number => base - n * 16;
  out.push(
    `<text x="${left - 10}" y="${base - 4}" text-anchor="end" font-weight="600">allowed</text>`,
  );
  let path = '';
  r.allowed.forEach((a, i) => {
    const next = r.allowed[i + 1]?.t ?? r.end;
    path += `${i === 0 ? 'M' : 'L'}${num(x(a.t))} ${level(a.n)} L${num(x(next))} ${level(a.n)} `;
  });
  out.push(`<path d="${path.trim()}" fill="none" stroke="#444" stroke-width="2"/>`);
  out.push(`<text x="${right + 6}" y="${level(1) + 4}" fill="#444">1</text>`);
  out.push(`<text x="${right + 6}" y="${level(0) + 4}" fill="#444">0</text>`);
  // The time axis, a tick every second.
  const axis = base + 20;
  out.push(`<line x1="${left}" y1="${axis}" x2="${right}" y2="${axis}" stroke="#888"/>`);
  for (let t = 0; t <= r.end; t += 1000) {
    out.push(
      `<line x1="${num(x(t))}" y1="${axis}" x2="${num(x(t))}" y2="${axis + 5}" stroke="#888"/>`,
    );
    out.push(
      `<text x="${num(x(t))}" y="${axis + 18}" text-anchor="middle" fill="#444">${t / 1000}</text>`,
    );
  }
  const legend = axis + 40;
  out.push(
    `<rect x="${left}" y="${legend - 11}" width="14" height="14" fill="${fill}"/><text x="${left + 20}" y="${legend}">ready on node-2</text>`,
    `<rect x="${left + 140}" y="${legend - 11}" width="14" height="14" fill="${nodeColour['node-3']}"/><text x="${left + 160}" y="${legend}">ready on node-3 (lighter: starting)</text>`,
    `<rect x="${left + 390}" y="${legend - 11}" width="14" height="14" fill="${written}" opacity="0.5"/><text x="${left + 410}" y="${legend}">being deleted</text>`,
    `<circle cx="${left + 7}" cy="${legend + 18}" r="6" fill="#fff" stroke="${written}" stroke-width="3"/><text x="${left + 20}" y="${legend + 23}">eviction: 201</text>`,
    `<path d="M${left + 135} ${legend + 13} L${left + 145} ${legend + 23} M${left + 145} ${legend + 13} L${left + 135} ${legend + 23}" stroke="${written}" stroke-width="3"/><text x="${left + 160}" y="${legend + 23}">eviction: 429, retried in 5 s</text>`,
  );
  return svg(
    'kubectl drain node-2 under a PodDisruptionBudget of minAvailable 3: evictions one disruption at a time',
    right + 60,
    legend + 40,
    out,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await writeFile(
    new URL('../placement.svg', import.meta.url),
    placementPicture(await runPlacement(() => {})),
  );
  await writeFile(
    new URL('../watch-bytes.svg', import.meta.url),
    bytesPicture(await runBytes(() => {})),
  );
  await writeFile(new URL('../drain.svg', import.meta.url), drainPicture(await runDrain(() => {})));
  console.log('wrote placement.svg, watch-bytes.svg and drain.svg in tutorials/11-services');
}
