// `kubectl get leases`: printers.go, printLease.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { translateTimestampSince } from './duration.js';
import { ageColumn, column, nameColumn, type Printer } from './printer.js';

/** Leases: Name, Holder (`spec.holderIdentity`, `''` when free), Age. */
export const leasePrinter: Printer = {
  columns: [
    nameColumn,
    column('Holder', 'string', 'Identity of the current holder of the lease.'),
    ageColumn,
  ],
  print: (obj: KubeObject, now: number) => {
    const lease = obj as Lease;
    return {
      cells: [
        lease.metadata?.name ?? '',
        lease.spec?.holderIdentity ?? '',
        translateTimestampSince(lease.metadata?.creationTimestamp, now),
      ],
    };
  },
};
