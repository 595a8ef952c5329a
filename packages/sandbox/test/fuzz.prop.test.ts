// A fuzzer for the HTTP face of the sandbox: thousands of generated requests
// across paths (dot segments, bad escapes, unknown resources), methods,
// headers (Accept, Content-Type, Authorization), query parameters, bodies
// (JSON, YAML with aliases, patches, DeleteOptions of confused types,
// garbage) and encodings. Whatever comes,
// the process keeps running, nothing answers 5xx but the injected fault and
// the two etcd errors kube-apiserver passes on, and the seeded objects stay
// exactly as they were.
import { request } from 'node:http';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { deployment } from './helpers.js';

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

interface Answer {
  status: number;
  text: string;
}

const runs = 3_000;

let sandbox: Sandbox;
let seeded: string;

/** The seeded objects, as the server shows them, resourceVersions included. */
async function seedSnapshot(): Promise<string> {
  const read = async (group: string, resource: string, name: string) =>
    sandbox.client(group, resource).inNamespace('seed').get(name);
  return JSON.stringify([
    await sandbox.client('', 'namespaces').get('seed'),
    await read('', 'configmaps', 'settings'),
    await read('', 'secrets', 'token'),
    await read('apps', 'deployments', 'web'),
  ]);
}

beforeAll(async () => {
  sandbox = await startSandbox({ insecureHttp: true });
  await sandbox.client('', 'namespaces').create({ metadata: { name: 'seed' } });
  await sandbox.client('', 'namespaces').create({ metadata: { name: 'fuzz' } });
  const inSeed = (g: string, r: string) => sandbox.client(g, r).inNamespace('seed');
  await inSeed('', 'configmaps').create({
    metadata: { name: 'settings', labels: { app: 'x' } },
    data: { mode: 'safe' },
  } as never);
  await inSeed('', 'secrets').create({ metadata: { name: 'token' }, data: { k: 'dg==' } } as never);
  await inSeed('apps', 'deployments').create(deployment('web'));
  // The injected fault: every lease request fails with 503.
  sandbox.faults.failNext(1_000_000, { code: 503 }, { resource: 'leases' });
  seeded = await seedSnapshot();
});

afterAll(async () => {
  await sandbox.stop();
});

// ---- generators ---------------------------------------------------------------

const word = fc.constantFrom(
  'api',
  'apis',
  'v1',
  'apps',
  'namespaces',
  'seed',
  'fuzz',
  'default',
  'configmaps',
  'secrets',
  'pods',
  'deployments',
  'replicasets',
  'leases',
  'events',
  'nodes',
  'status',
  'scale',
  'binding',
  'finalize',
  'log',
  'exec',
  'settings',
  'web',
  'token',
  'tokenreviews',
  'authentication.k8s.io',
  'coordination.k8s.io',
  'openapi',
  'v3',
  'version',
  'healthz',
  '.',
  '..',
  '%2e%2e',
  '%2F',
  '%zz',
  '%',
  '',
  'x'.repeat(300),
  '%00',
  '%C3%A9',
);
const junk = fc.stringMatching(/^[A-Za-z0-9._~%-]{0,12}$/);
const segment = fc.oneof({ weight: 5, arbitrary: word }, { weight: 1, arbitrary: junk });

// Writes that would be legitimate in `seed` are never generated there: the
// seeded objects may only be reached by mistake.
const resourcePath = fc
  .tuple(
    fc.constantFrom('/api/v1', '/apis/apps/v1', '/apis/coordination.k8s.io/v1', '/api/v1'),
    fc.constantFrom('fuzz', 'fuzz', 'seed', '..', '%2e%2e', 'default'),
    fc.constantFrom('configmaps', 'secrets', 'deployments', 'pods', 'leases', 'events'),
    fc.option(fc.constantFrom('settings', 'web', 'token', 'x', '..', '.', 'a%2Fb'), {
      nil: undefined,
    }),
    fc.option(fc.constantFrom('status', 'scale', 'log', 'binding', 'exec'), { nil: undefined }),
  )
  .map(([prefix, ns, resource, name, sub]) =>
    [
      prefix,
      'namespaces',
      ns,
      resource,
      ...(name ? [name] : []),
      ...(name && sub ? [sub] : []),
    ].join('/'),
  );
const freePath = fc
  .array(segment, { minLength: 0, maxLength: 7 })
  .map((segs) => `/${segs.join('/')}`);
const dotPath = resourcePath.map((p) => `${p}/../../seed/configmaps/settings`);

const queryKey = fc.constantFrom(
  'watch',
  'limit',
  'continue',
  'resourceVersion',
  'resourceVersionMatch',
  'labelSelector',
  'fieldSelector',
  'timeoutSeconds',
  'allowWatchBookmarks',
  'sendInitialEvents',
  'dryRun',
  'fieldManager',
  'fieldValidation',
  'force',
  'propagationPolicy',
  'gracePeriodSeconds',
  'orphanDependents',
  'includeObject',
  'pretty',
  'follow',
  'tailLines',
  'container',
);
const queryValue = fc.oneof(
  fc.constantFrom('true', 'True', '0', 'false', '', '1', '-1', '5', '1e3', '99999999999999999999'),
  fc.constantFrom('All', 'Strict', 'Warn', 'Object', 'None', 'Metadata', 'Exact', 'NotOlderThan'),
  fc.constantFrom('Al', 'Orphan', 'Sideways', '9223372036854775807', '1.5'),
  fc.constantFrom(
    'app=x',
    'app in (a,b)',
    '!!',
    'metadata.name=settings',
    'spec.x=1',
    'Foreground',
  ),
  junk,
);
const query = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 5 })
  .map((pairs) => (pairs.length === 0 ? '' : `?${new URLSearchParams(pairs).toString()}`));

const accept = fc.constantFrom(
  undefined,
  'application/json',
  'application/yaml',
  '*/*',
  'text/html',
  'application/vnd.kubernetes.protobuf',
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
  'application/json;as=Table;v=v1beta1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
  'application/json;as=Nope;g=meta.k8s.io;v=v1',
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  ';;;,,,q=x',
);
const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/yaml',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/json-patch+json',
  'application/apply-patch+yaml',
  'application/vnd.kubernetes.protobuf',
  'text/plain',
  'application/json; charset=utf-8',
);
const authorization = fc.constantFrom('good', 'good', 'good', 'lower', 'bad', 'none', 'basic');

const kubeObject = fc.record(
  {
    apiVersion: fc.constantFrom('v1', 'apps/v1', 'bogus/v9'),
    kind: fc.constantFrom('ConfigMap', 'Secret', 'Deployment', 'Pod', 'Lease', 'Nope'),
    metadata: fc.record(
      {
        name: fc.constantFrom('settings', 'web', 'token', 'fuzzed', '..', 'UPPER', ''),
        namespace: fc.constantFrom('seed', 'fuzz', '..'),
        labels: fc.dictionary(junk, junk, { maxKeys: 3 }),
        resourceVersion: fc.constantFrom('1', '999999', 'x'),
        finalizers: fc.array(junk, { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
    data: fc.dictionary(junk, fc.oneof(junk, fc.integer(), fc.constant(null))),
    binaryData: fc.dictionary(junk, junk, { maxKeys: 2 }),
    spec: fc.jsonValue({ maxDepth: 3 }),
  },
  { requiredKeys: [] },
);
const jsonPatchOps = fc.array(
  fc.record({
    op: fc.constantFrom('add', 'remove', 'replace', 'copy', 'move', 'test', 'boom'),
    path: fc.constantFrom(
      '/data',
      '/data/k',
      '/metadata/labels',
      '/spec',
      '',
      '/metadata/name',
      '/x/y',
    ),
    from: fc.constantFrom('/data', '/metadata', '/spec', '/nope'),
    value: fc.jsonValue({ maxDepth: 2 }),
  }),
  { maxLength: 8 },
);
const aliasBomb = fc.integer({ min: 2, max: 9 }).map((n) => {
  const names = 'abcdefghij';
  const lines = [`a: &a [${Array(9).fill('"x"').join(',')}]`];
  for (let i = 1; i < n; i++)
    lines.push(
      `${names[i]}: &${names[i]} [${Array(9)
        .fill(`*${names[i - 1]}`)
        .join(',')}]`,
    );
  return lines.join('\n');
});
// DeleteOptions, and the options of other verbs, with each field of the
// right type or of a wrong one: a delete must decode them or refuse.
const confused = fc.oneof(
  fc.jsonValue({ maxDepth: 1 }),
  fc.constantFrom('All', ['All'], ['Al'], 0, -1, 1.5, 2 ** 63, true, 'Orphan', null),
);
const optionsBody = fc
  .record(
    {
      kind: fc.constantFrom('DeleteOptions', 'Pod', 7),
      apiVersion: fc.constantFrom('v1', 'meta.k8s.io/v1', []),
      gracePeriodSeconds: confused,
      preconditions: fc.oneof(confused, fc.record({ uid: confused, resourceVersion: confused })),
      orphanDependents: confused,
      propagationPolicy: fc.oneof(confused, fc.constantFrom('Foreground', 'Background')),
      dryRun: confused,
    },
    { requiredKeys: [] },
  )
  .map((o) => Buffer.from(JSON.stringify(o)));

const body: fc.Arbitrary<Buffer | undefined> = fc.oneof(
  { weight: 2, arbitrary: optionsBody },
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: kubeObject.map((o) => Buffer.from(JSON.stringify(o))) },
  { weight: 2, arbitrary: jsonPatchOps.map((o) => Buffer.from(JSON.stringify(o))) },
  {
    weight: 2,
    arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v))),
  },
  { weight: 1, arbitrary: aliasBomb.map((y) => Buffer.from(y)) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 400, max: 3_000 })
      .map((d) => Buffer.from(`${'['.repeat(d)}${']'.repeat(d)}`)),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)) },
);

const req: fc.Arbitrary<Req> = fc
  .record({
    method: fc.constantFrom(
      'GET',
      'GET',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
      'HEAD',
      'OPTIONS',
      'FROB',
    ),
    path: fc.oneof(
      { weight: 4, arbitrary: resourcePath },
      { weight: 2, arbitrary: freePath },
      { weight: 1, arbitrary: dotPath },
    ),
    query,
    accept,
    contentType,
    authorization,
    body,
  })
  .filter(
    // No legitimate write into the seed namespace, only attempts to reach it by mistake.
    (r) =>
      r.method === 'GET' ||
      r.method === 'HEAD' ||
      !r.path.split('/').includes('seed') ||
      r.path.includes('/../'),
  )
  .map((r) => {
    const headers: Record<string, string> = {};
    if (r.accept !== undefined) headers.accept = r.accept;
    if (r.contentType !== undefined) headers['content-type'] = r.contentType;
    const token = sandbox.token;
    if (r.authorization === 'good') headers.authorization = `Bearer ${token}`;
    if (r.authorization === 'lower') headers.authorization = `bearer ${token}`;
    if (r.authorization === 'bad') headers.authorization = 'Bearer nope';
    if (r.authorization === 'basic') headers.authorization = 'Basic dTpw';
    // Node's client cannot frame a HEAD with a body; nothing else is held back.
    const body = r.method === 'HEAD' ? undefined : r.body;
    // Node frames no body of a GET or DELETE by itself: say how long it is.
    if (body !== undefined) headers['content-length'] = String(body.length);
    return { method: r.method, path: `${r.path}${r.query}`, headers, body };
  });

/** Sends one request and takes what arrives within a short while (watches never end). */
function send(r: Req): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const http = request(
      {
        host: '127.0.0.1',
        port: sandbox.port,
        method: r.method,
        path: r.path,
        headers: r.headers,
        // One connection per request: what one leaves behind cannot confuse the next.
        agent: false,
      },
      (res) => {
        let text = '';
        const done = () => {
          clearTimeout(timer);
          http.destroy();
          resolve({ status: res.statusCode ?? 0, text });
        };
        const timer = setTimeout(done, 150);
        res.on('data', (d: Buffer) => {
          if (text.length < 4096) text += d.toString('utf8');
        });
        res.on('end', done);
        res.on('error', done);
      },
    );
    http.on('error', reject);
    http.end(r.body);
  });
}

// 5xx answers that are kube-apiserver's own, not crashes.
const etcdErrors = new Set([
  'etcdserver: request is too large',
  'etcdserver: mvcc: required revision is a future revision',
]);

describe('the fuzzer', () => {
  // The 3,000 requests take seconds alone and minutes on a machine busy with
  // every other suite, hence the long guard.
  it(
    `survives ${runs} generated requests with no unexplained 5xx and the seed untouched`,
    { timeout: 300_000 },
    async () => {
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(req, async (r) => {
          const answer = await send(r);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          const where = `${r.method} ${r.path} ${JSON.stringify(r.headers)} ${r.body?.toString('utf8').slice(0, 100) ?? ''} → ${answer.status} ${answer.text.slice(0, 300)}`;
          expect(answer.status, where).toBeGreaterThanOrEqual(200);
          if (answer.status >= 500) {
            // The Status comes as JSON, or as YAML when the request asked for it.
            let message = '';
            try {
              message = (parseYaml(answer.text) as { message?: string } | null)?.message ?? '';
            } catch {
              // not a Status
            }
            const injected = answer.status === 503 && /\/leases(\/|\?|$)/.test(r.path);
            const timeoutTooLarge =
              answer.status === 504 && message.startsWith('Timeout: Too large resource version');
            expect(injected || timeoutTooLarge || etcdErrors.has(message), where).toBe(true);
          }
        }),
        { numRuns: runs },
      );
      // Still serving, and the seeded objects are exactly as they were.
      expect(
        (await send({ method: 'GET', path: '/healthz', headers: {}, body: undefined })).status,
      ).toBe(200);
      expect(await seedSnapshot()).toBe(seeded);
      // The requests did reach the API: successes and refusals alike.
      expect([...statuses.keys()].some((s) => s >= 200 && s < 300)).toBe(true);
      expect([...statuses.keys()].some((s) => s >= 400 && s < 500)).toBe(true);
    },
  );
});
