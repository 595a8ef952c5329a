// Query parameters read as apimachinery's conversion functions read them:
// a boolean is true unless it is 0 or false (any letter case), so the
// official Python client's `watch=True` watches; integers are Go's
// strconv.ParseInt, with its error messages; the first of repeated values
// counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { boolParam, int64Param, parseInt64 } from '../src/apiserver/query-params.js';
import { call, watchLines } from './http-helpers.js';

const CMS = '/api/v1/namespaces/default/configmaps';

describe('decoding', () => {
  it.each([
    ['watch=true', true],
    ['watch=True', true],
    ['watch=TRUE', true],
    ['watch=1', true],
    ['watch=', true],
    ['watch=yes', true],
    ['watch=false', false],
    ['watch=False', false],
    ['watch=FALSE', false],
    ['watch=0', false],
    ['', undefined],
    ['watch=0&watch=1', false],
  ])('bool %s → %s', (query, expected) => {
    expect(boolParam(new URLSearchParams(query), 'watch')).toBe(expected);
  });

  it.each([
    ['5', 5],
    ['+5', 5],
    ['-5', -5],
    ['007', 7],
    ['9223372036854775807', Number(9223372036854775807n)],
  ])('int64 %s → %s', (text, expected) => {
    expect(parseInt64(text)).toBe(expected);
  });

  it.each([
    ['', 'strconv.ParseInt: parsing "": invalid syntax'],
    [' 5', 'strconv.ParseInt: parsing " 5": invalid syntax'],
    ['1e3', 'strconv.ParseInt: parsing "1e3": invalid syntax'],
    ['1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    ['0x10', 'strconv.ParseInt: parsing "0x10": invalid syntax'],
    ['9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
  ])('int64 %j is a 400: %s', (text, message) => {
    expect(() => parseInt64(text)).toThrow(message);
    expect(() => int64Param(new URLSearchParams({ limit: text }), 'limit')).toThrow(message);
    expect(int64Param(new URLSearchParams(), 'limit')).toBeUndefined();
  });
});

describe('over HTTP', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ insecureHttp: true });
    for (const name of ['a', 'b', 'c']) {
      await sandbox.client('', 'configmaps').inNamespace('default').create({ metadata: { name } });
    }
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it('watches for watch=True, as the Python client sends it', async () => {
    const { status, lines } = await watchLines(sandbox, `${CMS}?watch=True&resourceVersion=0`, 3);
    expect(status).toBe(200);
    expect(lines.map((e: { type: string }) => e.type)).toEqual(['ADDED', 'ADDED', 'ADDED']);
  });

  it('lists for watch=False and watch=0', async () => {
    for (const v of ['False', '0']) {
      const res = await call(sandbox, 'GET', `${CMS}?watch=${v}`);
      expect(res.json().kind).toBe('ConfigMapList');
    }
  });

  it('takes allowWatchBookmarks=True', async () => {
    const rv = (await call(sandbox, 'GET', CMS)).json().metadata.resourceVersion as string;
    const { lines } = await watchLines(
      sandbox,
      `${CMS}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=True&sendInitialEvents=True&resourceVersionMatch=NotOlderThan`,
      4,
    );
    expect(lines.map((e: { type: string }) => e.type)).toEqual([
      'ADDED',
      'ADDED',
      'ADDED',
      'BOOKMARK',
    ]);
  });

  it('reads limit and timeoutSeconds as Go integers', async () => {
    // A literal + in a query is a space, in Go's url.ParseQuery as here: %2B is the sign.
    expect((await call(sandbox, 'GET', `${CMS}?limit=%2B2`)).json().items).toHaveLength(2);
    expect((await call(sandbox, 'GET', `${CMS}?limit=+2`)).json().message).toBe(
      'strconv.ParseInt: parsing " 2": invalid syntax',
    );
    const cases: [string, string][] = [
      ['limit=', 'strconv.ParseInt: parsing "": invalid syntax'],
      ['limit=2.0', 'strconv.ParseInt: parsing "2.0": invalid syntax'],
      [
        'watch=true&timeoutSeconds=99999999999999999999',
        'strconv.ParseInt: parsing "99999999999999999999": value out of range',
      ],
    ];
    for (const [query, message] of cases) {
      const res = await call(sandbox, 'GET', `${CMS}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json()).toMatchObject({ reason: 'BadRequest', message });
    }
  });

  it('uses the first of repeated values', async () => {
    const res = await call(sandbox, 'GET', `${CMS}?limit=1&limit=3`);
    expect(res.json().items).toHaveLength(1);
  });
});
