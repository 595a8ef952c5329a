// The table for a resource without a printer of its own: Name and Age, as
// kube-apiserver serves a custom resource that declares no printer columns
// (apiextensions-apiserver tableconvertor, serveDefaultColumnsIfEmpty).
import type { KubeObject } from '@kcm-ts/apimachinery';
import { translateTimestampSince } from './duration.js';
import { column, creationTimestampDescription, nameColumn, type Printer } from './printer.js';

/** Any other resource: Name, and Age as a `date` column. */
export const defaultPrinter: Printer = {
  columns: [nameColumn, column('Age', 'date', creationTimestampDescription)],
  print: (obj: KubeObject, now: number) => ({
    cells: [
      obj.metadata?.name ?? '',
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
    ],
  }),
};
