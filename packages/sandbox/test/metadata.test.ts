// Metadata-only reads, as client-go's metadata client and the garbage
// collector's informers make them: `as=PartialObjectMetadata` on get, patch
// and watch, `as=PartialObjectMetadataList` on list, 406 NotAcceptable with
// kube-apiserver's messages for a form it does not serve; and the same
// through the in-process metadata client.
import { isStatusError } from '@kcm-ts/apimachinery';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { deployment } from './helpers.js';
import { call, watchLines } from './http-helpers.js';

// What client-go's metadata client sends (metadata/metadata.go).
const metadataAccept =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const metadataListAccept =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const CMS = '/api/v1/namespaces/default/configmaps';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ insecureHttp: true });
  const cms = sandbox.client('', 'configmaps').inNamespace('default');
  for (const name of ['a', 'b', 'c']) {
    await cms.create({
      metadata: {
        name,
        labels: { app: 'x' },
        annotations: { note: name },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'default', uid: 'u-1' }],
      },
      data: { big: name.repeat(1000) },
    } as never);
  }
  await sandbox.client('apps', 'deployments').inNamespace('default').create(deployment('web'));
});

afterAll(async () => {
  await sandbox.stop();
});

describe('PartialObjectMetadata over HTTP', () => {
  it('gets one object as its metadata, whole, and nothing else', async () => {
    const full = (await call(sandbox, 'GET', `${CMS}/a`)).json();
    const res = await call(sandbox, 'GET', `${CMS}/a`, { headers: { accept: metadataAccept } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: full.metadata,
    });
    expect(res.text).not.toContain('aaaa');
  });

  it('lists as a PartialObjectMetadataList, keeping resourceVersion, continue and count', async () => {
    const res = await call(sandbox, 'GET', `${CMS}?limit=2`, {
      headers: { accept: metadataListAccept },
    });
    expect(res.status).toBe(200);
    const list = res.json();
    expect(list.kind).toBe('PartialObjectMetadataList');
    expect(list.apiVersion).toBe('meta.k8s.io/v1');
    expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(typeof list.metadata.continue).toBe('string');
    expect(list.metadata.remainingItemCount).toBe(1);
    expect(list.items.map((i: { kind: string; metadata: { name: string } }) => i.kind)).toEqual([
      'PartialObjectMetadata',
      'PartialObjectMetadata',
    ]);
    expect(list.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
      'a',
      'b',
    ]);
    expect(list.items[0]).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: expect.objectContaining({ name: 'a', annotations: { note: 'a' } }),
    });
    const next = await call(
      sandbox,
      'GET',
      `${CMS}?limit=2&continue=${encodeURIComponent(list.metadata.continue)}`,
      { headers: { accept: metadataListAccept } },
    );
    expect(next.json().items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
      'c',
    ]);
  });

  it('watches with PartialObjectMetadata in every event', async () => {
    const rv = (await call(sandbox, 'GET', CMS)).json().metadata.resourceVersion as string;
    const cms = sandbox.client('', 'configmaps').inNamespace('default');
    const { status, lines } = await watchLines(
      sandbox,
      `${CMS}?watch=true&resourceVersion=${rv}`,
      3,
      {
        headers: { accept: metadataAccept },
        act: async () => {
          await cms.create({ metadata: { name: 'd' }, data: { k: 'v' } } as never);
          await cms.patch('d', { type: 'merge', body: { metadata: { labels: { x: 'y' } } } });
          await cms.delete('d');
        },
      },
    );
    expect(status).toBe(200);
    expect(lines.map((e: { type: string }) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    for (const e of lines) {
      expect(Object.keys(e.object).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      expect(e.object.kind).toBe('PartialObjectMetadata');
      expect(e.object.metadata.name).toBe('d');
    }
    expect(lines[1].object.metadata.labels).toEqual({ x: 'y' });
  });

  it('answers a patch with the patched object’s metadata', async () => {
    const res = await call(sandbox, 'PATCH', `${CMS}/b`, {
      body: JSON.stringify({ metadata: { labels: { patched: 'yes' } } }),
      headers: { 'content-type': 'application/merge-patch+json', accept: metadataAccept },
    });
    expect(res.status).toBe(200);
    expect(res.json().kind).toBe('PartialObjectMetadata');
    expect(res.json().metadata.labels).toEqual({ app: 'x', patched: 'yes' });
  });

  it('serves meta.k8s.io/v1beta1 when that is asked for', async () => {
    const res = await call(sandbox, 'GET', `${DEPLOYS}/web`, {
      headers: { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1' },
    });
    expect(res.json()).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1beta1',
      metadata: { name: 'web' },
    });
  });

  it('refuses a list asked for as one object, and one object as a list (406)', async () => {
    const cases: [string, string, string][] = [
      [
        CMS,
        'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
        'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)',
      ],
      [
        DEPLOYS,
        'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
        'you requested PartialObjectMetadata, but the requested object is a list (*apps.DeploymentList)',
      ],
      [
        `${CMS}/a`,
        'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
        'you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)',
      ],
    ];
    for (const [path, accept, message] of cases) {
      const res = await call(sandbox, 'GET', path, { headers: { accept } });
      expect(res.status, path).toBe(406);
      expect(res.json()).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'NotAcceptable',
        code: 406,
        message,
      });
    }
  });

  it('answers 406 with the served media types when no Accept clause can be honoured', async () => {
    for (const accept of [
      'application/json;as=Widget;g=meta.k8s.io;v=v1',
      'application/json;as=PartialObjectMetadata;g=example.com;v=v1',
      'application/vnd.kubernetes.protobuf',
      'text/html',
    ]) {
      const res = await call(sandbox, 'GET', `${CMS}/a`, { headers: { accept } });
      expect(res.status, accept).toBe(406);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toMatchObject({
        reason: 'NotAcceptable',
        message: 'only the following media types are accepted: application/json, application/yaml',
      });
    }
    // A watch streams JSON only; the error itself is written as asked, in YAML.
    const watch = await call(sandbox, 'GET', `${CMS}?watch=true`, {
      headers: { accept: 'application/yaml' },
    });
    expect(watch.status).toBe(406);
    expect(watch.headers['content-type']).toBe('application/yaml');
    expect(parseYaml(watch.text)).toMatchObject({
      kind: 'Status',
      code: 406,
      message: 'only the following media types are accepted: application/json;stream=watch',
    });
  });

  it('still serves Tables to kubectl, and YAML when asked', async () => {
    const table = await call(sandbox, 'GET', CMS, {
      headers: {
        accept:
          'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      },
    });
    expect(table.json().kind).toBe('Table');
    const yaml = await call(sandbox, 'GET', `${CMS}/a`, {
      headers: { accept: 'application/yaml' },
    });
    expect(yaml.status).toBe(200);
    expect(yaml.headers['content-type']).toBe('application/yaml');
    expect(yaml.text).toMatch(/^apiVersion: v1\n/);
    expect(yaml.text).toContain('\nkind: ConfigMap\n');
  });
});

describe('the in-process metadata client', () => {
  it('gets, lists, watches and patches metadata only', async () => {
    const deployments = sandbox.metadataClient('apps', 'deployments').inNamespace('default');
    const one = await deployments.get('web');
    expect(one.kind).toBe('PartialObjectMetadata');
    expect(one.apiVersion).toBe('meta.k8s.io/v1');
    expect(one.metadata.name).toBe('web');
    expect(Object.keys(one).sort()).toEqual(['apiVersion', 'kind', 'metadata']);

    const list = await deployments.list();
    expect(list.kind).toBe('PartialObjectMetadataList');
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['web']);

    const controller = new AbortController();
    const events = await deployments.watch({
      resourceVersion: list.metadata.resourceVersion ?? '',
      signal: controller.signal,
    });
    const patched = await deployments.patch('web', {
      type: 'merge',
      body: { metadata: { annotations: { touched: 'yes' } } },
    });
    expect(patched.metadata.annotations).toEqual({ touched: 'yes' });
    for await (const event of events) {
      expect(event.type).toBe('MODIFIED');
      expect(event.object.kind).toBe('PartialObjectMetadata');
      expect((event.object as { spec?: unknown }).spec).toBeUndefined();
      break;
    }
    controller.abort();
    // The full object is untouched but for the annotation.
    const full = await sandbox
      .client<Deployment>('apps', 'deployments')
      .inNamespace('default')
      .get('web');
    expect(full.spec?.template?.spec?.containers?.[0]?.image).toBe('nginx:1.27');
  });

  it('refuses whole-object writes, as client-go’s metadata client has none', async () => {
    const cms = sandbox.metadataClient('', 'configmaps').inNamespace('default');
    await expect(cms.create({ metadata: { name: 'x' } } as never)).rejects.toThrow(
      /cannot write whole objects/,
    );
    await expect(cms.update({ metadata: { name: 'a' } } as never)).rejects.toThrow(
      /cannot write whole objects/,
    );
    const gone = await cms.get('missing').catch((e: unknown) => e);
    expect(isStatusError(gone) && gone.code).toBe(404);
  });
});
