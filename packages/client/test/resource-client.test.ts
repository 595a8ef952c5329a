import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Status } from 'kubernetes-types/meta/v1.js';
import { isStatus, type ResourceClient } from '@kcm-ts/apimachinery';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadKubeConfig, newResourceClient } from '../src/index.js';
import { TestServer, kubeconfigFor, sendJson } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await new TestServer().start();
});

afterEach(async () => {
  await server.close();
});

const deploymentsGvr = { group: 'apps', version: 'v1', resource: 'deployments' };
const podsGvr = { group: '', version: 'v1', resource: 'pods' };
const nodesGvr = { group: '', version: 'v1', resource: 'nodes' };

function deployments(namespace?: string): ResourceClient<Deployment> {
  return newResourceClient<Deployment>(loadKubeConfig(kubeconfigFor(server.url)), deploymentsGvr, {
    namespaced: true,
    kind: 'Deployment',
    ...(namespace === undefined ? {} : { namespace }),
  });
}

function pods(): ResourceClient<Pod> {
  return newResourceClient<Pod>(loadKubeConfig(kubeconfigFor(server.url)), podsGvr, {
    namespaced: true,
  });
}

function nodes(): ResourceClient<Node> {
  return newResourceClient<Node>(loadKubeConfig(kubeconfigFor(server.url)), nodesGvr, {
    namespaced: false,
    kind: 'Node',
  });
}

const web: Deployment = {
  metadata: { name: 'web', namespace: 'team-a', resourceVersion: '7' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } } },
  },
};

describe('request paths', () => {
  it('uses /api/v1 for the core group and /apis/{group}/{version} for others', async () => {
    await pods().inNamespace('default').get('p1');
    expect(server.last.path).toBe('/api/v1/namespaces/default/pods/p1');
    await deployments('default').get('web');
    expect(server.last.path).toBe('/apis/apps/v1/namespaces/default/deployments/web');
  });

  it('lists across all namespaces when unscoped, and in one when scoped', async () => {
    await deployments().list();
    expect(server.last.path).toBe('/apis/apps/v1/deployments');
    await deployments().inNamespace('team-a').list();
    expect(server.last.path).toBe('/apis/apps/v1/namespaces/team-a/deployments');
    await deployments('team-a').inNamespace('').list();
    expect(server.last.path).toBe('/apis/apps/v1/deployments');
  });

  it('reports its namespace, undefined when unscoped', () => {
    expect(deployments().namespace).toBeUndefined();
    expect(deployments('team-a').namespace).toBe('team-a');
    expect(deployments('team-a').inNamespace('').namespace).toBeUndefined();
    expect(deployments('').namespace).toBeUndefined();
  });

  it('uses no namespace for a cluster-scoped resource', async () => {
    await nodes().get('n1');
    expect(server.last.path).toBe('/api/v1/nodes/n1');
    await nodes().create({ metadata: { name: 'n2', namespace: 'ignored' } });
    expect(server.last).toMatchObject({ method: 'POST', path: '/api/v1/nodes' });
    await nodes().delete('n2');
    expect(server.last).toMatchObject({ method: 'DELETE', path: '/api/v1/nodes/n2' });
  });

  it('escapes names as Go escapes a URL path, keeping the characters RBAC names use', async () => {
    const roles = newResourceClient(
      loadKubeConfig(kubeconfigFor(server.url)),
      { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
      { namespaced: false },
    );
    await roles.get('system:controller:deployment-controller');
    expect(server.last.path).toBe(
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:deployment-controller',
    );
    await roles.get("a b?c#d!'()*é@$&+,;=");
    expect(server.last.path).toBe(
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/a%20b%3Fc%23d%21%27%28%29%2A%C3%A9@$&+,;=',
    );
  });

  it('keeps a path prefix of the server URL, with or without a trailing slash', async () => {
    for (const server_ of [`${server.url}/k8s/clusters/c-1`, `${server.url}/k8s/clusters/c-1/`]) {
      const client = newResourceClient(loadKubeConfig(kubeconfigFor(server_)), podsGvr, {
        namespaced: true,
        namespace: 'a',
      });
      await client.get('p1');
      expect(server.last.path).toBe('/k8s/clusters/c-1/api/v1/namespaces/a/pods/p1');
    }
  });

  it('sends a cluster-scoped resource to a namespace path if asked, for the server to refuse', async () => {
    await nodes().inNamespace('x').get('n1');
    expect(server.last.path).toBe('/api/v1/namespaces/x/nodes/n1');
  });

  it('sends create and update of an unscoped client to the object namespace', async () => {
    await deployments().create(web);
    expect(server.last).toMatchObject({
      method: 'POST',
      path: '/apis/apps/v1/namespaces/team-a/deployments',
    });
    await deployments().update(web);
    expect(server.last).toMatchObject({
      method: 'PUT',
      path: '/apis/apps/v1/namespaces/team-a/deployments/web',
    });
    await deployments().updateStatus(web);
    expect(server.last).toMatchObject({
      method: 'PUT',
      path: '/apis/apps/v1/namespaces/team-a/deployments/web/status',
    });
  });

  it('sends create and update of a scoped client to its own namespace', async () => {
    await deployments('team-b').create(web);
    expect(server.last.path).toBe('/apis/apps/v1/namespaces/team-b/deployments');
    await deployments('team-b').update(web);
    expect(server.last.path).toBe('/apis/apps/v1/namespaces/team-b/deployments/web');
  });

  it('rejects, without a request, what has no usable name or namespace', async () => {
    await expect(deployments().get('web')).rejects.toThrow(
      'get deployments.apps "web": this client has no namespace; call inNamespace(namespace) first',
    );
    await expect(deployments().patch('web', { type: 'merge', body: {} })).rejects.toThrow(
      /^patch deployments\.apps "web": this client has no namespace/,
    );
    await expect(deployments().delete('web')).rejects.toThrow(/^delete deployments\.apps "web"/);
    await expect(deployments().create({ metadata: { name: 'x' } })).rejects.toThrow(
      'create deployments.apps "x": the object has no metadata.namespace and this client has none; set one or call inNamespace(namespace) first',
    );
    await expect(deployments('a').update({ metadata: {} })).rejects.toThrow(
      'update deployments.apps: the object has no metadata.name',
    );
    await expect(deployments('a').get('')).rejects.toThrow('resource name may not be empty');
    await expect(deployments('a').get('a/b')).rejects.toThrow(
      `invalid resource name "a/b": may not contain '/'`,
    );
    await expect(deployments('a').get('..')).rejects.toThrow(
      `invalid resource name "..": may not be '..'`,
    );
    await expect(deployments('a').get('50%')).rejects.toThrow(`may not contain '%'`);
    expect(() => deployments().inNamespace('x/y')).toThrow(
      `invalid namespace "x/y": may not contain '/'`,
    );
    expect(() =>
      newResourceClient(
        loadKubeConfig(kubeconfigFor(server.url)),
        { group: '', version: 'v1', resource: '' },
        {
          namespaced: true,
        },
      ),
    ).toThrow(TypeError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('query parameters', () => {
  it('sends list options, leaving out empty ones, sorted by key like client-go', async () => {
    await deployments('a').list({
      labelSelector: 'app=web,tier in (fe)',
      fieldSelector: 'metadata.name=web',
      limit: 50,
      continue: 'tok',
      resourceVersion: '10',
      resourceVersionMatch: 'NotOlderThan',
    });
    expect(Object.fromEntries(server.last.query)).toEqual({
      labelSelector: 'app=web,tier in (fe)',
      fieldSelector: 'metadata.name=web',
      limit: '50',
      continue: 'tok',
      resourceVersion: '10',
      resourceVersionMatch: 'NotOlderThan',
    });
    expect(server.last.search).toBe(
      '?continue=tok&fieldSelector=metadata.name%3Dweb&labelSelector=app%3Dweb%2Ctier+in+%28fe%29&limit=50&resourceVersion=10&resourceVersionMatch=NotOlderThan',
    );
    await deployments('a').list({ labelSelector: '', limit: 0, allowWatchBookmarks: false });
    expect(server.last.search).toBe('');
    await deployments('a').list();
    expect(server.last.search).toBe('');
  });

  it('sends get options', async () => {
    await deployments('a').get('web', { resourceVersion: '0' });
    expect(server.last.search).toBe('?resourceVersion=0');
  });

  it('sends create and update options', async () => {
    await deployments('a').create(web, {
      dryRun: 'All',
      fieldManager: 'kcm',
      fieldValidation: 'Strict',
    });
    expect(Object.fromEntries(server.last.query)).toEqual({
      dryRun: 'All',
      fieldManager: 'kcm',
      fieldValidation: 'Strict',
    });
    await deployments('a').update(web, { fieldManager: 'kcm' });
    expect(server.last.search).toBe('?fieldManager=kcm');
    await deployments('a').updateStatus(web, { dryRun: 'All' });
    expect(server.last.search).toBe('?dryRun=All');
  });
});

describe('request bodies and headers', () => {
  it('sends objects as JSON, filling in apiVersion and kind when the Kind is known', async () => {
    await deployments().create(web);
    expect(server.last.headers['content-type']).toBe('application/json');
    expect(server.last.headers.accept).toBe('application/json');
    const sent = JSON.parse(server.last.body) as Deployment;
    expect(sent).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', ...web });
    expect(Object.keys(sent).slice(0, 2)).toEqual(['apiVersion', 'kind']);
    expect(web.apiVersion).toBeUndefined(); // the caller's object is untouched

    await nodes().create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } });
    expect(JSON.parse(server.last.body)).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n' },
    });
  });

  it('sends objects as they are when the Kind is not known', async () => {
    await pods().create({ metadata: { name: 'p', namespace: 'a' } });
    expect(JSON.parse(server.last.body)).toEqual({ metadata: { name: 'p', namespace: 'a' } });
  });

  it('sends the bearer token of the kubeconfig with every request', async () => {
    await deployments('a').list();
    await deployments('a').get('web');
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer test-token',
      'Bearer test-token',
    ]);
    expect(server.last.headers['user-agent']).toMatch(/^kcm-ts-client /);
  });

  it('sends no body with GET', async () => {
    await deployments('a').get('web');
    expect(server.last.body).toBe('');
    expect(server.last.headers['content-type']).toBeUndefined();
  });
});

describe('patch', () => {
  it('sends each patch type with its content type and body', async () => {
    const client = deployments('a');
    await client.patch('web', {
      type: 'json',
      ops: [{ op: 'replace', path: '/spec/replicas', value: 3 }],
    });
    expect(server.last).toMatchObject({
      method: 'PATCH',
      path: '/apis/apps/v1/namespaces/a/deployments/web',
      search: '',
    });
    expect(server.last.headers['content-type']).toBe('application/json-patch+json');
    expect(JSON.parse(server.last.body)).toEqual([
      { op: 'replace', path: '/spec/replicas', value: 3 },
    ]);

    await client.patch('web', { type: 'merge', body: { spec: { replicas: null } } });
    expect(server.last.headers['content-type']).toBe('application/merge-patch+json');
    expect(JSON.parse(server.last.body)).toEqual({ spec: { replicas: null } });

    await client.patch(
      'web',
      {
        type: 'strategic',
        body: { spec: { template: { spec: { containers: [{ name: 'app', image: 'v2' }] } } } },
      },
      { fieldManager: 'kubectl-set', dryRun: 'All', fieldValidation: 'Warn' },
    );
    expect(server.last.headers['content-type']).toBe('application/strategic-merge-patch+json');
    expect(Object.fromEntries(server.last.query)).toEqual({
      fieldManager: 'kubectl-set',
      dryRun: 'All',
      fieldValidation: 'Warn',
    });
  });

  it('sends an apply patch as apply-patch+yaml with its field manager and force', async () => {
    const client = deployments('a');
    await client.patch(
      'web',
      {
        type: 'apply',
        body: { metadata: { name: 'web' }, spec: { replicas: 2 } },
        fieldManager: 'me',
        force: true,
      },
      { fieldManager: 'ignored-for-apply' },
    );
    expect(server.last.headers['content-type']).toBe('application/apply-patch+yaml');
    expect(server.last.search).toBe('?fieldManager=me&force=true');
    expect(JSON.parse(server.last.body)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 2 },
    });

    await client.patch('web', { type: 'apply', body: {}, fieldManager: 'me', force: false });
    expect(server.last.search).toBe('?fieldManager=me&force=false');
    await client.patch('web', { type: 'apply', body: {}, fieldManager: 'me' });
    expect(server.last.search).toBe('?fieldManager=me');
  });

  it('patches the status subresource', async () => {
    await deployments('a').patchStatus('web', { type: 'merge', body: { status: { replicas: 1 } } });
    expect(server.last).toMatchObject({
      method: 'PATCH',
      path: '/apis/apps/v1/namespaces/a/deployments/web/status',
    });
  });

  it('refuses an apply without a field manager and an unknown patch type', async () => {
    await expect(
      deployments('a').patch('web', { type: 'apply', body: {}, fieldManager: '' }),
    ).rejects.toThrow('patch deployments.apps "web": an apply patch needs a fieldManager');
    await expect(deployments('a').patch('web', { type: 'bogus' } as never)).rejects.toThrow(
      'unknown patch type "bogus" (expected json, merge, strategic or apply)',
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('delete', () => {
  it('sends DeleteOptions as a JSON body, in Go field order', async () => {
    await deployments('a').delete('web', {
      dryRun: 'All',
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u-1', resourceVersion: '5' },
      gracePeriodSeconds: 0,
    });
    expect(server.last).toMatchObject({
      method: 'DELETE',
      path: '/apis/apps/v1/namespaces/a/deployments/web',
      search: '',
    });
    expect(server.last.headers['content-type']).toBe('application/json');
    expect(server.last.body).toBe(
      '{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,"preconditions":{"uid":"u-1","resourceVersion":"5"},"propagationPolicy":"Foreground","dryRun":["All"]}',
    );
  });

  it('sends a bare DeleteOptions without options', async () => {
    await deployments('a').delete('web');
    expect(server.last.body).toBe('{"kind":"DeleteOptions","apiVersion":"v1"}');
  });

  it('resolves with a success Status, or with the object still terminating', async () => {
    const gone: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'web', group: 'apps', kind: 'deployments', uid: 'u-1' },
    };
    server.handler = (_req, res) => sendJson(res, 200, gone);
    const first = await deployments('a').delete('web');
    expect(isStatus(first)).toBe(true);
    expect(first).toEqual(gone);

    const terminating = {
      ...web,
      metadata: { ...web.metadata, deletionTimestamp: '2025-01-02T03:04:05Z' },
    };
    server.handler = (_req, res) => sendJson(res, 202, terminating);
    const second = await deployments('a').delete('web');
    expect(isStatus(second)).toBe(false);
    expect(second).toEqual(terminating);
  });
});

describe('responses', () => {
  it('returns wire-format JSON as sent: timestamps stay strings', async () => {
    const stored = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'a',
        creationTimestamp: '2025-01-02T03:04:05Z',
        uid: 'u',
      },
      spec: { replicas: 1 },
    };
    server.handler = (_req, res) => sendJson(res, 200, stored);
    const got = await deployments('a').get('web');
    expect(got).toEqual(stored);
    expect(typeof got.metadata?.creationTimestamp).toBe('string');
  });

  it('returns a list page with its metadata', async () => {
    const list = {
      apiVersion: 'v1',
      kind: 'PodList',
      metadata: { resourceVersion: '42', continue: 'next' },
      items: [{ metadata: { name: 'p1', namespace: 'a' } }],
    };
    server.handler = (_req, res) => sendJson(res, 200, list);
    expect(await pods().list({ limit: 1 })).toEqual(list);
  });

  it('resolves every verb with the object the server sends back', async () => {
    server.handler = (req, res) =>
      sendJson(res, 200, {
        kind: 'Echo',
        apiVersion: 'v1',
        metadata: { name: `${req.method} ${req.path}` },
      });
    const client = deployments('a');
    const answers = [
      await client.get('web'),
      await client.create(web),
      await client.update(web),
      await client.updateStatus(web),
      await client.patch('web', { type: 'merge', body: {} }),
      await client.patchStatus('web', { type: 'merge', body: {} }),
      (await client.delete('web')) as Deployment,
    ];
    expect(answers.map((a) => a.metadata?.name)).toEqual([
      'GET /apis/apps/v1/namespaces/a/deployments/web',
      'POST /apis/apps/v1/namespaces/a/deployments',
      'PUT /apis/apps/v1/namespaces/a/deployments/web',
      'PUT /apis/apps/v1/namespaces/a/deployments/web/status',
      'PATCH /apis/apps/v1/namespaces/a/deployments/web',
      'PATCH /apis/apps/v1/namespaces/a/deployments/web/status',
      'DELETE /apis/apps/v1/namespaces/a/deployments/web',
    ]);
  });

  it('accepts 201 Created from create', async () => {
    server.handler = (_req, res) =>
      sendJson(res, 201, { ...web, metadata: { ...web.metadata, uid: 'new' } });
    const created = await deployments('a').create(web);
    expect(created.metadata?.uid).toBe('new');
  });

  it('rejects a 2xx response that is empty, not JSON, or a Status', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end();
    };
    await expect(deployments('a').get('web')).rejects.toThrow(
      /^GET http:\/\/127\.0\.0\.1:\d+\/apis\/apps\/v1\/namespaces\/a\/deployments\/web: 0-length response with status code 200/,
    );
    server.handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"kind":');
    };
    await expect(deployments('a').get('web')).rejects.toThrow(
      /the response \(status 200\) is not valid JSON/,
    );
    server.handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html></html>');
    };
    await expect(deployments('a').get('web')).rejects.toThrow(
      /expected an application\/json response, got text\/html/,
    );
    server.handler = (_req, res) =>
      sendJson(res, 200, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 500,
        reason: 'InternalError',
        message: 'boom',
      });
    await expect(deployments('a').get('web')).rejects.toMatchObject({
      name: 'StatusError',
      code: 500,
      message: 'boom',
    });
  });
});

describe('abort signals', () => {
  it('rejects with the reason of a signal aborted before the call, sending nothing', async () => {
    const controller = new AbortController();
    const reason = new Error('stop now');
    controller.abort(reason);
    await expect(deployments('a').list({ signal: controller.signal })).rejects.toBe(reason);
    await expect(deployments('a').get('web', { signal: controller.signal })).rejects.toBe(reason);
    await expect(deployments('a').create(web, { signal: controller.signal })).rejects.toBe(reason);
    await expect(deployments('a').delete('web', { signal: controller.signal })).rejects.toBe(
      reason,
    );
    await expect(deployments('a').watch({ signal: controller.signal })).rejects.toBe(reason);
    expect(server.requests).toHaveLength(0);
  });

  it('rejects with the reason when aborted while waiting for the response, closing the connection', async () => {
    const controller = new AbortController();
    let closed!: Promise<void>;
    const arrived = new Promise<void>((resolve) => {
      server.handler = (_req, res) => {
        closed = new Promise<void>((done) => res.on('close', done));
        resolve(); // and never answer
      };
    });
    const pending = deployments('a').get('web', { signal: controller.signal });
    await arrived;
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await closed;
  });

  it('rejects with the reason when aborted while the body is arriving', async () => {
    const controller = new AbortController();
    let closed!: Promise<void>;
    const started = new Promise<void>((resolve) => {
      server.handler = (_req, res) => {
        closed = new Promise<void>((done) => res.on('close', done));
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"kind":"PodList","items":[');
        resolve(); // the rest never comes
      };
    });
    const reason = new Error('enough');
    const pending = pods().list({ signal: controller.signal });
    await started;
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await closed;
  });
});
