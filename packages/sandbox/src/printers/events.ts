// `kubectl get events`: printers.go, printEvent and formatEventSource. Both
// core/v1 and events.k8s.io/v1 Events print this way, since they share one
// internal type.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { Event } from 'kubernetes-types/core/v1.js';
import { eventToCore } from '../apiserver/registry/event-views.js';
import { parseTime, translateTimestampSince } from './duration.js';
import { column, wideNameColumn, type PrintedRow, type Printer } from './printer.js';

const columns = [
  column('Last Seen', 'string', 'When the event was last seen.'),
  column('Type', 'string', 'Normal or Warning.'),
  column('Reason', 'string', 'Short machine-readable cause of the event.'),
  column('Object', 'string', 'The object the event is about, as kind/name.'),
  column(
    'Subobject',
    'string',
    'The part of the object the event is about, such as one container.',
    1,
  ),
  column('Source', 'string', 'The component that reported the event, and its host.', 1),
  column('Message', 'string', 'Human-readable description of what happened.'),
  column('First Seen', 'string', 'When the event was first seen.', 1),
  column('Count', 'string', 'How many times the event has occurred.', 1),
  wideNameColumn,
];

/**
 * The Source cell: the reporting component and host joined with `, `, each
 * falling back to `reportingComponent` and `reportingInstance` when the old
 * `source` fields are empty. Go's `formatEventSource`.
 */
export function formatEventSource(event: Event): string {
  const component = event.source?.component || event.reportingComponent || '';
  const instance = event.source?.host || event.reportingInstance || '';
  return instance === '' ? component : `${component}, ${instance}`;
}

function printEvent(obj: KubeObject, now: number): PrintedRow {
  const event = (
    obj.apiVersion === 'events.k8s.io/v1' ? eventToCore(obj as Record<string, unknown>) : obj
  ) as Event;

  // New-style events only set eventTime, and a series instead of a count.
  const firstSeen = translateTimestampSince(
    parseTime(event.firstTimestamp) === undefined ? event.eventTime : event.firstTimestamp,
    now,
  );
  let lastSeen =
    parseTime(event.lastTimestamp) === undefined
      ? firstSeen
      : translateTimestampSince(event.lastTimestamp, now);
  let count = event.count ?? 0;
  if (event.series) {
    lastSeen = translateTimestampSince(event.series.lastObservedTime, now);
    count = event.series.count ?? 0;
  } else if (count === 0) {
    count = 1;
  }

  const kind = (event.involvedObject?.kind ?? '').toLowerCase();
  const name = event.involvedObject?.name ?? '';
  return {
    cells: [
      lastSeen,
      event.type ?? '',
      event.reason ?? '',
      name === '' ? kind : `${kind}/${name}`,
      event.involvedObject?.fieldPath ?? '',
      formatEventSource(event),
      (event.message ?? '').trim(),
      firstSeen,
      count,
      event.metadata?.name ?? '',
    ],
  };
}

/**
 * Events: Last Seen, Type, Reason, Object, Message; wide: Subobject, Source,
 * First Seen, Count, Name (the Name column comes last, at priority 1).
 */
export const eventPrinter: Printer = { columns, print: printEvent };
