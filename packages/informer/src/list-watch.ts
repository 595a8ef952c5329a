// A ListerWatcher built from two functions: client-go tools/cache listwatch.go
// (ListWatch, NewFilteredListWatchFromClient).
import type { ListOptions, ListerWatcher, ObjectList, WatchEvent } from '@kcm-ts/apimachinery';

/**
 * Lists one resource: the `list` half of a {@link ListWatch}.
 *
 * @category Reflector
 */
export type ListFunc<T> = (opts: ListOptions) => Promise<ObjectList<T>>;

/**
 * Watches one resource: the `watch` half of a {@link ListWatch}.
 *
 * @category Reflector
 */
export type WatchFunc<T> = (opts: ListOptions) => Promise<AsyncIterable<WatchEvent<T>>>;

/**
 * Changes the options of every list and watch a {@link ListWatch} makes, such
 * as adding a label selector. It receives a copy and may change it in place.
 *
 * @category Reflector
 */
export type ListOptionsModifier = (opts: ListOptions) => void;

/**
 * A {@link ListerWatcher} made of a list function and a watch function, each
 * seeing the options after an optional modifier: Go's `cache.ListWatch`.
 *
 * @example
 * ```ts
 * const lw = ListWatch.filtered(pods, (opts) => {
 *   opts.labelSelector = 'app=web';
 * });
 * ```
 *
 * @category Reflector
 */
export class ListWatch<T> implements ListerWatcher<T> {
  readonly #listFunc: ListFunc<T>;
  readonly #watchFunc: WatchFunc<T>;
  readonly #modify: ListOptionsModifier | undefined;

  /**
   * @param listFunc - lists the objects
   * @param watchFunc - watches the objects
   * @param modify - changes the options of every request, if given
   */
  constructor(listFunc: ListFunc<T>, watchFunc: WatchFunc<T>, modify?: ListOptionsModifier) {
    this.#listFunc = listFunc;
    this.#watchFunc = watchFunc;
    this.#modify = modify;
  }

  /**
   * A ListWatch over an existing {@link ListerWatcher} (a resource client),
   * applying `modify` to every request: Go's `NewFilteredListWatchFromClient`.
   */
  static filtered<T>(lw: ListerWatcher<T>, modify: ListOptionsModifier): ListWatch<T> {
    return new ListWatch(
      (opts) => lw.list(opts),
      (opts) => lw.watch(opts),
      modify,
    );
  }

  /** Lists with the modified options. */
  list(opts: ListOptions = {}): Promise<ObjectList<T>> {
    return this.#listFunc(this.#options(opts));
  }

  /** Watches with the modified options. */
  watch(opts: ListOptions = {}): Promise<AsyncIterable<WatchEvent<T>>> {
    return this.#watchFunc(this.#options(opts));
  }

  #options(opts: ListOptions): ListOptions {
    const copy = { ...opts };
    this.#modify?.(copy);
    return copy;
  }
}
