// Draws gc-graph.svg from the four copies of the garbage collector's graph
// that 05-propagation.ts takes, each right after the graph builder applied
// one event: the nodes (observed, virtual, being deleted, deleting
// dependents), the ownerReferences between them (solid where
// blockOwnerDeletion is set), and what that one event put on the
// attemptToDelete and attemptToOrphan queues. Nothing is drawn by hand.
// Run: npm run gc-svg -w tutorials/07-manager
import { writeFile } from 'node:fs/promises';
import { run, type GraphNode, type Snapshot } from './05-propagation.js';

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const num = (n: number): string => String(Math.round(n * 10) / 10);

const boxW = 250;
const boxH = 50;
const colGap = 60;
const rowGap = 12;
const left = 30;
const queueColors = { attemptToDelete: '#d9822b', attemptToOrphan: '#8e44ad' } as const;

/** Each node's column: 0 for nodes whose owners are not drawn, else one right of its owners. */
function levels(nodes: readonly GraphNode[]): Map<string, number> {
  const byUID = new Map(nodes.map((n) => [n.uid, n]));
  const level = new Map<string, number>();
  const depth = (n: GraphNode, seen = new Set<string>()): number => {
    const known = level.get(n.uid);
    if (known !== undefined) return known;
    if (seen.has(n.uid)) return 0;
    seen.add(n.uid);
    const owners = n.owners.map((o) => byUID.get(o.uid)).filter((o) => o !== undefined);
    const l = owners.length === 0 ? 0 : 1 + Math.max(...owners.map((o) => depth(o, seen)));
    level.set(n.uid, l);
    return l;
  };
  for (const n of nodes) depth(n);
  return level;
}

/** One panel: the graph after one event, and what that event queued. */
function panel(s: Snapshot, index: number, y0: number, out: string[]): number {
  const add = (line: string) => out.push(`  ${line}`);
  const level = levels(s.nodes);
  const columns: GraphNode[][] = [];
  for (const n of s.nodes) (columns[level.get(n.uid)!] ??= []).push(n);
  // Keep dependents next to their owners: order each column by its owners' rows.
  const row = new Map<string, number>();
  columns.forEach((col, c) => {
    if (c > 0) {
      const key = (n: GraphNode) =>
        Math.min(...n.owners.map((o) => row.get(o.uid) ?? Infinity), Infinity);
      col.sort((a, b) => key(a) - key(b));
    }
    col.forEach((n, i) => row.set(n.uid, i));
  });
  const top = y0 + 48;
  const pos = new Map<string, { x: number; y: number }>();
  columns.forEach((col, c) =>
    col.forEach((n, i) =>
      pos.set(n.uid, { x: left + c * (boxW + colGap), y: top + i * (boxH + rowGap) }),
    ),
  );
  const rows = Math.max(...columns.map((col) => col.length));

  add(`<text class="panel" x="${left - 10}" y="${y0 + 18}">${index}. ${esc(s.title)}</text>`);
  add(
    `<text class="note" x="${left - 10}" y="${y0 + 34}">right after the graph builder applied the event: ${esc(s.event)}</text>`,
  );

  // Owner → dependent, one line per ownerReference.
  for (const n of s.nodes) {
    const to = pos.get(n.uid)!;
    for (const o of n.owners) {
      const from = pos.get(o.uid);
      if (!from) continue;
      const x1 = from.x + boxW;
      const y1 = from.y + boxH / 2;
      const x2 = to.x;
      const y2 = to.y + boxH / 2;
      const mid = (x1 + x2) / 2;
      add(
        `<path class="${o.blockOwnerDeletion ? 'block' : 'ref'}" d="M${num(x1)},${num(y1)} C${num(mid)},${num(y1)} ${num(mid)},${num(y2)} ${num(x2)},${num(y2)}" marker-end="url(#arrow)"/>`,
      );
    }
  }

  // The nodes.
  for (const n of s.nodes) {
    const { x, y } = pos.get(n.uid)!;
    const cls = n.gone ? 'gone' : n.virtual ? 'virtual' : n.beingDeleted ? 'deleting' : 'node';
    add(`<rect class="${cls}" x="${x}" y="${y}" width="${boxW}" height="${boxH}" rx="5"/>`);
    const tags = [
      n.gone ? 'gone: in the absent-owner cache' : '',
      n.virtual ? 'virtual: not observed yet' : '',
      n.beingDeleted ? 'deletionTimestamp' : '',
      n.deletingDependents ? 'deletingDependents' : '',
    ].filter(Boolean);
    add(`<text class="kind" x="${x + 8}" y="${y + 14}">${esc(n.kind)}</text>`);
    add(`<text x="${x + 8}" y="${y + 29}">${esc(n.name)}</text>`);
    if (tags.length > 0)
      add(`<text class="tag" x="${x + 8}" y="${y + 43}">${esc(tags.join(' · '))}</text>`);
    const queues = [...new Set(s.queued.filter((q) => q.uid === n.uid).map((q) => q.queue))];
    queues.forEach((queue, i) => {
      const bx = x + boxW - 10 - i * 22;
      add(`<circle cx="${bx}" cy="${y}" r="9" fill="${queueColors[queue]}"/>`);
      add(
        `<text class="badge" x="${bx}" y="${y + 4}" text-anchor="middle">${queue === 'attemptToDelete' ? 'D' : 'O'}</text>`,
      );
    });
  }

  // What this one event queued.
  const listY = top + rows * (boxH + rowGap) + 6;
  const named = (uid: string) => {
    const n = s.nodes.find((m) => m.uid === uid);
    return n ? `${n.kind} ${n.name}${n.virtual ? ' (virtual)' : ''}` : uid;
  };
  const lines = (['attemptToDelete', 'attemptToOrphan'] as const).map((queue) => {
    const items = s.queued.filter((q) => q.queue === queue).map((q) => named(q.uid));
    return `${queue} ← ${items.length > 0 ? items.join(', ') : '(nothing)'}`;
  });
  lines.forEach((line, i) =>
    add(
      `<text class="queue" x="${left}" y="${listY + i * 16}" fill="${queueColors[i === 0 ? 'attemptToDelete' : 'attemptToOrphan']}">${esc(line)}</text>`,
    ),
  );
  return listY + 2 * 16 + 18;
}

/** The picture, as an SVG document. */
export function renderGraph(snapshots: readonly Snapshot[]): string {
  const out: string[] = [];
  const width = left + 3 * boxW + 2 * colGap + 30;
  let y = 56;
  snapshots.forEach((s, i) => {
    if (i > 0)
      out.push(`  <line class="sep" x1="10" y1="${y - 8}" x2="${width - 10}" y2="${y - 8}"/>`);
    y = panel(s, i + 1, y, out);
  });
  const height = y;
  const legend = [
    `<text class="panel" x="20" y="22">The garbage collector's graph, copied out of a run at four moments</text>`,
    `<rect class="node" x="20" y="32" width="14" height="12" rx="2"/><text class="note" x="40" y="42">observed object</text>`,
    `<rect class="virtual" x="140" y="32" width="14" height="12" rx="2"/><text class="note" x="160" y="42">virtual node</text>`,
    `<rect class="deleting" x="245" y="32" width="14" height="12" rx="2"/><text class="note" x="265" y="42">being deleted</text>`,
    `<line class="block" x1="360" y1="38" x2="390" y2="38"/><text class="note" x="396" y="42">blockOwnerDeletion</text>`,
    `<line class="ref" x1="520" y1="38" x2="550" y2="38"/><text class="note" x="556" y="42">other ownerReference</text>`,
    `<circle cx="690" cy="38" r="7" fill="${queueColors.attemptToDelete}"/><text class="note" x="700" y="42">D/O: queued</text>`,
  ];
  const title =
    'The garbage collector graph of the nginx Deployment at four moments: a virtual owner, and background, foreground and orphan deletion';
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `  <title>${esc(title)}</title>`,
    '  <defs>',
    '    <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse">',
    '      <path d="M0,0 L10,5 L0,10 z" fill="#5b6b7b"/>',
    '    </marker>',
    '    <style>',
    '      .node { fill: #eef3f8; stroke: #6c819a; }',
    '      .virtual { fill: #f5f5f5; stroke: #777; stroke-dasharray: 5 3; }',
    '      .deleting { fill: #fbeaea; stroke: #b3261e; stroke-width: 1.5; }',
    '      .gone { fill: #fff; stroke: #aaa; stroke-dasharray: 2 3; }',
    '      .block { stroke: #34506e; stroke-width: 2; fill: none; }',
    '      .ref { stroke: #5b6b7b; stroke-width: 1.2; stroke-dasharray: 6 4; fill: none; }',
    '      .sep { stroke: #ddd; }',
    '      .panel { font-weight: 600; font-size: 13px; }',
    '      .kind { font-size: 11px; fill: #555; }',
    '      .tag { font-size: 11px; fill: #b3261e; font-style: italic; }',
    '      .note { font-size: 11px; fill: #444; }',
    '      .queue { font-size: 12px; font-weight: 600; }',
    '      .badge { font-size: 10px; font-weight: 700; fill: #fff; }',
    '    </style>',
    '  </defs>',
    `  <rect x="0" y="0" width="${width}" height="${height}" fill="#fff"/>`,
    ...legend.map((l) => `  ${l}`),
    ...out,
    '</svg>',
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { snapshots } = await run(() => {});
  await writeFile(new URL('../gc-graph.svg', import.meta.url), renderGraph(snapshots));
  console.log('wrote tutorials/07-manager/gc-graph.svg');
}
