// A sandbox with a data directory is the same cluster after a restart, as a
// kind or k3s cluster is: the same objects at the same resourceVersions,
// revisions that go on from there, and the same CA and token, so the
// kubeconfig written before still works. Without one, nothing is kept.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import { deployment } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-data-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a sandbox with a data directory', () => {
  it('serves the same objects, revisions and credentials after a restart', async () => {
    const first = await startSandbox({ dataDir: dir });
    const cms = first.client<ConfigMap>('', 'configmaps').inNamespace('default');
    const kept = await cms.create({ metadata: { name: 'kept' }, data: { a: '1' } });
    const gone = await cms.create({ metadata: { name: 'gone' }, data: { a: '1' } });
    await cms.delete('gone');
    const web = await first
      .client('apps', 'deployments')
      .inNamespace('default')
      .create(deployment('web'));
    const lastRV = Number(first.registry.storage.currentRevision());
    const { kubeconfig, token, caCert, port } = first;
    await first.stop();

    // The same port, as a restarted cluster keeps its address (on another
    // one, the `kubernetes` Service would be updated to point at it).
    const second = await startSandbox({ dataDir: dir, port });
    try {
      expect(second.token).toBe(token);
      expect(second.caCert).toBe(caCert);
      expect(second.registry.storage.currentRevision()).toBe(lastRV);
      const again = second.client<ConfigMap>('', 'configmaps').inNamespace('default');
      expect(await again.get('kept')).toEqual(kept);
      await expect(again.get('gone')).rejects.toMatchObject({ code: 404 });
      expect(gone.metadata?.uid).toBeDefined();
      const webAgain = await second.client('apps', 'deployments').inNamespace('default').get('web');
      expect(webAgain.metadata).toEqual(web.metadata);
      // Revisions go on from where they were.
      const next = await again.update({ ...kept, data: { a: '2' } });
      expect(Number(next.metadata?.resourceVersion)).toBe(lastRV + 1);
      // The system namespaces are not made twice.
      const namespaces = await second.client('', 'namespaces').list();
      expect(namespaces.items.map((n) => n.metadata?.name)).toEqual([
        'default',
        'kube-node-lease',
        'kube-public',
        'kube-system',
      ]);

      // The kubeconfig of the first run is valid for the second (HTTPS, CA, token).
      const kc = new k8s.KubeConfig();
      kc.loadFromString(kubeconfig);
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const read = await core.readNamespacedConfigMap({ name: 'kept', namespace: 'default' });
      expect(read.data).toEqual({ a: '2' });
    } finally {
      await second.stop();
    }
  });

  it('lets a watcher from before the restart resume where it was', async () => {
    const first = await startSandbox({ dataDir: dir, insecureHttp: true });
    const cms = first.client<ConfigMap>('', 'configmaps').inNamespace('default');
    const a = await cms.create({ metadata: { name: 'a' } });
    await cms.create({ metadata: { name: 'b' } });
    await first.stop();

    const second = await startSandbox({ dataDir: dir, insecureHttp: true });
    try {
      const again = second.client<ConfigMap>('', 'configmaps').inNamespace('default');
      const watch = await again.watch({ resourceVersion: a.metadata?.resourceVersion ?? '' });
      const it = watch[Symbol.asyncIterator]();
      const replayed = await it.next();
      expect(replayed.value).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'b' } } });
      await again.create({ metadata: { name: 'c' } });
      const live = await it.next();
      expect(live.value).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'c' } } });
      await it.return?.();
    } finally {
      await second.stop();
    }
  });

  it('lays the directory out as k3s does, with the secrets readable by the owner only', async () => {
    const sandbox = await startSandbox({ dataDir: dir, token: 'chosen-token' });
    await sandbox.stop();
    expect((await readdir(dir)).sort()).toEqual(['db', 'tls', 'token']);
    expect((await readdir(path.join(dir, 'tls'))).sort()).toEqual([
      'server-ca.crt',
      'serving-kube-apiserver.crt',
      'serving-kube-apiserver.key',
    ]);
    expect(await readFile(path.join(dir, 'token'), 'utf8')).toBe('chosen-token\n');
    const { stat } = await import('node:fs/promises');
    expect((await stat(path.join(dir, 'token'))).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dir, 'tls', 'serving-kube-apiserver.key'))).mode & 0o777).toBe(
      0o600,
    );
    // The token asked for is the one kept.
    const again = await startSandbox({ dataDir: dir });
    expect(again.token).toBe('chosen-token');
    await again.stop();
  });

  it('refuses a second sandbox on a directory in use, and frees it on stop', async () => {
    const first = await startSandbox({ dataDir: dir, insecureHttp: true });
    await expect(startSandbox({ dataDir: dir, insecureHttp: true })).rejects.toMatchObject({
      code: 'EBUSY',
      message: expect.stringContaining(`is in use by process ${process.pid}`),
    });
    await first.stop();
    const second = await startSandbox({ dataDir: dir, insecureHttp: true });
    await second.stop();
  });

  it('keeps state through the fault lab’s restart, with the database open', async () => {
    const sandbox = await startSandbox({ dataDir: dir, insecureHttp: true });
    try {
      const cms = sandbox.client<ConfigMap>('', 'configmaps').inNamespace('default');
      await cms.create({ metadata: { name: 'a' } });
      await sandbox.restart();
      await cms.create({ metadata: { name: 'b' } });
      expect((await cms.list()).items.map((c) => c.metadata?.name)).toEqual(['a', 'b']);
    } finally {
      await sandbox.stop();
    }
  });
});

describe('a sandbox without a data directory', () => {
  it('keeps nothing: the next one starts empty', async () => {
    const first = await startSandbox({ insecureHttp: true });
    await first
      .client('', 'configmaps')
      .inNamespace('default')
      .create({ metadata: { name: 'a' } });
    await first.stop();
    const second = await startSandbox({ insecureHttp: true });
    try {
      const list = await second.client('', 'configmaps').inNamespace('default').list();
      expect(list.items).toEqual([]);
    } finally {
      await second.stop();
    }
  });
});
