// Draws ../strategies.svg from a run of 01-strategies.ts: for each of the
// kubelet's three strategies, the requests it sent to the API server and how
// long the pods read the old value after the change.
import type { Measurement } from './01-strategies.js';

const WHAT: Record<string, string> = {
  Get: 'every read asks the API server',
  Cache: 'each object kept for a TTL (60 s), then fetched again',
  Watch: 'one informer per object, fed by a watch',
};

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The number of requests in a measurement's "600 get" or "1 list, 1 watch". */
export const requestCount = (m: Measurement): number =>
  [...m.requests.matchAll(/(\d+)/g)].reduce((sum, n) => sum + Number(n[1]), 0);

/** Two bar charts side by side, one row per strategy; the numbers are the run's. */
export function drawStrategies(results: Measurement[]): string {
  const width = 860;
  const rowH = 64;
  const top = 74;
  const height = top + results.length * rowH + 40;
  const reqX = 330;
  const staleX = 610;
  const barMax = 200;
  const maxReq = Math.max(...results.map(requestCount));
  const maxStale = Math.max(...results.map((r) => r.staleFor));
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="14">`,
    "  <title>The kubelet's three object-store strategies: requests and staleness, from a run</title>",
    `  <rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    '  <text x="20" y="26" font-weight="bold">20 pods read one Secret every 10 s for 5 min; the Secret changes once (generated from a run)</text>',
    `  <text x="${reqX}" y="58" font-weight="bold" fill="#34506e">requests to the API server</text>`,
    `  <text x="${staleX}" y="58" font-weight="bold" fill="#34506e">old value read for</text>`,
  ];
  results.forEach((r, i) => {
    const y = top + i * rowH;
    const n = requestCount(r);
    const reqW = Math.max(2, (n / maxReq) * barMax);
    const staleW = Math.max(2, (r.staleFor / maxStale) * barMax);
    out.push(
      `  <rect x="10" y="${y}" width="${width - 20}" height="${rowH - 10}" rx="8" fill="${i % 2 === 0 ? '#f4f7fb' : '#ffffff'}" stroke="#d5dde6"/>`,
      `  <text x="24" y="${y + 22}" font-weight="bold">${esc(r.strategy)}</text>`,
      `  <text x="24" y="${y + 42}" font-size="12" fill="#555">${esc(WHAT[r.strategy] ?? '')}</text>`,
      `  <rect x="${reqX}" y="${y + 12}" width="${reqW.toFixed(1)}" height="20" fill="#c8d9ec" stroke="#34506e"/>`,
      `  <text x="${(reqX + reqW + 8).toFixed(1)}" y="${y + 27}">${esc(r.requests)}</text>`,
      `  <rect x="${staleX}" y="${y + 12}" width="${staleW.toFixed(1)}" height="20" fill="#fdf3e3" stroke="#8a5a14"/>`,
      `  <text x="${(staleX + staleW + 8).toFixed(1)}" y="${y + 27}">${r.staleFor / 1000} s</text>`,
    );
  });
  out.push(
    `  <text x="20" y="${height - 14}" font-size="12" fill="#555">Bars are to scale within each column: ${maxReq} requests and ${maxStale / 1000} s are the longest.</text>`,
    '</svg>',
    '',
  );
  return out.join('\n');
}
