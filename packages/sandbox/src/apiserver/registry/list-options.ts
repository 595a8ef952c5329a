// The checks on a list's or a watch's options before anything is read:
// apimachinery's pkg/apis/meta/internalversion/validation/validation.go
// (ValidateListOptions), and the list handler's refusal of a
// resourceVersion beside `continue`.
import { newBadRequest, newInvalid } from '@kcm-ts/apimachinery';
import type { ListOptions } from '@kcm-ts/apimachinery';
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

/**
 * 400 for a malformed resourceVersion; 422 for what validateWatchOptions
 * (validation.go) refuses: `sendInitialEvents` (true or false) without
 * `resourceVersionMatch=NotOlderThan`, a `resourceVersionMatch` without
 * `sendInitialEvents` or of another value or beside `continue`; and
 * `sendInitialEvents=true` without bookmarks.
 */
export function validateWatchOptions(opts: ListOptions): void {
  if (opts.resourceVersion && opts.resourceVersion !== '0')
    parseResourceVersion(opts.resourceVersion, 'resourceVersion');
  const causes: Cause[] = [];
  const match = opts.resourceVersionMatch;
  if (opts.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    causes.push(
      forbidden(
        'resourceVersionMatch',
        'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      ),
    );
  }
  if (match !== undefined) {
    if (opts.sendInitialEvents === undefined) {
      causes.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        ),
      );
    }
    if (match !== 'NotOlderThan') {
      causes.push({
        reason: 'FieldValueNotSupported',
        field: 'resourceVersionMatch',
        message: `Unsupported value: ${JSON.stringify(match)}: supported values: "NotOlderThan"`,
      });
    }
    if (opts.continue) {
      causes.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden when continue is provided',
        ),
      );
    }
  }
  if (causes.length === 0 && opts.sendInitialEvents && !opts.allowWatchBookmarks) {
    causes.push(
      forbidden(
        'allowWatchBookmarks',
        'sendInitialEvents requires setting allowWatchBookmarks to true',
      ),
    );
  }
  if (causes.length > 0) {
    throw newInvalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', causes);
  }
}

type Cause = { reason: string; field: string; message: string };

function forbidden(field: string, detail: string): Cause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
}
