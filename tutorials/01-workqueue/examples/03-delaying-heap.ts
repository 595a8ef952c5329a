// Chapter 1: the delaying queue on a fake clock, drawn as ../delaying-heap.svg:
// each addAfter asks for a time, an earlier request for a waiting key wins, a
// later one is ignored, and each key enters the queue when its time comes.
// Run: npm run start:delaying-heap -w tutorials/01-workqueue
import { FakeClock } from '@kcm-ts/apimachinery';
import { newDelayingQueue } from '@kcm-ts/workqueue';

/** One addAfter call: when it was made, for which key, with which delay. */
export interface Request {
  at: number;
  key: string;
  delay: number;
}

/** The calls the picture shows. */
export const REQUESTS: Request[] = [
  { at: 0, key: 'a', delay: 3000 },
  { at: 0, key: 'b', delay: 1000 },
  { at: 0, key: 'c', delay: 2000 },
  { at: 500, key: 'a', delay: 500 }, // earlier than a's 3000: it wins
  { at: 500, key: 'b', delay: 2000 }, // later than b's 1000: ignored
];

/** Replays REQUESTS on a real delaying queue and returns when each key entered the queue. */
export async function run(end = 3500, step = 100): Promise<Map<string, number>> {
  const clock = new FakeClock();
  const start = clock.now();
  const queue = newDelayingQueue<string>({ clock });
  const arrived = new Map<string, number>();
  for (let t = 0; t <= end; t += step) {
    for (const r of REQUESTS) if (r.at === t) queue.addAfter(r.key, r.delay);
    while (queue.len() > 0) {
      const [key, shutdown] = await queue.get();
      if (shutdown) break;
      arrived.set(key, clock.now() - start);
      queue.done(key);
    }
    await clock.advance(step);
  }
  queue.shutDown();
  return arrived;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One row per key: every requested time (hollow), and when the key entered the queue (filled). */
export function draw(arrived: Map<string, number>, end = 3500): string {
  const keys = [...new Set(REQUESTS.map((r) => r.key))];
  const left = 60;
  const plot = 720;
  const x = (ms: number) => left + (ms / end) * plot;
  const rowH = 46;
  const top = 60;
  const width = left + plot + 40;
  const height = top + keys.length * rowH + 60;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="14">`,
    '  <title>The delaying queue: requested times and when each key entered the queue, from a run</title>',
    `  <rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    '  <text x="20" y="26" font-weight="bold">addAfter on a fake clock: hollow = a requested time, filled = entered the queue (from a run)</text>',
  ];
  keys.forEach((key, i) => {
    const y = top + i * rowH + 20;
    out.push(
      `  <text x="20" y="${y + 5}" font-family="ui-monospace, monospace" font-weight="bold">${esc(key)}</text>`,
      `  <line x1="${left}" y1="${y}" x2="${left + plot}" y2="${y}" stroke="#d5dde6"/>`,
    );
    for (const r of REQUESTS.filter((q) => q.key === key)) {
      const due = r.at + r.delay;
      out.push(
        `  <line x1="${x(r.at)}" y1="${y}" x2="${x(due)}" y2="${y}" stroke="#8a5a14" stroke-dasharray="4 3"/>`,
        `  <circle cx="${x(due)}" cy="${y}" r="7" fill="#ffffff" stroke="#8a5a14" stroke-width="2"/>`,
        `  <text x="${x(due)}" y="${y - 12}" text-anchor="middle" font-size="12" fill="#8a5a14">${r.at} ms + ${r.delay}</text>`,
      );
    }
    const at = arrived.get(key);
    if (at !== undefined)
      out.push(
        `  <circle cx="${x(at)}" cy="${y}" r="5" fill="#2f6b3a"/>`,
        `  <text x="${x(at)}" y="${y + 22}" text-anchor="middle" font-size="12" fill="#2f6b3a">queued at ${at} ms</text>`,
      );
  });
  const axis = top + keys.length * rowH + 20;
  out.push(`  <line x1="${left}" y1="${axis}" x2="${left + plot}" y2="${axis}" stroke="#444"/>`);
  for (let t = 0; t <= end; t += 500)
    out.push(
      `  <line x1="${x(t)}" y1="${axis}" x2="${x(t)}" y2="${axis + 5}" stroke="#444"/>`,
      `  <text x="${x(t)}" y="${axis + 20}" text-anchor="middle" font-size="12">${t} ms</text>`,
    );
  out.push('</svg>', '');
  return out.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [key, at] of await run()) console.log(`${key} entered the queue at ${at} ms`);
}
