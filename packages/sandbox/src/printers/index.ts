// Table output for `kubectl get`: content negotiation, the includeObject
// parameter, and the per-resource printers of kube-apiserver
// (pkg/printers/internalversion/printers.go).
export { wantsTable } from './accept.js';
export { humanDuration, shortHumanDuration, translateTimestampSince } from './duration.js';
export { parseIncludeObject } from './include-object.js';
export { podStatus } from './pods.js';
export { formatLabelSelector } from './selector.js';
export { printerFor, toTable } from './table.js';
export type { TableOptions } from './table.js';
export type { Printer, PrintedRow } from './printer.js';
export type {
  IncludeObject,
  PartialObjectMetadata,
  Table,
  TableCell,
  TableColumnDefinition,
  TableRow,
  TableRowCondition,
} from './types.js';
