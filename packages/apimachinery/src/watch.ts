// Watch events: k8s.io/apimachinery/pkg/watch (watch.go) and the wire form of
// pkg/apis/meta/v1 (watch.go). A watch is a stream of these, one JSON object per
// line on the wire.
import type { Status } from 'kubernetes-types/meta/v1.js';

/**
 * The kinds of watch event, as spelled on the wire. Go's `watch.EventType`.
 *
 * @category Watch
 */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * Every {@link WatchEventType}, in a fixed order.
 *
 * @category Watch
 */
export const watchEventTypes: readonly WatchEventType[] = Object.freeze([
  'ADDED',
  'MODIFIED',
  'DELETED',
  'BOOKMARK',
  'ERROR',
]);

/**
 * True when `value` is one of the {@link watchEventTypes}; for checking events
 * parsed from the wire.
 *
 * @category Watch
 */
export function isWatchEventType(value: unknown): value is WatchEventType {
  return typeof value === 'string' && (watchEventTypes as readonly string[]).includes(value);
}

/**
 * An event about an object:
 *
 * - `ADDED`, `MODIFIED`: the object as it is now;
 * - `DELETED`: the object as it was last, with the deletion's resourceVersion;
 * - `BOOKMARK`: no change, only progress: an object of the watched kind whose
 *   only meaningful field is `metadata.resourceVersion` (and, for the bookmark
 *   that ends the initial events of a `sendInitialEvents` watch, the
 *   {@link initialEventsEndAnnotation}). Sent only when the watch asked for
 *   bookmarks.
 *
 * @category Watch
 */
export interface ObjectWatchEvent<T> {
  /** What happened. */
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  /** The object, in wire format. */
  object: T;
}

/**
 * The watch failed: the server sends one of these, then ends the stream. The
 * most common is 410 Expired, when the watch's resourceVersion has been
 * compacted away and the watcher must list again.
 * `StatusError.fromStatus(event.object)` turns it into an error.
 *
 * @category Watch
 */
export interface ErrorWatchEvent {
  /** Always `'ERROR'`. */
  type: 'ERROR';
  /** The `Status` describing the failure. */
  object: Status;
}

/**
 * One event of a watch: Go's `watch.Event`, in the wire form the API server
 * sends (`{"type":"ADDED","object":{...}}`). Narrow on `type`: an `ERROR`
 * event carries a `Status`, every other a `T`.
 *
 * @category Watch
 */
export type WatchEvent<T> = ObjectWatchEvent<T> | ErrorWatchEvent;

/**
 * The annotation on the `BOOKMARK` that ends the initial `ADDED` events of a
 * watch made with `sendInitialEvents: true`: `k8s.io/initial-events-end`, set to
 * `"true"`.
 *
 * @category Watch
 */
export const initialEventsEndAnnotation = 'k8s.io/initial-events-end';
