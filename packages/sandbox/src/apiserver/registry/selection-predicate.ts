// Which objects a list or watch selects: the label and field selectors of
// a SelectionPredicate (staging/src/k8s.io/apiserver/pkg/storage/
// selection_predicate.go), matched against the fields the kind's strategy
// makes selectable (GetAttrs); a field no kind offers is refused as the
// field label conversion functions refuse it.
import { newBadRequest, parseFieldSelector, parseSelector } from '@kcm-ts/apimachinery';
import type { FieldSelector, KubeObject, ListOptions, Selector } from '@kcm-ts/apimachinery';
import type { ResourceInfo } from '../resources.js';
import type { Strategy } from './strategy.js';
import { type Obj } from '../unstructured.js';

/** The predicate of a list or watch in `namespace`; 400 BadRequest if a selector is malformed. */
export function selectionPredicate(
  info: ResourceInfo,
  strategy: Strategy,
  namespace: string,
  opts: ListOptions,
): (o: KubeObject) => boolean {
  const labels = opts.labelSelector ? parseLabels(opts.labelSelector) : undefined;
  const fields = opts.fieldSelector ? parseFields(strategy, opts.fieldSelector) : undefined;
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

function parseLabels(text: string): Selector {
  try {
    return parseSelector(text);
  } catch (err) {
    throw newBadRequest((err as Error).message);
  }
}

function parseFields(strategy: Strategy, text: string): FieldSelector {
  let fields: FieldSelector;
  try {
    fields = parseFieldSelector(text);
  } catch (err) {
    throw newBadRequest((err as Error).message);
  }
  const allowed = new Set([
    'metadata.name',
    'metadata.namespace',
    ...Object.keys(strategy.selectableFields({})),
  ]);
  for (const r of fields.requirements()) {
    if (!allowed.has(r.field)) throw newBadRequest(`field label not supported: ${r.field}`);
  }
  return fields;
}
