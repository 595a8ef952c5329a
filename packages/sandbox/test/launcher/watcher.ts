// The process under watch in launcher-watch.e2e.test.ts: it watches its
// launcher as the sandbox's CLI does, says so once it is gone, and exits.
import { stopWhenLauncherExits } from '../../src/edge/launcher-watch.js';

stopWhenLauncherExits(
  () => {
    process.stdout.write('launcher gone\n');
    process.exit(0);
  },
  { intervalMs: 50, env: { npm_lifecycle_event: 'start' } },
);
process.stdout.write(`watching ${String(process.pid)}\n`);
// Stay up until then (the watch's own timer does not keep the process alive).
setInterval(() => {}, 1000);
