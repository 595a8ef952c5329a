// Draws ../desired-vs-actual.svg from the lines a run of
// 01-desired-vs-actual.ts logs: at each look, the desired count (dashed
// slots), the pods that exist (filled), and what the controller did.
const LINE = /^\s*(\d+)ms\s+(.+?)\s+desired=(\d+)\s+→ (.+?)\s+pods=\[(.*)\]$/;

/** One look of the controller, parsed from a logged line. */
export interface Look {
  at: number;
  why: string;
  desired: number;
  action: string;
  pods: string[];
}

export function parseLooks(lines: string[]): Look[] {
  return lines.map((line) => {
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a line of 01-desired-vs-actual.ts: ${line}`);
    return {
      at: Number(m[1]),
      why: m[2] as string,
      desired: Number(m[3]),
      action: m[4] as string,
      pods: (m[5] as string).split(' ').filter(Boolean),
    };
  });
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function drawDesiredVsActual(lines: string[]): string {
  const looks = parseLooks(lines);
  const colW = 210;
  const width = 20 + looks.length * colW;
  const height = 250;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="14">`,
    '  <title>Desired and actual state at each look of the controller, from a run</title>',
    `  <rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    '  <text x="20" y="26" font-weight="bold">Desired (dashed) and actual (filled) at each look, and what the controller did (from a run)</text>',
  ];
  looks.forEach((look, i) => {
    const x = 20 + i * colW;
    out.push(
      `  <rect x="${x}" y="44" width="${colW - 16}" height="192" rx="8" fill="#f4f7fb" stroke="#d5dde6"/>`,
      `  <text x="${x + 12}" y="68" font-weight="bold">${look.at} ms</text>`,
      `  <text x="${x + 12}" y="88">${esc(look.why)}</text>`,
      `  <text x="${x + 12}" y="116" fill="#8a5a14">desired ${look.desired}</text>`,
      `  <text x="${x + 12}" y="176" fill="#2f6b3a">actual ${look.pods.length}, after acting</text>`,
    );
    for (let k = 0; k < look.desired; k++)
      out.push(
        `  <rect x="${x + 12 + k * 58}" y="124" width="50" height="24" rx="5" fill="none" stroke="#8a5a14" stroke-dasharray="4 3"/>`,
      );
    look.pods.forEach((pod, k) => {
      out.push(
        `  <rect x="${x + 12 + k * 58}" y="184" width="50" height="24" rx="5" fill="#e8f3ea" stroke="#2f6b3a"/>`,
        `  <text x="${x + 37 + k * 58}" y="201" text-anchor="middle" font-size="12" font-family="ui-monospace, monospace">${esc(pod)}</text>`,
      );
    });
    out.push(
      `  <text x="${x + 12}" y="228" font-size="12" font-family="ui-monospace, monospace">→ ${esc(look.action)}</text>`,
    );
  });
  out.push('</svg>', '');
  return out.join('\n');
}
