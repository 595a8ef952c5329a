import { defineConfig, type Options } from 'tsup';

/**
 * The one tsup preset every package uses: ESM + CJS with matching `.d.ts`/`.d.cts`,
 * built from `tsconfig.build.json` (which turns the source condition off, so the
 * emitted declarations refer to sibling packages' published types).
 * `keepNames` keeps class and function names as written: esbuild renames a
 * class that refers to itself (`class _StatusError`), and that name would
 * show in stack traces and `util.inspect`.
 */
export function kcmTsup(overrides: Options = {}) {
  return defineConfig({
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    platform: 'node',
    target: 'node20',
    splitting: false,
    keepNames: true,
    tsconfig: 'tsconfig.build.json',
    ...overrides,
  });
}
