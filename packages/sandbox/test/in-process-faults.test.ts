// The fault lab, seen from the in-process clients that ask for it: the same
// faults as over HTTP, on the sandbox's fake clock.
import {
  FakeClock,
  isConflict,
  isStatusError,
  type KubeObject,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import { SharedIndexInformer } from '@kcm-ts/informer';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';

const epoch = Date.UTC(2026, 0, 2, 3, 4, 5);
const running: Sandbox[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

async function sandbox(): Promise<{ s: Sandbox; clock: FakeClock }> {
  const clock = new FakeClock(epoch);
  const s = await startSandbox({ insecureHttp: true, clock });
  running.push(s);
  return { s, clock };
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

const nameOf = (o: unknown): string =>
  (o as { metadata?: { name?: string } } | undefined)?.metadata?.name ?? '';

/** Collects a watch's events until it ends. */
function collect(events: AsyncIterable<WatchEvent<KubeObject>>): {
  seen: string[];
  ended: Promise<void>;
} {
  const seen: string[] = [];
  const ended = (async () => {
    for await (const e of events) seen.push(`${e.type} ${nameOf(e.object)}`);
  })();
  return { seen, ended };
}

describe('an in-process client with faults', () => {
  it('meets planned failures and is counted; a plain client meets neither', async () => {
    const { s } = await sandbox();
    const faulty = s.client<ConfigMap>('', 'configmaps', { faults: true }).inNamespace('default');
    const plain = s.client<ConfigMap>('', 'configmaps').inNamespace('default');
    s.faults.failNext(1, { code: 503 }, { verbs: ['list'], resource: 'configmaps' });
    expect((await plain.list()).items).toEqual([]);
    const err: unknown = await faulty.list().catch((e: unknown) => e);
    expect(isStatusError(err) && err.code).toBe(503);
    expect((await faulty.list()).items).toEqual([]);
    expect(s.faults.counts()).toEqual({ 'list configmaps': 2 });
  });

  it('answers 429 with details.retryAfterSeconds, and 409 to writes under conflictNext', async () => {
    const { s } = await sandbox();
    const faulty = s.client<ConfigMap>('', 'configmaps', { faults: true }).inNamespace('default');
    s.faults.failNext(1, { code: 429, retryAfterSeconds: 7 }, { verbs: ['create'] });
    const throttled: unknown = await faulty.create({ metadata: { name: 'a' } }).catch((e) => e);
    expect(isStatusError(throttled) && throttled.code).toBe(429);
    expect(isStatusError(throttled) && throttled.details?.retryAfterSeconds).toBe(7);
    const created = await faulty.create({ metadata: { name: 'a' }, data: { v: '1' } });
    s.faults.conflictNext(1);
    const conflict: unknown = await faulty
      .update({ ...created, data: { v: '2' } })
      .catch((e: unknown) => e);
    expect(isConflict(conflict)).toBe(true);
    expect((await faulty.update({ ...created, data: { v: '2' } })).data).toEqual({ v: '2' });
  });

  it('waits out latency on the fake clock', async () => {
    const { s, clock } = await sandbox();
    const faulty = s.client<ConfigMap>('', 'configmaps', { faults: true }).inNamespace('default');
    s.faults.latency(5_000, { verbs: ['get'] });
    await s
      .client('', 'configmaps')
      .inNamespace('default')
      .create({ metadata: { name: 'a' } });
    let answered = false;
    const got = faulty.get('a').then((cm) => {
      answered = true;
      return cm;
    });
    await clock.advance(4_999);
    await tick();
    expect(answered).toBe(false);
    await clock.advance(1);
    expect((await got).metadata?.name).toBe('a');
  });

  it('fails a watch before it starts, and ends open watches when they are dropped', async () => {
    const { s } = await sandbox();
    const faulty = s.client('', 'configmaps', { faults: true }).inNamespace('default');
    s.faults.failNext(1, { code: 500 }, { verbs: ['watch'] });
    const refused: unknown = await faulty.watch().catch((e: unknown) => e);
    expect(isStatusError(refused) && refused.code).toBe(500);

    const w = collect(await faulty.watch({ resourceVersion: '0' }));
    await s
      .client('', 'configmaps')
      .inNamespace('default')
      .create({ metadata: { name: 'a' } });
    await tick();
    expect(s.faults.openWatches()).toBe(1);
    expect(s.faults.dropWatches('configmaps')).toBe(1);
    await w.ended;
    expect(w.seen).toEqual(['ADDED a']);
    expect(s.faults.openWatches()).toBe(0);
  });

  it('hangs watches: silent, open past their timeout, until released', async () => {
    const { s, clock } = await sandbox();
    const faulty = s.client('', 'configmaps', { faults: true }).inNamespace('default');
    const plain = s.client('', 'configmaps').inNamespace('default');
    s.faults.hangWatches('configmaps');
    const w = collect(await faulty.watch({ timeoutSeconds: 10 }));
    await plain.create({ metadata: { name: 'a' } });
    await clock.advance(60_000);
    await tick();
    expect(w.seen).toEqual([]);
    expect(s.faults.openWatches()).toBe(1);
    s.faults.releaseWatches();
    await w.ended;
    expect(s.faults.openWatches()).toBe(0);
  });

  it('lets an abort end a hung watch', async () => {
    const { s } = await sandbox();
    const faulty = s.client('', 'configmaps', { faults: true });
    s.faults.hangWatches();
    const abort = new AbortController();
    const w = collect(await faulty.watch({ signal: abort.signal }));
    await tick();
    abort.abort();
    await w.ended;
    expect(s.faults.openWatches()).toBe(0);
  });

  it('carries its faults to inNamespace and to metadata clients', async () => {
    const { s } = await sandbox();
    s.faults.failNext(2, { code: 500 }, { verbs: ['get'] });
    const scoped = s.client('', 'configmaps', { faults: true }).inNamespace('default');
    const meta = s.metadataClient('', 'configmaps', { faults: true }).inNamespace('default');
    for (const c of [scoped, meta]) {
      const err: unknown = await c.get('missing').catch((e: unknown) => e);
      expect(isStatusError(err) && err.code).toBe(500);
    }
    expect(s.faults.counts()).toEqual({ 'get configmaps': 2 });
  });
});

describe('an informer through faults, on the fake clock', () => {
  it('backs off from failed lists and watches, then converges', async () => {
    const { s, clock } = await sandbox();
    const plain = s.client<ConfigMap>('', 'configmaps').inNamespace('default');
    await plain.create({ metadata: { name: 'a' }, data: { v: '1' } });
    s.faults.failNext(2, { code: 503 }, { verbs: ['list'] });
    const informer = new SharedIndexInformer<ConfigMap>(
      s.client<ConfigMap>('', 'configmaps', { faults: true }).inNamespace('default'),
      { clock },
    );
    informer.setWatchErrorHandler(() => {}); // the faults are on purpose
    const abort = new AbortController();
    const run = informer.run(abort.signal);
    const until = async (what: string, done: () => boolean): Promise<void> => {
      for (let i = 0; i < 200 && !done(); i++) {
        await clock.advance(1_000);
        await tick();
      }
      if (!done()) throw new Error(`never: ${what}`);
    };
    await until('synced', () => informer.hasSynced());
    expect(s.faults.counts()['list configmaps']).toBe(3);

    s.faults.failNext(2, { code: 500 }, { verbs: ['watch'] });
    s.faults.dropWatches();
    await plain.patch('a', { type: 'merge', body: { data: { v: '2' } } });
    await plain.create({ metadata: { name: 'b' } });
    const cached = (name: string) => informer.getStore().getByKey(`default/${name}`);
    await until('caught up', () => cached('a')?.data?.v === '2' && cached('b') !== undefined);
    // Both failed watches were met: the first, the two refused, and a live one.
    await until('watching again', () => s.faults.openWatches() === 1);
    expect(s.faults.counts()['watch configmaps']).toBeGreaterThanOrEqual(4);
    abort.abort();
    await run;
    expect(s.faults.openWatches()).toBe(0);
  });
});
