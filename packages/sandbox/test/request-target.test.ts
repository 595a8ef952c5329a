// Request targets as an attacker writes them: paths the URL parser rejects,
// dot segments, bad percent-encodings and writes on the all-namespaces path.
// None may end the process, and none may reach an object its path does not
// name: kube-apiserver routes the path as sent and answers 400, 404 or 405.
import { request } from 'node:http';
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';

interface Answer {
  status: number;
  body: { kind?: string; code?: number; reason?: string; message?: string };
}

/** Sends `target` exactly as written: no URL parsing, no normalisation on our side. */
function raw(sandbox: Sandbox, method: string, target: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: sandbox.port,
        method,
        path: target,
        headers: { authorization: `Bearer ${sandbox.token}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: Answer['body'] = {};
          try {
            body = JSON.parse(text) as Answer['body'];
          } catch {
            body = { message: text };
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await startSandbox({ insecureHttp: true });
  const namespaces = sandbox.client('', 'namespaces');
  for (const name of ['a', 'b']) {
    await namespaces.create({ metadata: { name } });
    const cms = sandbox.client<ConfigMap>('', 'configmaps').inNamespace(name);
    const secrets = sandbox.client<Secret>('', 'secrets').inNamespace(name);
    await cms.create({ metadata: { name: 'settings', labels: { app: 'x' } }, data: { k: 'v' } });
    await secrets.create({ metadata: { name: 'token' }, data: { k: 'dg==' } });
  }
});
afterEach(async () => {
  await sandbox.stop();
});

/** Every namespace, configmap and secret, by namespace/name: what no bad request may change. */
async function contents(): Promise<string[]> {
  const names = async (group: string, resource: string) =>
    (await sandbox.client(group, resource).list()).items.map(
      (o) => `${resource}:${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`,
    );
  return [
    ...(await names('', 'namespaces')),
    ...(await names('', 'configmaps')),
    ...(await names('', 'secrets')),
  ].sort();
}

describe('request targets', () => {
  it.each(['//', '//%zz', '//a@/', '//x:99999/', '//x:99999/api/v1/pods', '/%', '*'])(
    'GET %s is answered and the server keeps serving',
    async (target) => {
      const answer = await raw(sandbox, 'GET', target);
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(answer.body.kind).toBe('Status');
      const after = await raw(sandbox, 'GET', '/api/v1/namespaces/a/configmaps/settings');
      expect(after.status).toBe(200);
    },
  );

  it('answers a bad percent-encoding with 400 and says where', async () => {
    const answer = await raw(sandbox, 'GET', '/api/v1/namespaces/a/configmaps/%zz');
    expect(answer.status).toBe(400);
    expect(answer.body.reason).toBe('BadRequest');
    expect(answer.body.message).toContain('%zz');
  });

  it('never resolves dot segments: a name of .. is refused and nothing is deleted', async () => {
    const before = await contents();
    const cases: [string, string][] = [
      ['/api/v1/namespaces/a/configmaps/..', 'Name parameter invalid: "..": may not be \'..\''],
      ['/api/v1/namespaces/a/configmaps/.', 'Name parameter invalid: ".": may not be \'.\''],
      ['/api/v1/namespaces/%2e%2e/secrets', 'Namespace parameter invalid: "..": may not be \'..\''],
      ['/api/v1/namespaces/a/secrets/%2E%2E', 'Name parameter invalid: "..": may not be \'..\''],
      [
        '/api/v1/namespaces/a/configmaps/x%2Fy',
        'Name parameter invalid: "x/y": may not contain \'/\'',
      ],
    ];
    for (const [target, message] of cases) {
      const answer = await raw(sandbox, 'DELETE', target);
      expect(answer.status, target).toBe(400);
      expect(answer.body.message, target).toBe(message);
    }
    expect(await contents()).toEqual(before);
  });

  it('keeps empty segments: a doubled slash routes nowhere instead of to another object', async () => {
    const before = await contents();
    // With slashes merged this would be `namespaces/secrets`, a namespace.
    const answer = await raw(sandbox, 'DELETE', '/api/v1/namespaces//secrets');
    expect(answer.status).toBe(404);
    expect(await contents()).toEqual(before);
  });

  it('refuses delete-collection across all namespaces with 405, deleting nothing', async () => {
    const before = await contents();
    for (const target of ['/api/v1/configmaps?labelSelector=app%3Dx', '/api/v1/secrets']) {
      const answer = await raw(sandbox, 'DELETE', target);
      expect(answer.status, target).toBe(405);
      expect(answer.body.reason).toBe('MethodNotAllowed');
      expect(answer.body.message).toBe(
        `deletecollection is not supported on resources of kind "${target.startsWith('/api/v1/configmaps') ? 'configmaps' : 'secrets'}"`,
      );
    }
    expect(await contents()).toEqual(before);
    // The namespaced path still deletes the collection.
    const ok = await raw(
      sandbox,
      'DELETE',
      '/api/v1/namespaces/a/configmaps?labelSelector=app%3Dx',
    );
    expect(ok.status).toBe(200);
    expect(
      (await sandbox.client('', 'configmaps').list()).items.map((o) => o.metadata?.namespace),
    ).toEqual(['b']);
  });

  it('allows only list and watch on the all-namespaces path of a namespaced resource', async () => {
    expect((await raw(sandbox, 'GET', '/api/v1/configmaps')).status).toBe(200);
    expect((await raw(sandbox, 'POST', '/api/v1/configmaps')).status).toBe(405);
    expect((await raw(sandbox, 'GET', '/api/v1/configmaps/settings')).status).toBe(404);
    expect((await raw(sandbox, 'DELETE', '/api/v1/configmaps/settings')).status).toBe(404);
  });

  it('routes the path of an absolute-form target', async () => {
    const answer = await raw(
      sandbox,
      'GET',
      `http://127.0.0.1:${sandbox.port}/api/v1/namespaces/a/configmaps/settings`,
    );
    expect(answer.status).toBe(200);
  });
});

describe('finishNamespaces', () => {
  it('false leaves a deleted namespace Terminating with its content until it is finalized', async () => {
    const held = await startSandbox({ insecureHttp: true, finishNamespaces: false });
    try {
      const namespaces = held.client('', 'namespaces');
      await namespaces.create({ metadata: { name: 'gone' } });
      const cms = held.client('', 'configmaps').inNamespace('gone');
      await cms.create({ metadata: { name: 'c' } });
      await namespaces.delete('gone');
      await new Promise((resolve) => setImmediate(resolve));
      const ns = (await namespaces.get('gone')) as {
        spec?: { finalizers?: string[] };
        status?: { phase?: string };
      };
      expect(ns.status?.phase).toBe('Terminating');
      expect(ns.spec?.finalizers).toEqual(['kubernetes']);
      expect((await cms.list()).items).toHaveLength(1);
    } finally {
      await held.stop();
    }
  });

  it('refuses new content with the NamespaceTerminating cause, and keeps the namespace through status writes', async () => {
    const held = await startSandbox({ insecureHttp: true, finishNamespaces: false });
    try {
      const namespaces = held.client('', 'namespaces');
      await namespaces.create({ metadata: { name: 'going' } });
      await namespaces.delete('going');
      const cms = held.client<ConfigMap>('', 'configmaps').inNamespace('going');
      const err = await cms.create({ metadata: { name: 'late' } }).catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: 403,
        reason: 'Forbidden',
        details: {
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: 'namespace going is being terminated',
              field: 'metadata.namespace',
            },
          ],
        },
      });
      // A namespace controller writes conditions while it empties the namespace;
      // that must not delete it while `kubernetes` is still in spec.finalizers.
      const ns = await namespaces.get('going');
      await namespaces.updateStatus({
        ...ns,
        status: {
          phase: 'Terminating',
          conditions: [{ type: 'NamespaceContentRemaining', status: 'False' }],
        },
      } as never);
      expect((await namespaces.get('going')).metadata?.name).toBe('going');
    } finally {
      await held.stop();
    }
  });
});
