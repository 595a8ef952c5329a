// The `kcm-ts` command's check of Node against the installed
// @kubernetes/client-node: client-node 2 loads undici, which fails as it
// loads on Node before 22.19; the command says so and what to install
// instead of crashing.
import { describe, expect, it } from 'vitest';
import { clientNodeProblem, installedClientNodeVersion } from '../src/cli/node-support.js';

describe('clientNodeProblem', () => {
  it.each<[string, string | undefined]>([
    ['20.19.0', '1.4.0'],
    ['20.20.2', '1.4.0'],
    ['22.19.0', '2.0.1'],
    ['24.1.0', '2.0.1'],
    ['24.1.0', '1.4.0'],
    ['22.12.0', undefined],
  ])('lets Node %s run with client-node %s', (node, clientNode) => {
    expect(clientNodeProblem(node, clientNode)).toBeUndefined();
  });

  it('names the client-node each Node needs when the pair cannot load', () => {
    expect(clientNodeProblem('20.20.2', '2.0.1')).toBe(
      '@kubernetes/client-node 2.0.1 needs Node 22.19 or later, and this is Node 20.20.2. ' +
        'Use Node 22 or 24, or install the version that runs on Node 20: npm install @kubernetes/client-node@^1.4.0',
    );
    expect(clientNodeProblem('22.18.0', '2.0.0')).toContain('needs Node 22.19 or later');
    expect(clientNodeProblem('v18.20.0', '1.4.0')).toBe(
      'kcm-ts needs Node 20.19 or later (22 or 24 recommended); this is Node v18.20.0.',
    );
  });

  it('reads the installed client-node version from its package.json', () => {
    expect(installedClientNodeVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
