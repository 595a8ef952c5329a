#!/usr/bin/env node
// The `kcm-ts` command's entry: checks that this Node can load the
// installed @kubernetes/client-node before loading the command itself
// (main.ts), which imports it.
import { clientNodeProblem, installedClientNodeVersion } from './node-support.js';

const problem = clientNodeProblem(process.versions.node, installedClientNodeVersion());
if (problem !== undefined) {
  process.stderr.write(`Error: ${problem}\n`);
  process.exit(1);
}
// A computed specifier, so the bundler keeps main.js a module of its own,
// loaded only after the check.
const main = new URL('./main.js', import.meta.url).href;
await import(main);
