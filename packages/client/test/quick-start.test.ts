// The code of the README's quick start, run as a test against a local server
// that answers like kube-apiserver, so the README cannot rot.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { StatusError, isNotFound } from '@kcm-ts/apimachinery';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../src/index.js';
import { TestServer, kubeconfigFor, sendJson, statusBody } from './helpers.js';

let server: TestServer;
let dir: string;

const pod = (name: string, rv: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', resourceVersion: rv, labels: { app: 'web' } },
  status: { phase: 'Running' },
});

beforeEach(async () => {
  server = await new TestServer().start();
  // The quick start finds its kubeconfig where kubectl would.
  dir = mkdtempSync(path.join(tmpdir(), 'kcm-ts-quick-start-'));
  const file = path.join(dir, 'config');
  writeFileSync(file, JSON.stringify(kubeconfigFor(server.url)));
  vi.stubEnv('KUBECONFIG', file);
  server.handler = (req, res) => {
    if (req.query.get('watch') === 'true') {
      // Two changes, then the stream stays open, as a real watch does.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'MODIFIED', object: pod('web-1', '12') })}\n`);
      res.write(`${JSON.stringify({ type: 'DELETED', object: pod('web-1', '13') })}\n`);
    } else if (req.path === '/api/v1/namespaces/default/pods') {
      sendJson(res, 200, {
        kind: 'PodList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '11' },
        items: [pod('web-1', '10')],
      });
    } else {
      sendJson(
        res,
        404,
        statusBody(404, 'NotFound', 'pods "web-2" not found', { name: 'web-2', kind: 'pods' }),
      );
    }
  };
});

afterEach(async () => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
  await server.close(); // fails if the watch was left open
});

describe('quick start', () => {
  it('lists, classifies errors, and watches from the list', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    //#region quick-start
    // $KUBECONFIG, ~/.kube/config or the pod's service account, as kubectl.
    const client = createClient();
    const pods = client.pods.inNamespace(client.defaultNamespace);

    const list = await pods.list({ labelSelector: 'app=web' });
    for (const pod of list.items) console.log(pod.metadata?.name, pod.status?.phase);

    const missing = await pods.get('web-2').catch((err: unknown) => err);
    console.log(isNotFound(missing)); // true: a StatusError with the server's Status
    //#endregion quick-start

    //#region watch
    // Every change after the list, in order, from the list's resourceVersion.
    const events = await pods.watch({
      labelSelector: 'app=web',
      resourceVersion: list.metadata.resourceVersion,
    });
    for await (const event of events) {
      // An ERROR event carries a Status, such as 410 Expired: list again.
      if (event.type === 'ERROR') throw StatusError.fromStatus(event.object);
      console.log(event.type, event.object.metadata?.name);
      if (event.type === 'DELETED') break; // leaving the loop closes the watch
    }
    //#endregion watch
    expect(log.mock.calls).toEqual([
      ['web-1', 'Running'],
      [true],
      ['MODIFIED', 'web-1'],
      ['DELETED', 'web-1'],
    ]);
    const watch = server.requests.find((r) => r.query.get('watch') === 'true');
    expect(watch?.query.get('resourceVersion')).toBe('11');
    expect(watch?.query.get('labelSelector')).toBe('app=web');
    expect(watch?.headers.authorization).toBe('Bearer test-token');
  });
});
