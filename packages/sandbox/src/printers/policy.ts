// `kubectl get poddisruptionbudgets`: printers.go, printPodDisruptionBudget.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { translateTimestampSince } from './duration.js';
import { ageColumn, column, nameColumn, type Printer } from './printer.js';

// An IntOrString as Go's String() prints it; N/A when the field is unset.
const intOrString = (v: number | string | undefined): string =>
  v === undefined || v === null ? 'N/A' : String(v);

/** PodDisruptionBudgets: Name, Min Available, Max Unavailable, Allowed Disruptions, Age. */
export const podDisruptionBudgetPrinter: Printer = {
  columns: [
    nameColumn,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column(
      'Allowed Disruptions',
      'integer',
      'Calculated number of pods that may be disrupted at this time.',
    ),
    ageColumn,
  ],
  print: (obj: KubeObject, now: number) => {
    const pdb = obj as PodDisruptionBudget;
    return {
      cells: [
        pdb.metadata?.name ?? '',
        intOrString(pdb.spec?.minAvailable),
        intOrString(pdb.spec?.maxUnavailable),
        pdb.status?.disruptionsAllowed ?? 0,
        translateTimestampSince(pdb.metadata?.creationTimestamp, now),
      ],
    };
  },
};
