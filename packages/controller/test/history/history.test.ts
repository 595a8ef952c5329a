// Ports of controller_history_test.go: TestRealHistory_* and TestFakeHistory_*
// for listing (with and without the controller index), creating (with
// collisions), updating (with conflicts), deleting, adopting and releasing.
// The real history runs against an in-memory controllerrevisions server
// (./helpers.ts) whose cache follows every write; Go's tests use the fake
// clientset and reactors instead.
import type { ControllerRevision, StatefulSet } from 'kubernetes-types/apps/v1.js';
import {
  FakeClock,
  isConflict,
  isInternalError,
  isNotFound,
  labelSelectorAsSelector,
  newConflict,
  newInternalError,
  newInvalid,
  isInvalid,
  optimisticLockErrorMsg,
} from '@kcm-ts/apimachinery';
import { Lister } from '@kcm-ts/informer';
import { describe, expect, it } from 'vitest';
import {
  FakeHistory,
  RealHistory,
  addControllerRevisionControllerIndexer,
  controllerRevisionControllerIndex,
  controllerRevisionHashLabel,
  controllerRevisionName,
  hashControllerRevision,
  newControllerRevision,
  type CollisionCount,
  type History,
} from '../../src/index.js';
import {
  RevisionServer,
  controlledBy,
  inNamespace,
  newStatefulSet,
  orphaned,
  parentKind,
  rawTemplate,
  revisionIndexer,
} from './helpers.js';

const ss1 = newStatefulSet(3, 'ss1', 'ss1', { foo: 'bar' });
const ss2 = newStatefulSet(3, 'ss2', 'ss2', { goo: 'car' });
const sel1 = labelSelectorAsSelector(ss1.spec!.selector);

/** A revision of `set` at `revision`, in its namespace, as the Go tests make them. */
function revisionOf(set: StatefulSet, revision: number, collisionCount?: number) {
  const template = set.spec!.template;
  return inNamespace(
    newControllerRevision(
      set,
      parentKind,
      template.metadata!.labels,
      rawTemplate(template),
      revision,
      collisionCount,
    ),
    set.metadata!.namespace!,
  );
}

const names = (crs: ControllerRevision[]) => crs.map((cr) => cr.metadata!.name).sort();
const counter = (value = 0): CollisionCount => ({ value });

const conflict = () =>
  newConflict({ group: 'apps', resource: 'controllerrevisions' }, '', 'conflict');

describe.each([
  ['RealHistory', 'scan'],
  ['RealHistory', 'index'],
  ['FakeHistory', 'scan'],
  ['FakeHistory', 'index'],
] as const)(
  '%s listControllerRevisions by %s (Test*History_ListControllerRevisions)',
  (impl, by) => {
    // Go's revisions here share one name (same data, no collision count), so
    // its cache holds one of them; ours are renamed apart to be counted.
    const named = (cr: ControllerRevision, name: string) => ({
      ...cr,
      metadata: { ...cr.metadata, name },
    });
    const ss1Rev1 = named(revisionOf(ss1, 1), 'ss1-rev1');
    const ss1Rev2 = named(revisionOf(ss1, 2), 'ss1-rev2');
    const ss2Rev1 = named(revisionOf(ss2, 1), 'ss2-rev1');
    const ss1Orphan = named(orphaned(revisionOf(ss1, 3)), 'ss1-orphan');

    function list(revisions: ControllerRevision[], parent: StatefulSet = ss1) {
      const indexer = revisionIndexer(by === 'index', ...revisions);
      const history: History =
        impl === 'FakeHistory'
          ? new FakeHistory(indexer)
          : new RealHistory({
              client: new RevisionServer().client(),
              lister: new Lister(indexer, { group: 'apps', resource: 'controllerrevision' }),
              indexer,
            });
      return names(history.listControllerRevisions(parent, parentKind, sel1));
    }

    it('selects none', () => {
      expect(list([])).toEqual([]);
    });

    it('selects all', () => {
      expect(list([ss1Rev1, ss1Rev2])).toEqual(names([ss1Rev1, ss1Rev2]));
    });

    it("doesn't select another Objects history", () => {
      expect(list([ss1Rev1, ss1Rev2, ss2Rev1])).toEqual(names([ss1Rev1, ss1Rev2]));
    });

    it('selects orphans', () => {
      expect(list([ss1Rev1, ss1Rev2, ss1Orphan])).toEqual(names([ss1Rev1, ss1Rev2, ss1Orphan]));
    });

    it('leaves out what the selector does not match, owned or not', () => {
      const unlabelled = revisionOf(ss1, 4);
      unlabelled.metadata!.labels = { foo: 'other' };
      unlabelled.metadata!.name = 'ss1-unlabelled';
      const orphan = orphaned({ ...unlabelled, metadata: { ...unlabelled.metadata, name: 'x' } });
      expect(list([ss1Rev1, unlabelled, orphan])).toEqual(names([ss1Rev1]));
    });

    it('leaves out a revision whose controller reference has the uid but another kind or name', () => {
      const wrongKind = revisionOf(ss1, 5);
      wrongKind.metadata!.name = 'wrong-kind';
      wrongKind.metadata!.ownerReferences![0]!.kind = 'DaemonSet';
      const wrongName = revisionOf(ss1, 6);
      wrongName.metadata!.name = 'wrong-name';
      wrongName.metadata!.ownerReferences![0]!.name = 'impostor';
      expect(list([ss1Rev1, wrongKind, wrongName])).toEqual(names([ss1Rev1]));
    });

    it('leaves out revisions of other namespaces', () => {
      const elsewhere = inNamespace(orphaned(revisionOf(ss1, 7)), 'other');
      expect(list([ss1Rev1, elsewhere])).toEqual(names([ss1Rev1]));
    });
  },
);

function realHistory(server = new RevisionServer(), clock = new FakeClock()) {
  const history = new RealHistory({
    client: server.client(),
    lister: server.lister,
    indexer: server.indexer,
    clock,
    random: () => 0.5,
  });
  return { server, history, clock };
}

describe('RealHistory.createControllerRevision (TestRealHistory_CreateControllerRevision)', () => {
  const ss1Rev1 = revisionOf(ss1, 1, 0);
  // Same name and hash label as ss1Rev1, other data: a collision, made on purpose.
  const modTemplate = structuredClone(ss1.spec!.template);
  modTemplate.metadata!.labels!.foo = 'not_bar';
  const ss1Rev2 = inNamespace(
    newControllerRevision(
      ss1,
      parentKind,
      ss1.spec!.template.metadata!.labels,
      rawTemplate(modTemplate),
      2,
      0,
    ),
    'default',
  );
  ss1Rev2.metadata!.name = ss1Rev1.metadata!.name;
  ss1Rev2.metadata!.labels![controllerRevisionHashLabel] =
    ss1Rev1.metadata!.labels![controllerRevisionHashLabel]!;
  const ss2Rev1 = revisionOf(ss2, 1, 0);

  it('creates new', async () => {
    const { server, history } = realHistory();
    const count = counter();
    const created = await history.createControllerRevision(ss1, ss1Rev1, count);
    expect(created.metadata!.name).toBe(ss1Rev1.metadata!.name);
    expect(created.metadata!.uid).toBeTruthy();
    expect(count.value).toBe(0);
    expect(server.stored('default', ss1Rev1.metadata!.name!)?.data).toEqual(ss1Rev1.data);
  });

  it("create doesn't conflict when parents differ", async () => {
    const { server, history } = realHistory();
    await server.client().inNamespace('default').create(ss1Rev1);
    const created = await history.createControllerRevision(ss2, ss2Rev1, counter());
    expect(created.metadata!.name).toBe(ss2Rev1.metadata!.name);
  });

  it('create renames on conflict, and finds its own revision after that', async () => {
    const { server, history } = realHistory();
    await server.client().inNamespace('default').create(ss1Rev2);
    const count = counter();
    const created = await history.createControllerRevision(ss1, ss1Rev1, count);
    expect(created.metadata!.name).not.toBe(ss1Rev1.metadata!.name);
    expect(count.value).toBe(1);
    expect(created.metadata!.name).toBe(
      controllerRevisionName('ss1', hashControllerRevision(ss1Rev1, count.value)),
    );

    // The second collision is with the identical revision: found, not renamed.
    const again = await history.createControllerRevision(ss1, ss1Rev1, count);
    expect(count.value).toBe(1);
    expect(again.metadata!.uid).toBe(created.metadata!.uid);
  });

  it("creates in the parent's namespace and leaves the revision passed in alone", async () => {
    const { server, history } = realHistory();
    const before = structuredClone(ss1Rev1);
    await history.createControllerRevision(ss1, ss1Rev1, counter());
    expect(ss1Rev1).toEqual(before);
    expect(server.requests).toEqual([`create default/${ss1Rev1.metadata!.name}`]);
  });

  it('rejects without a collision count, and with the error of a failed create or get', async () => {
    const { server, history } = realHistory();
    await expect(
      history.createControllerRevision(ss1, ss1Rev1, undefined as unknown as CollisionCount),
    ).rejects.toThrow('collisionCount should not be nil');
    server.fail('create', () => newInternalError(new Error('boom')));
    await expect(history.createControllerRevision(ss1, ss1Rev1, counter())).rejects.toSatisfy(
      isInternalError,
    );
    await server.client().inNamespace('default').create(ss1Rev2);
    server.fail('get', () => newInternalError(new Error('boom')));
    await expect(history.createControllerRevision(ss1, ss1Rev1, counter())).rejects.toSatisfy(
      isInternalError,
    );
  });
});

describe('FakeHistory.createControllerRevision (TestFakeHistory_CreateControllerRevision)', () => {
  const ss1Rev1 = revisionOf(ss1, 1, 0);
  const ss2Rev1 = revisionOf(ss2, 1, 0);

  it('creates new', async () => {
    const indexer = revisionIndexer();
    const created = await new FakeHistory(indexer).createControllerRevision(
      ss1,
      ss1Rev1,
      counter(),
    );
    expect(created.metadata!.name).toBe(ss1Rev1.metadata!.name);
    expect(indexer.getByKey(`default/${ss1Rev1.metadata!.name}`)).toBeDefined();
  });

  it("create doesn't conflict when parents differ", async () => {
    const history = new FakeHistory(revisionIndexer());
    await history.createControllerRevision(ss1, ss1Rev1, counter());
    const created = await history.createControllerRevision(ss2, ss2Rev1, counter());
    expect(created.metadata!.name).toBe(ss2Rev1.metadata!.name);
  });

  it('create renames on conflict, every time', async () => {
    const history = new FakeHistory(revisionIndexer());
    await history.createControllerRevision(ss1, ss1Rev1, counter());
    const count = counter();
    const created = await history.createControllerRevision(ss1, ss1Rev1, count);
    expect(created.metadata!.name).not.toBe(ss1Rev1.metadata!.name);
    expect(created.metadata!.name).toBe(
      controllerRevisionName('ss1', hashControllerRevision(ss1Rev1, count.value)),
    );
    // The fake does not compare data: the second collision renames again.
    await history.createControllerRevision(ss1, ss1Rev1, count);
    expect(count.value).toBe(2);
  });

  it('rejects without a collision count', async () => {
    await expect(
      new FakeHistory(revisionIndexer()).createControllerRevision(
        ss1,
        ss1Rev1,
        null as unknown as CollisionCount,
      ),
    ).rejects.toThrow('collisionCount should not be nil');
  });
});

describe('RealHistory.updateControllerRevision (TestRealHistory_UpdateControllerRevision)', () => {
  const ss1Rev1 = revisionOf(ss1, 1, 0);

  async function setUp() {
    const env = realHistory();
    const created = await env.history.createControllerRevision(ss1, ss1Rev1, counter());
    return { ...env, created };
  }

  it('update succeeds', async () => {
    const { server, history, created } = await setUp();
    const updated = await history.updateControllerRevision(created, 2);
    expect(updated.revision).toBe(2);
    expect(server.stored('default', created.metadata!.name!)?.revision).toBe(2);
  });

  it('update succeeds no noop', async () => {
    const { server, history, created } = await setUp();
    const updated = await history.updateControllerRevision(created, created.revision);
    expect(updated.revision).toBe(1);
    expect(server.requests.filter((r) => r.startsWith('update'))).toEqual([]);
  });

  it('update fails on error', async () => {
    const { server, history, created } = await setUp();
    server.fail('update', () => newInternalError(new Error('internal error')));
    await expect(history.updateControllerRevision(created, 11)).rejects.toSatisfy(isInternalError);
    expect(server.requests.filter((r) => r.startsWith('update'))).toHaveLength(1);
  });

  it('update on succeeds on conflict', async () => {
    const { server, history, clock, created } = await setUp();
    server.fail('update', conflict, conflict);
    const updated = history.updateControllerRevision(created, 2);
    // DefaultBackoff: 10 ms, then 50 ms, each with half its 10% jitter here.
    await clock.advance(10.5);
    expect(server.requests.filter((r) => r.startsWith('update'))).toHaveLength(2);
    await clock.advance(52.5);
    expect((await updated).revision).toBe(2);
    expect(server.requests.filter((r) => r.startsWith('update'))).toHaveLength(3);
  });

  it('retries from the cache when its copy was stale, and gives up after four conflicts', async () => {
    const { server, history, clock, created } = await setUp();
    // Someone else labelled the revision: our copy's resourceVersion is stale.
    const fresh = await server
      .client()
      .inNamespace('default')
      .patch(created.metadata!.name!, {
        type: 'strategic',
        body: { metadata: { labels: { touched: 'yes' } } },
      });
    const updated = history.updateControllerRevision(created, 2);
    await clock.advance(1000);
    const result = await updated;
    expect(result.revision).toBe(2);
    expect(result.metadata!.labels!.touched).toBe('yes');
    expect(Number(result.metadata!.resourceVersion)).toBeGreaterThan(
      Number(fresh.metadata!.resourceVersion),
    );

    server.fail('update', conflict, conflict, conflict, conflict);
    const failing = history.updateControllerRevision(result, 3);
    const outcome = expect(failing).rejects.toSatisfy(isConflict);
    await clock.advance(10_000);
    await outcome;
    expect(server.requests.filter((r) => r.startsWith('update'))).toHaveLength(6);
  });

  it('returns at once when the cache already shows the new number', async () => {
    const { server, history, clock, created } = await setUp();
    await history.updateControllerRevision(created, 5);
    // A stale copy asked to go to 5: the conflict's cache read shows 5 already.
    const again = history.updateControllerRevision(created, 5);
    await clock.advance(1000);
    expect((await again).revision).toBe(5);
    expect(server.requests.filter((r) => r.startsWith('update'))).toHaveLength(2);
  });
});

describe('FakeHistory.updateControllerRevision (TestFakeHistory_UpdateControllerRevision)', () => {
  const ss1Rev1 = revisionOf(ss1, 1, 0);

  it.each([
    ['update succeeds', 2],
    ['update succeeds no noop', 1],
  ])('%s', async (_name, newRevision) => {
    const indexer = revisionIndexer();
    const history = new FakeHistory(indexer);
    const created = await history.createControllerRevision(ss1, ss1Rev1, counter());
    const updated = await history.updateControllerRevision(created, newRevision);
    expect(updated.revision).toBe(newRevision);
    expect(indexer.getByKey(`default/${created.metadata!.name}`)?.revision).toBe(newRevision);
    expect(created.revision).toBe(1);
  });
});

describe.each(['RealHistory', 'FakeHistory'] as const)(
  '%s.deleteControllerRevision (Test*History_DeleteControllerRevision)',
  (impl) => {
    const ss1Rev1 = revisionOf(ss1, 1, 0);
    const ss2Rev1 = revisionOf(ss2, 1, 0);
    const ss2Rev2 = revisionOf(ss2, 2, 0);

    async function withExisting(...existing: [StatefulSet, ControllerRevision][]) {
      const history =
        impl === 'RealHistory' ? realHistory().history : new FakeHistory(revisionIndexer());
      const created: ControllerRevision[] = [];
      for (const [parent, cr] of existing) {
        created.push(await history.createControllerRevision(parent, cr, counter()));
      }
      return { history, created };
    }

    it('delete empty fails', async () => {
      const { history } = await withExisting();
      await expect(history.deleteControllerRevision(ss1Rev1)).rejects.toSatisfy(isNotFound);
    });

    it('delete existing succeeds', async () => {
      const { history } = await withExisting([ss1, ss1Rev1]);
      await history.deleteControllerRevision(ss1Rev1);
      expect(history.listControllerRevisions(ss1, parentKind, sel1)).toEqual([]);
    });

    it('delete non-existing fails', async () => {
      const { history } = await withExisting([ss2, ss2Rev1], [ss2, ss2Rev2]);
      await expect(history.deleteControllerRevision(ss1Rev1)).rejects.toSatisfy(isNotFound);
    });
  },
);

describe.each(['RealHistory', 'FakeHistory'] as const)(
  '%s.adoptControllerRevision (Test*History_AdoptControllerRevision)',
  (impl) => {
    const ss1Rev2 = orphaned(revisionOf(ss1, 2, 0));
    const ss2Rev1 = revisionOf(ss2, 1, 0);

    async function withExisting(...existing: [StatefulSet, ControllerRevision][]) {
      const history =
        impl === 'RealHistory' ? realHistory().history : new FakeHistory(revisionIndexer());
      const created: ControllerRevision[] = [];
      for (const [parent, cr] of existing) {
        created.push(await history.createControllerRevision(parent, cr, counter()));
      }
      return { history, created };
    }

    it('adopting an orphan succeeds', async () => {
      const { history, created } = await withExisting([ss1, ss1Rev2]);
      const adopted = await history.adoptControllerRevision(ss1, parentKind, created[0]!);
      expect(controlledBy(adopted, ss1)).toBe(true);
      expect(adopted.metadata!.ownerReferences).toEqual([
        {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          name: 'ss1',
          uid: 'ss1',
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(controlledBy(created[0], ss1)).toBe(false);
    });

    it('adopting an owned revision fails', async () => {
      const { history, created } = await withExisting([ss2, ss2Rev1]);
      await expect(history.adoptControllerRevision(ss1, parentKind, created[0]!)).rejects.toThrow(
        'attempt to adopt revision owned by &OwnerReference{Kind:StatefulSet,Name:ss2,UID:ss2,' +
          'APIVersion:apps/v1,Controller:*true,BlockOwnerDeletion:*true,}',
      );
    });

    it('adopting a non-existent revision fails', async () => {
      const { history } = await withExisting();
      await expect(history.adoptControllerRevision(ss1, parentKind, ss1Rev2)).rejects.toSatisfy(
        isNotFound,
      );
    });
  },
);

describe('RealHistory.adoptControllerRevision against the server', () => {
  it('sends the uid as a precondition, so a re-created revision is not adopted', async () => {
    const { server, history } = realHistory();
    const orphan = orphaned(revisionOf(ss1, 2, 0));
    const created = await history.createControllerRevision(ss1, orphan, counter());
    await history.deleteControllerRevision(created);
    await history.createControllerRevision(ss1, orphan, counter());
    await expect(history.adoptControllerRevision(ss1, parentKind, created)).rejects.toSatisfy(
      isInvalid,
    );
    expect(controlledBy(server.stored('default', created.metadata!.name!), ss1)).toBe(false);
  });
});

describe.each(['RealHistory', 'FakeHistory'] as const)(
  '%s.releaseControllerRevision (Test*History_ReleaseControllerRevision)',
  (impl) => {
    const ss1Rev1 = revisionOf(ss1, 1, 0);
    const ss1Rev2 = orphaned(revisionOf(ss1, 2, 0));
    const ss2Rev1 = revisionOf(ss2, 1, 0);

    async function withExisting(...existing: [StatefulSet, ControllerRevision][]) {
      const history =
        impl === 'RealHistory' ? realHistory().history : new FakeHistory(revisionIndexer());
      const created: ControllerRevision[] = [];
      for (const [parent, cr] of existing) {
        created.push(await history.createControllerRevision(parent, cr, counter()));
      }
      return { history, created };
    }

    it('releasing an owned revision succeeds', async () => {
      const { history, created } = await withExisting([ss1, ss1Rev1]);
      const released = await history.releaseControllerRevision(ss1, created[0]!);
      expect(released).toBeDefined();
      expect(controlledBy(released, ss1)).toBe(false);
      expect(released!.metadata!.ownerReferences ?? []).toEqual([]);
    });

    it('releasing an orphan succeeds', async () => {
      const { history, created } = await withExisting([ss1, ss1Rev2]);
      const released = await history.releaseControllerRevision(ss1, created[0]!);
      expect(controlledBy(released, ss1)).toBe(false);
    });

    it('releasing a revision owned by another controller succeeds', async () => {
      const { history, created } = await withExisting([ss2, ss2Rev1]);
      const released = await history.releaseControllerRevision(ss1, created[0]!);
      expect(controlledBy(released, ss1)).toBe(false);
      expect(controlledBy(released, ss2)).toBe(true);
    });

    it('releasing a non-existent revision succeeds', async () => {
      const { history } = await withExisting();
      expect(await history.releaseControllerRevision(ss1, ss1Rev1)).toBeUndefined();
    });
  },
);

describe('RealHistory.releaseControllerRevision against the server', () => {
  it('counts a re-created revision (422) as released, and rejects other errors', async () => {
    const { server, history } = realHistory();
    const created = await history.createControllerRevision(ss1, revisionOf(ss1, 1, 0), counter());
    await history.deleteControllerRevision(created);
    await history.createControllerRevision(ss1, revisionOf(ss1, 1, 0), counter());
    expect(await history.releaseControllerRevision(ss1, created)).toBeUndefined();
    expect(controlledBy(server.stored('default', created.metadata!.name!), ss1)).toBe(true);

    server.fail('patch', () => newInvalid({ group: 'apps', kind: 'ControllerRevision' }, 'x', []));
    expect(await history.releaseControllerRevision(ss1, created)).toBeUndefined();
    server.fail('patch', () =>
      newConflict({ group: 'apps', resource: 'controllerrevisions' }, 'x', optimisticLockErrorMsg),
    );
    await expect(history.releaseControllerRevision(ss1, created)).rejects.toSatisfy(isConflict);
  });
});

describe('addControllerRevisionControllerIndexer (AddControllerRevisionControllerIndexer)', () => {
  it('adds the index once, and the history reads it', async () => {
    const indexer = revisionIndexer(false);
    const informer = {
      getIndexer: () => indexer,
      addIndexers: (i: Parameters<typeof indexer.addIndexers>[0]) => indexer.addIndexers(i),
    };
    const history = new FakeHistory(indexer);
    await history.createControllerRevision(ss1, revisionOf(ss1, 1, 0), counter());
    addControllerRevisionControllerIndexer(informer);
    addControllerRevisionControllerIndexer(informer);
    expect(Object.keys(indexer.getIndexers())).toContain(controllerRevisionControllerIndex);
    expect(indexer.listIndexFuncValues(controllerRevisionControllerIndex)).toEqual([
      'owned/default/StatefulSet/ss1/ss1',
    ]);
    expect(history.listControllerRevisions(ss1, parentKind, sel1)).toHaveLength(1);
  });
});
