import { describe, expect, it } from 'vitest';
import { newLogger } from '../src/logging/logger.js';

const at = Date.UTC(2026, 10, 23, 23, 45, 1, 123);

function capture(format: 'text' | 'json', verbosity = 0) {
  const lines: string[] = [];
  const logger = newLogger({
    format,
    verbosity,
    write: (l) => lines.push(l),
    now: () => at,
    pid: 4242,
  });
  return { logger, lines };
}

describe('the klog text format', () => {
  it('writes klog’s header, the quoted message and key=value pairs', () => {
    const { logger, lines } = capture('text');
    logger.info('Starting', { version: 'v0.1.0', workers: 5, leader: true });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^I1123 23:45:01\.123000 {4}4242 logging\.test\.ts:\d+\] "Starting" version="v0\.1\.0" workers=5 leader=true\n$/,
    );
  });

  it('writes errors with E and err=, names as logger=, and the logger’s own values first', () => {
    const { logger, lines } = capture('text');
    logger
      .withName('replicaset-controller')
      .withValues({ replicaSet: 'default/web' })
      .error(new Error('conflict'), 'Unable to update status', { attempt: 2 });
    expect(lines[0]).toMatch(
      /^E1123 23:45:01\.123000 {4}4242 \S+\] "Unable to update status" logger="replicaset-controller" err="conflict" replicaSet="default\/web" attempt=2\n$/,
    );
  });

  it('writes info lines up to -v and errors always', () => {
    const { logger, lines } = capture('text', 2);
    logger.v(2).info('two');
    logger.v(3).info('three');
    expect(logger.v(2).enabled()).toBe(true);
    expect(logger.v(3).enabled()).toBe(false);
    logger.v(5).error(new Error('x'), 'still written');
    expect(lines.map((l) => /"([^"]*)"/.exec(l)?.[1])).toEqual(['two', 'still written']);
  });

  it('quotes strings as Go’s %q and writes multi-line values as a block', () => {
    const { logger, lines } = capture('text');
    logger.info('a "quoted" msg', { text: 'line one\nline two', nothing: undefined });
    expect(lines[0]).toContain(
      '"a \\"quoted\\" msg" text=<\n\tline one\n\tline two\n > nothing=<nil>',
    );
  });
});

describe('the JSON format', () => {
  it('writes one object per line: ts in seconds, caller, msg, v, the values', () => {
    const { logger, lines } = capture('json');
    logger.withName('gc').v(0).info('Synced', { resources: 12 });
    logger.error(new Error('boom'), 'Failed', { key: 'default/x' });
    const [info, error] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(info).toMatchObject({ ts: at / 1000, logger: 'gc', msg: 'Synced', v: 0, resources: 12 });
    expect(info!.caller).toMatch(/^logging\.test\.ts:\d+$/);
    expect(error).toMatchObject({ msg: 'Failed', err: 'boom', key: 'default/x' });
    expect(error).not.toHaveProperty('v');
  });
});
