// References to the objects events are about: client-go
// tools/reference/ref.go (GetReference).
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import type { EventSubject } from './event-recorder.js';

/**
 * The `ObjectReference` an event about `subject` points at: Go's
 * `reference.GetReference`. An `ObjectReference` (anything without
 * `metadata`) is returned as it is; an object gives its `kind`, `apiVersion`
 * and its metadata's `namespace`, `name`, `uid` and `resourceVersion`, empty
 * ones left out as in the wire format.
 *
 * @throws `Error` when the object has no `kind`. Go falls back to the types
 *   registered in its scheme; wire-format objects must carry their kind.
 *
 * @category Events
 */
export function getReference(subject: EventSubject): ObjectReference {
  if (!('metadata' in subject)) {
    // Don't make a reference to a reference.
    return { ...(subject as ObjectReference) };
  }
  const kind = subject.kind ?? '';
  if (kind === '') {
    throw new Error('object has no kind, so no reference can be made to it');
  }
  const meta = subject.metadata ?? {};
  // Go's field order, as the API server writes it.
  const ref: ObjectReference = { kind };
  if (meta.namespace) ref.namespace = meta.namespace;
  if (meta.name) ref.name = meta.name;
  if (meta.uid) ref.uid = meta.uid;
  if (subject.apiVersion) ref.apiVersion = subject.apiVersion;
  if (meta.resourceVersion) ref.resourceVersion = meta.resourceVersion;
  return ref;
}
