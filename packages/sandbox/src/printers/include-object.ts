// The `includeObject` query parameter of a Table request (metav1.TableOptions),
// checked as the apiserver's ValidateTableOptions does.
import { newBadRequest } from '@kcm-ts/apimachinery';
import type { IncludeObject } from './types.js';

/**
 * Reads the `includeObject` query parameter: `Metadata` when it is absent or
 * empty (kube-apiserver's default), else `None`, `Metadata` or `Object`
 * exactly. Any other value throws a 400 BadRequest `StatusError` with the
 * message kube-apiserver sends, naming the value and the allowed ones.
 *
 * @param value - `URLSearchParams.get('includeObject')`.
 * @category Tables
 */
export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === null || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw newBadRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}
