// Metadata-only clients, as client-go's metadata package: the Accept headers
// they send, PartialObjectMetadata in what they return (also from a server
// that sends whole objects), and no whole-object writes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, loadKubeConfig, newResourceClient } from '../src/index.js';
import { TestServer, kubeconfigFor, sendJson } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await new TestServer().start();
});

afterEach(async () => {
  await server.close();
});

const rsGvr = { group: 'apps', version: 'v1', resource: 'replicasets' };
const meta = (name: string, rv: string) => ({
  name,
  namespace: 'default',
  uid: `uid-${name}`,
  resourceVersion: rv,
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd-1' }],
});
const partial = (name: string, rv: string) => ({
  kind: 'PartialObjectMetadata',
  apiVersion: 'meta.k8s.io/v1',
  metadata: meta(name, rv),
});

function replicaSets() {
  return createClient(kubeconfigFor(server.url))
    .metadata(rsGvr, { namespaced: true })
    .inNamespace('default');
}

describe('a metadata-only client', () => {
  it('asks for PartialObjectMetadata on get, patch and delete, and a list form on list', async () => {
    server.handler = (req, res) => {
      if (req.method === 'GET' && req.path.endsWith('/replicasets')) {
        sendJson(res, 200, {
          kind: 'PartialObjectMetadataList',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { resourceVersion: '9' },
          items: [partial('web-1', '8')],
        });
      } else {
        sendJson(res, 200, partial('web-1', '10'));
      }
    };
    const rs = replicaSets();
    const list = await rs.list({ labelSelector: 'app=web' });
    expect(server.last.headers.accept).toBe(
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
    );
    expect(server.last.path).toBe('/apis/apps/v1/namespaces/default/replicasets');
    expect(list).toEqual({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '9' },
      items: [partial('web-1', '8')],
    });
    const one = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
    expect(await rs.get('web-1')).toEqual(partial('web-1', '10'));
    expect(server.last.headers.accept).toBe(one);
    await rs.patch('web-1', { type: 'merge', body: { metadata: { ownerReferences: null } } });
    expect(server.last.method).toBe('PATCH');
    expect(server.last.headers.accept).toBe(one);
    expect(server.last.headers['content-type']).toBe('application/merge-patch+json');
    await rs.delete('web-1', { propagationPolicy: 'Background' });
    expect(server.last.method).toBe('DELETE');
    expect(server.last.headers.accept).toBe(one);
  });

  it('cuts whole objects down to their metadata when a server sends them anyway', async () => {
    const whole = {
      kind: 'ReplicaSet',
      apiVersion: 'apps/v1',
      metadata: meta('web-1', '4'),
      spec: { replicas: 3 },
    };
    server.handler = (req, res) =>
      req.path.endsWith('/replicasets')
        ? sendJson(res, 200, {
            kind: 'ReplicaSetList',
            apiVersion: 'apps/v1',
            metadata: { resourceVersion: '5', continue: 'next' },
            items: [whole],
          })
        : sendJson(res, 200, whole);
    const rs = replicaSets();
    expect(await rs.get('web-1')).toEqual(partial('web-1', '4'));
    expect(await rs.list()).toEqual({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '5', continue: 'next' },
      items: [partial('web-1', '4')],
    });
  });

  it('watches with PartialObjectMetadata in each event, whatever the server sends', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: partial('web-1', '11') })}\n`);
      res.write(
        `${JSON.stringify({ type: 'MODIFIED', object: { kind: 'ReplicaSet', apiVersion: 'apps/v1', metadata: meta('web-1', '12'), spec: {} } })}\n`,
      );
      res.end(
        `${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old' } })}\n`,
      );
    };
    const events = [];
    for await (const e of await replicaSets().watch({ resourceVersion: '10' })) events.push(e);
    expect(server.last.headers.accept).toBe(
      'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
    );
    expect(server.last.query.get('watch')).toBe('true');
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'ERROR']);
    expect(events[0]?.object).toEqual(partial('web-1', '11'));
    expect(events[1]?.object).toEqual(partial('web-1', '12'));
    expect(events[2]?.object).toMatchObject({ kind: 'Status', code: 410 });
  });

  it('rejects whole-object writes without sending anything', async () => {
    const rs = newResourceClient(loadKubeConfig(kubeconfigFor(server.url)), rsGvr, {
      namespaced: true,
      namespace: 'default',
      metadataOnly: true,
    });
    const obj = { metadata: { name: 'web-1', namespace: 'default' } };
    await expect(rs.create(obj)).rejects.toThrow(/cannot write whole objects/);
    await expect(rs.update(obj)).rejects.toThrow(/cannot write whole objects/);
    await expect(rs.updateStatus(obj)).rejects.toThrow(/cannot write whole objects/);
    expect(server.requests).toEqual([]);
  });

  it('leaves ordinary clients asking for plain JSON', async () => {
    server.handler = (_req, res) => sendJson(res, 200, { kind: 'ReplicaSet', metadata: {} });
    await createClient(kubeconfigFor(server.url)).replicaSets.inNamespace('default').get('x');
    expect(server.last.headers.accept).toBe('application/json');
  });
});
