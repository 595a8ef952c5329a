// A terminal error (controller-runtime's reconcile.TerminalError): the key
// is forgotten rather than retried, the error is logged and counted in the
// terminal-errors metric, and the next event of the object brings it back.
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { informerResources } from '@kcm-ts/informer';
import {
  TerminalError,
  isTerminalError,
  newControllerManagedBy,
  startTestEnvironment,
  terminalError,
  type TestEnvironment,
} from '../src/index.js';
import { memoryLogger } from './garbagecollector/helpers.js';

const { configMaps } = informerResources;

let env: TestEnvironment;
afterEach(async () => {
  await env?.stop();
});

describe('terminalError', () => {
  it('wraps an error and is recognised through a cause chain', () => {
    const inner = new Error('spec.size must be positive');
    const err = terminalError(inner);
    expect(err).toBeInstanceOf(TerminalError);
    expect(err.name).toBe('TerminalError');
    expect(err.message).toBe('terminal error: spec.size must be positive');
    expect(err.cause).toBe(inner);
    expect(isTerminalError(err)).toBe(true);
    expect(isTerminalError(new Error('while syncing', { cause: err }))).toBe(true);
    expect(isTerminalError(terminalError('plain text'))).toBe(true);
    expect(isTerminalError(inner)).toBe(false);
    expect(isTerminalError(undefined)).toBe(false);
    expect(isTerminalError('terminal error: text')).toBe(false);
  });

  it('is not retried, is logged and counted, and the next event reconciles again', async () => {
    env = await startTestEnvironment();
    const cms = env.client<ConfigMap>(configMaps, 'default');
    await cms.create({ metadata: { name: 'bad' }, data: { size: '-1' } });
    await cms.create({ metadata: { name: 'wrapped' }, data: { size: '-1' } });
    const calls: string[] = [];
    const c = newControllerManagedBy()
      .for(configMaps)
      .complete((ctx) => (req) => {
        calls.push(req.name);
        const size = Number(ctx.get<ConfigMap>(configMaps, req)?.data?.size);
        if (size >= 0) return;
        const err = terminalError(new Error(`size ${size} must not be negative`));
        // Wrapped, it is still terminal, as errors.Is sees through wrapping in Go.
        throw req.name === 'wrapped' ? new Error('sync failed', { cause: err }) : err;
      });
    const logger = memoryLogger();
    const manager = env.runManager({ customControllers: { c }, logger });
    await env.until(() => calls.length === 2);
    // Long past every backoff a retry would have used: still one call each.
    await env.step(5000);
    expect(calls.sort()).toEqual(['bad', 'wrapped']);
    expect(
      logger.lines.filter((l) => l.startsWith('ERROR Reconciler error: terminal error')),
    ).toHaveLength(1);
    expect(
      logger.lines.filter((l) => l.startsWith('ERROR Reconciler error: sync failed')),
    ).toHaveLength(1);

    const text = await manager.metrics.registry.metrics();
    expect(text).toContain('controller_runtime_terminal_reconcile_errors_total{controller="c"} 2');
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="c"} 2');
    expect(text).toContain('controller_runtime_reconcile_total{controller="c",result="error"} 2');
    expect(text).not.toMatch(/workqueue_retries_total\{name="c"\}/);

    // Fixing the object is an event: its key is reconciled again, and succeeds.
    const bad = await cms.get('bad');
    await cms.update({ ...bad, data: { size: '3' } });
    await env.until(() => calls.length === 3);
    expect(calls[2]).toBe('bad');
    expect(await manager.metrics.registry.metrics()).toContain(
      'controller_runtime_reconcile_total{controller="c",result="success"} 1',
    );
  });
});
