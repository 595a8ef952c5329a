import { getEventListeners } from 'node:events';
import { initialEventsEndAnnotation } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { inProcessClient } from '../src/index.js';
import { configMap, drain, newRegistry, summary } from './helpers.js';

describe('watch', () => {
  it('starts with ADDED for every matching object when no resourceVersion is given, then streams changes', async () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    registry.create(cms, 'default', configMap('a'));
    registry.create(cms, 'default', configMap('b'));
    const watch = registry.watch(cms, 'default', {});
    registry.update(cms, 'default', 'a', configMap('a', { k: 'v' }));
    registry.delete(cms, 'default', 'b');
    const events = await drain(watch, 4);
    const rv = registry.storage.currentRevision();
    expect(summary(events)).toEqual([
      `ADDED a@${rv - 3}`,
      `ADDED b@${rv - 2}`,
      `MODIFIED a@${rv - 1}`,
      `DELETED b@${rv}`,
    ]);
    watch.stop();
  });

  it('replays from a list resourceVersion and reports 410 Expired once the history is compacted', async () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    const rv = registry.list(cms, 'default').metadata.resourceVersion ?? '';
    registry.create(cms, 'default', configMap('a'));
    registry.create(cms, 'default', configMap('b'));
    const replay = registry.watch(cms, 'default', { resourceVersion: rv });
    expect(summary(await drain(replay, 2)).map((s) => s.split('@')[0])).toEqual([
      'ADDED a',
      'ADDED b',
    ]);
    replay.stop();

    registry.storage.compact();
    const expired = registry.watch(cms, 'default', { resourceVersion: rv });
    const events = await drain(expired, 5);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'ERROR',
      object: {
        kind: 'Status',
        code: 410,
        reason: 'Expired',
        message: `too old resource version: ${rv} (${registry.storage.currentRevision()})`,
      },
    });
  });

  it('compacts on its own once the history window is full', async () => {
    const { registry } = newRegistry({ historyWindow: 3 });
    const cms = registry.resource('', 'configmaps');
    const rv = registry.storage.currentRevision();
    for (const name of ['a', 'b', 'c', 'd']) registry.create(cms, 'default', configMap(name));
    const events = await drain(registry.watch(cms, 'default', { resourceVersion: String(rv) }), 1);
    expect(events[0]?.type).toBe('ERROR');
    const recent = registry.watch(cms, 'default', { resourceVersion: String(rv + 1) });
    expect(summary(await drain(recent, 3)).map((s) => s.split('@')[0])).toEqual([
      'ADDED b',
      'ADDED c',
      'ADDED d',
    ]);
    recent.stop();
  });

  it('turns objects entering or leaving a selector into ADDED and DELETED', async () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    registry.create(cms, 'default', configMap('a', {}, { tier: 'db' }));
    const watch = registry.watch(cms, 'default', {
      labelSelector: 'tier=web',
      resourceVersion: String(registry.storage.currentRevision()),
    });
    const a = registry.update(cms, 'default', 'a', configMap('a', {}, { tier: 'web' })).object;
    registry.update(cms, 'default', 'a', configMap('a', { k: 'v' }, { tier: 'web' }));
    registry.update(cms, 'default', 'a', configMap('a', { k: 'v' }, { tier: 'db' }));
    registry.create(cms, 'default', configMap('ignored', {}, { tier: 'db' }));
    registry.delete(cms, 'default', 'ignored');
    const rv = registry.storage.currentRevision();
    const events = await drain(watch, 3);
    expect(summary(events)).toEqual([
      `ADDED a@${a.metadata?.resourceVersion}`,
      `MODIFIED a@${rv - 3}`,
      `DELETED a@${rv - 2}`,
    ]);
    const gone = events[2];
    expect(gone?.type === 'DELETED' && gone.object.metadata?.labels).toEqual({ tier: 'web' });
    watch.stop();
  });

  it('sends bookmarks on the clock when asked, and ends at timeoutSeconds', async () => {
    const { registry, clock } = newRegistry({ bookmarkInterval: 1000 });
    const cms = registry.resource('', 'configmaps');
    const watch = registry.watch(cms, 'default', {
      allowWatchBookmarks: true,
      timeoutSeconds: 5,
      resourceVersion: String(registry.storage.currentRevision()),
    });
    registry.create(cms, 'kube-system', configMap('elsewhere'));
    clock.step(1000);
    const [bookmark] = await drain(watch, 1);
    expect(bookmark).toEqual({
      type: 'BOOKMARK',
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { resourceVersion: String(registry.storage.currentRevision()) },
      },
    });
    clock.step(4000);
    const rest = await drain(watch, 10);
    // Bookmarks at 2 s, 3 s and 4 s; at 5 s the timeout ends the watch.
    expect(rest.map((e) => e.type)).toEqual(['BOOKMARK', 'BOOKMARK', 'BOOKMARK']);
    expect(watch.stopped).toBe(true);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('ends at once for a negative timeoutSeconds, and picks 30 to 60 minutes for none or 0', async () => {
    const { registry, clock } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    const from = String(registry.storage.currentRevision());
    const negative = registry.watch(cms, 'default', { timeoutSeconds: -5, resourceVersion: from });
    clock.step(0);
    expect(await drain(negative, 1)).toEqual([]);
    expect(negative.stopped).toBe(true);
    for (const timeoutSeconds of [undefined, 0]) {
      const watch = registry.watch(cms, 'default', {
        resourceVersion: from,
        ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
      });
      clock.step(1800 * 1000 - 1);
      expect(watch.stopped).toBe(false);
      clock.step(1800 * 1000 + 1);
      expect(watch.stopped).toBe(true);
    }
  });

  it('streams the initial state, then a bookmark marking its end, with sendInitialEvents', async () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    registry.create(cms, 'default', configMap('a'));
    const watch = registry.watch(cms, 'default', {
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      resourceVersionMatch: 'NotOlderThan',
    });
    const events = await drain(watch, 2);
    expect(events[0]?.type).toBe('ADDED');
    expect(events[1]).toMatchObject({
      type: 'BOOKMARK',
      object: { metadata: { annotations: { [initialEventsEndAnnotation]: 'true' } } },
    });
    watch.stop();
    expect(() => registry.watch(cms, 'default', { sendInitialEvents: true })).toThrow(
      /resourceVersionMatch/,
    );
  });

  // TestValidateListOptions (apimachinery's internalversion/validation):
  // the watch rows, as 422 Invalid against ListOptions.meta.k8s.io.
  it.each([
    [
      { resourceVersion: '1', resourceVersionMatch: 'NotOlderThan' },
      [
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
      ],
    ],
    [
      { resourceVersionMatch: 'Exact', sendInitialEvents: true, allowWatchBookmarks: true },
      [
        'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"',
      ],
    ],
    [
      { sendInitialEvents: false },
      [
        'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      ],
    ],
    [
      {
        resourceVersionMatch: 'NotOlderThan',
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        continue: 'x',
      },
      [
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
      ],
    ],
  ] as const)('refuses the watch options %j with 422', (opts, causes) => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    let err: unknown;
    try {
      registry.watch(cms, 'default', { ...opts });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 422, reason: 'Invalid' });
    const status = err as { message: string; details: { kind: string; causes: object[] } };
    expect(status.details.kind).toBe('ListOptions');
    expect(
      (status.details.causes as { field: string; message: string }[]).map(
        (c) => `${c.field}: ${c.message}`,
      ),
    ).toEqual(causes);
    expect(status.message).toMatch(/^ListOptions\.meta\.k8s\.io "" is invalid: /);
  });

  it('takes sendInitialEvents=false with NotOlderThan: a plain watch from the resourceVersion', async () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    registry.create(cms, 'default', configMap('a'));
    const rv = String(registry.storage.currentRevision());
    const watch = registry.watch(cms, 'default', {
      resourceVersion: rv,
      resourceVersionMatch: 'NotOlderThan',
      sendInitialEvents: false,
    });
    registry.create(cms, 'default', configMap('b'));
    expect(summary(await drain(watch, 1))).toEqual([`ADDED b@${Number(rv) + 1}`]);
    watch.stop();
  });

  it('ends iteration when stopped, leaving no timers behind', async () => {
    const { registry, clock } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    const watch = registry.watch(cms, 'default', { allowWatchBookmarks: true });
    const pending = drain(watch, 1);
    watch.stop();
    expect(await pending).toEqual([]);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('lets go of the caller’s signal when a client watch ends by itself', async () => {
    const { registry, clock } = newRegistry();
    const cms = inProcessClient(registry, registry.resource('', 'configmaps')).inNamespace(
      'default',
    );
    const signal = new AbortController().signal;
    // A reflector re-watches on one long-lived signal, over and over.
    for (let i = 0; i < 20; i++) {
      const watch = await cms.watch({ signal, timeoutSeconds: 1 });
      const events = drain(watch as Parameters<typeof drain>[0], 1);
      await clock.advance(1_000);
      expect(await events).toEqual([]);
    }
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});
