// The verbs of every resource over the storage: kube-apiserver's generic
// registry (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go:
// Create, Update, Get, List, Watch, Delete, and the deletion helpers
// updateForGracefulDeletionAndFinalizers, deletionFinalizersForGarbageCollection),
// with the handlers' request checks (pkg/endpoints/handlers) and the per-kind
// strategies of strategy.ts. Both the HTTP server and the in-process client
// call it, so they behave the same.
import {
  StatusError,
  formatTime,
  isStatusError,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newForbidden,
  newInvalid,
  newMethodNotSupported,
  newNotFound,
  newResourceExpired,
  optimisticLockErrorMsg,
  parseFieldSelector,
  parseSelector,
  realClock,
} from '@kcm-ts/apimachinery';
import type {
  Clock,
  CreateOptions,
  DeleteOptions,
  FieldSelector,
  KubeObject,
  ListOptions,
  ObjectList,
  Patch,
  PatchOptions,
  Selector,
  UpdateOptions,
} from '@kcm-ts/apimachinery';
import type { Status } from 'kubernetes-types/meta/v1.js';
import { eventFromCore, eventToCore } from './event-views.js';
import { plain, toCauses } from './field-errors.js';
import type { FieldError } from './field-errors.js';
import { applyPatch } from '../patch.js';
import { apiVersionOf, resources } from '../resources.js';
import type { ResourceInfo } from '../resources.js';
import { Reviewer } from './reviews.js';
import { typedFieldError } from './typed-fields.js';
import { Storage, storageKey, tooLargeResourceVersion } from '../storage/storage.js';
import type { StorageBackend } from '../storage/backend.js';
import { strategyFor, validateObject } from './strategy.js';
import type { Strategy } from './strategy.js';
import { Watch } from '../storage/watch.js';
import { decodeContinue, encodeContinue } from '../storage/continue.js';
import { getScale, patchScale, updateScale } from './apps/scale.js';
import { bindPod } from './core/pod-binding.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});

/** Options for {@link Registry}. */
export interface RegistryOptions {
  /** The clock for timestamps, watch timeouts and bookmarks. Default: the real clock. */
  clock?: Clock;
  /** How many changes the history keeps; older watches and continues get 410. Default 10000. */
  historyWindow?: number;
  /** Milliseconds between watch bookmarks. Default 60000, as the watch cache's one minute. */
  bookmarkInterval?: number;
  /** A random number in [0, 1) for generated names and watch timeouts. Default `Math.random`. */
  random?: () => number;
  /**
   * Empty and finalize deleted namespaces here, doing the namespace
   * controller's job (default true, for a sandbox without a controller
   * manager). False leaves a deleted namespace Terminating until a namespace
   * controller removes its `kubernetes` finalizer, as kube-apiserver does.
   */
  finishNamespaces?: boolean;
  /**
   * Answers TokenReviews and SubjectAccessReviews. Default: one with no
   * token, for which every token is the admin's.
   *
   * @internal
   */
  reviewer?: Reviewer;
  /**
   * Where the state is kept, and restored from: a `MemoryBackend` (the
   * default) or the SQLite backend of a sandbox's `dataDir`.
   *
   * @internal
   */
  backend?: StorageBackend;
}

/** What a write did: the object, and whether it was created (201) rather than changed (200). */
export interface WriteResult {
  /** The object as stored, presented as its resource. */
  object: KubeObject;
  /** True when the write made a new object. */
  created: boolean;
}

// pkg/util/rand/rand.go: the characters of generated names (no vowels, no
// look-alikes), and the 5 of them appended to generateName.
const alphanums = 'bcdfghjklmnpqrstvwxz2456789';
const maxGeneratedNameLength = 63 - 5;

const microTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

function parseRV(value: string, what: string): number {
  if (!/^\d+$/.test(value)) {
    throw newBadRequest(`${what}: invalid resource version: ${JSON.stringify(value)}`);
  }
  return Number(value);
}

// Equal as JSON documents: key order and undefined members do not count.
function sameJSON(a: unknown, b: unknown): boolean {
  return jsonEqual(
    JSON.parse(JSON.stringify(a) ?? 'null'),
    JSON.parse(JSON.stringify(b) ?? 'null'),
  );
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  const ka = Object.keys(a);
  const bo = b as Obj;
  return (
    ka.length === Object.keys(bo).length &&
    ka.every((k) => Object.hasOwn(bo, k) && jsonEqual((a as Obj)[k], bo[k]))
  );
}

function withoutRV(o: KubeObject): unknown {
  return { ...o, metadata: { ...o.metadata, resourceVersion: undefined } };
}

/**
 * The sandbox's API: create, get, list, watch, update, patch and delete for
 * every served resource, with kube-apiserver's semantics and error Statuses.
 * Both the HTTP server and the in-process client are thin layers over it.
 */
export class Registry {
  /** The storage underneath (tests use it to compact history). */
  readonly storage: Storage;
  /** The clock. */
  readonly clock: Clock;
  private readonly bookmarkInterval: number;
  private readonly random: () => number;
  private readonly finishNamespaces: boolean;
  private readonly reviewer: Reviewer;
  private readonly sharedForms = new WeakMap<KubeObject, Map<ResourceInfo, KubeObject>>();

  constructor(opts: RegistryOptions = {}) {
    this.reviewer = opts.reviewer ?? new Reviewer();
    this.clock = opts.clock ?? realClock;
    this.storage = new Storage({
      ...(opts.historyWindow === undefined ? {} : { historyWindow: opts.historyWindow }),
      ...(opts.backend ? { backend: opts.backend } : {}),
    });
    this.bookmarkInterval = opts.bookmarkInterval ?? 60_000;
    this.random = opts.random ?? Math.random;
    this.finishNamespaces = opts.finishNamespaces ?? true;
    // When the last object of a terminating namespace goes (its finalizers
    // cleared), the namespace can be finalized.
    this.storage.subscribe((event) => {
      const ns = event.object.metadata?.namespace;
      if (event.type === 'DELETED' && ns) queueMicrotask(() => this.finalizeIfEmpty(ns));
    });
    // The system namespaces, as kube-apiserver's system namespaces controller
    // makes them; a restart from kept state already has them.
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      if (!this.storage.get('namespaces', name))
        this.create(this.resource('', 'namespaces'), '', { metadata: { name } });
    }
  }

  /** The served resource with this group and plural name. */
  resource(group: string, plural: string): ResourceInfo {
    const info = resources.find((r) => r.group === group && r.resource === plural);
    if (!info) throw new Error(`the sandbox does not serve ${plural}${group ? `.${group}` : ''}`);
    return info;
  }

  // ---- presentation ---------------------------------------------------------

  /** A stored object as `info` shows it: a mutable copy, with apiVersion and kind. */
  present(info: ResourceInfo, stored: KubeObject): KubeObject {
    let out = structuredClone(stored) as Obj;
    if (info.storage === 'events' && info.group === 'events.k8s.io') out = eventFromCore(out);
    // apiVersion and kind first, as kube-apiserver writes them.
    const { apiVersion: _apiVersion, kind: _kind, ...rest } = out;
    return { apiVersion: apiVersionOf(info), kind: info.kind, ...rest };
  }

  /**
   * A stored object as `info` shows it, frozen and made once per change for
   * every watcher of the resource (the cacher's cachingObject,
   * staging/src/k8s.io/apiserver/pkg/storage/cacher/caching_object.go).
   */
  private presentShared(info: ResourceInfo, stored: KubeObject): KubeObject {
    let forms = this.sharedForms.get(stored);
    if (!forms) {
      forms = new Map();
      this.sharedForms.set(stored, forms);
    }
    let form = forms.get(info);
    if (!form) {
      // The stored object is frozen all the way down: only the top level,
      // with apiVersion and kind first, is new.
      const source =
        info.storage === 'events' && info.group === 'events.k8s.io'
          ? eventFromCore(structuredClone(stored) as Obj)
          : (stored as unknown as Obj);
      const { apiVersion: _apiVersion, kind: _kind, ...rest } = source;
      form = Object.freeze({
        apiVersion: apiVersionOf(info),
        kind: info.kind,
        ...rest,
      });
      forms.set(info, form);
    }
    return form;
  }

  private toStorageForm(info: ResourceInfo, body: Obj): Obj {
    if (info.storage === 'events' && info.group === 'events.k8s.io') return eventToCore(body);
    return body;
  }

  private storageApiVersion(info: ResourceInfo): string {
    return info.storage === 'events' ? 'v1' : apiVersionOf(info);
  }

  // ---- checks ---------------------------------------------------------------

  private notFound(info: ResourceInfo, name: string): StatusError {
    return newNotFound({ group: info.group, resource: info.resource }, name);
  }

  private invalid(info: ResourceInfo, name: string, errs: FieldError[]): StatusError {
    return newInvalid({ group: info.group, kind: info.kind }, name, toCauses(errs));
  }

  private checkBody(info: ResourceInfo, body: unknown): Obj {
    if (!isObj(body)) {
      throw newBadRequest(
        `the body of the request must be a ${info.kind} object, got ${Array.isArray(body) ? 'an array' : JSON.stringify(body)}`,
      );
    }
    const expected = apiVersionOf(info);
    if (body.apiVersion !== undefined && body.apiVersion !== expected) {
      throw newBadRequest(
        `the API version in the data (${plain(body.apiVersion)}) does not match the expected API version (${expected})`,
      );
    }
    if (body.kind !== undefined && body.kind !== info.kind) {
      throw newBadRequest(
        `${plain(body.kind)} in version "${info.version}" cannot be handled as a ${info.kind}: the kind in the data does not match the kind of the resource`,
      );
    }
    if (body.metadata !== undefined && !isObj(body.metadata)) {
      throw newBadRequest(
        `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: metadata must be an object`,
      );
    }
    const typeError = typedFieldError(info.kind, body);
    if (typeError !== undefined) {
      throw newBadRequest(
        `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: ${typeError}`,
      );
    }
    const strategy = strategyFor(info.storage);
    for (const path of strategy.microTimeFields) {
      let v: unknown = body;
      for (const p of path) v = obj(v)[p];
      if (v !== undefined && v !== null && (typeof v !== 'string' || !microTimePattern.test(v))) {
        throw newBadRequest(
          `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05.000000Z07:00": ${path.join('.')} must be RFC 3339 with exactly six fractional digits`,
        );
      }
    }
    return body;
  }

  private checkNamespace(
    info: ResourceInfo,
    namespace: string,
    body: Obj,
    forCreate: boolean,
  ): void {
    const meta = obj(body.metadata);
    if (!info.namespaced) {
      if (namespace) throw this.notFound(info, plain(meta.name ?? ''));
      delete meta.namespace;
      return;
    }
    if (!namespace)
      throw newBadRequest(
        'the server could not find the requested resource: a namespace is required',
      );
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
      throw newBadRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    meta.namespace = namespace;
    if (forCreate) {
      // plugin/pkg/admission/namespace/lifecycle: no new objects in a missing or terminating namespace.
      const ns = this.storage.get('namespaces', namespace);
      if (!ns) throw newNotFound({ group: '', resource: 'namespaces' }, namespace);
      if (ns.metadata?.deletionTimestamp) {
        const err = newForbidden(
          { group: info.group, resource: info.resource },
          plain(meta.name ?? meta.generateName ?? ''),
          new Error(
            `unable to create new content in namespace ${namespace} because it is being terminated`,
          ),
        );
        // The cause controllers look for to stop creating quietly (v1.NamespaceTerminatingCause).
        this.throwWithCause(err, {
          reason: 'NamespaceTerminating',
          message: `namespace ${namespace} is being terminated`,
          field: 'metadata.namespace',
        });
      }
    }
  }

  private throwWithCause(
    err: StatusError,
    cause: { reason: string; message: string; field: string },
  ): never {
    const status = err.toStatus();
    throw new StatusError({
      code: err.code,
      reason: err.reason,
      message: err.message,
      details: { ...status.details, causes: [...(status.details?.causes ?? []), cause] },
    });
  }

  // ---- read -----------------------------------------------------------------

  // Reviews support create only (installer.go registers no other verb for them).
  private onlyCreate(info: ResourceInfo, verb: string): void {
    if (Reviewer.handles(info)) {
      throw newMethodNotSupported({ group: info.group, resource: info.resource }, verb);
    }
  }

  /** Reads one object; 404 NotFound if there is none. */
  get(info: ResourceInfo, namespace: string, name: string): KubeObject {
    this.onlyCreate(info, 'get');
    const stored = this.storage.get(
      info.storage,
      storageKey(info.namespaced ? namespace : '', name),
    );
    if (!stored || (info.namespaced && !namespace)) throw this.notFound(info, name);
    return this.present(info, stored);
  }

  // The label and field selectors of a list or watch; 400 BadRequest if malformed.
  private selectors(
    info: ResourceInfo,
    opts: ListOptions,
  ): { labels: Selector | undefined; fields: FieldSelector | undefined } {
    let labels: Selector | undefined;
    let fields: FieldSelector | undefined;
    if (opts.labelSelector) {
      try {
        labels = parseSelector(opts.labelSelector);
      } catch (err) {
        throw newBadRequest((err as Error).message);
      }
    }
    if (opts.fieldSelector) {
      try {
        fields = parseFieldSelector(opts.fieldSelector);
      } catch (err) {
        throw newBadRequest((err as Error).message);
      }
      const allowed = new Set([
        'metadata.name',
        'metadata.namespace',
        ...Object.keys(strategyFor(info.storage).selectableFields({})),
      ]);
      for (const r of fields.requirements()) {
        if (!allowed.has(r.field)) throw newBadRequest(`field label not supported: ${r.field}`);
      }
    }
    return { labels, fields };
  }

  private matcher(
    info: ResourceInfo,
    namespace: string,
    opts: ListOptions,
  ): (o: KubeObject) => boolean {
    const { labels, fields } = this.selectors(info, opts);
    const strategy = strategyFor(info.storage);
    return (o) => {
      const meta = o.metadata ?? {};
      if (info.namespaced && namespace && meta.namespace !== namespace) return false;
      if (labels && !labels.matches(meta.labels ?? {})) return false;
      if (fields) {
        const f = {
          'metadata.name': meta.name ?? '',
          'metadata.namespace': meta.namespace ?? '',
          ...strategy.selectableFields(o as unknown as Obj),
        };
        if (!fields.matches(f)) return false;
      }
      return true;
    };
  }

  /** Lists objects, with selectors, `limit` and `continue`, at the revision asked for. */
  list(info: ResourceInfo, namespace: string, opts: ListOptions = {}): ObjectList<KubeObject> {
    this.onlyCreate(info, 'list');
    const matches = this.matcher(info, namespace, opts);
    const current = this.storage.currentRevision();
    if (opts.resourceVersionMatch !== undefined) {
      if (!opts.resourceVersion) {
        throw newBadRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
      }
      if (opts.resourceVersionMatch !== 'Exact' && opts.resourceVersionMatch !== 'NotOlderThan') {
        throw newBadRequest(
          `resourceVersionMatch: Unsupported value: ${JSON.stringify(opts.resourceVersionMatch)}: supported values: "Exact", "NotOlderThan"`,
        );
      }
    }
    if (opts.continue && opts.resourceVersion && opts.resourceVersion !== '0') {
      throw newBadRequest('specifying resource version is not allowed when using continue');
    }
    if (opts.limit !== undefined && (!Number.isInteger(opts.limit) || opts.limit < 0)) {
      throw newBadRequest(
        `limit: Invalid value: ${String(opts.limit)}: must be a non-negative integer`,
      );
    }

    let at = current;
    let start = '';
    if (opts.continue) {
      const token = decodeContinue(opts.continue);
      at = token.rv;
      start = token.start;
      if (at < this.storage.compactedRevision()) {
        throw newResourceExpired(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
      }
    } else if (opts.resourceVersion && opts.resourceVersion !== '0') {
      const rv = parseRV(opts.resourceVersion, 'resourceVersion');
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
        at = rv;
      } else if (rv > current) {
        // A page (limit set) is read from etcd, which says so without a
        // retry delay; anything else from the watch cache, which asks for 1 s
        // (cacher.go shouldDelegateList; etcd3/store.go and watch_cache.go).
        const fromEtcd = opts.limit !== undefined && opts.limit > 0;
        throw tooLargeResourceVersion(rv, current, fromEtcd ? 0 : 1);
      }
    }

    const scope = info.namespaced ? namespace : undefined;
    const snapshot =
      at === current
        ? this.storage.list(info.storage, scope)
        : this.storage.listAt(info.storage, at, scope);
    const keyOf = (o: KubeObject): string =>
      storageKey(info.namespaced ? (o.metadata?.namespace ?? '') : '', o.metadata?.name ?? '');
    const selected = snapshot.filter((o) => (!start || keyOf(o) >= start) && matches(o));
    // kube-apiserver serves resourceVersion "0" from its watch cache, which
    // returns every match whatever the limit (cacher.go, shouldDelegateList
    // and GetList); other paginated lists go to etcd, page by page.
    const fromWatchCache = opts.resourceVersion === '0' && !opts.continue;
    const limit = fromWatchCache ? 0 : (opts.limit ?? 0);
    const page = limit > 0 ? selected.slice(0, limit) : selected;
    const metadata: ObjectList<KubeObject>['metadata'] = { resourceVersion: String(at) };
    if (limit > 0 && selected.length > limit) {
      const last = page[page.length - 1];
      if (last) metadata.continue = encodeContinue({ rv: at, start: `${keyOf(last)}\u0000` });
      // etcd3/store.go: the count is only known without selectors.
      if (!opts.labelSelector && !opts.fieldSelector)
        metadata.remainingItemCount = selected.length - limit;
    }
    return {
      apiVersion: apiVersionOf(info),
      kind: `${info.kind}List`,
      metadata,
      items: page.map((o) => this.present(info, o)),
    };
  }

  /**
   * Starts a watch; see {@link Watch}. Selector errors throw 400 BadRequest.
   * Its events carry copies of the objects, unless `shared` is set: then
   * every watcher of the resource gets the same frozen object for a change,
   * which the HTTP server serialises once for all of them.
   */
  watch(
    info: ResourceInfo,
    namespace: string,
    opts: ListOptions = {},
    { shared = false }: { shared?: boolean } = {},
  ): Watch {
    this.onlyCreate(info, 'watch');
    const matches = this.matcher(info, namespace, opts);
    if (opts.resourceVersion && opts.resourceVersion !== '0')
      parseRV(opts.resourceVersion, 'resourceVersion');
    if (opts.sendInitialEvents !== undefined) {
      if (opts.resourceVersionMatch !== 'NotOlderThan' && opts.sendInitialEvents) {
        throw newInvalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', [
          {
            reason: 'FieldValueForbidden',
            field: 'resourceVersionMatch',
            message:
              'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
          },
        ]);
      }
      if (opts.sendInitialEvents && !opts.allowWatchBookmarks) {
        throw newInvalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', [
          {
            reason: 'FieldValueForbidden',
            field: 'allowWatchBookmarks',
            message: 'Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true',
          },
        ]);
      }
    }
    // Without timeoutSeconds (or with 0) kube-apiserver picks between
    // minRequestTimeout (30 min) and twice that; a negative one ends the watch
    // at once (handlers/get.go, ListResource).
    const timeoutSeconds = !opts.timeoutSeconds
      ? Math.floor(1800 * (1 + this.random()))
      : Math.max(0, opts.timeoutSeconds);
    return new Watch(
      this.storage,
      this.clock,
      {
        storage: info.storage,
        matches,
        present: shared ? (o) => this.presentShared(info, o) : (o) => this.present(info, o),
        bookmarkObject: (rv, annotations) => ({
          apiVersion: apiVersionOf(info),
          kind: info.kind,
          metadata: annotations ? { resourceVersion: rv, annotations } : { resourceVersion: rv },
        }),
      },
      {
        ...(opts.resourceVersion === undefined ? {} : { resourceVersion: opts.resourceVersion }),
        allowWatchBookmarks: opts.allowWatchBookmarks === true,
        sendInitialEvents: opts.sendInitialEvents === true,
        timeoutSeconds,
        bookmarkInterval: this.bookmarkInterval,
      },
    );
  }

  // ---- create ---------------------------------------------------------------

  private generateName(prefix: string): string {
    let suffix = '';
    for (let i = 0; i < 5; i++)
      suffix += alphanums[Math.floor(this.random() * alphanums.length)] ?? 'b';
    return prefix.slice(0, maxGeneratedNameLength) + suffix;
  }

  /** Creates an object; 409 AlreadyExists, 422 Invalid, 404 for a missing namespace. */
  create(
    info: ResourceInfo,
    namespace: string,
    body: unknown,
    opts: CreateOptions = {},
  ): KubeObject {
    if (Reviewer.handles(info)) return this.reviewer.create(info, namespace, body);
    const checked = structuredClone(this.checkBody(info, body));
    this.checkNamespace(info, namespace, checked, true);
    const meta = obj(checked.metadata);
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
      throw newBadRequest('resourceVersion should not be set on objects to be created');
    }
    const strategy = strategyFor(info.storage);
    let o = this.toStorageForm(info, {
      ...checked,
      apiVersion: apiVersionOf(info),
      kind: info.kind,
    });
    o = { ...o, apiVersion: this.storageApiVersion(info) };
    const m: Obj = { ...meta };
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.managedFields;
    delete m.resourceVersion;
    m.uid = crypto.randomUUID();
    m.creationTimestamp = formatTime(this.clock.now());
    if (strategy.hasGeneration) m.generation = 1;
    else delete m.generation;
    o.metadata = m;
    strategy.prepareForCreate(o);
    const allocationErrs = this.allocate(strategy, info, o, undefined);

    const generated =
      (typeof m.name !== 'string' || m.name === '') &&
      typeof m.generateName === 'string' &&
      m.generateName !== '';
    let attempts = generated ? 8 : 1;
    for (;;) {
      if (generated) m.name = this.generateName(m.generateName as string);
      const errs = [...allocationErrs, ...validateObject(strategy, o)];
      if (errs.length > 0) throw this.invalid(info, typeof m.name === 'string' ? m.name : '', errs);
      const key = storageKey(info.namespaced ? namespace : '', m.name as string);
      if (this.storage.get(info.storage, key)) {
        if (--attempts > 0) continue;
        const err = newAlreadyExists(
          { group: info.group, resource: info.resource },
          m.name as string,
        );
        if (!generated) throw err;
        throw new StatusError({
          code: 409,
          reason: 'AlreadyExists',
          details: err.details ?? {},
          message: `${err.message}, the server was not able to generate a unique name for the object`,
        });
      }
      if (opts.dryRun === 'All') return this.present(info, o);
      return this.present(info, this.storage.commit(info.storage, key, 'ADDED', o));
    }
  }

  // What the kind allocates (Service ClusterIPs and NodePorts), from what
  // every stored object of its storage holds.
  private allocate(
    strategy: Strategy,
    info: ResourceInfo,
    o: Obj,
    old: Obj | undefined,
  ): FieldError[] {
    if (!strategy.allocate) return [];
    const stored = this.storage.list(info.storage) as unknown as Obj[];
    return strategy.allocate(o, old, stored, this.random);
  }

  // ---- update ---------------------------------------------------------------

  /**
   * Replaces an object (PUT), or only its status with `subresource: 'status'`.
   * 409 Conflict on a stale resourceVersion; 404 if missing (Leases are created).
   */
  update(
    info: ResourceInfo,
    namespace: string,
    name: string,
    body: unknown,
    opts: UpdateOptions & { subresource?: 'status' } = {},
  ): WriteResult {
    this.onlyCreate(info, 'update');
    const checked = structuredClone(this.checkBody(info, body));
    const meta = obj(checked.metadata);
    if (meta.name !== undefined && meta.name !== name) {
      throw newBadRequest(
        `the name of the object (${plain(meta.name)}) does not match the name on the URL (${name})`,
      );
    }
    meta.name = name;
    checked.metadata = meta;
    const key = storageKey(info.namespaced ? namespace : '', name);
    const existing = this.storage.get(info.storage, key);
    const strategy = strategyFor(info.storage);
    if (!existing) {
      if (strategy.allowCreateOnUpdate && !opts.subresource) {
        this.checkNamespace(info, namespace, checked, true);
        delete meta.resourceVersion;
        return { object: this.create(info, namespace, checked, opts), created: true };
      }
      throw this.notFound(info, name);
    }
    this.checkNamespace(info, namespace, checked, false);
    const rv = meta.resourceVersion;
    if (rv === undefined || rv === '') {
      if (!strategy.allowUnconditionalUpdate) {
        throw this.invalid(info, name, [
          {
            type: 'FieldValueInvalid',
            field: 'metadata.resourceVersion',
            value: 0,
            detail: 'must be specified for an update',
          },
        ]);
      }
    } else if (rv !== existing.metadata?.resourceVersion) {
      throw newConflict(
        { group: info.group, resource: info.resource },
        name,
        optimisticLockErrorMsg,
      );
    }
    const next = this.toStorageForm(info, {
      ...checked,
      apiVersion: apiVersionOf(info),
      kind: info.kind,
    });
    next.apiVersion = this.storageApiVersion(info);
    return this.commitUpdate(info, strategy, key, existing, next, opts);
  }

  private commitUpdate(
    info: ResourceInfo,
    strategy: Strategy,
    key: string,
    existing: KubeObject,
    next: Obj,
    opts: UpdateOptions & { subresource?: 'status' },
  ): WriteResult {
    const old = existing as unknown as Obj;
    const oldMeta = obj(old.metadata);
    const meta = { ...obj(next.metadata) };
    const name = String(oldMeta.name);
    if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== oldMeta.uid) {
      throw this.invalid(info, name, [
        {
          type: 'FieldValueInvalid',
          field: 'metadata.uid',
          value: meta.uid,
          detail: 'field is immutable',
        },
      ]);
    }
    // rest/update.go, BeforeUpdate: what the client cannot change.
    for (const f of [
      'uid',
      'creationTimestamp',
      'generation',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
    ]) {
      if (oldMeta[f] === undefined) delete meta[f];
      else meta[f] = oldMeta[f];
    }
    delete meta.managedFields;
    delete meta.resourceVersion;
    if (oldMeta.deletionTimestamp !== undefined && Array.isArray(meta.finalizers)) {
      // store.go: no new finalizers once deletion has started.
      const before = new Set(
        Array.isArray(oldMeta.finalizers) ? (oldMeta.finalizers as string[]) : [],
      );
      const added = (meta.finalizers as string[]).filter((f) => !before.has(f));
      if (added.length > 0) {
        throw this.invalid(info, name, [
          {
            type: 'FieldValueForbidden',
            field: 'metadata.finalizers',
            detail: `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
          },
        ]);
      }
    }
    next.metadata = meta;

    if (strategy.statusSubresource) {
      if (opts.subresource === 'status') {
        if (old.spec === undefined) delete next.spec;
        else next.spec = old.spec;
        if (strategy.statusKeepsLabels) {
          if (oldMeta.labels === undefined) delete meta.labels;
          else meta.labels = oldMeta.labels;
        }
      } else if (old.status === undefined) delete next.status;
      else next.status = old.status;
    }
    strategy.prepareForUpdate(next);
    const errs = [
      ...this.allocate(strategy, info, next, old),
      ...validateObject(strategy, next),
      ...strategy.validateUpdate(next, old),
    ];
    if (errs.length > 0) throw this.invalid(info, name, errs);

    if (strategy.hasGeneration && opts.subresource !== 'status') {
      const specChanged = !sameJSON(next.spec, old.spec);
      const annotationsChanged =
        strategy.generationOnAnnotations &&
        !sameJSON(meta.annotations ?? {}, oldMeta.annotations ?? {});
      if (specChanged || annotationsChanged) meta.generation = Number(oldMeta.generation ?? 0) + 1;
    }

    const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    const graceDone =
      meta.deletionGracePeriodSeconds === undefined || meta.deletionGracePeriodSeconds === 0;
    // A namespace also waits for its spec finalizers (the namespace registry's
    // ShouldDeleteNamespaceDuringUpdate), which only `finalize` clears.
    const specFinalizers = info.storage === 'namespaces' ? obj(next.spec).finalizers : undefined;
    const waitsForSpec = Array.isArray(specFinalizers) && specFinalizers.length > 0;
    if (
      meta.deletionTimestamp !== undefined &&
      finalizers.length === 0 &&
      graceDone &&
      !waitsForSpec
    ) {
      // store.go, Update with ShouldDeleteDuringUpdate: the last finalizer is gone.
      if (opts.dryRun === 'All') return { object: this.present(info, next), created: false };
      const deleted = this.storage.commit(info.storage, key, 'DELETED', {
        ...next,
        metadata: meta,
      });
      return { object: this.present(info, deleted), created: false };
    }
    if (sameJSON(withoutRV(next), withoutRV(existing))) {
      // A write that changes nothing keeps the resourceVersion and sends no event.
      return { object: this.present(info, existing), created: false };
    }
    if (opts.dryRun === 'All') {
      meta.resourceVersion = oldMeta.resourceVersion;
      return { object: this.present(info, next), created: false };
    }
    return {
      object: this.present(info, this.storage.commit(info.storage, key, 'MODIFIED', next)),
      created: false,
    };
  }

  // ---- patch ----------------------------------------------------------------

  /**
   * Patches an object (or its status): JSON patch, JSON merge patch, strategic
   * merge patch, or server-side apply (which creates a missing object).
   */
  patch(
    info: ResourceInfo,
    namespace: string,
    name: string,
    patch: Patch,
    opts: PatchOptions & { subresource?: 'status'; force?: boolean } = {},
  ): WriteResult {
    this.onlyCreate(info, 'patch');
    const key = storageKey(info.namespaced ? namespace : '', name);
    const existing = this.storage.get(info.storage, key);
    if (patch.type === 'apply' && !patch.fieldManager) {
      throw newBadRequest('PATCH requests with apply patch type must specify a fieldManager');
    }
    if (!existing || (info.namespaced && !namespace)) {
      if (patch.type === 'apply' && !opts.subresource) {
        const body = obj(patch.body);
        const meta = obj(body.metadata);
        if (meta.name !== undefined && meta.name !== name) {
          throw newBadRequest(
            `the name of the object (${plain(meta.name)}) does not match the name on the URL (${name})`,
          );
        }
        return {
          object: this.create(info, namespace, { ...body, metadata: { ...meta, name } }, opts),
          created: true,
        };
      }
      throw this.notFound(info, name);
    }
    const current = this.present(info, existing);
    const patched = applyPatch(info, current, patch);
    // The patched JSON is decoded into the typed object (handlers/patch.go,
    // applyPatchToCurrentObject): a decode error is an Invalid "patch".
    const typeError = typedFieldError(info.kind, patched);
    if (typeError !== undefined) {
      throw newInvalid({ group: '', kind: '' }, '', [
        {
          reason: 'FieldValueInvalid',
          field: 'patch',
          message: `Invalid value: ${JSON.stringify(JSON.stringify(patched))}: ${typeError}`,
        },
      ]);
    }
    const meta = obj(patched.metadata);
    if (meta.name !== name) {
      throw newBadRequest(
        `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`,
      );
    }
    return this.update(info, namespace, name, patched, opts);
  }

  // ---- delete ---------------------------------------------------------------

  /**
   * Deletes an object, as kube-apiserver does: finalizers and graceful
   * deletion keep it (with a `deletionTimestamp`) and the object is returned;
   * otherwise it goes at once and a success Status is returned (the object,
   * for pods).
   */
  delete(
    info: ResourceInfo,
    namespace: string,
    name: string,
    opts: DeleteOptions & { orphanDependents?: boolean } = {},
  ): KubeObject | Status {
    this.onlyCreate(info, 'delete');
    const key = storageKey(info.namespaced ? namespace : '', name);
    const existing = this.storage.get(info.storage, key);
    if (!existing || (info.namespaced && !namespace)) throw this.notFound(info, name);
    const strategy = strategyFor(info.storage);
    const meta = existing.metadata ?? {};
    const pre = opts.preconditions ?? {};
    if (pre.uid && pre.uid !== meta.uid) {
      throw newConflict(
        { group: info.group, resource: info.resource },
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`,
      );
    }
    if (pre.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
      throw newConflict(
        { group: info.group, resource: info.resource },
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
      );
    }
    if (
      opts.gracePeriodSeconds !== undefined &&
      (!Number.isInteger(opts.gracePeriodSeconds) || opts.gracePeriodSeconds < 0)
    ) {
      throw this.invalid(info, name, [
        {
          type: 'FieldValueInvalid',
          field: 'gracePeriodSeconds',
          value: opts.gracePeriodSeconds,
          detail: 'must be greater than or equal to 0',
        },
      ]);
    }
    const policies = ['Orphan', 'Background', 'Foreground'];
    if (opts.propagationPolicy !== undefined && !policies.includes(opts.propagationPolicy)) {
      throw this.invalid(info, name, [
        {
          type: 'FieldValueNotSupported',
          field: 'propagationPolicy',
          value: opts.propagationPolicy,
          detail: 'supported values: "Orphan", "Background", "Foreground"',
        },
      ]);
    }

    const next = structuredClone(existing) as unknown as Obj;
    const m = obj(next.metadata);
    next.metadata = m;
    let finalizers = Array.isArray(m.finalizers) ? [...(m.finalizers as string[])] : [];
    // store.go, deletionFinalizersForGarbageCollection
    const policy =
      opts.propagationPolicy ??
      (opts.orphanDependents === true
        ? 'Orphan'
        : opts.orphanDependents === false
          ? 'Background'
          : undefined);
    if (policy === 'Foreground')
      finalizers = [
        ...finalizers.filter((f) => f !== 'orphan'),
        ...(finalizers.includes('foregroundDeletion') ? [] : ['foregroundDeletion']),
      ];
    else if (policy === 'Orphan')
      finalizers = [
        ...finalizers.filter((f) => f !== 'foregroundDeletion'),
        ...(finalizers.includes('orphan') ? [] : ['orphan']),
      ];
    else if (policy === 'Background')
      finalizers = finalizers.filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
    if (finalizers.length > 0) m.finalizers = finalizers;
    else delete m.finalizers;

    const nowMs = this.clock.now();
    const defaultGrace = strategy.gracePeriod(next);
    // pod strategy, CheckGracefulDelete: a pod that never ran (or finished) goes at once.
    const grace = !defaultGrace ? 0 : (opts.gracePeriodSeconds ?? defaultGrace);
    const pending = m.deletionTimestamp !== undefined;
    if (pending) {
      // Already deleting: only a shorter grace period (or new GC finalizers) changes anything.
      const current =
        typeof m.deletionGracePeriodSeconds === 'number' ? m.deletionGracePeriodSeconds : 0;
      if (grace < current) {
        m.deletionGracePeriodSeconds = grace;
        m.deletionTimestamp = formatTime(nowMs + grace * 1000);
      }
    } else if (finalizers.length > 0 || grace > 0) {
      m.deletionTimestamp = formatTime(nowMs + grace * 1000);
      m.deletionGracePeriodSeconds = grace;
      if (typeof m.generation === 'number') m.generation += 1;
      if (info.storage === 'namespaces')
        next.status = { ...obj(next.status), phase: 'Terminating' };
    }
    // pkg/registry/core/namespace/storage: a namespace waits for its spec
    // finalizers, which the namespace controller clears after emptying it.
    const nsFinalizers = info.storage === 'namespaces' ? obj(next.spec).finalizers : undefined;
    if (Array.isArray(nsFinalizers) && nsFinalizers.length > 0) {
      if (!pending) {
        m.deletionTimestamp = formatTime(nowMs);
        m.deletionGracePeriodSeconds = 0;
        next.status = { ...obj(next.status), phase: 'Terminating' };
      }
      if (opts.dryRun === 'All') return this.present(info, next);
      const out = sameJSON(withoutRV(next), withoutRV(existing))
        ? existing
        : this.storage.commit(info.storage, key, 'MODIFIED', next);
      this.emptyNamespace(name);
      return this.present(info, this.storage.get(info.storage, key) ?? out);
    }
    const graceLeft =
      typeof m.deletionGracePeriodSeconds === 'number' ? m.deletionGracePeriodSeconds : 0;
    if (finalizers.length > 0 || graceLeft > 0) {
      if (opts.dryRun === 'All' || sameJSON(withoutRV(next), withoutRV(existing))) {
        return this.present(info, opts.dryRun === 'All' ? next : existing);
      }
      return this.present(info, this.storage.commit(info.storage, key, 'MODIFIED', next));
    }
    const deleted =
      opts.dryRun === 'All'
        ? existing
        : this.storage.commit(info.storage, key, 'DELETED', existing);
    if (strategy.returnDeletedObject) return this.present(info, deleted);
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name, group: info.group, kind: info.resource, uid: meta.uid ?? '' },
    };
  }

  /**
   * The namespace controller's job, done in place: delete everything in a
   * terminating namespace, and finalize it once nothing is left.
   */
  private emptyNamespace(namespace: string): void {
    if (!this.finishNamespaces) return;
    for (const info of resources) {
      if (!info.namespaced || (info.storage === 'events' && info.group !== '')) continue;
      for (const o of this.storage.list(info.storage, namespace)) {
        if (o.metadata?.deletionTimestamp) continue;
        this.delete(info, namespace, o.metadata?.name ?? '', {
          propagationPolicy: 'Background',
          gracePeriodSeconds: 0,
        });
      }
    }
    this.finalizeIfEmpty(namespace);
  }

  private finalizeIfEmpty(namespace: string): void {
    if (!this.finishNamespaces) return;
    const ns = this.storage.get('namespaces', namespace);
    if (!ns?.metadata?.deletionTimestamp) return;
    const finalizers = obj((ns as unknown as Obj).spec).finalizers;
    if (!Array.isArray(finalizers) || !finalizers.includes('kubernetes')) return;
    const occupied = resources.some(
      (info) => info.namespaced && this.storage.list(info.storage, namespace).length > 0,
    );
    if (occupied) return;
    this.finalizeNamespace(namespace, {
      spec: { finalizers: finalizers.filter((f) => f !== 'kubernetes') },
    });
  }

  /** Deletes every object that `opts` selects (deletecollection); returns an empty list of them. */
  deleteCollection(
    info: ResourceInfo,
    namespace: string,
    listOpts: ListOptions,
    opts: DeleteOptions = {},
  ): ObjectList<KubeObject> {
    const list = this.list(info, namespace, {
      ...(listOpts.labelSelector ? { labelSelector: listOpts.labelSelector } : {}),
      ...(listOpts.fieldSelector ? { fieldSelector: listOpts.fieldSelector } : {}),
    });
    const items: KubeObject[] = [];
    for (const item of list.items) {
      try {
        const out = this.delete(
          info,
          item.metadata?.namespace ?? '',
          item.metadata?.name ?? '',
          opts,
        );
        if ((out as Status).kind !== 'Status') items.push(out);
        else items.push(item);
      } catch (err) {
        if (!(isStatusError(err) && err.code === 404)) throw err;
      }
    }
    return {
      ...list,
      metadata: { resourceVersion: String(this.storage.currentRevision()) },
      items,
    };
  }

  // ---- scale ----------------------------------------------------------------

  /** The autoscaling/v1 Scale of a Deployment or ReplicaSet (see ./apps/scale.ts). */
  getScale(info: ResourceInfo, namespace: string, name: string): KubeObject {
    return getScale(this, info, namespace, name);
  }

  /** Writes a Scale (PUT or a patch already applied): only `spec.replicas` of the parent changes. */
  updateScale(
    info: ResourceInfo,
    namespace: string,
    name: string,
    body: unknown,
    opts: UpdateOptions = {},
  ): KubeObject {
    return updateScale(this, info, namespace, name, body, opts);
  }

  /** Patches a Scale: the patch applies to the Scale object, then as {@link Registry.updateScale}. */
  patchScale(
    info: ResourceInfo,
    namespace: string,
    name: string,
    patch: Patch,
    opts: PatchOptions = {},
  ): KubeObject {
    return patchScale(this, info, namespace, name, patch, opts);
  }

  /**
   * Binds a pod to a node, as a scheduler does through `pods/binding` (see
   * ./core/pod-binding.ts). 409 Conflict when the pod is already bound or is
   * being deleted.
   */
  bindPod(namespace: string, name: string, body: unknown): Status {
    return bindPod(this, namespace, name, body);
  }

  /** PUT /api/v1/namespaces/{name}/finalize: sets `spec.finalizers`; the namespace goes once they are empty. */
  finalizeNamespace(name: string, body: unknown): KubeObject {
    const info = this.resource('', 'namespaces');
    const existing = this.storage.get('namespaces', name);
    if (!existing) throw this.notFound(info, name);
    const finalizers = obj(obj(body).spec).finalizers;
    const next = structuredClone(existing) as unknown as Obj;
    next.spec = { ...obj(next.spec), finalizers: Array.isArray(finalizers) ? finalizers : [] };
    const meta = obj(next.metadata);
    const done =
      meta.deletionTimestamp !== undefined &&
      (!Array.isArray(finalizers) || finalizers.length === 0) &&
      !(Array.isArray(meta.finalizers) && meta.finalizers.length > 0);
    const stored = this.storage.commit('namespaces', name, done ? 'DELETED' : 'MODIFIED', next);
    return this.present(info, stored);
  }
}

export type { FieldError };
