// Draws ../the-frame.svg from the manager's own controller registry: the
// steps of Run down to StartControllers, the controllers it starts (each
// with its init function) and the ones it passes over, with the reason
// StartControllers gives, and the loop every started controller runs.
// Which controllers appear, and why, comes from @kcm-ts/manager's
// descriptors and its default --controllers, so the picture follows the code.
import {
  defaultConfiguration,
  implementedControllers,
  isControllerEnabled,
  newControllerDescriptors,
  type ControllerDescriptor,
} from '@kcm-ts/manager';

/** What StartControllers does with one descriptor under the default `--controllers`. */
export interface Decision {
  name: string;
  /** The init function that starts it, when it is started. */
  init?: string;
  /** Why it is passed over, when it is. */
  skipped?: 'special handling' | 'cloud provider' | 'disabled by default' | 'not in kcm-ts';
}

/** The registry, in order, with StartControllers' decision for each (controller-manager.ts). */
export function decisions(
  descriptors: ReadonlyMap<string, ControllerDescriptor> = newControllerDescriptors(
    implementedControllers,
  ),
  controllers: readonly string[] = defaultConfiguration().generic.controllers,
): Decision[] {
  return [...descriptors.values()].map((d): Decision => {
    if (d.requiresSpecialHandling) return { name: d.name, skipped: 'special handling' };
    if (d.cloudProvider) return { name: d.name, skipped: 'cloud provider' };
    const off = new Set(d.disabledByDefault ? [d.name] : []);
    if (!isControllerEnabled(d.name, off, controllers))
      return { name: d.name, skipped: 'disabled by default' };
    if (!d.init) return { name: d.name, skipped: 'not in kcm-ts' };
    return { name: d.name, init: d.init.name };
  });
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Splits `text` into lines of at most `width` characters, at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

// The path from main to the controllers (controllermanager.go), as the
// chapter's numbered outline gives it.
const STEPS = [
  ['Run', 'health checks, /healthz and /metrics'],
  ['leaderElectAndRun', 'only the Lease holder goes on (ch. 4)'],
  ['CreateControllerContext', 'the shared informer factory (ch. 2)'],
  ['StartControllers', 'walks the controller registry'],
  ['InformerFactory.Start', 'list and watch what was asked for'],
] as const;

// The loop each started controller runs (its Run and workers).
const LOOP = [
  ['informer', 'watches the actual state: the objects that exist'],
  ['workqueue (ch. 1)', 'one key per object that changed'],
  ['worker: sync', 'compares the desired state (spec) with the actual state'],
  ['API server', 'creates, updates or deletes the difference'],
] as const;

export function drawFrame(list: Decision[] = decisions()): string {
  const started = list.filter((d) => d.init);
  const skipped = new Map<string, string[]>();
  for (const d of list)
    if (d.skipped) skipped.set(d.skipped, [...(skipped.get(d.skipped) ?? []), d.name]);

  const out: string[] = [];
  const add = (s: string) => out.push(`  ${s}`);
  const box = (x: number, y: number, w: number, h: number, fill: string) =>
    add(
      `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6" fill="${fill}" stroke="#8795a3"/>`,
    );
  const text = (x: number, y: number, s: string, attrs = '') =>
    add(`<text x="${x}" y="${y}"${attrs}>${esc(s)}</text>`);
  const arrow = (x1: number, y1: number, x2: number, y2: number) =>
    add(
      `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="#5b6b7b" stroke-width="1.5" marker-end="url(#arrow)"/>`,
    );

  // Column 1: Run down to InformerFactory.Start.
  const stepX = 20;
  const stepW = 260;
  const stepH = 48;
  const top = 60;
  const stepY = (i: number) => top + i * (stepH + 22);
  STEPS.forEach(([name, note], i) => {
    box(stepX, stepY(i), stepW, stepH, i === 3 ? '#e8f0f8' : '#f4f7fb');
    text(
      stepX + 12,
      stepY(i) + 20,
      name,
      ' font-weight="bold" font-family="ui-monospace, monospace"',
    );
    text(stepX + 12, stepY(i) + 38, note, ' font-size="12" fill="#44505c"');
    if (i > 0) arrow(stepX + stepW / 2, stepY(i - 1) + stepH, stepX + stepW / 2, stepY(i) - 2);
  });

  // Column 2: what StartControllers does with each descriptor.
  const ctlX = 340;
  const ctlW = 380;
  const ctlH = 44;
  const start = stepY(3) + stepH / 2;
  text(ctlX, top - 14, `The registry: ${list.length} controllers`, ' font-weight="bold"');
  started.forEach((d, i) => {
    const y = top + i * (ctlH + 10);
    box(ctlX, y, ctlW, ctlH, '#eef6ee');
    text(ctlX + 12, y + 19, d.name, ' font-family="ui-monospace, monospace" font-size="13"');
    text(ctlX + 12, y + 36, `started by ${d.init ?? ''}`, ' font-size="12" fill="#2f6b3a"');
    arrow(stepX + stepW, start, ctlX - 2, y + ctlH / 2);
  });
  let y = top + started.length * (ctlH + 10) + 6;
  const notes: string[] = [];
  for (const [why, names] of skipped) {
    const shown = names.length <= 3 ? `: ${names.join(', ')}` : '';
    notes.push(...wrap(`${names.length} passed over, ${why}${shown}`, 44));
  }
  box(ctlX, y, ctlW, 16 + notes.length * 17, '#f3f3f3');
  notes.forEach((line, i) =>
    text(ctlX + 12, y + 20 + i * 17, line, ' font-size="12" fill="#5b6b7b"'),
  );
  y += 16 + notes.length * 17;

  // Column 3: the loop of desired against actual state.
  const loopX = ctlX + ctlW + 60;
  const loopW = 290;
  const loopH = 58;
  const loopY = (i: number) => top + i * (loopH + 26);
  text(loopX, top - 14, 'Each started controller, in a loop', ' font-weight="bold"');
  LOOP.forEach(([name, note], i) => {
    box(loopX, loopY(i), loopW, loopH, '#fff7d6');
    text(loopX + 12, loopY(i) + 20, name, ' font-weight="bold"');
    wrap(note, 40).forEach((line, k) =>
      text(loopX + 12, loopY(i) + 36 + k * 14, line, ' font-size="12" fill="#44505c"'),
    );
    if (i > 0) arrow(loopX + loopW / 2, loopY(i - 1) + loopH, loopX + loopW / 2, loopY(i) - 2);
  });
  // Back to the informer: the writes come back as watch events.
  const last = loopY(LOOP.length - 1) + loopH / 2;
  const back = loopX + loopW + 14;
  add(
    `<path d="M ${loopX + loopW} ${last} H ${back} V ${top + loopH / 2} H ${loopX + loopW + 2}" fill="none" stroke="#5b6b7b" stroke-width="1.5" marker-end="url(#arrow)"/>`,
  );
  text(
    back + 4,
    (top + last) / 2,
    'watch events',
    ' font-size="12" fill="#44505c" transform="rotate(90 ' +
      (back + 4) +
      ' ' +
      (top + last) / 2 +
      ')" text-anchor="middle"',
  );
  for (let i = 0; i < started.length; i++)
    arrow(ctlX + ctlW, top + i * (ctlH + 10) + ctlH / 2, loopX - 2, top + loopH / 2 + i * 4);

  const width = back + 30;
  const height = Math.max(y, stepY(STEPS.length - 1) + stepH, loopY(LOOP.length - 1) + loopH) + 20;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="14">`,
    "  <title>kube-controller-manager's frame, from kcm-ts's controller registry</title>",
    '  <defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#5b6b7b"/></marker></defs>',
    `  <rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    '  <text x="20" y="26" font-weight="bold">From Run to the controllers, and the loop each one runs (from the registry in @kcm-ts/manager)</text>',
    ...out,
    '</svg>',
    '',
  ].join('\n');
}
