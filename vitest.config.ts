import { readdirSync, existsSync } from 'node:fs';
import { defineConfig, mergeConfig } from 'vitest/config';
import shared from './vitest.shared.js';

// One vitest process over every package, chapter and repo script, for local watch mode
// (`npm run test:watch`). `npm test` runs each workspace on its own via turbo.
const workspaces = ['packages', 'tutorials'].flatMap((dir) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(`${dir}/${d.name}/vitest.config.ts`))
    .map((d) => `${dir}/${d.name}/vitest.config.ts`),
);
workspaces.push('scripts/vitest.config.ts');

export default mergeConfig(shared, defineConfig({ test: { projects: workspaces } }));
