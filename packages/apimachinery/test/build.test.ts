// The published build keeps class names (tsup.config.base.ts, keepNames):
// without it esbuild renames a class that refers to itself, and errors show
// as `_StatusError` in stack traces and util.inspect.
import { inspect } from 'node:util';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { kcmTsup } from '../../../tsup.config.base.js';
import type * as apimachinery from '../src/index.js';

describe('the build preset', () => {
  it('keeps class names, so StatusError is StatusError in a bundle', async () => {
    const preset = kcmTsup();
    const options = Array.isArray(preset) || typeof preset === 'function' ? {} : preset;
    expect(options.keepNames).toBe(true);
    const out = await build({
      entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      keepNames: options.keepNames,
      logLevel: 'silent',
    });
    const code = out.outputFiles[0]?.text ?? '';
    const bundled = (await import(
      `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`
    )) as typeof apimachinery;
    const err = bundled.newNotFound({ group: '', resource: 'pods' }, 'web');
    expect(err.constructor.name).toBe('StatusError');
    expect(bundled.StatusError.name).toBe('StatusError');
    expect(inspect(err)).not.toContain('_StatusError');
    expect(inspect(err)).toMatch(/^StatusError: pods "web" not found/);
  }, 30_000);
});
