// Key errors: client-go tools/cache store.go (KeyError). The key functions and
// the tombstone themselves live in @kcm-ts/apimachinery and are reused here.
import type { KeyFunc } from '@kcm-ts/apimachinery';

function describeObject(obj: unknown): string {
  if (typeof obj === 'string') return obj;
  try {
    const text = JSON.stringify(obj);
    if (text === undefined) return String(obj);
    return text.length > 200 ? `${text.slice(0, 200)}...` : text;
  } catch {
    return String(obj);
  }
}

/**
 * Thrown whenever a key function fails on an object: Go's `cache.KeyError`.
 * The failure itself is kept as the standard `cause`, so nested key errors
 * can be unwrapped like Go's `errors.Is`.
 *
 * @category Keys
 */
export class KeyError extends Error {
  /** The object whose key could not be computed. */
  readonly obj: unknown;

  /**
   * @param obj - the object whose key could not be computed.
   * @param cause - what the key function threw.
   */
  constructor(obj: unknown, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`couldn't create key for object ${describeObject(obj)}: ${reason}`, { cause });
    this.name = 'KeyError';
    this.obj = obj;
  }
}

/**
 * True when `err` is `target`, or a {@link KeyError} (or other error) whose
 * chain of `cause`s leads to `target`. The counterpart of Go's `errors.Is`
 * for the errors of this package.
 *
 * @category Keys
 */
export function errorIs(err: unknown, target: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 100 && current !== undefined; depth++) {
    if (current === target) return true;
    if (!(current instanceof Error)) return false;
    current = current.cause;
  }
  return false;
}

/** Runs `keyFunc`, wrapping anything it throws in a {@link KeyError}. */
export function keyOrThrow(keyFunc: KeyFunc, obj: unknown): string {
  try {
    return keyFunc(obj);
  } catch (err) {
    throw new KeyError(obj, err);
  }
}
