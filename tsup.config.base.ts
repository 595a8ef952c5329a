import { defineConfig, type Options } from 'tsup';

/**
 * The one tsup preset every package uses: ESM + CJS with matching `.d.ts`/`.d.cts`,
 * built from `tsconfig.build.json` (which turns the source condition off, so the
 * emitted declarations refer to sibling packages' published types).
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
    tsconfig: 'tsconfig.build.json',
    ...overrides,
  });
}
