// Lists in pages and merges them: client-go tools/pager/pager.go (ListPager).
import { isResourceExpired, type ListOptions, type ObjectList } from '@kcm-ts/apimachinery';

/**
 * The page size a {@link ListPager} uses when none is given: Go's
 * `defaultPageSize`.
 *
 * @category Reflector
 */
export const defaultPageSize = 500;

/**
 * Options for a {@link ListPager}.
 *
 * @category Reflector
 */
export interface ListPagerOptions {
  /** Items per page; `0` lists everything in one request. Default {@link defaultPageSize}. */
  pageSize?: number;
  /**
   * When a later page fails because its continue token expired (410
   * Expired), list everything again in one request instead of failing.
   * Default `true`.
   */
  fullListIfExpired?: boolean;
}

/**
 * What {@link ListPager.list} returns: the merged list and whether it took
 * more than one request.
 *
 * @category Reflector
 */
export interface PagedList<T> {
  /** Every item of every page, with the resourceVersion of the first page. */
  list: ObjectList<T>;
  /** `true` if the server split the list into more than one page. */
  paginated: boolean;
}

/**
 * Lists a resource a page at a time with `limit` and `continue`, and merges
 * the pages into one list: Go's `pager.ListPager`.
 *
 * @category Reflector
 */
export class ListPager<T> {
  /** Items per page; `0` means no paging. */
  readonly pageSize: number;
  /** Whether an expired continue token falls back to one full list. */
  readonly fullListIfExpired: boolean;
  readonly #listFunc: (opts: ListOptions) => Promise<ObjectList<T>>;

  /**
   * @param listFunc - lists one page
   * @param options - page size and expiry fallback
   */
  constructor(
    listFunc: (opts: ListOptions) => Promise<ObjectList<T>>,
    options: ListPagerOptions = {},
  ) {
    this.#listFunc = listFunc;
    this.pageSize = options.pageSize ?? defaultPageSize;
    this.fullListIfExpired = options.fullListIfExpired ?? true;
  }

  /**
   * Lists every object matching `opts`, following continue tokens. A
   * `limit` in `opts` wins over the page size.
   */
  async list(opts: ListOptions = {}): Promise<PagedList<T>> {
    // pager.go, ListWithAlloc
    const options: ListOptions = { ...opts };
    if (options.limit === undefined || options.limit === 0) {
      if (this.pageSize > 0) options.limit = this.pageSize;
      else delete options.limit;
    }
    let merged: ObjectList<T> | undefined;
    for (;;) {
      let page: ObjectList<T>;
      try {
        page = await this.#listFunc(options);
      } catch (err) {
        if (merged === undefined || !this.fullListIfExpired || !isResourceExpired(err)) throw err;
        // The continue token expired: list everything at the original version.
        const full: ListOptions = { ...opts };
        delete full.limit;
        delete full.continue;
        return { list: await this.#listFunc(full), paginated: false };
      }
      const token = page.metadata.continue ?? '';
      if (merged === undefined) {
        if (token === '') return { list: page, paginated: false };
        merged = { ...page, metadata: { ...page.metadata }, items: [...page.items] };
      } else {
        merged.items.push(...page.items);
      }
      if (token === '') {
        delete merged.metadata.continue;
        delete merged.metadata.remainingItemCount;
        return { list: merged, paginated: true };
      }
      // Later pages name their place with the token alone.
      options.continue = token;
      delete options.resourceVersion;
      delete options.resourceVersionMatch;
    }
  }
}
