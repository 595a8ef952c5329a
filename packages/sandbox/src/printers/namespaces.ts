// `kubectl get namespaces`: printers.go, printNamespace.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { Namespace } from 'kubernetes-types/core/v1.js';
import { translateTimestampSince } from './duration.js';
import { ageColumn, column, nameColumn, type Printer } from './printer.js';

/** Namespaces: Name, Status (the phase), Age. */
export const namespacePrinter: Printer = {
  columns: [
    nameColumn,
    column('Status', 'string', 'Active, or Terminating while the namespace is being deleted.'),
    ageColumn,
  ],
  print: (obj: KubeObject, now: number) => {
    const ns = obj as Namespace;
    return {
      cells: [
        ns.metadata?.name ?? '',
        ns.status?.phase ?? '',
        translateTimestampSince(ns.metadata?.creationTimestamp, now),
      ],
    };
  },
};
