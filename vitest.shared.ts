import { defineConfig } from 'vitest/config';

// Tests read sibling packages' sources through the `@kcm-ts/source` export
// condition, so no build is needed. The rest of the list is Vite's default
// server conditions, kept so that `node` still applies to third-party packages.
const conditions = ['@kcm-ts/source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    environment: 'node',
    restoreMocks: true,
    // Tests run on the fake clock, so this only guards against a hang. It is
    // generous because turbo runs every package's suite at once on small CI
    // machines, where a test that spawns processes (tsx, kubectl) can wait a
    // long time for a core.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
