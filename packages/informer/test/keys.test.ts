// KeyError: client-go tools/cache store_test.go (TestKeyError).
import { describe, expect, it } from 'vitest';
import { KeyError, errorIs } from '../src/index.js';

describe('KeyError', () => {
  it('names the object and the cause', () => {
    const cause = new Error('object has no meta');
    const err = new KeyError({ val: 1 }, cause);
    expect(err.message).toBe(`couldn't create key for object {"val":1}: object has no meta`);
    expect(err.obj).toEqual({ val: 1 });
    expect(err.cause).toBe(cause);
    expect(err.name).toBe('KeyError');
  });

  it('unwraps through nested key errors (TestKeyError)', () => {
    const cause = new Error('some error');
    const nested = new KeyError('obj', new KeyError('inner', cause));
    expect(errorIs(nested, cause)).toBe(true);
    expect(errorIs(nested, new Error('some error'))).toBe(false);
    expect(errorIs(cause, cause)).toBe(true);
    expect(errorIs('not an error', cause)).toBe(false);
  });

  it('describes a non-Error cause and an unserialisable object', () => {
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    expect(new KeyError(circular, 'bad').message).toBe(
      "couldn't create key for object [object Object]: bad",
    );
    expect(new KeyError(undefined, 'bad').message).toBe(
      "couldn't create key for object undefined: bad",
    );
  });
});
