// The checks on a list's or a watch's options before anything is read:
// apimachinery's pkg/apis/meta/internalversion/validation/validation.go
// (ValidateListOptions), and the list handler's refusal of a
// resourceVersion beside `continue`.
import { newBadRequest, newInvalid } from '@kcm-ts/apimachinery';
import type { ListOptions, StatusError } from '@kcm-ts/apimachinery';
import { parseResourceVersion } from '../storage/resource-version.js';

/** 400 BadRequest for options no list accepts. */
export function validateListOptions(opts: ListOptions): void {
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
}

/** 400 for a malformed resourceVersion, 422 for `sendInitialEvents` without what it needs. */
export function validateWatchOptions(opts: ListOptions): void {
  if (opts.resourceVersion && opts.resourceVersion !== '0')
    parseResourceVersion(opts.resourceVersion, 'resourceVersion');
  if (!opts.sendInitialEvents) return;
  if (opts.resourceVersionMatch !== 'NotOlderThan') {
    throw forbidden(
      'resourceVersionMatch',
      'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
  }
  if (!opts.allowWatchBookmarks) {
    throw forbidden(
      'allowWatchBookmarks',
      'Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true',
    );
  }
}

function forbidden(field: string, message: string): StatusError {
  return newInvalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', [
    { reason: 'FieldValueForbidden', field, message },
  ]);
}
