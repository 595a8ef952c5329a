// Bodies that would make the server build far more than they weigh: YAML
// aliases, JSON-patch copies and long patches, objects over etcd's size limit,
// and nesting deep enough to overflow a stack. Each is refused with
// kube-apiserver's answer, nothing is stored, and the server keeps serving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { call } from './http-helpers.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const yaml = { 'content-type': 'application/yaml' };
const jsonPatch = { 'content-type': 'application/json-patch+json' };

let sandbox: Sandbox;
let revision: number;

beforeAll(async () => {
  sandbox = await startSandbox({ insecureHttp: true });
  const res = await call(sandbox, 'POST', CMS, {
    body: JSON.stringify({ metadata: { name: 'seed' }, data: { list: 'x' } }),
  });
  expect(res.status).toBe(201);
});

afterAll(async () => {
  await sandbox.stop();
});

/** Records the revision now; `unchanged()` then checks nothing was written since. */
const mark = () => (revision = sandbox.registry.storage.currentRevision());
const unchanged = async () => {
  expect(sandbox.registry.storage.currentRevision()).toBe(revision);
  expect((await call(sandbox, 'GET', `${CMS}/seed`)).json().data).toEqual({ list: 'x' });
};

// Nine levels of nine aliases each: about 387 million strings once expanded.
function billionLaughs(): string {
  const lines = [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata: {name: lol}',
    'x:',
    '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ];
  const names = 'abcdefghi';
  for (let i = 1; i < names.length; i++) {
    const prev = names[i - 1]!;
    lines.push(`  ${names[i]}: &${names[i]} [${Array(9).fill(`*${prev}`).join(',')}]`);
  }
  return `${lines.join('\n')}\n`;
}

describe('amplification', () => {
  it('refuses YAML whose aliases expand out of proportion, as goyaml does', async () => {
    mark();
    const res = await call(sandbox, 'POST', CMS, { body: billionLaughs(), headers: yaml });
    expect(res.status).toBe(400);
    expect(res.json().message).toMatch(
      /^the object provided is unrecognized \(must be of type ConfigMap\): yaml: document contains excessive aliasing \([0-9a-f]{60} \.\.\.\)$/,
    );
    const apply = await call(sandbox, 'PATCH', `${CMS}/lol?fieldManager=test`, {
      body: billionLaughs(),
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    expect(apply.status).toBe(400);
    expect(apply.json().message).toBe(
      'error converting YAML to JSON: yaml: document contains excessive aliasing',
    );
    await unchanged();
  });

  it('still takes YAML with a few aliases', async () => {
    const body =
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: anchored, labels: &l {app: web}, annotations: *l}\n';
    const res = await call(sandbox, 'POST', CMS, { body, headers: yaml });
    expect(res.status).toBe(201);
    expect(res.json().metadata.annotations).toEqual({ app: 'web' });
  });

  it('refuses what aliases of a long string would make too big to store', async () => {
    mark();
    const long = 'z'.repeat(200_000);
    const body = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: wide}\ndata:\n  a: &s ${long}\n${Array.from({ length: 20 }, (_, i) => `  k${i}: *s`).join('\n')}\n`;
    const res = await call(sandbox, 'POST', CMS, { body, headers: yaml });
    expect(res.status).toBe(500);
    expect(res.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'etcdserver: request is too large',
      code: 500,
    });
    await unchanged();
  });

  it('refuses a JSON patch of more than 10,000 operations with 413', async () => {
    mark();
    const ops = Array.from({ length: 10_001 }, () => ({
      op: 'test',
      path: '/data/list',
      value: 'x',
    }));
    const res = await call(sandbox, 'PATCH', `${CMS}/seed`, {
      body: JSON.stringify(ops),
      headers: jsonPatch,
    });
    expect(res.status).toBe(413);
    expect(res.json()).toMatchObject({
      reason: 'RequestEntityTooLarge',
      message:
        'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    });
    await unchanged();
  });

  it('stops JSON-patch copies that double the object once they pass 3 MiB', async () => {
    mark();
    const grow = [
      { op: 'add', path: '/metadata/annotations', value: { a: 'y'.repeat(100_000) } },
      ...Array.from({ length: 40 }, (_, i) => ({
        op: 'copy',
        from: '/metadata/annotations',
        path: `/metadata/annotations/c${i}`,
      })),
    ];
    const res = await call(sandbox, 'PATCH', `${CMS}/seed`, {
      body: JSON.stringify(grow),
      headers: jsonPatch,
    });
    expect(res.status).toBe(422);
    const status = res.json();
    expect(status.reason).toBe('Invalid');
    // kube-apiserver keeps json-patch's words to itself.
    expect(status.message).toBe('the server rejected our request due to an error in our request');
    expect(status.details).toEqual({});
    await unchanged();
  });

  it('refuses to store an object over 1.5 MiB, as etcd does', async () => {
    mark();
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'huge' },
      spec: { holderIdentity: 'h'.repeat(1_700_000) },
    };
    const res = await call(
      sandbox,
      'POST',
      '/apis/coordination.k8s.io/v1/namespaces/default/leases',
      {
        body: JSON.stringify(lease),
      },
    );
    expect(res.status).toBe(500);
    expect(res.json().message).toBe('etcdserver: request is too large');
    await unchanged();
  });

  it('refuses JSON and YAML nested deeper than 500 levels with 400, and keeps serving', async () => {
    mark();
    for (const depth of [501, 5_000, 200_000]) {
      const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const json = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":${nested}}`;
      const res = await call(sandbox, 'POST', CMS, { body: json });
      expect(res.status, `depth ${depth}`).toBe(400);
      expect(res.json().message).toBe(
        `the object provided is unrecognized (must be of type ConfigMap): exceeded max depth of 500 nested objects and arrays (${json.slice(0, 30)} ...)`,
      );
      const patch = await call(sandbox, 'PATCH', `${CMS}/seed`, {
        body: `{"data":{"list":"x"},"x":${nested}}`,
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(patch.status, `patch depth ${depth}`).toBe(400);
      const deepYaml = `x: ${nested}\n`;
      const viaYaml = await call(sandbox, 'POST', CMS, { body: deepYaml, headers: yaml });
      expect(viaYaml.status, `yaml depth ${depth}`).toBe(400);
    }
    // Just under the bound is still an object.
    const ok = await call(sandbox, 'POST', CMS, {
      body: `{"metadata":{"name":"deep-ok"},"data":{"k":"v"},"x":${'['.repeat(490)}${']'.repeat(490)}}`,
    });
    expect(ok.status).toBe(201);
    expect((await call(sandbox, 'GET', `${CMS}/seed`)).status).toBe(200);
  });
});
