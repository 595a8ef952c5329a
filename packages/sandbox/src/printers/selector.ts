// Printing a LabelSelector in a Selector column.
import { labelSelectorAsSelector } from '@kcm-ts/apimachinery';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';

/**
 * A label selector in selector syntax (`app=web,tier in (a,b)`), `<none>`
 * when it selects everything or is unset, `<error>` when it is malformed.
 * Go's `metav1.FormatLabelSelector`, which the ReplicaSet printer uses.
 */
export function formatLabelSelector(selector: LabelSelector | null | undefined): string {
  let text: string;
  try {
    text = labelSelectorAsSelector(selector).string();
  } catch {
    return '<error>';
  }
  return text === '' ? '<none>' : text;
}

/**
 * A label selector in selector syntax, `''` when it selects everything or is
 * unset, `<invalid>` when it is malformed: what the Deployment printer writes
 * (it calls `LabelSelectorAsSelector(...).String()` itself).
 */
export function selectorString(selector: LabelSelector | null | undefined): string {
  try {
    return labelSelectorAsSelector(selector).string();
  } catch {
    return '<invalid>';
  }
}
