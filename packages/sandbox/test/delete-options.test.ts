// A DELETE whose options do not decode, or decode to something no delete
// accepts, deletes nothing: a field of the wrong JSON type is a 400 with Go's
// decoder's words, a value ValidateDeleteOptions refuses a 422 against
// DeleteOptions.meta.k8s.io. The body, when there is one, is read instead of
// the query, as handlers/delete.go reads it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { call } from './http-helpers.js';

const CMS = '/api/v1/namespaces/default/configmaps';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ insecureHttp: true });
});

afterAll(async () => {
  await sandbox.stop();
});

beforeEach(async () => {
  await call(sandbox, 'DELETE', `${CMS}/y`);
  const res = await call(sandbox, 'POST', CMS, {
    body: JSON.stringify({ metadata: { name: 'y' } }),
  });
  expect(res.status).toBe(201);
});

async function stillThere(): Promise<void> {
  expect((await call(sandbox, 'GET', `${CMS}/y`)).status).toBe(200);
}

describe('DELETE options that do not decode', () => {
  it.each([
    [
      { dryRun: 'All' },
      'json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string',
    ],
    [
      { dryRun: [1] },
      'json: cannot unmarshal number into Go struct field DeleteOptions.dryRun of type string',
    ],
    [
      { preconditions: { uid: 0 } },
      'json: cannot unmarshal number into Go struct field DeleteOptions.preconditions.uid of type types.UID',
    ],
    [
      { preconditions: 'x' },
      'json: cannot unmarshal string into Go struct field DeleteOptions.preconditions of type v1.Preconditions',
    ],
    [
      { gracePeriodSeconds: 1.5 },
      'json: cannot unmarshal number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64',
    ],
    [
      { gracePeriodSeconds: 1e300 },
      'json: cannot unmarshal number 1e+300 into Go struct field DeleteOptions.gracePeriodSeconds of type int64',
    ],
    [
      { gracePeriodSeconds: '0' },
      'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64',
    ],
    [
      { orphanDependents: 'true' },
      'json: cannot unmarshal string into Go struct field DeleteOptions.orphanDependents of type bool',
    ],
    [
      { propagationPolicy: ['Orphan'] },
      'json: cannot unmarshal array into Go struct field DeleteOptions.propagationPolicy of type v1.DeletionPropagation',
    ],
    ['All', 'json: cannot unmarshal string into Go value of type v1.DeleteOptions'],
    [[1, 2], 'json: cannot unmarshal array into Go value of type v1.DeleteOptions'],
  ])('answers 400 for the body %j and deletes nothing', async (body, message) => {
    const res = await call(sandbox, 'DELETE', `${CMS}/y`, { body: JSON.stringify(body) });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', message });
    await stillThere();
  });

  it('answers 400 for a body that is not JSON, and for a query parameter that does not parse', async () => {
    const bad = await call(sandbox, 'DELETE', `${CMS}/y`, { body: '{"dryRun":' });
    expect(bad.status).toBe(400);
    const grace = await call(sandbox, 'DELETE', `${CMS}/y?gracePeriodSeconds=1e3`);
    expect(grace.status).toBe(400);
    expect(grace.json().message).toBe('strconv.ParseInt: parsing "1e3": invalid syntax');
    await stillThere();
  });

  it('answers 415 for a body in a format DeleteOptions is not read from', async () => {
    const res = await call(sandbox, 'DELETE', `${CMS}/y`, {
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    await stillThere();
  });
});

describe('DELETE options ValidateDeleteOptions refuses', () => {
  it.each([
    [
      `${CMS}/y?dryRun=Al`,
      undefined,
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Al"}: supported values: "All"',
    ],
    [
      `${CMS}/y?dryRun=All&dryRun=x`,
      undefined,
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "x"}: supported values: "All"',
    ],
    [
      `${CMS}/y`,
      { dryRun: ['Al'] },
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Al"}: supported values: "All"',
    ],
    [
      `${CMS}/y`,
      { orphanDependents: true, propagationPolicy: 'Background' },
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set',
    ],
    [
      `${CMS}/y?orphanDependents=false&propagationPolicy=Foreground`,
      undefined,
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be both set',
    ],
    [
      `${CMS}/y`,
      { propagationPolicy: 'Sideways' },
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    ],
  ])('answers 422 for %s with the body %j and deletes nothing', async (path, body, message) => {
    const res = await call(sandbox, 'DELETE', path, {
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status).toBe(422);
    expect(res.json()).toMatchObject({
      reason: 'Invalid',
      message,
      details: { group: 'meta.k8s.io', kind: 'DeleteOptions' },
    });
    await stillThere();
  });

  it('refuses a deletecollection with bad options before it deletes anything', async () => {
    const res = await call(sandbox, 'DELETE', `${CMS}?dryRun=Al`);
    expect(res.status).toBe(422);
    const body = await call(sandbox, 'DELETE', CMS, { body: JSON.stringify({ dryRun: 'All' }) });
    expect(body.status).toBe(400);
    await stillThere();
  });
});

describe('DELETE options that decode', () => {
  it('reads the body instead of the query when there is one, as delete.go does', async () => {
    const res = await call(sandbox, 'DELETE', `${CMS}/y?dryRun=All`, {
      body: JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1' }),
    });
    expect(res.status).toBe(200);
    expect((await call(sandbox, 'GET', `${CMS}/y`)).status).toBe(404);
  });

  it('honours a dry run from the body or the query, and null fields as unset', async () => {
    for (const [path, body] of [
      [`${CMS}/y`, { dryRun: ['All'] }],
      [`${CMS}/y?dryRun=All`, undefined],
      [`${CMS}/y`, { dryRun: ['All'], preconditions: null, gracePeriodSeconds: null }],
    ] as const) {
      const res = await call(sandbox, 'DELETE', path, {
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(res.status).toBe(200);
      await stillThere();
    }
  });

  it('checks a uid precondition read from the body', async () => {
    const res = await call(sandbox, 'DELETE', `${CMS}/y`, {
      body: JSON.stringify({ preconditions: { uid: 'not-it' } }),
    });
    expect(res.status).toBe(409);
    await stillThere();
  });

  it('reads YAML bodies too', async () => {
    const res = await call(sandbox, 'DELETE', `${CMS}/y`, {
      body: 'dryRun: [All]\n',
      headers: { 'content-type': 'application/yaml' },
    });
    expect(res.status).toBe(200);
    await stillThere();
    const bad = await call(sandbox, 'DELETE', `${CMS}/y`, {
      body: 'dryRun: All\n',
      headers: { 'content-type': 'application/yaml' },
    });
    expect(bad.status).toBe(400);
    await stillThere();
  });
});

describe('grace periods past any date', () => {
  it('takes the largest int64 grace period and waits until the last date a timestamp can name', async () => {
    const pods = '/api/v1/namespaces/default/pods';
    const pod = {
      metadata: { name: 'long' },
      spec: { nodeName: 'node-x', containers: [{ name: 'c', image: 'x' }] },
    };
    expect((await call(sandbox, 'POST', pods, { body: JSON.stringify(pod) })).status).toBe(201);
    // A pod that is running waits out its grace period.
    const running = await call(sandbox, 'GET', `${pods}/long`);
    const status = { ...running.json(), status: { phase: 'Running' } };
    expect(
      (await call(sandbox, 'PUT', `${pods}/long/status`, { body: JSON.stringify(status) })).status,
    ).toBe(200);
    const longest = await call(
      sandbox,
      'DELETE',
      `${pods}/long?gracePeriodSeconds=9223372036854775807`,
    );
    expect(longest.status).toBe(200);
    expect(longest.json().metadata.deletionTimestamp).toBe('9999-12-31T23:59:59Z');
    // A shorter one, still thousands of years, brings the deadline forward.
    const shorter = await call(sandbox, 'DELETE', `${pods}/long?gracePeriodSeconds=99999999999`);
    expect(shorter.json().metadata.deletionTimestamp).toMatch(/^5\d{3}-/);
    await call(sandbox, 'DELETE', `${pods}/long?gracePeriodSeconds=0`);
  });
});
