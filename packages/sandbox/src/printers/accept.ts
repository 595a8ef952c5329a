// Content negotiation for Tables: whether the transformation the apiserver's
// negotiation (see ../apiserver/negotiation.ts) settles on is a Table.
import { negotiateOutput } from '../apiserver/negotiation.js';

/**
 * True when the Accept header's most preferred clause that the sandbox can
 * serve asks for a `meta.k8s.io` Table
 * (`application/json;as=Table;v=v1;g=meta.k8s.io`), as kubectl sends for
 * human-readable output. A clause asking for a transformation the sandbox
 * does not offer (another `as`, protobuf) is skipped, as kube-apiserver
 * skips clauses it cannot honour; a plain `application/json` or a
 * `PartialObjectMetadata` clause before any Table clause means no Table.
 *
 * @param accept - the request's Accept header, if any.
 * @category Tables
 */
export function wantsTable(accept: string | undefined): boolean {
  try {
    return negotiateOutput(accept).convert?.kind === 'Table';
  } catch {
    return false;
  }
}
