// ControllerRevisions as values (controller_history.go): the hash, byte for
// byte against values Go produced, the name, newControllerRevision, and the
// ports of TestSortControllerRevisions and TestFindEqualRevisions, with
// EqualRevision cases.
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { formatTime } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  controllerRevisionHashLabel,
  controllerRevisionName,
  equalRevision,
  findEqualRevisions,
  hashControllerRevision,
  newControllerRevision,
  sortControllerRevisions,
} from '../../src/index.js';
import { epoch } from '../helpers.js';
import { inNamespace, newStatefulSet, orphaned, parentKind, rawTemplate } from './helpers.js';

// The data of a StatefulSet's first revision as kube-controller-manager 1.33
// stored it (pkg/controller/statefulset/testdata/compatibility_revision_1.33.0.json),
// with its keys shuffled: the hash must not depend on their order.
const data133 = {
  spec: {
    template: {
      spec: {
        terminationGracePeriodSeconds: 30,
        securityContext: {},
        schedulerName: 'default-scheduler',
        restartPolicy: 'Always',
        dnsPolicy: 'ClusterFirst',
        containers: [
          {
            terminationMessagePolicy: 'File',
            terminationMessagePath: '/dev/termination-log',
            resources: {},
            name: 'test',
            imagePullPolicy: 'Always',
            image: 'test',
          },
        ],
      },
      metadata: { labels: { app: 'foo' }, creationTimestamp: null, annotations: { test: 'value' } },
      $patch: 'replace',
    },
  },
};

/** A reference hash of exact bytes: FNV-1 32, the probe's digits, Go's SafeEncodeString. */
function fnv1Hash(bytes: string, probe?: number): string {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(bytes + (probe ?? ''))) {
    h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  }
  return [...String(h)].map((c) => 'bcdfghjklmnpqrstvwxz2456789'[c.charCodeAt(0) % 27]).join('');
}

/** `value` with object keys sorted (ASCII keys only), as Go stored the upstream data. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
}

describe('hashControllerRevision (HashControllerRevision)', () => {
  it("gives Go's hash of a revision stored by kube-controller-manager", () => {
    // Go named this revision test-c77f6d978 with status.collisionCount 0.
    expect(hashControllerRevision({ data: data133 }, 0)).toBe('c77f6d978');
    // 1.34 stopped writing creationTimestamp: null; Go's name was test-776999688b.
    const data134 = structuredClone(data133);
    delete (data134.spec.template.metadata as { creationTimestamp?: null }).creationTimestamp;
    expect(hashControllerRevision({ data: data134 }, 0)).toBe('776999688b');
  });

  it('matches the FNV-1 vectors of a Go port of the same function', () => {
    // KusionStack's TestHashControllerRevisionRawData, "never change this value".
    expect(hashControllerRevision({})).toBe('65bb57b6b5');
    expect(hashControllerRevision({}, 1)).toBe('d8bfb7bb');
    expect(hashControllerRevision({}, 2)).toBe('d8bfb7b9');
    expect(hashControllerRevision({ data: { metadata: { name: 'test' } } })).toBe('67794bdc49');
    expect(hashControllerRevision({ data: { metadata: { name: 'test' } } }, 1)).toBe('fdd8fd7c4');
  });

  it('hashes the probe as decimal digits, so 0 differs from none', () => {
    expect(hashControllerRevision({ data: data133 })).toBe('6b48d6f566');
    expect(hashControllerRevision({ data: data133 }, 1)).toBe('c77f6d979');
    expect(hashControllerRevision({ data: data133 }, null)).toBe('6b48d6f566');
  });

  it('treats null data as none, as a RawExtension does', () => {
    expect(hashControllerRevision({ data: null as unknown as object })).toBe('65bb57b6b5');
  });

  it("hashes the bytes Go's encoding/json writes", () => {
    // json.Marshal(map[string]interface{}{"a": "<b>&\u2028\t\u0001\b\fé", "n": 1e21, ...})
    // in Go 1.22 and later writes exactly these bytes.
    const goBytes =
      '{"a":"\\u003cb\\u003e\\u0026\\u2028\\t\\u0001\\b\\fé","f":0.000001,"g":1.5e-7,' +
      '"l":[1,null,true],"n":1e+21,"z":-0}';
    expect(hashControllerRevision({ data: JSON.parse(goBytes) as object }, 3)).toBe(
      fnv1Hash(goBytes, 3),
    );
    // The upstream revision's raw bytes, hashed the same way.
    expect(fnv1Hash(JSON.stringify(sortedKeys(data133)), 0)).toBe('c77f6d978');
  });

  it('orders keys by code point, as Go sorts map keys by bytes', () => {
    const a = { '\uff61': 1, '\u{1f600}': 2, z: 3 };
    const b = { z: 3, '\u{1f600}': 2, '\uff61': 1 };
    expect(hashControllerRevision({ data: a })).toBe(hashControllerRevision({ data: b }));
  });

  it('refuses a probe that is not an integer, and values JSON cannot hold', () => {
    expect(() => hashControllerRevision({}, 1.5)).toThrow(TypeError);
    expect(() => hashControllerRevision({ data: { n: Number.NaN } })).toThrow(TypeError);
    expect(() => hashControllerRevision({ data: { f: () => 1 } })).toThrow(TypeError);
  });
});

describe('controllerRevisionName (ControllerRevisionName)', () => {
  it('joins prefix and hash, cutting the prefix to 223 characters', () => {
    expect(controllerRevisionName('web', 'c77f6d978')).toBe('web-c77f6d978');
    const long = 'a'.repeat(300);
    const name = controllerRevisionName(long, '776999688b');
    expect(name).toBe(`${'a'.repeat(223)}-776999688b`);
    expect(name.length).toBeLessThanOrEqual(253);
  });
});

describe('newControllerRevision (NewControllerRevision)', () => {
  const ss1 = newStatefulSet(3, 'ss1', 'ss1', { foo: 'bar' });

  it('names, labels and owns the revision', () => {
    const data = rawTemplate(ss1.spec!.template);
    const cr = newControllerRevision(ss1, parentKind, { foo: 'bar' }, data, 1, 0);
    const hash = hashControllerRevision({ data }, 0);
    expect(cr).toEqual({
      metadata: {
        name: `ss1-${hash}`,
        labels: { foo: 'bar', [controllerRevisionHashLabel]: hash },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'StatefulSet',
            name: 'ss1',
            uid: 'ss1',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data,
      revision: 1,
    });
    // The data and labels are copies.
    expect(cr.data).not.toBe(data);
  });

  it("gives Go's name for a StatefulSet's first revision", () => {
    const test = newStatefulSet(1, 'test', 'ssuid', { app: 'foo' });
    const cr = newControllerRevision(test, parentKind, { app: 'foo' }, data133, 1, 0);
    expect(cr.metadata?.name).toBe('test-c77f6d978');
    expect(cr.metadata?.labels).toEqual({ app: 'foo', [controllerRevisionHashLabel]: 'c77f6d978' });
  });

  it('names another revision for another collision count', () => {
    const data = rawTemplate(ss1.spec!.template);
    const a = newControllerRevision(ss1, parentKind, {}, data, 1, 0);
    const b = newControllerRevision(ss1, parentKind, {}, data, 1, 1);
    const c = newControllerRevision(ss1, parentKind, {}, data, 1);
    expect(new Set([a.metadata?.name, b.metadata?.name, c.metadata?.name]).size).toBe(3);
  });
});

describe('sortControllerRevisions (TestSortControllerRevisions)', () => {
  const ss1 = newStatefulSet(3, 'ss1', 'ss1', { foo: 'bar' });
  const make = (revision: number, name: string, time: number | null = epoch) => {
    const cr = inNamespace(
      newControllerRevision(
        ss1,
        parentKind,
        { foo: 'bar' },
        rawTemplate(ss1.spec!.template),
        revision,
        0,
      ),
      'default',
    );
    // creationTimestamp is read-only in kubernetes-types: the server sets it.
    const metadata = { ...cr.metadata, name };
    return {
      ...cr,
      metadata: time === null ? metadata : { ...metadata, creationTimestamp: formatTime(time) },
    };
  };
  const rev1 = make(1, 'rev1');
  const rev2 = make(2, 'rev2');
  const rev3 = make(3, 'rev3');
  const rev3Time2 = make(3, 'rev3-time2', epoch + 1000);
  const rev3Time2Name2 = make(3, 'rev3-time2-name2', epoch + 1000);
  const names = (crs: ControllerRevision[]) => crs.map((cr) => cr.metadata?.name);

  it.each([
    ['out of order', [rev2, rev1, rev3], ['rev1', 'rev2', 'rev3']],
    ['sorted', [rev1, rev2, rev3], ['rev1', 'rev2', 'rev3']],
    ['reversed', [rev3, rev2, rev1], ['rev1', 'rev2', 'rev3']],
    [
      'with ties',
      [rev3Time2Name2, rev3Time2, rev3, rev2, rev1],
      ['rev1', 'rev2', 'rev3', 'rev3-time2', 'rev3-time2-name2'],
    ],
    ['empty', [], []],
  ])('%s', (_name, input, want) => {
    const revisions = [...input];
    expect(sortControllerRevisions(revisions)).toBe(revisions);
    expect(names(revisions)).toEqual(want);
  });

  it('puts a revision without a creation time first among its ties, and keeps full ties stable', () => {
    const untimed = make(3, 'untimed', null);
    const twinA = make(4, 'twin');
    const twinB = { ...make(4, 'twin'), data: { other: true } };
    const sorted = sortControllerRevisions([twinB, rev3, twinA, untimed]);
    expect(names(sorted)).toEqual(['untimed', 'rev3', 'twin', 'twin']);
    expect(sorted[2]).toBe(twinB);
    expect(sorted[3]).toBe(twinA);
  });
});

describe('equalRevision (EqualRevision)', () => {
  const ss1 = newStatefulSet(3, 'ss1', 'ss1', { foo: 'bar' });
  const ss2 = newStatefulSet(3, 'ss2', 'ss2', { goo: 'car' });
  const rev = (set = ss1, revision = 1, collisionCount = 1) =>
    newControllerRevision(
      set,
      parentKind,
      {},
      rawTemplate(set.spec!.template),
      revision,
      collisionCount,
    );

  it('holds for two missing revisions only', () => {
    expect(equalRevision(undefined, undefined)).toBe(true);
    expect(equalRevision(null, undefined)).toBe(true);
    expect(equalRevision(rev(), undefined)).toBe(false);
    expect(equalRevision(null, rev())).toBe(false);
  });

  it('compares data, not names, revision numbers or owners', () => {
    expect(equalRevision(rev(), rev())).toBe(true);
    expect(equalRevision(rev(ss1, 1, 1), rev(ss1, 5, 2))).toBe(true);
    expect(equalRevision(rev(), orphaned(rev()))).toBe(true);
    expect(equalRevision(rev(ss1), rev(ss2))).toBe(false);
  });

  it('holds without hash labels', () => {
    const a = rev(ss1, 1, 1);
    const b = rev(ss1, 1, 2);
    delete a.metadata!.labels;
    delete b.metadata!.labels;
    expect(equalRevision(a, b)).toBe(true);
  });

  it('fails on two numeric hash labels that differ, whatever the data', () => {
    const a = rev();
    const b = rev();
    a.metadata!.labels![controllerRevisionHashLabel] = '2456';
    b.metadata!.labels![controllerRevisionHashLabel] = '2457';
    expect(equalRevision(a, b)).toBe(false);
    b.metadata!.labels![controllerRevisionHashLabel] = '+02456';
    expect(equalRevision(a, b)).toBe(true);
    // Beyond int32, or not a number: the label is ignored.
    b.metadata!.labels![controllerRevisionHashLabel] = '4294967296';
    expect(equalRevision(a, b)).toBe(true);
    b.metadata!.labels![controllerRevisionHashLabel] = 'bcd';
    expect(equalRevision(a, b)).toBe(true);
  });
});

describe('findEqualRevisions (TestFindEqualRevisions)', () => {
  const ss1 = newStatefulSet(3, 'ss1', 'ss1', { foo: 'bar' });
  const ss2 = newStatefulSet(3, 'ss2', 'ss2', { goo: 'car' });
  const rev = (set: typeof ss1, revision: number) =>
    inNamespace(
      newControllerRevision(
        set,
        parentKind,
        set.spec!.template.metadata!.labels,
        rawTemplate(set.spec!.template),
        revision,
        0,
      ),
      'default',
    );
  const ss1Rev1 = rev(ss1, 1);
  const ss1Rev2 = orphaned(rev(ss1, 2));
  const ss2Rev1 = rev(ss2, 1);
  const ss2Rev2 = rev(ss2, 2);

  it('finds equivalent', () => {
    expect(findEqualRevisions([ss1Rev1, ss2Rev1, ss2Rev2], ss1Rev1)).toEqual([ss1Rev1]);
  });

  it('finds nothing when empty', () => {
    expect(findEqualRevisions([], ss1Rev1)).toEqual([]);
  });

  it('finds nothing with no matches', () => {
    expect(findEqualRevisions([ss2Rev2, ss2Rev1], ss1Rev1)).toEqual([]);
  });

  it('keeps the order of the input', () => {
    const found = findEqualRevisions([ss1Rev2, ss2Rev1, ss1Rev1], ss1Rev1);
    expect(found).toEqual([ss1Rev2, ss1Rev1]);
  });
});
