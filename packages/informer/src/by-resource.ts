// Options for one resource's informer in a factory whose other options apply
// to all: controller-runtime pkg/cache/cache.go (Options.ByObject, ByObject
// with its Label, Field and Transform), on client-go's factory.
import type { ListOptions } from '@kcm-ts/apimachinery';
import type { ListOptionsModifier } from './list-watch.js';
import type { TransformFunc } from './store.js';

/**
 * The options of one resource's informer in a {@link SharedInformerFactory},
 * given by the factory's `byResource` option or by the second argument of
 * {@link SharedInformerFactory.informerFor}: controller-runtime's
 * `cache.ByObject`.
 *
 * They add to the factory's own options: the factory's `tweakListOptions`
 * runs first, then `labelSelector` and `fieldSelector` are joined to any
 * selector it set (both must match), then this `tweakListOptions` runs.
 * `transform`, when given, is used instead of the factory's.
 *
 * @category Informer factory
 */
export interface ByResourceOptions {
  /** List and watch only objects whose labels match this selector, such as `app=web`. */
  labelSelector?: string;
  /** List and watch only objects whose fields match this selector, such as `spec.nodeName=node-1`. */
  fieldSelector?: string;
  /** Changes the options of this resource's lists and watches, after the factory's. */
  tweakListOptions?: ListOptionsModifier;
  /** This resource's transform, in place of the factory's. */
  transform?: TransformFunc<unknown>;
}

/**
 * Thrown by {@link SharedInformerFactory.informerFor} (and the accessors that
 * call it) when a resource is asked for with options other than those its
 * informer has: one factory keeps one informer per resource, and quietly
 * handing out an informer that watches something else would leave one of
 * the callers with the wrong cache.
 *
 * @category Informer factory
 */
export class InformerOptionsConflictError extends Error {
  /** Always `'InformerOptionsConflictError'`. */
  override readonly name: string = 'InformerOptionsConflictError';
  /** The resource, keyed like `pods` or `deployments.apps`. */
  readonly resource: string;

  /**
   * @param resource - the resource, keyed like `pods`
   * @param message - what differs
   */
  constructor(resource: string, message: string) {
    super(message);
    this.resource = resource;
  }
}

const fields = ['labelSelector', 'fieldSelector', 'tweakListOptions', 'transform'] as const;

/** The options with empty selectors and unset fields dropped, for comparing. */
export function normalizeByResource(opts: ByResourceOptions | undefined): ByResourceOptions {
  const out: ByResourceOptions = {};
  if (opts === undefined) return out;
  if (opts.labelSelector) out.labelSelector = opts.labelSelector;
  if (opts.fieldSelector) out.fieldSelector = opts.fieldSelector;
  if (opts.tweakListOptions) out.tweakListOptions = opts.tweakListOptions;
  if (opts.transform) out.transform = opts.transform;
  return out;
}

/**
 * Why two requests for `resource` cannot share an informer, or `undefined`
 * when their options are the same (functions compare by identity, since
 * two functions cannot be told apart otherwise).
 */
export function byResourceConflict(
  resource: string,
  existing: ByResourceOptions,
  requested: ByResourceOptions,
  existingFrom: string,
  requestedFrom: string,
): string | undefined {
  const differs = fields.filter((f) => existing[f] !== requested[f]);
  if (differs.length === 0) return undefined;
  return (
    `${resource}: the informer ${existingFrom} has ${describe(existing)}, ` +
    `but ${requestedFrom} asks for ${describe(requested)} ` +
    `(differing: ${differs.join(', ')}); a factory keeps one informer per resource, ` +
    `so every request for it must give the same options`
  );
}

function describe(opts: ByResourceOptions): string {
  const parts = fields.flatMap((f) => {
    const v = opts[f];
    if (v === undefined) return [];
    if (typeof v === 'string') return [`${f} ${JSON.stringify(v)}`];
    return [`${f} ${v.name ? `${v.name}()` : '(anonymous function)'}`];
  });
  return parts.length === 0 ? 'no per-resource options' : parts.join(', ');
}

/**
 * The modifier that applies the factory's tweak, then a resource's
 * selectors and tweak; `undefined` when there is nothing to change.
 */
export function combinedListOptions(
  factoryTweak: ListOptionsModifier | undefined,
  opts: ByResourceOptions,
): ListOptionsModifier | undefined {
  const { labelSelector, fieldSelector, tweakListOptions } = opts;
  if (!factoryTweak && !labelSelector && !fieldSelector && !tweakListOptions) return undefined;
  return (o: ListOptions) => {
    factoryTweak?.(o);
    if (labelSelector) o.labelSelector = joinSelectors(o.labelSelector, labelSelector);
    if (fieldSelector) o.fieldSelector = joinSelectors(o.fieldSelector, fieldSelector);
    tweakListOptions?.(o);
  };
}

// A comma between requirements means all must match, for labels and fields alike.
function joinSelectors(a: string | undefined, b: string): string {
  return a ? `${a},${b}` : b;
}
