// Bad input over HTTP: a thousand requests, each wrong in one way (malformed
// bodies, wrong kinds, invalid names and labels, bad selectors and query
// parameters, stale versions, unknown paths and verbs, missing credentials).
// Each gets a 4xx answer carrying a Status that says what was wrong, and none
// of them changes what the server stores.
import { parseSelector } from '@kcm-ts/apimachinery';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { call } from './http-helpers.js';

interface Bad {
  what: string;
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
  noToken?: boolean;
}

const CMS = '/api/v1/namespaces/default/configmaps';
const json = (v: unknown) => JSON.stringify(v);
const cm = (metadata: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata,
  data: { k: 'v' },
});

const notJson = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => {
  try {
    JSON.parse(s);
    return false;
  } catch {
    return true;
  }
});
const badName = fc
  .string({ minLength: 1, maxLength: 20 })
  .filter((s) => !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(s) || s.length > 253);
const badSelector = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => {
  try {
    parseSelector(s);
    return false;
  } catch {
    return true;
  }
});
const segment = fc.stringMatching(/^[a-z]{1,8}$/);

const badRequest: fc.Arbitrary<Bad> = fc.oneof(
  notJson.map((body) => ({ what: 'body that is not JSON', method: 'POST', path: CMS, body })),
  fc
    .constantFrom('[]', '42', '"x"', 'null', 'true')
    .map((body) => ({ what: 'body that is not an object', method: 'POST', path: CMS, body })),
  fc.constantFrom('Pod', 'Secret', 'Deployment').map((kind) => ({
    what: 'wrong kind',
    method: 'POST',
    path: CMS,
    body: json({ ...cm({ name: 'x' }), kind }),
  })),
  fc.constantFrom('apps/v1', 'v2', 'example.com/v1').map((apiVersion) => ({
    what: 'wrong apiVersion',
    method: 'POST',
    path: CMS,
    body: json({ ...cm({ name: 'x' }), apiVersion }),
  })),
  badName.map((name) => ({
    what: 'invalid name',
    method: 'POST',
    path: CMS,
    body: json(cm({ name })),
  })),
  fc.constant({ what: 'no name', method: 'POST', path: CMS, body: json(cm({})) }),
  fc
    .tuple(
      fc.constantFrom('-x', 'a/b/c', 'x'.repeat(64), 'bad key'),
      fc.constantFrom('ok', '-bad-', 'v'.repeat(64)),
    )
    .filter(([k, v]) => k !== 'x' || v !== 'ok')
    .map(([k, v]) => ({
      what: 'invalid label',
      method: 'POST',
      path: CMS,
      body: json(cm({ name: 'labelled', labels: { [k]: v } })),
    })),
  segment.map((s) => ({
    what: 'unknown resource',
    method: 'GET',
    path: `/api/v1/namespaces/default/${s}zz`,
  })),
  segment.map((s) => ({
    what: 'unknown group',
    method: 'GET',
    path: `/apis/${s}.example.com/v1/things`,
  })),
  badSelector.map((s) => ({
    what: 'bad label selector',
    method: 'GET',
    path: `${CMS}?labelSelector=${encodeURIComponent(s)}`,
  })),
  fc.constantFrom('spec.x=1', 'metadata.uid=1', 'data.k=v').map((s) => ({
    what: 'unsupported field selector',
    method: 'GET',
    path: `${CMS}?fieldSelector=${encodeURIComponent(s)}`,
  })),
  fc
    .constantFrom('abc', '1.5', '-')
    .map((v) => ({ what: 'bad limit', method: 'GET', path: `${CMS}?limit=${v}` })),
  fc.constantFrom('abc', '-1', '1e3').map((v) => ({
    what: 'bad resourceVersion',
    method: 'GET',
    path: `${CMS}?resourceVersion=${v}&resourceVersionMatch=Exact`,
  })),
  fc.constantFrom('zzz', '!!').map((v) => ({
    what: 'bad continue token',
    method: 'GET',
    path: `${CMS}?limit=1&continue=${v}`,
  })),
  fc.constantFrom('x', '9x', '1.5').map((v) => ({
    what: 'bad timeoutSeconds',
    method: 'GET',
    path: `${CMS}?watch=true&timeoutSeconds=${v}`,
  })),
  fc.constant({
    what: 'stale resourceVersion',
    method: 'PUT',
    path: `${CMS}/settings`,
    body: json(cm({ name: 'settings', resourceVersion: '1' })),
  }),
  fc.constant({
    what: 'name differs from the URL',
    method: 'PUT',
    path: `${CMS}/settings`,
    body: json(cm({ name: 'other' })),
  }),
  fc.constantFrom('text/plain', 'application/xml', 'application/json').map((type) => ({
    what: 'unsupported patch type',
    method: 'PATCH',
    path: `${CMS}/settings`,
    body: '{}',
    headers: { 'content-type': type },
  })),
  fc
    .constantFrom(
      '{}',
      '[{"op":"boom"}]',
      '[{"op":"remove","path":"/nope/deeper"}]',
      '[{"op":"test","path":"/data/k","value":"no"}]',
    )
    .map((body) => ({
      what: 'bad JSON patch',
      method: 'PATCH',
      path: `${CMS}/settings`,
      body,
      headers: { 'content-type': 'application/json-patch+json' },
    })),
  fc.constantFrom('[]', '{"metadata":{"name":"other"}}').map((body) => ({
    what: 'bad merge patch',
    method: 'PATCH',
    path: `${CMS}/settings`,
    body,
    headers: { 'content-type': 'application/merge-patch+json' },
  })),
  segment.map((s) => ({ what: 'missing object', method: 'DELETE', path: `${CMS}/${s}-missing` })),
  segment.map((s) => ({ what: 'missing object', method: 'GET', path: `${CMS}/${s}-missing` })),
  fc
    .constantFrom('PUT', 'PATCH')
    .map((method) => ({ what: 'verb on a collection', method, path: CMS, body: '{}' })),
  fc.constant({ what: 'no credentials', method: 'GET', path: CMS, noToken: true }),
  fc.constant({
    what: 'no credentials',
    method: 'POST',
    path: CMS,
    body: json(cm({ name: 'sneaky' })),
    noToken: true,
  }),
  fc.constantFrom('0', '-1', 'x').map((g) => ({
    what: 'bad grace period',
    method: 'DELETE',
    path: `${CMS}/settings?gracePeriodSeconds=${g === '0' ? '-3' : g}`,
  })),
  fc.constant({
    what: 'bad propagation policy',
    method: 'DELETE',
    path: `${CMS}/settings?propagationPolicy=Sideways`,
  }),
);

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ insecureHttp: true });
  const created = await call(sandbox, 'POST', CMS, { body: json(cm({ name: 'settings' })) });
  expect(created.status).toBe(201);
});

afterAll(async () => {
  await sandbox.stop();
});

describe('bad input', () => {
  it('gets a 4xx Status and changes nothing, for a thousand malformed requests', async () => {
    const before = sandbox.registry.storage.currentRevision();
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(badRequest, async (bad) => {
        seen.add(bad.what);
        const res = await call(sandbox, bad.method, bad.path, {
          ...(bad.body !== undefined ? { body: bad.body } : {}),
          ...(bad.headers ? { headers: bad.headers } : {}),
          ...(bad.noToken ? { token: null } : {}),
        });
        const where = `${bad.what}: ${bad.method} ${bad.path} ${bad.body ?? ''} → ${res.status} ${res.text.slice(0, 200)}`;
        expect(res.status >= 400 && res.status < 500, where).toBe(true);
        const status = res.json();
        expect(status, where).toMatchObject({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: res.status,
        });
        expect(typeof status.message === 'string' && status.message.length > 0, where).toBe(true);
      }),
      { numRuns: 1000 },
    );
    // Nothing committed, and the one object is as it was.
    expect(sandbox.registry.storage.currentRevision()).toBe(before);
    const list = await call(sandbox, 'GET', CMS);
    expect(list.json().items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
      'settings',
    ]);
    expect(seen.size).toBeGreaterThan(20);
  });
});
