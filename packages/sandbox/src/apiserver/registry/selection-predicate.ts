// Which objects a list or watch selects: the label and field selectors of
// a SelectionPredicate (staging/src/k8s.io/apiserver/pkg/storage/
// selection_predicate.go), matched against the fields the kind's strategy
// makes selectable (GetAttrs); a field no kind offers is refused as the
// field label conversion functions refuse it. Selectors are compiled first
// (./compiled-selector.ts), so a long one costs no more per object than a
// short one.
import type { KubeObject, ListOptions } from '@kcm-ts/apimachinery';
import type { ResourceInfo } from '../resources.js';
import type { Strategy } from './strategy.js';
import { type Obj } from '../unstructured.js';
import {
  compileSelectorsNow,
  type CompiledSelectors,
  type SelectableFields,
} from './compiled-selector.js';

/** The field labels objects of `strategy`'s kind can be selected by. */
export function selectableFields(strategy: Strategy): SelectableFields {
  return new Set([
    'metadata.name',
    'metadata.namespace',
    ...Object.keys(strategy.selectableFields({})),
  ]);
}

/**
 * The predicate of a list or watch in `namespace`, with its selectors
 * compiled here (400 BadRequest if one is malformed) or, for a caller that
 * read them a slice at a time, as `compiled`.
 */
export function selectionPredicate(
  info: ResourceInfo,
  strategy: Strategy,
  namespace: string,
  opts: ListOptions,
  compiled?: CompiledSelectors,
): (o: KubeObject) => boolean {
  const { labels, fields } = compiled ?? compileSelectorsNow(opts, selectableFields(strategy));
  return (o) => {
    const meta = o.metadata ?? {};
    if (info.namespaced && namespace && meta.namespace !== namespace) return false;
    if (labels && !labels(meta.labels ?? {})) return false;
    if (fields) {
      const f = {
        'metadata.name': meta.name ?? '',
        'metadata.namespace': meta.namespace ?? '',
        ...strategy.selectableFields(o as unknown as Obj),
      };
      if (!fields(f)) return false;
    }
    return true;
  };
}
