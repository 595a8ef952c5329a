import { kcmTsup } from '../../tsup.config.base.js';

export default kcmTsup({ entry: ['src/index.ts', 'src/cli/main.ts'] });
