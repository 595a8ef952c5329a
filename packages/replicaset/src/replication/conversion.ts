// The adapters that let the ReplicaSet controller run ReplicationControllers:
// pkg/controller/replication/conversion.go (informerAdapter,
// conversionInformer, conversionLister, conversionNamespaceLister,
// conversionEventHandler, clientsetAdapter and conversionClient, convertSlice,
// convertList, convertCall, convertRCtoRS, convertRStoRC, podControlAdapter),
// with the conversions they stand on: pkg/apis/core/v1/conversion.go
// (Convert_v1_ReplicationController_To_apps_ReplicaSet,
// Convert_apps_ReplicaSet_To_v1_ReplicationController and their spec and
// status halves, dropInitContainerAnnotations) and apimachinery's
// meta/v1 helpers (Convert_Map_string_To_string_To_v1_LabelSelector,
// LabelSelectorAsMap). Upstream treats a ReplicationController as if it were
// an older API version of ReplicaSet; so do these.
import type {
  ReplicaSet,
  ReplicaSetCondition,
  ReplicaSetSpec,
  ReplicaSetStatus,
} from 'kubernetes-types/apps/v1.js';
import type {
  PodTemplateSpec,
  ReplicationController,
  ReplicationControllerCondition,
  ReplicationControllerSpec,
  ReplicationControllerStatus,
} from 'kubernetes-types/core/v1.js';
import type { LabelSelector, ObjectMeta } from 'kubernetes-types/meta/v1.js';
import {
  DeletedFinalStateUnknown,
  isDeletedFinalStateUnknown,
  isStatus,
  noopLogger,
  type Logger,
  type ObjectList,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type {
  IndexFunc,
  Indexers,
  NamespaceLister,
  ResourceEventHandler,
  ResourceInformer,
} from '@kcm-ts/informer';
import type { PodControl } from '@kcm-ts/controller';
import type { ReplicaSetInformer, ReplicaSetLister } from '../replica-set.js';

/**
 * The annotations of pre-1.8 init containers, dropped from pod templates in
 * both directions of the conversion. Go's `initContainerAnnotations`.
 */
const initContainerAnnotations: ReadonlySet<string> = new Set([
  'pod.beta.kubernetes.io/init-containers',
  'pod.alpha.kubernetes.io/init-containers',
  'pod.beta.kubernetes.io/init-container-statuses',
  'pod.alpha.kubernetes.io/init-container-statuses',
]);

/** `ns/name` of an object, for error messages. */
function describe(meta: ObjectMeta | undefined): string {
  return `${meta?.namespace ?? ''}/${meta?.name ?? ''}`;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** {@link isPlainObject} without narrowing, for a value typed as an object that may not be one. */
function isObjectValue(value: unknown): boolean {
  return isPlainObject(value);
}

/**
 * The template with the legacy init-container annotations left out (the
 * object itself when it has none). Go's `Convert_v1_PodTemplateSpec_To_core_PodTemplateSpec`
 * and its reverse, through `dropInitContainerAnnotations`; everything else
 * is shared with `template` (the cache's objects are read-only).
 */
function convertTemplate(template: PodTemplateSpec): PodTemplateSpec {
  const annotations = template.metadata?.annotations;
  if (annotations === undefined || annotations === null) return template;
  const keys = Object.keys(annotations);
  if (!keys.some((k) => initContainerAnnotations.has(k))) return template;
  const kept: Record<string, string> = {};
  for (const k of keys) {
    if (!initContainerAnnotations.has(k)) kept[k] = annotations[k]!;
  }
  return { ...template, metadata: { ...template.metadata, annotations: kept } };
}

/**
 * The label selector of an old-style map selector: every pair becomes a
 * `matchLabels` entry; an empty map gives the empty selector `{}` (which
 * selects everything). Go's `Convert_Map_string_To_string_To_v1_LabelSelector`.
 */
function mapToLabelSelector(selector: Record<string, unknown>): LabelSelector {
  const keys = Object.keys(selector);
  if (keys.length === 0) return {};
  const matchLabels: Record<string, string> = {};
  for (const key of keys) {
    const value = selector[key];
    if (typeof value !== 'string') {
      throw new TypeError(
        `selector value of ${JSON.stringify(key)} is ${value === null ? 'null' : typeof value}, not a string`,
      );
    }
    matchLabels[key] = value;
  }
  return { matchLabels };
}

/**
 * The old-style map selector of a label selector: `matchLabels` as they
 * are, plus each `In` expression with exactly one value as `key: value`;
 * any other expression cannot be written as a map and throws. Go's
 * `LabelSelectorAsMap`.
 */
function labelSelectorAsMap(ls: LabelSelector): Record<string, string> {
  const selector: Record<string, string> = { ...ls.matchLabels };
  for (const expr of ls.matchExpressions ?? []) {
    const op = JSON.stringify(String(expr.operator));
    switch (expr.operator) {
      case 'In':
        if (expr.values?.length !== 1) {
          throw new Error(
            `operator ${op} without a single value cannot be converted into the old label selector format`,
          );
        }
        selector[expr.key] = expr.values[0]!;
        break;
      case 'NotIn':
      case 'Exists':
      case 'DoesNotExist':
        throw new Error(`operator ${op} cannot be converted into the old label selector format`);
      default:
        throw new Error(`${op} is not a valid selector operator`);
    }
  }
  return selector;
}

/** The conditions of one status in the shape of the other (same five fields). */
function convertConditions(
  conditions: readonly (ReplicationControllerCondition | ReplicaSetCondition)[],
): ReplicaSetCondition[] {
  return conditions.map((c) => {
    const out: ReplicaSetCondition = { type: c.type, status: c.status };
    if (c.lastTransitionTime !== undefined) out.lastTransitionTime = c.lastTransitionTime;
    if (c.reason !== undefined) out.reason = c.reason;
    if (c.message !== undefined) out.message = c.message;
    return out;
  });
}

/** The counts and conditions, field by field (the two statuses have the same ones). */
function convertStatus(
  status: ReplicationControllerStatus | ReplicaSetStatus,
): ReplicationControllerStatus & ReplicaSetStatus {
  const out: ReplicationControllerStatus & ReplicaSetStatus = { replicas: status.replicas ?? 0 };
  if (status.fullyLabeledReplicas !== undefined) {
    out.fullyLabeledReplicas = status.fullyLabeledReplicas;
  }
  if (status.readyReplicas !== undefined) out.readyReplicas = status.readyReplicas;
  if (status.availableReplicas !== undefined) out.availableReplicas = status.availableReplicas;
  if (status.observedGeneration !== undefined) out.observedGeneration = status.observedGeneration;
  if (status.conditions !== undefined && status.conditions !== null) {
    out.conditions = convertConditions(status.conditions);
  }
  return out;
}

/**
 * The ReplicaSet that `rc` stands for, as the ReplicaSet controller sees it:
 * the same metadata (name, uid, resourceVersion, generation, labels, owner
 * references...), `spec.replicas` and `spec.minReadySeconds` as they are,
 * the map selector as a label selector of `matchLabels` (no selector stays
 * none: it selects nothing), the template without the legacy init-container
 * annotations, and the status with its counts and conditions. It carries no
 * `apiVersion` or `kind`, as Go's converted object has an empty TypeMeta.
 * Nested objects are shared with `rc`: treat the result as read-only, as
 * the cache's objects are. Go's `convertRCtoRS`.
 *
 * @throws TypeError if `rc` is not an object, or its selector is not a map
 *   of strings (the message names the ReplicationController)
 *
 * @category ReplicationController
 */
export function convertRCtoRS(rc: ReplicationController): ReplicaSet {
  if (!isObjectValue(rc)) {
    throw new TypeError(
      `can't convert ReplicationController to ReplicaSet: got ${rc === null ? 'null' : typeof rc}, not an object`,
    );
  }
  try {
    const out: ReplicaSet = {};
    if (rc.metadata !== undefined) out.metadata = { ...rc.metadata };
    const spec: unknown = rc.spec;
    if (spec !== undefined && spec !== null) {
      if (!isPlainObject(spec)) throw new TypeError('spec is not an object');
      const rcSpec = spec as ReplicationControllerSpec;
      // The selector is left out when the RC has none (see the TSDoc above).
      const rsSpec = {} as ReplicaSetSpec;
      if (rcSpec.replicas !== undefined) rsSpec.replicas = rcSpec.replicas;
      if (rcSpec.minReadySeconds !== undefined) rsSpec.minReadySeconds = rcSpec.minReadySeconds;
      const selector: unknown = rcSpec.selector;
      if (selector !== undefined && selector !== null) {
        if (!isPlainObject(selector)) throw new TypeError('selector is not a map');
        rsSpec.selector = mapToLabelSelector(selector);
      }
      if (rcSpec.template !== undefined && rcSpec.template !== null) {
        rsSpec.template = convertTemplate(rcSpec.template);
      }
      out.spec = rsSpec;
    }
    // `status` is read-only in the ReplicaSet type: set it in a new literal.
    if (rc.status === undefined || rc.status === null) return out;
    return { ...out, status: convertStatus(rc.status) };
  } catch (err) {
    throw new TypeError(
      `can't convert ReplicationController ${describe(rc.metadata)} to ReplicaSet: ${messageOf(err)}`,
      { cause: err },
    );
  }
}

/**
 * The ReplicationController a ReplicaSet converted by {@link convertRCtoRS}
 * stands for, as the API server takes it back (`apiVersion: v1`, `kind:
 * ReplicationController`): the same metadata, replicas and minReadySeconds,
 * the label selector as a map (its `matchLabels`, and `In` expressions of
 * one value), a template (an empty one when the ReplicaSet has none, as Go
 * always allocates it), and the status. Go's `convertRStoRC`, used before
 * every write the controller makes through the adapters.
 *
 * @throws Error if the selector uses an expression a map cannot hold
 *   (`NotIn`, `Exists`, `DoesNotExist`, or `In` without exactly one value),
 *   or `rs` is not an object
 *
 * @category ReplicationController
 */
export function convertRStoRC(rs: ReplicaSet): ReplicationController {
  if (!isObjectValue(rs)) {
    throw new TypeError(
      `can't convert ReplicaSet to ReplicationController: got ${rs === null ? 'null' : typeof rs}, not an object`,
    );
  }
  try {
    const out: ReplicationController = { apiVersion: 'v1', kind: 'ReplicationController' };
    if (rs.metadata !== undefined) out.metadata = { ...rs.metadata };
    if (rs.spec !== undefined && rs.spec !== null) {
      const rsSpec = rs.spec;
      const rcSpec: ReplicationControllerSpec = {};
      if (rsSpec.replicas !== undefined) rcSpec.replicas = rsSpec.replicas;
      if (rsSpec.minReadySeconds !== undefined) rcSpec.minReadySeconds = rsSpec.minReadySeconds;
      const selector: unknown = rsSpec.selector;
      if (selector !== undefined && selector !== null) {
        if (!isPlainObject(selector)) throw new TypeError('selector is not an object');
        const map = labelSelectorAsMap(selector);
        // An empty map is omitted on the wire.
        if (Object.keys(map).length > 0) rcSpec.selector = map;
      }
      rcSpec.template = convertTemplate(rsSpec.template ?? {});
      out.spec = rcSpec;
    }
    if (rs.status === undefined || rs.status === null) return out;
    return { ...out, status: convertStatus(rs.status) };
  } catch (err) {
    throw new Error(
      `can't convert ReplicaSet to ReplicationController ${describe(rs.metadata)}: ${messageOf(err)}`,
      { cause: err },
    );
  }
}

/** Go's `convertSlice`: every object converted, or the first failure thrown. */
function convertSlice(rcs: readonly ReplicationController[]): ReplicaSet[] {
  return rcs.map(convertRCtoRS);
}

/**
 * Passes ReplicationController notifications on to a ReplicaSet handler as
 * ReplicaSets, tombstones included (the object inside converted, the key
 * kept). One that cannot be converted is dropped and logged. Go's
 * `conversionEventHandler`.
 */
function conversionEventHandler(
  handler: ResourceEventHandler<ReplicaSet>,
  logger: Logger,
): ResourceEventHandler<ReplicationController> {
  const tryConvert = (obj: ReplicationController, event: string): ReplicaSet | undefined => {
    try {
      return convertRCtoRS(obj);
    } catch (err) {
      logger.error(err, `dropping RC ${event} event: can't convert object to RS`);
      return undefined;
    }
  };
  return {
    onAdd(obj, isInInitialList) {
      const rs = tryConvert(obj, 'OnAdd');
      if (rs === undefined) return undefined;
      return handler.onAdd?.(rs, isInInitialList);
    },
    onUpdate(oldObj, newObj) {
      const oldRS = tryConvert(oldObj, 'OnUpdate');
      if (oldRS === undefined) return undefined;
      const newRS = tryConvert(newObj, 'OnUpdate');
      if (newRS === undefined) return undefined;
      return handler.onUpdate?.(oldRS, newRS);
    },
    onDelete(obj) {
      if (isDeletedFinalStateUnknown(obj)) {
        const tombstone: DeletedFinalStateUnknown<ReplicationController> = obj;
        if (!isPlainObject(tombstone.obj)) {
          logger.error(
            undefined,
            'dropping RC OnDelete event: tombstone contained object that is not a RC',
            { key: tombstone.key },
          );
          return undefined;
        }
        const rs = tryConvert(tombstone.obj, 'OnDelete');
        if (rs === undefined) return undefined;
        return handler.onDelete?.(new DeletedFinalStateUnknown(tombstone.key, rs));
      }
      const rs = tryConvert(obj, 'OnDelete');
      if (rs === undefined) return undefined;
      return handler.onDelete?.(rs);
    },
  };
}

/** A namespace view of ReplicationControllers that answers with ReplicaSets. Go's `conversionNamespaceLister`. */
function conversionNamespaceLister(
  rcs: NamespaceLister<ReplicationController>,
): NamespaceLister<ReplicaSet> {
  return {
    list: (selector) => convertSlice(rcs.list(selector)),
    // A missing one is the ReplicationController lister's NotFound, as in Go.
    get: (name) => convertRCtoRS(rcs.get(name)),
    tryGet: (name) => {
      const rc = rcs.tryGet(name);
      return rc === undefined ? undefined : convertRCtoRS(rc);
    },
  };
}

/**
 * Index functions for ReplicaSets applied to ReplicationControllers through
 * the conversion; an object that cannot be converted is indexed nowhere.
 */
function rcIndexers(indexers: Indexers<ReplicaSet>): Indexers<ReplicationController> {
  const out: Indexers<ReplicationController> = {};
  for (const [name, fn] of Object.entries(indexers)) {
    out[name] = (rc: ReplicationController) => {
      let rs: ReplicaSet;
      try {
        rs = convertRCtoRS(rc);
      } catch {
        return [];
      }
      return fn(rs);
    };
  }
  return out;
}

/**
 * A {@link ReplicaSetInformer} over an informer of ReplicationControllers:
 * the ReplicaSet controller registers its handlers, index and reads on it
 * and sees ReplicaSets, while the watch and the cache stay those of the
 * shared ReplicationController informer. Go's `informerAdapter` (with
 * `conversionInformer` and `conversionLister`).
 *
 * @param rcs - the ReplicationController informer, usually `factory.replicationControllers()`
 * @param logger - where dropped notifications are reported. Default none.
 *
 * @category ReplicationController
 */
export function informerAdapter(
  rcs: ResourceInformer<ReplicationController>,
  logger: Logger = noopLogger,
): ReplicaSetInformer {
  return {
    informer() {
      const informer = rcs.informer();
      return {
        addEventHandler: (handler) =>
          informer.addEventHandler(conversionEventHandler(handler, logger)),
        addIndexers: (indexers) => informer.addIndexers(rcIndexers(indexers)),
        getIndexer() {
          const indexer = informer.getIndexer();
          return {
            byIndex: (indexName, indexedValue) =>
              convertSlice(indexer.byIndex(indexName, indexedValue)),
            getIndexers() {
              const rsIndexers: Indexers<ReplicaSet> = {};
              for (const [name, fn] of Object.entries(indexer.getIndexers())) {
                const indexFn: IndexFunc<ReplicaSet> = (rs) => fn(convertRStoRC(rs));
                rsIndexers[name] = indexFn;
              }
              return rsIndexers;
            },
          };
        },
        hasSynced: () => informer.hasSynced(),
      };
    },
    lister(): ReplicaSetLister {
      const lister = rcs.lister();
      return {
        byNamespace: (namespace) => conversionNamespaceLister(lister.byNamespace(namespace)),
      };
    },
  };
}

/** Go's `convertCall`: converts the argument to a ReplicationController and the answer back. */
async function convertCall(
  fn: (rc: ReplicationController) => Promise<ReplicationController>,
  rs: ReplicaSet,
): Promise<ReplicaSet> {
  const rc = convertRStoRC(rs);
  return convertRCtoRS(await fn(rc));
}

function notImplemented(verb: string): Promise<never> {
  return Promise.reject(
    new Error(`${verb} is not implemented for the ReplicationController conversion client`),
  );
}

/**
 * A client of ReplicaSets that reads and writes ReplicationControllers:
 * gets and lists convert what the server returns, creates and updates (the
 * status subresource included) convert the ReplicaSet to a
 * ReplicationController first and the answer back. Deletes go through as
 * they are. Watches and patches reject, as the controller uses neither
 * (its informer is the adapted one). Go's `clientsetAdapter` and
 * `conversionClient`.
 *
 * @param rcs - a core/v1 replicationcontrollers client (unscoped or in a namespace)
 *
 * @category ReplicationController
 */
export function conversionClient(
  rcs: ResourceClient<ReplicationController>,
): ResourceClient<ReplicaSet> {
  return {
    namespace: rcs.namespace,
    inNamespace: (namespace) => conversionClient(rcs.inNamespace(namespace)),
    async list(opts) {
      const list = await rcs.list(opts);
      const out: ObjectList<ReplicaSet> = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSetList',
        metadata: list.metadata,
        items: convertSlice(list.items),
      };
      return out;
    },
    watch: () => notImplemented('watch'),
    get: async (name, opts) => convertRCtoRS(await rcs.get(name, opts)),
    create: (rs, opts) => convertCall((rc) => rcs.create(rc, opts), rs),
    update: (rs, opts) => convertCall((rc) => rcs.update(rc, opts), rs),
    updateStatus: (rs, opts) => convertCall((rc) => rcs.updateStatus(rc, opts), rs),
    patch: () => notImplemented('patch'),
    patchStatus: () => notImplemented('patchStatus'),
    async delete(name, opts) {
      const result = await rcs.delete(name, opts);
      return isStatus(result) ? result : convertRCtoRS(result);
    },
    deleteCollection: (opts, listOpts) => rcs.deleteCollection(opts, listOpts),
  };
}

/**
 * A {@link "@kcm-ts/controller"!PodControl} that hands `inner` the
 * ReplicationController instead of the ReplicaSet the controller passes
 * when it creates or deletes a pod, so the events it records (and the pod
 * names it derives) are the ReplicationController's. Creations with a
 * generated name and patches go through as they are. Go's `podControlAdapter`.
 *
 * @category ReplicationController
 */
export function podControlAdapter(inner: PodControl): PodControl {
  return {
    async createPods(namespace, template, controllerObject, controllerRef, signal) {
      const rc = convertRStoRC(controllerObject as ReplicaSet);
      await inner.createPods(namespace, template, rc, controllerRef, signal);
    },
    createPodsWithGenerateName: (...args) => inner.createPodsWithGenerateName(...args),
    async deletePod(namespace, podID, controllerObject, signal) {
      const rc = convertRStoRC(controllerObject as ReplicaSet);
      await inner.deletePod(namespace, podID, rc, signal);
    },
    patchPod: (...args) => inner.patchPod(...args),
  };
}
