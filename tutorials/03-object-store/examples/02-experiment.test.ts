import { mkdtemp, rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { run } from './02-experiment.js';

it('a pod waits for its ConfigMap, then runs', { timeout: 60_000 }, async () => {
  const lines: string[] = [];
  const dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-ch3-'));
  try {
    await run({
      log: (line) => lines.push(line),
      // While it waits, kubectl shows what the kubelet reported.
      whileStuck: async (sandbox) => {
        const kubeconfig = path.join(dir, 'kubeconfig');
        await sandbox.writeKubeconfig(kubeconfig);
        const { stdout } = await promisify(execFile)(
          'kubectl',
          ['--kubeconfig', kubeconfig, 'get', 'pod', 'web', '--no-headers'],
          { env: { ...process.env, HOME: dir } },
        );
        expect(stdout.trim().split(/\s+/).slice(0, 4)).toEqual([
          'web',
          '0/1',
          'CreateContainerConfigError',
          '0',
        ]);
      },
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  expect(lines).toEqual([
    'pod/web: Pending',
    'pod/web: CreateContainerConfigError',
    '  the kubelet says: configmap "settings" not found',
    '--- creating configmap/settings ---',
    'pod/web: ContainerCreating',
    'pod/web: Running',
    'pod/web: Running, ready',
  ]);
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/02-experiment.txt');
});
