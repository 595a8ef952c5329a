// Cases from client-go tools/cache: store_test.go, object-names_test.go (TestObjectNames)
// and controller_test.go (the deletion-handling key function).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  isDeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
} from '../src/index.js';

describe('metaNamespaceKeyFunc', () => {
  it('is namespace/name for a namespaced object and name for a cluster-scoped one', () => {
    expect(metaNamespaceKeyFunc({ metadata: { namespace: 'default', name: 'web-0' } })).toBe(
      'default/web-0',
    );
    expect(metaNamespaceKeyFunc({ kind: 'Node', metadata: { name: 'node-1' } })).toBe('node-1');
    expect(metaNamespaceKeyFunc({ metadata: { namespace: '', name: 'node-1' } })).toBe('node-1');
  });

  it('returns a string as it is, like an ExplicitKey', () => {
    expect(metaNamespaceKeyFunc('ns/name')).toBe('ns/name');
    expect(metaNamespaceKeyFunc('a/b/c')).toBe('a/b/c');
    expect(metaNamespaceKeyFunc('')).toBe('');
  });

  it('throws an Error that says what is missing', () => {
    expect(() => metaNamespaceKeyFunc(undefined)).toThrow(
      'object has no meta: expected an object with metadata, got undefined',
    );
    expect(() => metaNamespaceKeyFunc(null)).toThrow(/no meta.*got null/);
    expect(() => metaNamespaceKeyFunc(42)).toThrow(/no meta.*got a number/);
    expect(() => metaNamespaceKeyFunc([])).toThrow(/no meta.*got an array/);
    expect(() => metaNamespaceKeyFunc({ kind: 'Pod' })).toThrow(
      'object has no meta: a Pod without metadata',
    );
    expect(() => metaNamespaceKeyFunc({ metadata: null })).toThrow(/an object without metadata/);
    expect(() => metaNamespaceKeyFunc({ kind: 'Pod', metadata: { namespace: 'a' } })).toThrow(
      'object has no name: a Pod whose metadata.name is missing or empty',
    );
    expect(() => metaNamespaceKeyFunc({ metadata: { name: '' } })).toThrow(/no name/);
    expect(() => metaNamespaceKeyFunc({ metadata: { name: 7 } })).toThrow(/no name/);
    expect(() => metaNamespaceKeyFunc({ metadata: { name: 'x', namespace: 3 } })).toThrow(
      'object has a bad namespace: metadata.namespace of "x" is not a string',
    );
  });
});

describe('splitMetaNamespaceKey', () => {
  it('splits namespace/name and takes a key without a slash as a name', () => {
    expect(splitMetaNamespaceKey('default/web-0')).toEqual({ namespace: 'default', name: 'web-0' });
    expect(splitMetaNamespaceKey('node-1')).toEqual({ namespace: '', name: 'node-1' });
  });

  it('accepts empty parts, as Go does', () => {
    expect(splitMetaNamespaceKey('')).toEqual({ namespace: '', name: '' });
    expect(splitMetaNamespaceKey('/x')).toEqual({ namespace: '', name: 'x' });
    expect(splitMetaNamespaceKey('a/')).toEqual({ namespace: 'a', name: '' });
    expect(splitMetaNamespaceKey('/')).toEqual({ namespace: '', name: '' });
  });

  it('throws on more than one slash, quoting the key as Go does', () => {
    expect(() => splitMetaNamespaceKey('a/b/c')).toThrow('unexpected key format: "a/b/c"');
    expect(() => splitMetaNamespaceKey('//')).toThrow('unexpected key format: "//"');
    expect(() => splitMetaNamespaceKey('a/b/\n')).toThrow('unexpected key format: "a/b/\\n"');
  });

  it('round-trips random keys of letters and slashes (TestObjectNames)', () => {
    const keyArb = fc.string({
      unit: fc.constantFrom(...'abcdefghi/'),
      minLength: 10,
      maxLength: 10,
    });
    fc.assert(
      fc.property(keyArb, (key) => {
        const parts = key.split('/');
        if (parts.length > 2) {
          expect(() => splitMetaNamespaceKey(key)).toThrow(Error);
          return;
        }
        const { namespace, name } = splitMetaNamespaceKey(key);
        expect([namespace, name]).toEqual(parts.length === 2 ? parts : ['', key]);
        if (name !== '') {
          const recoded = metaNamespaceKeyFunc({ metadata: { namespace, name } });
          expect(key.startsWith('/') ? `/${recoded}` : recoded).toBe(key);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('DeletedFinalStateUnknown', () => {
  it('carries the key and the last known state, which may be missing', () => {
    const pod = { metadata: { namespace: 'ns', name: 'p' } };
    const tombstone = new DeletedFinalStateUnknown('ns/p', pod);
    expect(tombstone.key).toBe('ns/p');
    expect(tombstone.obj).toBe(pod);
    expect(new DeletedFinalStateUnknown('ns/q').obj).toBeUndefined();
  });

  it('is recognised by its brand, not by instanceof or by its shape', () => {
    expect(isDeletedFinalStateUnknown(new DeletedFinalStateUnknown('k'))).toBe(true);
    expect(isDeletedFinalStateUnknown({ key: 'k', obj: {} })).toBe(false);
    expect(isDeletedFinalStateUnknown(null)).toBe(false);
    expect(isDeletedFinalStateUnknown('k')).toBe(false);
    // A tombstone made by another copy of the package carries the same global symbol.
    const foreign = {
      key: 'k',
      [Symbol.for('@kcm-ts/apimachinery/DeletedFinalStateUnknown')]: true,
    };
    expect(isDeletedFinalStateUnknown(foreign)).toBe(true);
  });

  it('gives its key to deletionHandlingMetaNamespaceKeyFunc', () => {
    expect(deletionHandlingMetaNamespaceKeyFunc(new DeletedFinalStateUnknown('ns/gone'))).toBe(
      'ns/gone',
    );
    // Even when the key could not come from the object it holds.
    const stale = new DeletedFinalStateUnknown('a/b', { metadata: { namespace: 'x', name: 'y' } });
    expect(deletionHandlingMetaNamespaceKeyFunc(stale)).toBe('a/b');
    expect(deletionHandlingMetaNamespaceKeyFunc({ metadata: { namespace: 'x', name: 'y' } })).toBe(
      'x/y',
    );
    expect(() => deletionHandlingMetaNamespaceKeyFunc({})).toThrow(/no meta/);
  });
});
