import { build } from 'tsup';
import { kcmTsup } from '../../tsup.config.base.js';

export default kcmTsup({
  entry: ['src/index.ts', 'src/cli/main.ts'],
  // The `kcm-ts` bin checks the Node and client-node versions before it
  // loads main.js, so it is built once the rest is written: on its own, as
  // ESM only, keeping what this build wrote.
  onSuccess: async () => {
    await build({
      config: false,
      entry: { 'cli/kcm-ts': 'src/cli/kcm-ts.ts' },
      format: ['esm'],
      platform: 'node',
      target: 'node20',
      sourcemap: true,
      keepNames: true,
      clean: false,
      silent: true,
      tsconfig: 'tsconfig.build.json',
    });
  },
});
