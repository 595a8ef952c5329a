// One test per fault of the sandbox's fault lab: an informer started before
// the fault converges to exactly the server's state afterwards, its handler
// saw a consistent story (no add of a known object, no update of an unknown
// one, no lost delete), and it made a bounded number of requests. Then the
// same as a property, over random writes and random faults.
import type { ResourceClient } from '@kcm-ts/apimachinery';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startLab, type Lab } from './03-fault-lab.js';

let sandbox: Sandbox;
let n = 0;
beforeAll(async () => {
  sandbox = await startSandbox({ insecureHttp: true });
});
afterAll(async () => {
  await sandbox.stop();
});

/** A fresh namespace with two configmaps, and a synced informer on it. */
async function lab(): Promise<Lab & { cms: ResourceClient<ConfigMap> }> {
  const namespace = `lab-${++n}`;
  sandbox.faults.clear();
  await sandbox.client('', 'namespaces').create({ metadata: { name: namespace } });
  const cms = sandbox.client<ConfigMap>('', 'configmaps').inNamespace(namespace);
  await cms.create({ metadata: { name: 'a' }, data: { v: '1' } });
  await cms.create({ metadata: { name: 'b' }, data: { v: '1' } });
  const l = await startLab(sandbox, namespace);
  sandbox.faults.resetCounts();
  return { ...l, cms };
}

/** Converges, checks the story and the request counts, and stops the informer. */
async function check(l: Lab, maxLists: number, maxWatches: number): Promise<void> {
  sandbox.faults.clear();
  await l.converge();
  expect(l.mirror.problems).toEqual([]);
  expect(l.informer.getStore().list().length).toBe(l.live().length);
  const counts = sandbox.faults.counts();
  expect(counts['list configmaps'] ?? 0).toBeLessThanOrEqual(maxLists);
  expect(counts['watch configmaps'] ?? 0).toBeLessThanOrEqual(maxWatches);
  await l.stop();
  // Stopped means stopped: the server soon has no watch of this informer open.
  for (let i = 0; i < 100 && sandbox.faults.openWatches() > 0; i++) {
    await new Promise((r) => setTimeout(r, 2));
  }
  expect(sandbox.faults.openWatches()).toBe(0);
}

const patch = (v: string) => ({ type: 'merge' as const, body: { data: { v } } });

describe('an informer through each fault', () => {
  it('dropped watches: resumes, without losing what changed', async () => {
    const l = await lab();
    await l.cms.patch('a', patch('2'));
    sandbox.faults.dropWatches('configmaps');
    await l.cms.delete('b');
    await check(l, 1, 2);
    expect(l.mirror.log.slice(-2)).toEqual([expect.stringMatching(/^update a=2/), 'delete b']);
  });

  it('a hung watch: sees nothing until it is released, then catches up', async () => {
    const l = await lab();
    sandbox.faults.hangWatches('configmaps');
    sandbox.faults.dropWatches('configmaps'); // the informer's next watch hangs
    await l.clock.advance(2000);
    await l.cms.patch('a', patch('2'));
    await l.cms.create({ metadata: { name: 'c' }, data: { v: '1' } });
    await new Promise((r) => setTimeout(r, 20));
    expect(l.informer.getStore().getByKey(`${l.namespace}/c`)).toBeUndefined();
    sandbox.faults.releaseWatches();
    await check(l, 2, 3);
  });

  it('500s and 503s on list and watch: backs off and recovers, no storm', async () => {
    const l = await lab();
    sandbox.faults.failNext(2, { code: 500 }, { verbs: ['watch'] });
    sandbox.faults.failNext(2, { code: 503 }, { verbs: ['list'] });
    sandbox.faults.dropWatches();
    await l.cms.patch('b', patch('3'));
    await check(l, 4, 5);
  });

  it('429 with Retry-After on watch: waits and re-watches without relisting', async () => {
    const l = await lab();
    await l.cms.patch('a', patch('2')); // an event, so the dropped watch was not "very short"
    await new Promise((r) => setTimeout(r, 20));
    sandbox.faults.failNext(3, { code: 429, retryAfterSeconds: 5 }, { verbs: ['watch'] });
    sandbox.faults.dropWatches();
    await l.cms.delete('a');
    await check(l, 0, 5);
  });

  it('latency: every answer late, the cache still right', async () => {
    const l = await lab();
    sandbox.faults.latency(100, { verbs: ['watch', 'list'] });
    sandbox.faults.dropWatches();
    await l.cms.patch('a', patch('4'));
    await l.cms.delete('b');
    await check(l, 1, 2);
  });

  it('compaction: the resume gets 410, the relist hands over a tombstone for the lost delete', async () => {
    const l = await lab();
    sandbox.faults.hangWatches('configmaps');
    sandbox.faults.dropWatches('configmaps');
    await l.clock.advance(2000);
    await l.cms.delete('b');
    sandbox.faults.compact();
    sandbox.faults.releaseWatches();
    await check(l, 2, 3);
    expect(l.mirror.log).toContain('delete b (tombstone: missed while disconnected)');
  });

  it('a restart with writes while down: relists and converges', async () => {
    const l = await lab();
    await sandbox.restart(async () => {
      await l.cms.patch('a', patch('9'));
      await l.cms.create({ metadata: { name: 'c' }, data: { v: '1' } });
    });
    await check(l, 2, 3);
  });
});

describe('the chapter experiment', () => {
  it('shows the missed delete arriving as a tombstone after a restart', async () => {
    const lines: string[] = [];
    await run((line) => lines.push(line));
    expect(lines).toContain('handler: delete doomed (tombstone: missed while disconnected)');
    const server = lines
      .find((l) => l.startsWith('server:'))
      ?.slice('server:'.length)
      .trim();
    const cache = lines
      .find((l) => l.startsWith('cache:'))
      ?.slice('cache:'.length)
      .trim();
    expect(cache).toBe(server);
    await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/03-fault-lab.txt');
  });
});

const opArb = fc.oneof(
  {
    arbitrary: fc.record({
      op: fc.constant('put' as const),
      name: fc.constantFrom('a', 'b', 'c'),
      v: fc.nat(9),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      op: fc.constant('delete' as const),
      name: fc.constantFrom('a', 'b', 'c'),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.constantFrom(
      { op: 'drop' as const },
      { op: 'compact' as const },
      { op: 'fail500' as const },
      { op: 'fail429' as const },
      { op: 'hang' as const },
      { op: 'release' as const },
      { op: 'restart' as const },
    ),
    weight: 3,
  },
);

describe('an informer through random writes and faults (property)', () => {
  it('always converges to the server, with a consistent story', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 8 }), async (ops) => {
        const l = await lab();
        let faults = 0;
        for (const op of ops) {
          switch (op.op) {
            case 'put': {
              const exists = await l.cms.get(op.name).then(
                () => true,
                () => false,
              );
              if (exists) await l.cms.patch(op.name, patch(String(op.v)));
              else await l.cms.create({ metadata: { name: op.name }, data: { v: String(op.v) } });
              break;
            }
            case 'delete':
              await l.cms.delete(op.name).catch(() => undefined);
              break;
            case 'drop':
              sandbox.faults.dropWatches();
              faults++;
              break;
            case 'compact':
              sandbox.faults.compact();
              sandbox.faults.dropWatches();
              faults++;
              break;
            case 'fail500':
              sandbox.faults.failNext(1, { code: 500 }, { verbs: ['list', 'watch'] });
              sandbox.faults.dropWatches();
              faults++;
              break;
            case 'fail429':
              sandbox.faults.failNext(1, { code: 429, retryAfterSeconds: 2 }, { verbs: ['watch'] });
              sandbox.faults.dropWatches();
              faults++;
              break;
            case 'hang':
              sandbox.faults.hangWatches();
              sandbox.faults.dropWatches();
              faults++;
              break;
            case 'release':
              sandbox.faults.releaseWatches();
              break;
            case 'restart':
              await sandbox.restart();
              faults++;
              break;
          }
          await l.clock.advance(500);
        }
        await check(l, faults + 1, 2 * faults + 2);
      }),
      { numRuns: 200 },
    );
  });
});
