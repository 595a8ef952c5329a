// The `kcm-ts` command's answers to help and to bad flags, as a user sees them.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const tsx = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

const kcmTs = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', tsx, '--conditions=@kcm-ts/source', cli, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });

describe('kcm-ts', () => {
  it('lists its commands, and each command its flags', () => {
    const root = kcmTs('--help');
    expect(root.status).toBe(0);
    expect(root.stdout).toContain('kcm-ts up [flags]');
    expect(root.stdout).toContain('kcm-ts controller-manager [flags]');
    const up = kcmTs('up', '--help');
    expect(up.status).toBe(0);
    for (const flag of [
      '--port int',
      '--kubeconfig-out string',
      '--nodes int',
      '--controllers strings',
      '--leader-elect',
      '-v, --v Level',
    ])
      expect(up.stdout).toContain(flag);
    const cm = kcmTs('controller-manager', '-h');
    expect(cm.status).toBe(0);
    expect(cm.stdout).toContain('--kubeconfig string');
    expect(cm.stdout).toContain('--concurrent-deployment-syncs int32');
  }, 120_000);

  it.each([
    [
      ['up', '--concurrent-replicaset-syncs=lots'],
      'Error: invalid argument "lots" for "--concurrent-replicaset-syncs" flag',
    ],
    [
      ['up', '--controllers=replicaset,nope'],
      'Error: "nope" is not in the list of known controllers',
    ],
    [['controller-manager', '--kubeconfg=x'], 'Error: unknown flag: --kubeconfg'],
    [['up', '--port=70000'], 'Error: --port must be an integer from 0 to 65535, got 70000'],
    [['controller-manager', 'extra'], 'takes no arguments'],
    [['frobnicate'], 'Error: unknown command "frobnicate" for "kcm-ts"'],
    [['up', '--ephemeral', '--data-dir=x'], 'Error: --data-dir and --ephemeral exclude each other'],
    [
      ['controller-manager', '--mirroring-max-endpoints-per-subset=0'],
      'Error: --mirroring-max-endpoints-per-subset must be from 1 to 1000, got 0',
    ],
    [
      ['controller-manager', '--cidr-allocator-type=IPAMFromCloud'],
      'Error: --cidr-allocator-type must be RangeAllocator or CloudAllocator, got "IPAMFromCloud"',
    ],
  ])(
    'refuses %j with exit code 2 and a message naming the problem',
    (args, message) => {
      const run = kcmTs(...args);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(message);
    },
    60_000,
  );

  it('says in one line, with no stack, that the kubeconfig is missing', () => {
    const run = kcmTs('controller-manager', '--kubeconfig=/nonexistent/kubeconfig');
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      "Error: cannot read kubeconfig /nonexistent/kubeconfig: ENOENT: no such file or directory, open '/nonexistent/kubeconfig'",
    );
  }, 60_000);
});
