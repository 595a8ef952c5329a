// Property tests of the watch contract: random writes interleaved with
// watchers that start, reconnect from the last version they saw, and filter
// by label. Whatever the interleaving, each watcher's stream is exactly the
// history after its starting version, as its selector sees it; and once that
// version is compacted, a relist gives exactly the live objects.
import fc from 'fast-check';
import {
  isNotFound,
  isAlreadyExists,
  isStatus,
  StatusError,
  isResourceExpired,
} from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import type { Watch } from '../src/index.js';
import { configMap, newRegistry } from './helpers.js';

const NAMES = ['a', 'b', 'c', 'd'];
const TIERS = ['web', 'db'];

type Op =
  | { op: 'create' | 'update'; name: string; tier: string; value: number }
  | { op: 'delete'; name: string }
  | { op: 'watch'; from: number; selector: boolean }
  | { op: 'reconnect'; watcher: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constantFrom('create' as const, 'update' as const),
      name: fc.constantFrom(...NAMES),
      tier: fc.constantFrom(...TIERS),
      value: fc.nat(9),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('delete' as const), name: fc.constantFrom(...NAMES) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('watch' as const),
      from: fc.nat(),
      selector: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('reconnect' as const), watcher: fc.nat() }) },
);

/** One committed write: what the object was before and after (undefined: absent). */
interface Change {
  rv: number;
  name: string;
  before: string | undefined; // tier label before
  after: string | undefined; // tier label after
}

/** What a watch from `rv`, seeing only `tier=web` if `selector`, must deliver. */
function expected(log: Change[], rv: number, selector: boolean): string[] {
  const sees = (tier: string | undefined) => tier !== undefined && (!selector || tier === 'web');
  const out: string[] = [];
  for (const c of log) {
    if (c.rv <= rv) continue;
    const was = sees(c.before);
    const is = sees(c.after);
    if (was && is) out.push(`MODIFIED ${c.name} ${c.rv}`);
    else if (is) out.push(`ADDED ${c.name} ${c.rv}`);
    else if (was) out.push(`DELETED ${c.name} ${c.rv}`);
  }
  return out;
}

/** The events a stopped watch still holds. */
async function rest(watch: Watch): Promise<string[]> {
  const out: string[] = [];
  for await (const e of watch) {
    if (e.type === 'ERROR')
      throw isStatus(e.object) ? StatusError.fromStatus(e.object) : new Error('ERROR event');
    const meta = e.object.metadata;
    out.push(`${e.type} ${meta?.name ?? ''} ${meta?.resourceVersion ?? ''}`);
  }
  return out;
}

describe('watch', () => {
  it('delivers exactly the history after the start version, across reconnects and selector transitions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), async (ops) => {
        const { registry } = newRegistry();
        const cms = registry.resource('', 'configmaps');
        const first = registry.storage.currentRevision();
        const log: Change[] = [];
        const live = new Map<string, string>(); // name → tier
        const watchers: { from: number; selector: boolean; seen: string[]; watch: Watch }[] = [];
        const open = (from: number, selector: boolean) =>
          registry.watch(cms, 'default', {
            resourceVersion: String(from),
            ...(selector ? { labelSelector: 'tier=web' } : {}),
          });

        for (const o of ops) {
          if (o.op === 'watch') {
            // Any version from just before the first write to now.
            const now = registry.storage.currentRevision();
            const from = first + (o.from % (now - first + 1));
            watchers.push({ from, selector: o.selector, seen: [], watch: open(from, o.selector) });
          } else if (o.op === 'reconnect') {
            const w = watchers[o.watcher % Math.max(1, watchers.length)];
            if (!w) continue;
            w.watch.stop();
            w.seen.push(...(await rest(w.watch)));
            // Resume from the last version seen, as a reflector does.
            const last = w.seen.at(-1)?.split(' ')[2];
            w.watch = open(last ? Number(last) : w.from, w.selector);
          } else {
            const before = live.get(o.name);
            try {
              if (o.op === 'delete') {
                registry.delete(cms, 'default', o.name);
                live.delete(o.name);
              } else {
                const body = configMap(o.name, { v: String(o.value) }, { tier: o.tier });
                if (o.op === 'create') registry.create(cms, 'default', body);
                else {
                  const cur = registry.get(cms, 'default', o.name);
                  registry.update(cms, 'default', o.name, {
                    ...body,
                    metadata: { ...body.metadata, resourceVersion: cur.metadata?.resourceVersion },
                  });
                }
                live.set(o.name, o.tier);
              }
            } catch (err) {
              if (isNotFound(err) || isAlreadyExists(err)) continue;
              throw err;
            }
            const rv = registry.storage.currentRevision();
            // An update that changes nothing commits nothing.
            if (rv > (log.at(-1)?.rv ?? first))
              log.push({ rv, name: o.name, before, after: live.get(o.name) });
          }
        }
        for (const w of watchers) {
          w.watch.stop();
          w.seen.push(...(await rest(w.watch)));
          expect(w.seen).toEqual(expected(log, w.from, w.selector));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a compacted version with 410 Expired, and a relist then gives exactly the live objects', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...NAMES), fc.boolean(), fc.nat(9)), {
          minLength: 1,
          maxLength: 40,
        }),
        fc.integer({ min: 1, max: 8 }),
        async (writes, window) => {
          const { registry } = newRegistry({ historyWindow: window });
          const cms = registry.resource('', 'configmaps');
          const start = registry.storage.currentRevision();
          const live = new Map<string, string>();
          for (const [name, del, v] of writes) {
            try {
              if (del) {
                registry.delete(cms, 'default', name);
                live.delete(name);
              } else if (live.has(name)) {
                const cur = registry.get(cms, 'default', name);
                registry.update(cms, 'default', name, {
                  ...configMap(name, { v: String(v) }),
                  metadata: { name, resourceVersion: cur.metadata?.resourceVersion },
                });
                live.set(name, String(v));
              } else {
                registry.create(cms, 'default', configMap(name, { v: String(v) }));
                live.set(name, String(v));
              }
            } catch (err) {
              if (!isNotFound(err)) throw err;
            }
          }
          const compacted = registry.storage.compactedRevision();
          const watch = registry.watch(cms, 'default', { resourceVersion: String(start) });
          watch.stop();
          if (start < compacted) {
            const err = await rest(watch).catch((e: unknown) => e);
            expect(isResourceExpired(err)).toBe(true);
          } else {
            await rest(watch);
          }
          const list = registry.list(cms, 'default');
          expect(
            Object.fromEntries(
              list.items.map((o) => [
                o.metadata?.name,
                (o as { data?: Record<string, string> }).data?.v,
              ]),
            ),
          ).toEqual(Object.fromEntries([...live].sort(([x], [y]) => (x < y ? -1 : 1))));
          expect(list.metadata.resourceVersion).toBe(String(registry.storage.currentRevision()));
        },
      ),
      { numRuns: 200 },
    );
  });
});
