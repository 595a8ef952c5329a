// The verbs of every resource over the storage: kube-apiserver's generic
// registry (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go:
// Create, Update, Get, List, Watch, Delete, DeleteCollection). Each verb is
// the same sequence of named steps as there: decode and namespace checks,
// admission, the rest package's BeforeCreate/BeforeUpdate/BeforeDelete
// (./rest), the kind's strategy (strategy.ts), then the storage write. What
// is special to one resource lives in its own storage: namespace/,
// service/, apps/scale.ts, core/pod-binding.ts. Both the HTTP server and
// the in-process client call it, so they behave the same.
import {
  StatusError,
  isStatusError,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newInvalid,
  newMethodNotSupported,
  optimisticLockErrorMsg,
  realClock,
} from '@kcm-ts/apimachinery';
import type {
  Clock,
  CreateOptions,
  KubeObject,
  ListOptions,
  ObjectList,
  Patch,
  PatchOptions,
  UpdateOptions,
} from '@kcm-ts/apimachinery';
import type { Status } from 'kubernetes-types/meta/v1.js';
import { admitDefaultTolerationSeconds } from './admission/default-toleration-seconds.js';
import { admitToNamespace } from './admission/namespace-lifecycle.js';
import {
  admitDefaultStorageClass,
  admitInUseProtection,
  pvProtectionFinalizer,
  pvcProtectionFinalizer,
} from './admission/storage.js';
import { decodeBody } from './decode.js';
import {
  deletionFinalizersForGarbageCollection,
  propagationPolicy,
} from './deletion-finalizers.js';
import { plain } from './field-errors.js';
import type { FieldError } from './field-errors.js';
import { validateListOptions, validateWatchOptions } from './list-options.js';
import { generateName } from './name-generator.js';
import { NamespaceStorage } from './namespace/storage.js';
import { applyPatch } from '../patch.js';
import { apiVersionOf, resources } from '../resources.js';
import type { ResourceInfo } from '../resources.js';
import { beforeCreate, checkNoResourceVersion } from './rest/create.js';
import { beforeDelete, checkPreconditions, validateDeleteOptions } from './rest/delete.js';
import type { RegistryDeleteOptions } from './rest/delete.js';
import { ensureNamespaceMatches } from './rest/meta.js';
import { beforeUpdate, updateGeneration } from './rest/update.js';
import { invalid, notFound } from './resource-errors.js';
import { Reviewer } from './reviews.js';
import { selectableFields, selectionPredicate } from './selection-predicate.js';
import { compileSelectors, type CompiledSelectors } from './compiled-selector.js';
import { sameButResourceVersion } from './semantic-equality.js';
import { typedFieldError } from './typed-fields.js';
import { Storage, storageKey } from '../storage/storage.js';
import type { StorageBackend } from '../storage/backend.js';
import { getList } from '../storage/get-list.js';
import { strategyFor, validateObject } from './strategy.js';
import { validateObjectMeta } from './validation.js';
import type { Strategy } from './strategy.js';
import { SharedForms, present, toStorageForm } from './versioning.js';
import { Watch } from '../storage/watch.js';
import { getScale, patchScale, updateScale } from './apps/scale.js';
import { bindPod } from './core/pod-binding.js';
import { evictPod } from './core/pod-eviction.js';
import { ServiceAccountTokens } from './core/service-account-token.js';
import type { UserInfo } from '../authn.js';
import { authorize } from '../authorization/authorizer.js';
import {
  bootstrapClusterRoleBindings,
  bootstrapClusterRoles,
} from '../authorization/bootstrap-policy.js';
import { RBACAuthorizer } from '../authorization/rbac.js';
import type { Attributes, Decision } from '../authorization/rbac.js';
import { type Obj, obj } from '../unstructured.js';

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

/** The system namespaces, as kube-apiserver's system namespaces controller makes them. */
const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

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
  private readonly reviewer: Reviewer;
  private readonly sharedForms = new SharedForms();
  private readonly namespaces: NamespaceStorage;
  /**
   * The ServiceAccount tokens handed out through `serviceaccounts/token`, and their authenticator.
   *
   * @internal
   */
  readonly serviceAccountTokens: ServiceAccountTokens;
  /**
   * RBAC over the stored Roles, ClusterRoles and bindings.
   *
   * @internal
   */
  readonly rbac: RBACAuthorizer;

  constructor(opts: RegistryOptions = {}) {
    this.reviewer = opts.reviewer ?? new Reviewer();
    this.clock = opts.clock ?? realClock;
    this.storage = new Storage({
      ...(opts.historyWindow === undefined ? {} : { historyWindow: opts.historyWindow }),
      ...(opts.backend ? { backend: opts.backend } : {}),
    });
    this.bookmarkInterval = opts.bookmarkInterval ?? 60_000;
    this.random = opts.random ?? Math.random;
    this.namespaces = new NamespaceStorage(this, opts.finishNamespaces ?? true);
    // A restart from kept state already has them.
    for (const name of systemNamespaces) {
      if (!this.storage.get('namespaces', name))
        this.create(this.resource('', 'namespaces'), '', { metadata: { name } });
    }
    this.serviceAccountTokens = new ServiceAccountTokens((resource, namespace, name) => {
      const stored = this.storage.get(resource, storageKey(namespace, name));
      return stored as unknown as Obj | undefined;
    });
    this.rbac = new RBACAuthorizer(this.storage);
    this.reviewer.attach({
      rbac: this.rbac,
      tokens: this.serviceAccountTokens,
      now: () => this.clock.now(),
    });
    this.ensureBootstrapPolicy();
  }

  // The RBAC post-start hook's bootstrap roles and bindings, made once: a
  // restart from kept state keeps them (and any change made to them).
  private ensureBootstrapPolicy(): void {
    const roles = this.resource('rbac.authorization.k8s.io', 'clusterroles');
    const bindings = this.resource('rbac.authorization.k8s.io', 'clusterrolebindings');
    for (const [info, bodies] of [
      [roles, bootstrapClusterRoles()],
      [bindings, bootstrapClusterRoleBindings()],
    ] as const) {
      for (const body of bodies) {
        const name = String(obj((body as Obj).metadata).name);
        if (!this.storage.get(info.storage, storageKey('', name))) this.create(info, '', body);
      }
    }
  }

  /**
   * The authorizer's decision for a request (system:masters, then RBAC):
   * what a ServiceAccount token or an impersonated user may do.
   *
   * @internal
   */
  authorize(attrs: Attributes): Decision {
    return authorize(this.rbac, attrs);
  }

  /** The served resource with this group and plural name. */
  resource(group: string, plural: string): ResourceInfo {
    const info = resources.find((r) => r.group === group && r.resource === plural);
    if (!info) throw new Error(`the sandbox does not serve ${plural}${group ? `.${group}` : ''}`);
    return info;
  }

  /** A stored object as `info` shows it: a mutable copy, with apiVersion and kind. */
  present(info: ResourceInfo, stored: KubeObject): KubeObject {
    return present(info, stored);
  }

  // Reviews support create only (installer.go registers no other verb for them).
  private onlyCreate(info: ResourceInfo, verb: string): void {
    if (Reviewer.handles(info)) {
      throw newMethodNotSupported({ group: info.group, resource: info.resource }, verb);
    }
  }

  // ---- read -----------------------------------------------------------------

  /** Reads one object; 404 NotFound if there is none. */
  get(info: ResourceInfo, namespace: string, name: string): KubeObject {
    this.onlyCreate(info, 'get');
    const stored = this.storage.get(
      info.storage,
      storageKey(info.namespaced ? namespace : '', name),
    );
    if (!stored || (info.namespaced && !namespace)) throw notFound(info, name);
    return present(info, stored);
  }

  /**
   * Lists objects, with selectors, `limit` and `continue`, at the revision
   * asked for. The items are copies, unless `shared` is set: then they are
   * the frozen forms watches share, for a caller that only encodes them.
   * `selectors` are `opts`' selectors already compiled (see
   * {@link Registry.compileSelectors}).
   */
  list(
    info: ResourceInfo,
    namespace: string,
    opts: ListOptions = {},
    { shared = false, selectors }: { shared?: boolean; selectors?: CompiledSelectors } = {},
  ): ObjectList<KubeObject> {
    this.onlyCreate(info, 'list');
    const strategy = strategyFor(info.storage);
    const matches = selectionPredicate(info, strategy, namespace, opts, selectors);
    validateListOptions(opts);
    const page = getList(
      this.storage,
      { storage: info.storage, namespaced: info.namespaced, namespace, matches },
      opts,
    );
    return {
      apiVersion: apiVersionOf(info),
      kind: `${info.kind}List`,
      metadata: page.metadata,
      items: shared
        ? page.items.map((o) => this.sharedForms.present(info, o))
        : page.items.map((o) => present(info, o)),
    };
  }

  /**
   * Reads and compiles the selectors of `opts` for a list or watch of
   * `info`, awaiting `pause()` every few milliseconds of work so that a
   * selector of many thousand terms does not hold the caller's thread;
   * throws 400 BadRequest as a list or watch would for a malformed one.
   */
  compileSelectors(
    info: ResourceInfo,
    opts: ListOptions,
    pause: () => Promise<void>,
  ): Promise<CompiledSelectors> {
    return compileSelectors(opts, selectableFields(strategyFor(info.storage)), pause);
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
    { shared = false, selectors }: { shared?: boolean; selectors?: CompiledSelectors } = {},
  ): Watch {
    this.onlyCreate(info, 'watch');
    const strategy = strategyFor(info.storage);
    const matches = selectionPredicate(info, strategy, namespace, opts, selectors);
    validateWatchOptions(opts);
    return new Watch(
      this.storage,
      this.clock,
      {
        storage: info.storage,
        matches,
        present: shared ? (o) => this.sharedForms.present(info, o) : (o) => present(info, o),
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
        timeoutSeconds: this.watchTimeoutSeconds(opts),
        bookmarkInterval: this.bookmarkInterval,
      },
    );
  }

  // Without timeoutSeconds (or with 0) kube-apiserver picks between
  // minRequestTimeout (30 min) and twice that; a negative one ends the watch
  // at once (handlers/get.go, ListResource).
  private watchTimeoutSeconds(opts: ListOptions): number {
    return !opts.timeoutSeconds
      ? Math.floor(1800 * (1 + this.random()))
      : Math.max(0, opts.timeoutSeconds);
  }

  // ---- create ---------------------------------------------------------------

  /** Creates an object; 409 AlreadyExists, 422 Invalid, 404 for a missing namespace. */
  create(
    info: ResourceInfo,
    namespace: string,
    body: unknown,
    opts: CreateOptions & { user?: UserInfo } = {},
  ): KubeObject {
    if (Reviewer.handles(info)) return this.reviewer.create(info, namespace, body, opts.user);
    const strategy = strategyFor(info.storage);
    const checked = structuredClone(decodeBody(info, strategy, body));
    this.admitInNamespace(info, namespace, checked);
    this.admitKind(info, checked);
    checkNoResourceVersion(checked);
    const o = beforeCreate(info, strategy, checked, this.clock.now());
    const allocationErrs = this.allocate(strategy, info, o, undefined);
    return this.storeNew(info, strategy, namespace, o, allocationErrs, opts);
  }

  // DefaultStorageClass and StorageObjectInUseProtection, on new claims and
  // volumes; DefaultTolerationSeconds on new pods.
  private admitKind(info: ResourceInfo, body: Obj): void {
    if (info.storage === 'persistentvolumeclaims') {
      admitDefaultStorageClass(body, () => this.storage.list('storageclasses.storage.k8s.io'));
      admitInUseProtection(body, pvcProtectionFinalizer);
    } else if (info.storage === 'persistentvolumes') {
      admitInUseProtection(body, pvProtectionFinalizer);
    } else if (info.storage === 'pods') {
      admitDefaultTolerationSeconds(body);
    }
  }

  // The request's namespace in the body, and the namespace open for new objects.
  private admitInNamespace(info: ResourceInfo, namespace: string, body: Obj): void {
    ensureNamespaceMatches(info, namespace, body);
    if (info.namespaced) {
      admitToNamespace(info, namespace, obj(body.metadata), (name) =>
        this.storage.get('namespaces', name),
      );
    }
  }

  // Validates and stores a new object, trying other generated names while
  // the one drawn is taken (the store's Create retries on AlreadyExists for
  // generateName).
  private storeNew(
    info: ResourceInfo,
    strategy: Strategy,
    namespace: string,
    o: Obj,
    allocationErrs: FieldError[],
    opts: CreateOptions,
  ): KubeObject {
    const m = obj(o.metadata);
    const generated =
      (typeof m.name !== 'string' || m.name === '') &&
      typeof m.generateName === 'string' &&
      m.generateName !== '';
    let attempts = generated ? 8 : 1;
    for (;;) {
      if (generated) m.name = generateName(m.generateName as string, this.random);
      const errs = [...allocationErrs, ...validateObject(strategy, o)];
      if (errs.length > 0) throw invalid(info, typeof m.name === 'string' ? m.name : '', errs);
      const key = storageKey(info.namespaced ? namespace : '', m.name as string);
      if (this.storage.get(info.storage, key)) {
        if (--attempts > 0) continue;
        throw alreadyExists(info, m.name as string, generated);
      }
      if (opts.dryRun === 'All') return present(info, o);
      return present(info, this.storage.commit(info.storage, key, 'ADDED', o));
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
    const strategy = strategyFor(info.storage);
    const checked = structuredClone(decodeBody(info, strategy, body));
    const meta = obj(checked.metadata);
    checkNameMatches(meta.name, name);
    meta.name = name;
    checked.metadata = meta;
    const key = storageKey(info.namespaced ? namespace : '', name);
    const existing = this.storage.get(info.storage, key);
    if (!existing) {
      if (strategy.allowCreateOnUpdate && !opts.subresource) {
        this.admitInNamespace(info, namespace, checked);
        delete meta.resourceVersion;
        return { object: this.create(info, namespace, checked, opts), created: true };
      }
      throw notFound(info, name);
    }
    ensureNamespaceMatches(info, namespace, checked);
    this.checkResourceVersion(info, strategy, name, meta.resourceVersion, existing);
    const next = toStorageForm(info, checked);
    return this.commitUpdate(info, strategy, key, existing, next, opts);
  }

  // The store's Update: a resourceVersion must match the stored one, and
  // may be left out only where the kind allows an unconditional update.
  private checkResourceVersion(
    info: ResourceInfo,
    strategy: Strategy,
    name: string,
    rv: unknown,
    existing: KubeObject,
  ): void {
    if (rv === undefined || rv === '') {
      if (strategy.allowUnconditionalUpdate) return;
      throw invalid(info, name, [
        {
          type: 'FieldValueInvalid',
          field: 'metadata.resourceVersion',
          value: 0,
          detail: 'must be specified for an update',
        },
      ]);
    }
    if (rv !== existing.metadata?.resourceVersion) {
      throw newConflict(
        { group: info.group, resource: info.resource },
        name,
        optimisticLockErrorMsg,
      );
    }
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
    const name = String(obj(old.metadata).name);
    beforeUpdate(info, strategy, next, old, opts.subresource);
    // A status write is validated by the status strategy alone, where the
    // kind has one (the metadata always).
    const statusOnly = opts.subresource === 'status' && strategy.validateStatusUpdate !== undefined;
    const errs = [
      ...this.allocate(strategy, info, next, old),
      ...(statusOnly
        ? [
            ...validateObjectMeta(obj(next.metadata), strategy.nameIsLabel, strategy.checkName),
            ...(strategy.validateStatusUpdate?.(next, old) ?? []),
          ]
        : [...validateObject(strategy, next, old), ...strategy.validateUpdate(next, old)]),
    ];
    if (errs.length > 0) throw invalid(info, name, errs);
    updateGeneration(strategy, next, old, opts.subresource);
    const dryRun = opts.dryRun === 'All';
    if (this.shouldDeleteDuringUpdate(info, next)) {
      // The last finalizer is gone: the update deletes the object.
      if (dryRun) return { object: present(info, next), created: false };
      const deleted = this.storage.commit(info.storage, key, 'DELETED', {
        ...(next as unknown as KubeObject),
      });
      return { object: present(info, deleted), created: false };
    }
    if (sameButResourceVersion(next, existing)) {
      // A write that changes nothing keeps the resourceVersion and sends no event.
      return { object: present(info, existing), created: false };
    }
    if (dryRun) {
      obj(next.metadata).resourceVersion = existing.metadata?.resourceVersion;
      return { object: present(info, next), created: false };
    }
    const stored = this.storage.commit(info.storage, key, 'MODIFIED', next);
    return { object: present(info, stored), created: false };
  }

  // store.go, ShouldDeleteDuringUpdate: an object being deleted goes once
  // its finalizers and grace period are done (and, for a namespace, its
  // spec finalizers).
  private shouldDeleteDuringUpdate(info: ResourceInfo, next: Obj): boolean {
    const meta = obj(next.metadata);
    const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    const graceDone =
      meta.deletionGracePeriodSeconds === undefined || meta.deletionGracePeriodSeconds === 0;
    return (
      meta.deletionTimestamp !== undefined &&
      finalizers.length === 0 &&
      graceDone &&
      !this.namespaces.waitsForFinalize(info, next)
    );
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
        checkNameMatches(meta.name, name);
        return {
          object: this.create(info, namespace, { ...body, metadata: { ...meta, name } }, opts),
          created: true,
        };
      }
      throw notFound(info, name);
    }
    const patched = applyPatch(info, present(info, existing), patch);
    checkPatchedDecodes(info, patched);
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
    opts: RegistryDeleteOptions = {},
  ): KubeObject | Status {
    this.onlyCreate(info, 'delete');
    validateDeleteOptions(info, name, opts);
    const key = storageKey(info.namespaced ? namespace : '', name);
    const existing = this.storage.get(info.storage, key);
    if (!existing || (info.namespaced && !namespace)) throw notFound(info, name);
    const strategy = strategyFor(info.storage);
    checkPreconditions(info, name, existing.metadata ?? {}, opts.preconditions ?? {});

    const next = structuredClone(existing) as unknown as Obj;
    const m = obj(next.metadata);
    next.metadata = m;
    const current = Array.isArray(m.finalizers) ? [...(m.finalizers as string[])] : [];
    const finalizers = deletionFinalizersForGarbageCollection(
      current,
      propagationPolicy(opts) ??
        // store.go, shouldOrphanDependents: a finalizer the object carries
        // decides, else the kind's default.
        (strategy.orphanDependentsByDefault &&
        !current.includes('orphan') &&
        !current.includes('foregroundDeletion')
          ? 'Orphan'
          : undefined),
    );
    if (finalizers.length > 0) m.finalizers = finalizers;
    else delete m.finalizers;
    const now = this.clock.now();
    const { pending, started } = beforeDelete(strategy, next, opts, now);
    if (started) this.namespaces.markTerminating(info, next);
    const dryRun = opts.dryRun === 'All';
    const namespaceKept = this.namespaces.delete(info, existing, next, pending, now, dryRun);
    if (namespaceKept) return namespaceKept;
    return this.finishDelete(info, strategy, key, existing, next, dryRun);
  }

  // The store's Delete once the object is settled: it waits (for finalizers
  // or its grace period) or goes now (finalizeDelete's answer).
  private finishDelete(
    info: ResourceInfo,
    strategy: Strategy,
    key: string,
    existing: KubeObject,
    next: Obj,
    dryRun: boolean,
  ): KubeObject | Status {
    const m = obj(next.metadata);
    const finalizers = Array.isArray(m.finalizers) ? m.finalizers : [];
    const graceLeft =
      typeof m.deletionGracePeriodSeconds === 'number' ? m.deletionGracePeriodSeconds : 0;
    if (finalizers.length > 0 || graceLeft > 0) {
      if (dryRun) return present(info, next);
      if (sameButResourceVersion(next, existing)) return present(info, existing);
      return present(info, this.storage.commit(info.storage, key, 'MODIFIED', next));
    }
    const deleted = dryRun ? existing : this.storage.commit(info.storage, key, 'DELETED', existing);
    if (strategy.returnDeletedObject) return present(info, deleted);
    const meta = existing.metadata ?? {};
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: {
        name: meta.name ?? '',
        group: info.group,
        kind: info.resource,
        uid: meta.uid ?? '',
      },
    };
  }

  /** Deletes every object that `opts` selects (deletecollection); returns an empty list of them. */
  deleteCollection(
    info: ResourceInfo,
    namespace: string,
    listOpts: ListOptions,
    opts: RegistryDeleteOptions = {},
  ): ObjectList<KubeObject> {
    validateDeleteOptions(info, '', opts);
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

  // ---- per-resource storage -------------------------------------------------

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

  /**
   * Evicts a pod through `pods/eviction` (see ./core/pod-eviction.ts): the
   * Status kube-apiserver answers, or 429 TooManyRequests when its
   * disruption budget allows no disruption now.
   */
  evictPod(namespace: string, name: string, body: unknown, opts: { dryRun?: 'All' } = {}): Status {
    return evictPod(
      {
        now: () => this.clock.now(),
        resource: (group, plural) => this.resource(group, plural),
        get: (info, ns, n) => this.get(info, ns, n),
        list: (info, ns, o) => this.list(info, ns, o),
        update: (info, ns, n, b, o) => this.update(info, ns, n, b, o),
        delete: (info, ns, n, o) => this.delete(info, ns, n, o),
      },
      namespace,
      name,
      body,
      opts,
    );
  }

  /**
   * Issues a token for a ServiceAccount through `serviceaccounts/token`: the
   * authentication.k8s.io/v1 TokenRequest with its status (see
   * ./core/service-account-token.ts).
   */
  createServiceAccountToken(namespace: string, name: string, body: unknown): KubeObject {
    return this.serviceAccountTokens.create(namespace, name, body, this.clock.now());
  }

  /** PUT /api/v1/namespaces/{name}/finalize: sets `spec.finalizers`; the namespace goes once they are empty (see ./namespace/storage.ts). */
  finalizeNamespace(name: string, body: unknown): KubeObject {
    return this.namespaces.finalize(name, body);
  }
}

// A body's name, if it has one, must be the URL's.
function checkNameMatches(bodyName: unknown, name: string): void {
  if (bodyName !== undefined && bodyName !== name) {
    throw newBadRequest(
      `the name of the object (${plain(bodyName)}) does not match the name on the URL (${name})`,
    );
  }
}

// The patched JSON is decoded into the typed object (handlers/patch.go,
// applyPatchToCurrentObject): a decode error is an Invalid "patch".
function checkPatchedDecodes(info: ResourceInfo, patched: Obj): void {
  const typeError = typedFieldError(info.kind, patched);
  if (typeError === undefined) return;
  throw newInvalid({ group: '', kind: '' }, '', [
    {
      reason: 'FieldValueInvalid',
      field: 'patch',
      message: `Invalid value: ${JSON.stringify(JSON.stringify(patched))}: ${typeError}`,
    },
  ]);
}

// 409 AlreadyExists; for a generated name, with the words the store adds
// when every name it drew was taken.
function alreadyExists(info: ResourceInfo, name: string, generated: boolean): StatusError {
  const err = newAlreadyExists({ group: info.group, resource: info.resource }, name);
  if (!generated) return err;
  return new StatusError({
    code: 409,
    reason: 'AlreadyExists',
    details: err.details ?? {},
    message: `${err.message}, the server was not able to generate a unique name for the object`,
  });
}
