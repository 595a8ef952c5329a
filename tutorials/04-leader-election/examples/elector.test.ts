import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from './elector.js';

describe('the elector command', () => {
  it('names the flag and the value it cannot read', async () => {
    await expect(main(['--leader-elect-retry-period', '2'])).rejects.toThrow(
      'invalid argument "2" for "--leader-elect-retry-period" flag: time: missing unit in duration "2"',
    );
  });

  it('refuses flags it does not know', async () => {
    await expect(main(['--leader-elect-lease', '15s'])).rejects.toThrow(
      "Unknown option '--leader-elect-lease'",
    );
  });

  it("refuses timings client-go's validation refuses, with its message", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'elector-test-'));
    const kubeconfig = path.join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
    try {
      const flags = ['--leader-elect-lease-duration', '5s', '--leader-elect-renew-deadline', '10s'];
      await expect(main(['--kubeconfig', kubeconfig, ...flags])).rejects.toThrow(
        'leaseDuration must be greater than renewDeadline',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
