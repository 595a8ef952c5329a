// One page of a list at the revision asked for: the etcd3 store's GetList
// (staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go) with the
// cacher's choice of where a list is served from
// (pkg/storage/cacher/cacher.go, shouldDelegateList and GetList). Selectors
// come in as a predicate; objects go out as stored.
import { StatusError, newResourceExpired } from '@kcm-ts/apimachinery';
import type { KubeObject, ListOptions, ObjectList } from '@kcm-ts/apimachinery';
import { decodeContinue, encodeContinue } from './continue.js';
import { parseResourceVersion } from './resource-version.js';
import { storageKey, tooLargeResourceVersion } from './storage.js';
import type { Storage } from './storage.js';

/** What to list: one storage, maybe one namespace, the objects `matches` selects. */
export interface ListRequest {
  /** The storage (see `ResourceInfo.storage`). */
  readonly storage: string;
  /** True when its objects live in namespaces. */
  readonly namespaced: boolean;
  /** The namespace to list, or `''` for all. */
  readonly namespace: string;
  /** The selection predicate. */
  readonly matches: (o: KubeObject) => boolean;
}

/** A page of stored objects, with the list metadata that goes with it. */
export interface ListPage {
  /** The objects, as stored. */
  readonly items: KubeObject[];
  /** resourceVersion, and `continue` and `remainingItemCount` when more is left. */
  readonly metadata: ObjectList<KubeObject>['metadata'];
}

/** Lists `req` with `opts`' resourceVersion, `limit` and `continue` (already validated). */
export function getList(storage: Storage, req: ListRequest, opts: ListOptions): ListPage {
  const { at, start } = listRevision(storage, opts);
  const current = storage.currentRevision();
  const scope = req.namespaced ? req.namespace : undefined;
  const snapshot =
    at === current ? storage.list(req.storage, scope) : storage.listAt(req.storage, at, scope);
  const keyOf = (o: KubeObject): string =>
    storageKey(req.namespaced ? (o.metadata?.namespace ?? '') : '', o.metadata?.name ?? '');
  const selected = snapshot.filter((o) => (!start || keyOf(o) >= start) && req.matches(o));
  // kube-apiserver serves resourceVersion "0" from its watch cache, which
  // returns every match whatever the limit; other paginated lists go to
  // etcd, page by page.
  const fromWatchCache = opts.resourceVersion === '0' && !opts.continue;
  const limit = fromWatchCache ? 0 : (opts.limit ?? 0);
  const items = limit > 0 ? selected.slice(0, limit) : selected;
  const metadata: ListPage['metadata'] = { resourceVersion: String(at) };
  if (limit > 0 && selected.length > limit) {
    const last = items[items.length - 1];
    if (last) metadata.continue = encodeContinue({ rv: at, start: `${keyOf(last)}\u0000` });
    // etcd3/store.go: the count is only known without selectors.
    if (!opts.labelSelector && !opts.fieldSelector)
      metadata.remainingItemCount = selected.length - limit;
  }
  return { items, metadata };
}

/** The revision to read at and the first key to read: from `continue`, or the resourceVersion. */
function listRevision(storage: Storage, opts: ListOptions): { at: number; start: string } {
  const current = storage.currentRevision();
  if (opts.continue) {
    const token = decodeContinue(opts.continue);
    if (token.rv < storage.compactedRevision()) {
      throw newResourceExpired(
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
      );
    }
    if (token.rv > current) {
      // etcd cannot read a revision it has not reached, and kube-apiserver
      // passes its "required revision is a future revision" on as a 500.
      // No token this server handed out can name one (it only ever names
      // revisions it has listed at), so the token is forged, or outlived a
      // state put back from an older copy. 410 says what a client must do,
      // and is what client-go's pager and informers already act on: start
      // the list again without the token, where a 500 would have them
      // retry the same token for ever (and a 400 would end the list).
      throw newResourceExpired(
        `The provided continue parameter names resourceVersion ${token.rv}, which this server has not reached (its current resourceVersion is ${current}), so it cannot continue that list. You can start a new list without the continue parameter.`,
      );
    }
    return { at: token.rv, start: token.start };
  }
  if (!opts.resourceVersion || opts.resourceVersion === '0') return { at: current, start: '' };
  const rv = parseResourceVersion(opts.resourceVersion, 'resourceVersion');
  if (opts.resourceVersionMatch === 'Exact') {
    // etcd cannot read a revision it has not reached (mvcc ErrFutureRev),
    // and kube-apiserver passes its words on as a 500.
    if (rv > current) {
      throw new StatusError({
        code: 500,
        reason: '',
        message: 'etcdserver: mvcc: required revision is a future revision',
      });
    }
    return { at: rv, start: '' };
  }
  if (rv > current) {
    // A page (limit set) is read from etcd, which says so without a retry
    // delay; anything else from the watch cache, which asks for 1 s
    // (etcd3/store.go and watch_cache.go).
    const fromEtcd = opts.limit !== undefined && opts.limit > 0;
    throw tooLargeResourceVersion(rv, current, fromEtcd ? 0 : 1);
  }
  return { at: current, start: '' };
}
