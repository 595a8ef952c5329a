import { createClient } from '@kcm-ts/client';
import { isConflict } from '@kcm-ts/apimachinery';
import { startSandbox } from '@kcm-ts/sandbox';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { mutate, run } from './02-api-contract.js';

describe('the API contract walkthrough', () => {
  it('prints what the sandbox answers', async () => {
    const lines: string[] = [];
    await run((line) => lines.push(line));
    expect(lines.some((l) => l.includes('409 Conflict'))).toBe(true);
    expect(lines.some((l) => l.endsWith('410 Expired: relist'))).toBe(true);
    expect(lines.at(-1)).toMatch(/generation=2 observedGeneration=1$/);
    await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/02-api-contract.txt');
  });
});

describe('mutate', () => {
  it('starts again from a fresh read on a Conflict, keeping the other writer’s change', async () => {
    const sandbox = await startSandbox();
    try {
      const client = createClient(sandbox.kubeconfig);
      const cms = client.configMaps.inNamespace('default');
      const other = sandbox.client<ConfigMap>('', 'configmaps').inNamespace('default');
      await cms.create({ metadata: { name: 'c' }, data: { n: '0' } });
      let calls = 0;
      const out = await mutate<ConfigMap>(cms, 'c', async (cm) => {
        // The first time round, another writer gets in between our read and write.
        if (calls++ === 0) await other.update({ ...cm, data: { ...cm.data, theirs: 'yes' } });
        return { ...cm, data: { ...cm.data, mine: 'yes' } };
      });
      expect(calls).toBe(2);
      expect(out.data).toEqual({ n: '0', theirs: 'yes', mine: 'yes' });
    } finally {
      await sandbox.stop();
    }
  });

  it('gives up after the given attempts with the last Conflict', async () => {
    const sandbox = await startSandbox();
    try {
      const cms = sandbox.client<ConfigMap>('', 'configmaps').inNamespace('default');
      await cms.create({ metadata: { name: 'c' }, data: { n: '0' } });
      let calls = 0;
      const err = await mutate<ConfigMap>(
        cms,
        'c',
        async (cm) => {
          // Another writer always gets in first.
          await cms.update({ ...cm, data: { n: String(++calls) } });
          return cm;
        },
        3,
      ).catch((e: unknown) => e);
      expect(isConflict(err)).toBe(true);
      expect(calls).toBe(3);
    } finally {
      await sandbox.stop();
    }
  });
});

describe('the kubectl steps of the chapter', () => {
  it('apply settings.yaml, then read its resourceVersion', async () => {
    const sandbox = await startSandbox();
    const dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-chapter0-'));
    try {
      const kubeconfig = path.join(dir, 'kubeconfig');
      await sandbox.writeKubeconfig(kubeconfig);
      // Asynchronously: the sandbox answers from this same process.
      const kubectl = (...args: string[]) =>
        promisify(execFile)('kubectl', ['--kubeconfig', kubeconfig, ...args], {
          encoding: 'utf8',
          env: { ...process.env, HOME: dir },
        });
      const manifest = fileURLToPath(new URL('./settings.yaml', import.meta.url));
      const applied = await kubectl('apply', '-f', manifest);
      expect(applied.stderr).toBe('');
      expect(applied.stdout).toBe('configmap/settings created\n');
      const rv = await kubectl(
        'get',
        'configmap',
        'settings',
        '-o',
        'jsonpath={.metadata.resourceVersion}',
      );
      expect(rv.stdout).toBe('23');
    } finally {
      await sandbox.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
