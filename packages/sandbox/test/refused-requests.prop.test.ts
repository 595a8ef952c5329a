// A request the server refuses changes nothing. Random sequences of deletes,
// updates, patches and creates of a few ConfigMaps, each with options and
// bodies that are valid or malformed in the ways clients get them wrong
// (DeleteOptions of the wrong types, unknown dry-run values, both orphan
// flags, wrong preconditions, patches that do not apply): whenever the
// answer is a 4xx, the object the request named is exactly as it was,
// resourceVersion included, or still absent.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { call } from './http-helpers.js';

const NS = '/api/v1/namespaces/p/configmaps';
const names = ['a', 'b', 'c'] as const;

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ insecureHttp: true });
  await sandbox.client('', 'namespaces').create({ metadata: { name: 'p' } });
});

afterAll(async () => {
  await sandbox.stop();
});

const deleteBody = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    { dryRun: 'All' },
    { dryRun: ['Al'] },
    { dryRun: ['All'] },
    { dryRun: [1] },
    { preconditions: { uid: 0 } },
    { preconditions: 'x' },
    { preconditions: { uid: 'not-the-uid' } },
    { preconditions: { resourceVersion: '1' } },
    { orphanDependents: true, propagationPolicy: 'Background' },
    { orphanDependents: 'yes' },
    { propagationPolicy: 'Sideways' },
    { propagationPolicy: 'Orphan' },
    { gracePeriodSeconds: -1 },
    { gracePeriodSeconds: 1.5 },
    { gracePeriodSeconds: '0' },
    { kind: 'Pod' },
    {},
  ),
  fc.constantFrom('"All"', '[1,2]', 'null', '{"dryRun":', 'x'),
);
const deleteQuery = fc.constantFrom(
  '',
  '?dryRun=All',
  '?dryRun=Al',
  '?dryRun=All&dryRun=x',
  '?gracePeriodSeconds=x',
  '?gracePeriodSeconds=-2',
  '?propagationPolicy=Nope',
  '?orphanDependents=true&propagationPolicy=Orphan',
);
const writeQuery = fc.constantFrom(
  '',
  '?dryRun=All',
  '?dryRun=Al',
  '?fieldValidation=Strict',
  '?fieldValidation=Nope',
  '?fieldManager=' + 'x'.repeat(200),
);
const data = fc.oneof(
  fc.dictionary(fc.constantFrom('k', 'l', 'toString'), fc.constantFrom('v', 'w')),
  fc.constantFrom({ k: 5 }, 'x', [1], null),
);

const step = fc.oneof(
  fc.record({
    verb: fc.constant('delete' as const),
    name: fc.constantFrom(...names),
    query: deleteQuery,
    body: deleteBody,
  }),
  fc.record({
    verb: fc.constant('create' as const),
    name: fc.constantFrom(...names),
    query: writeQuery,
    data,
  }),
  fc.record({
    verb: fc.constant('update' as const),
    name: fc.constantFrom(...names),
    query: writeQuery,
    data,
    staleVersion: fc.boolean(),
    otherName: fc.boolean(),
  }),
  fc.record({
    verb: fc.constant('patch' as const),
    name: fc.constantFrom(...names),
    query: writeQuery,
    type: fc.constantFrom(
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/json-patch+json',
      'text/plain',
    ),
    patch: fc.constantFrom(
      '{"data":{"k":"patched"}}',
      '{"data":{"k":5}}',
      '{"metadata":{"name":"other"}}',
      '[{"op":"replace","path":"/data/k","value":"x"}]',
      '[{"op":"test","path":"/data/k","value":"no"}]',
      '[{"op":"remove","path":"/nope"}]',
      '{"metadata":{"resourceVersion":"1"},"data":{"k":"z"}}',
      '{',
    ),
  }),
);

async function current(name: string): Promise<string> {
  const res = await call(sandbox, 'GET', `${NS}/${name}`);
  return res.status === 404 ? 'absent' : res.text;
}

describe('refused requests', () => {
  it('never change the object they name (property)', { timeout: 120_000 }, async () => {
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        for (const s of steps) {
          const before = await current(s.name);
          let res;
          if (s.verb === 'delete') {
            res = await call(sandbox, 'DELETE', `${NS}/${s.name}${s.query}`, {
              ...(s.body === undefined
                ? {}
                : { body: typeof s.body === 'string' ? s.body : JSON.stringify(s.body) }),
            });
          } else if (s.verb === 'create') {
            res = await call(sandbox, 'POST', `${NS}${s.query}`, {
              body: JSON.stringify({ metadata: { name: s.name }, data: s.data }),
            });
          } else if (s.verb === 'update') {
            const stored = before === 'absent' ? undefined : JSON.parse(before);
            const metadata = {
              name: s.otherName ? 'elsewhere' : s.name,
              resourceVersion: s.staleVersion ? '1' : stored?.metadata?.resourceVersion,
            };
            res = await call(sandbox, 'PUT', `${NS}/${s.name}${s.query}`, {
              body: JSON.stringify({ metadata, data: s.data }),
            });
          } else {
            res = await call(sandbox, 'PATCH', `${NS}/${s.name}${s.query}`, {
              body: s.patch,
              headers: { 'content-type': s.type },
            });
          }
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) {
            refused++;
            expect(
              await current(s.name),
              `${s.verb} ${JSON.stringify(s)} → ${res.status} ${res.text}`,
            ).toBe(before);
          }
        }
      }),
      { numRuns: 250 },
    );
    expect(refused).toBeGreaterThan(100);
  });
});
