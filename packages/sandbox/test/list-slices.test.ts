// A long list is written a slice at a time: the bytes are the ones the
// whole answer encoded at once would be, in every form (JSON, indented JSON,
// YAML, Table, PartialObjectMetadataList), other clients are answered while
// it is written, and a client that leaves halfway costs nothing. Selectors
// are compiled, so a long one answers as the short form of the same does.
import fc from 'fast-check';
import { parseFieldSelector, parseSelector } from '@kcm-ts/apimachinery';
import type { KubeObject } from '@kcm-ts/apimachinery';
import { Writable } from 'node:stream';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import {
  compileFieldSelector,
  compileLabelSelector,
  compileSelectors,
  compileSelectorsNow,
} from '../src/apiserver/registry/compiled-selector.js';
import { sendListInSlices, sliceListsLongerThan } from '../src/apiserver/handlers/list-writer.js';
import { listParts } from '../src/apiserver/response.js';
import { call, watchLines } from './http-helpers.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const count = 3 * sliceListsLongerThan + 7;

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ insecureHttp: true });
  const cms = sandbox.client('', 'configmaps').inNamespace('default');
  for (let i = 0; i < count; i++) {
    await cms.create({
      metadata: { name: `cm-${String(i).padStart(4, '0')}`, labels: { i: String(i % 7) } },
      data: { text: 'line\nnext "quoted"', n: String(i) },
    } as KubeObject);
  }
});

afterAll(async () => {
  await sandbox.stop();
});

describe('a long list, written in slices', () => {
  it('writes the bytes JSON.stringify would, compact and indented', async () => {
    const compact = await call(sandbox, 'GET', CMS);
    expect(compact.status).toBe(200);
    expect(compact.headers['content-length']).toBeUndefined();
    const list = compact.json();
    expect(list.items).toHaveLength(count);
    expect(list.items[0].metadata.name).toBe('cm-0000');
    expect(Object.keys(list)).toEqual(['apiVersion', 'kind', 'metadata', 'items']);
    expect(compact.text).toBe(JSON.stringify(list));
    const pretty = await call(sandbox, 'GET', `${CMS}?pretty=true`);
    expect(pretty.text).toBe(`${JSON.stringify(list, null, 2)}\n`);
  });

  it('writes the YAML the one-shot writer would', async () => {
    const res = await call(sandbox, 'GET', CMS, { headers: { accept: 'application/yaml' } });
    expect(res.headers['content-type']).toBe('application/yaml');
    const value = parseYaml(res.text) as { items: unknown[] };
    expect(value.items).toHaveLength(count);
    expect(res.text).toBe(stringifyYaml(value, { sortMapEntries: true, indentSeq: false }));
  });

  it('converts each slice as the whole: a Table, and PartialObjectMetadataList', async () => {
    const table = await call(sandbox, 'GET', CMS, {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    const t = table.json();
    expect(t.kind).toBe('Table');
    expect(t.columnDefinitions.map((c: { name: string }) => c.name)).toEqual([
      'Name',
      'Data',
      'Age',
    ]);
    expect(t.rows).toHaveLength(count);
    expect(t.rows[count - 1].cells[0]).toBe(`cm-${String(count - 1).padStart(4, '0')}`);
    expect(t.rows[5].object.kind).toBe('PartialObjectMetadata');
    expect(table.text).toBe(JSON.stringify(t));
    const partial = await call(sandbox, 'GET', CMS, {
      headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' },
    });
    const p = partial.json();
    expect(p.kind).toBe('PartialObjectMetadataList');
    expect(p.items).toHaveLength(count);
    expect(p.items[3]).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: expect.objectContaining({ name: 'cm-0003' }),
    });
  });

  it('yields to the event loop between slices, and waits while the client is behind', async () => {
    const list = sandbox.registry.list(
      sandbox.registry.resource('', 'configmaps'),
      'default',
      {},
      { shared: true },
    );
    const parts = listParts(list, undefined, {
      resource: 'configmaps',
      group: '',
      now: 0,
      includeObject: 'Metadata',
    });
    // A client that takes each write only when told to.
    const pending: (() => void)[] = [];
    const written: string[] = [];
    const res = Object.assign(
      new Writable({
        highWaterMark: 1024,
        write(chunk: Buffer, _enc, done) {
          written.push(chunk.toString());
          pending.push(done);
        },
      }),
      { writeHead: () => res },
    );
    let turns = 0;
    const tick = () => {
      turns++;
      if (!finished) setImmediate(tick);
    };
    let finished = false;
    setImmediate(tick);
    const writing = sendListInSlices(
      res as never,
      parts,
      { contentType: 'application/json' },
      { sliceBudgetMs: 0 },
    ).then(() => (finished = true));
    // The first slice is written; the writer waits for it to be taken.
    await new Promise((r) => setTimeout(r, 20));
    expect(written).toHaveLength(1);
    expect(finished).toBe(false);
    while (!finished) {
      pending.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await writing;
    expect(written.length).toBeGreaterThan(count / 32 - 1);
    expect(turns).toBeGreaterThan(written.length / 2);
    expect(written.join('')).toBe(JSON.stringify(list));
  });

  it('sends the initial events of a large watch in batches, every one, in order', async () => {
    const { status, lines } = await watchLines(
      sandbox,
      `${CMS}?watch=true&resourceVersion=0`,
      count,
    );
    expect(status).toBe(200);
    expect(lines.map((l) => l.type)).toEqual(Array(count).fill('ADDED'));
    expect(lines.map((l) => l.object.metadata.name)).toEqual(
      Array.from({ length: count }, (_, i) => `cm-${String(i).padStart(4, '0')}`),
    );
  });

  it('stops writing for a client that leaves, and serves on', async () => {
    await new Promise<void>((resolve) => {
      const req = request(
        new URL(`${CMS}?pretty=true`, sandbox.url),
        { headers: { authorization: `Bearer ${sandbox.token}` } },
        (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', () => {});
      req.end();
    });
    expect((await call(sandbox, 'GET', `${CMS}/cm-0002`)).status).toBe(200);
  });

  it('keeps a short list in one write with its length', async () => {
    const res = await call(sandbox, 'GET', `${CMS}?labelSelector=i%3D3&limit=10`);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
    expect(res.json().items).toHaveLength(10);
  });
});

describe('compiled selectors', () => {
  const key = fc.constantFrom('a', 'b', 'c', 'n');
  const value = fc.constantFrom('x', 'y', '1', '7', '');
  const term = fc.oneof(
    fc
      .tuple(
        key,
        fc.constantFrom('=', '==', '!='),
        value.filter((v) => v !== ''),
      )
      .map(([k, op, v]) => `${k}${op}${v}`),
    fc
      .tuple(
        key,
        fc.constantFrom('in', 'notin'),
        fc.uniqueArray(
          value.filter((v) => v !== ''),
          { minLength: 1, maxLength: 3 },
        ),
      )
      .map(([k, op, vs]) => `${k} ${op} (${vs.join(',')})`),
    key,
    key.map((k) => `!${k}`),
    fc
      .tuple(key, fc.constantFrom('>', '<'), fc.integer({ min: 0, max: 9 }))
      .map(([k, op, n]) => `${k}${op}${n}`),
  );
  const labels = fc.dictionary(key, fc.constantFrom('x', 'y', '1', '7', '-3', '', '08'), {
    maxKeys: 4,
  });

  it('answers as the selector does, for any labels (property)', () => {
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 8 }), labels, (terms, set) => {
        const selector = parseSelector(terms.join(','));
        expect(compileLabelSelector(selector)(set)).toBe(selector.matches(set));
      }),
      { numRuns: 500 },
    );
  });

  it('answers as the field selector does (property)', () => {
    const field = fc.constantFrom('metadata.name', 'status.phase');
    const fterm = fc
      .tuple(field, fc.constantFrom('=', '!=', '=='), value)
      .map(([f, op, v]) => `${f}${op}${v}`);
    fc.assert(
      fc.property(
        fc.array(fterm, { minLength: 1, maxLength: 6 }),
        fc.dictionary(field, value, { maxKeys: 2 }),
        (terms, fields) => {
          const selector = parseFieldSelector(terms.join(','));
          expect(compileFieldSelector(selector)(fields)).toBe(selector.matches(fields));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads only labels the object has: constructor is a label like any other', () => {
    const own = JSON.parse('{"__proto__":"x","constructor":"y"}') as Record<string, string>;
    expect(compileLabelSelector(parseSelector('constructor=y,!toString'))(own)).toBe(true);
    expect(compileLabelSelector(parseSelector('constructor'))({})).toBe(false);
    expect(compileLabelSelector(parseSelector('!hasOwnProperty,!valueOf'))({})).toBe(true);
  });

  it('reads a long selector a slice at a time, with the answers and errors of reading it at once', async () => {
    const selectable = new Set(['metadata.name', 'metadata.namespace', 'status.phase']);
    let pauses = 0;
    const pause = async () => {
      pauses++;
      await new Promise((r) => setImmediate(r));
    };
    const terms = Array.from({ length: 5_000 }, (_, i) => `!k${i}`).join(',');
    const sliced = await compileSelectors(
      { labelSelector: `${terms},a=x`, fieldSelector: 'metadata.name!=b,status.phase=Running' },
      selectable,
      pause,
      0,
    );
    expect(pauses).toBeGreaterThan(5);
    expect(sliced.labels?.({ a: 'x' })).toBe(true);
    expect(sliced.labels?.({ a: 'x', k4999: '' })).toBe(false);
    expect(sliced.fields?.({ 'metadata.name': 'a', 'status.phase': 'Running' })).toBe(true);
    expect(sliced.fields?.({ 'metadata.name': 'b', 'status.phase': 'Running' })).toBe(false);
    const errorOf = async (f: () => unknown) => {
      try {
        await f();
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    };
    for (const opts of [
      { labelSelector: `${terms},a==,(` },
      { labelSelector: 'x in (a' },
      { fieldSelector: 'spec.x=1,metadata.name=a,spec.a=2' },
      { fieldSelector: 'a,b\\q=1' },
    ]) {
      const now = await errorOf(() => compileSelectorsNow(opts, selectable));
      expect(now).toBeDefined();
      expect(await errorOf(() => compileSelectors(opts, selectable, pause, 0))).toBe(now);
    }
  });

  it('answers a selector of five thousand terms as its meaning', async () => {
    const terms = Array.from({ length: 5_000 }, (_, i) => `!k${i}`).join(',');
    const res = await call(
      sandbox,
      'GET',
      `${CMS}?labelSelector=${encodeURIComponent(`${terms},i=2`)}`,
    );
    expect(res.status).toBe(200);
    const short = await call(sandbox, 'GET', `${CMS}?labelSelector=i%3D2`);
    expect(res.json().items.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual(
      short.json().items.map((o: { metadata: { name: string } }) => o.metadata.name),
    );
  });
});
