// The DeleteOptions of a delete or deletecollection, read as handlers/
// delete.go reads them (DeleteResource, DeleteCollection): from the body when
// there is one, and only then from it; otherwise from the query through the
// parameter codec. Nothing is deleted when they do not decode: a field of the
// wrong JSON type is a 400 with Go's decoder's words, and what decodes is
// then checked by ValidateDeleteOptions before the registry sees it.
import type { IncomingMessage } from 'node:http';
import { isStatusError, newBadRequest } from '@kcm-ts/apimachinery';
import type { DeleteOptions } from '@kcm-ts/apimachinery';
import { DecodeError, parseYamlLimited } from '../body-limits.js';
import { GoDecodeError, checkGoStruct, type GoType } from '../go-json.js';
import { plain } from '../registry/field-errors.js';
import { boolParam, int64Param } from '../query-params.js';
import { mediaType, parseJson, unknownFormat } from './rest.js';

/** The options a delete carries, as the registry takes them. */
export type DecodedDeleteOptions = DeleteOptions & {
  orphanDependents?: boolean;
  /** Every dryRun value asked for; the registry's validation refuses any but `All`. */
  dryRunValues?: string[];
};

const optionalString = { kind: 'string' } as const;

// apis/meta/v1/types.go, DeleteOptions and Preconditions: the fields and
// their Go types, as encoding/json reads them.
const deleteOptionsType: GoType & { kind: 'struct' } = {
  kind: 'struct',
  name: 'v1.DeleteOptions',
  fields: {
    kind: optionalString,
    apiVersion: optionalString,
    gracePeriodSeconds: { kind: 'int64' },
    preconditions: {
      kind: 'struct',
      name: 'v1.Preconditions',
      fields: {
        uid: { kind: 'string', name: 'types.UID' },
        resourceVersion: optionalString,
      },
    },
    orphanDependents: { kind: 'bool' },
    propagationPolicy: { kind: 'string', name: 'v1.DeletionPropagation' },
    dryRun: { kind: 'slice', elem: optionalString },
    ignoreStoreReadErrorWithClusterBreakingPotential: { kind: 'bool' },
  },
};

/**
 * The DeleteOptions of a DELETE: the body's when it has one (JSON or YAML),
 * else the query's.
 *
 * @throws StatusError 400 when the body or a parameter does not decode, 415
 * for a body in another format.
 */
export function decodeDeleteOptions(
  req: IncomingMessage,
  body: Buffer,
  query: URLSearchParams,
): DecodedDeleteOptions {
  return body.length > 0 ? fromBody(req, body) : fromQuery(query);
}

function fromBody(req: IncomingMessage, buf: Buffer): DecodedDeleteOptions {
  const type = mediaType(req);
  let value: unknown;
  if (type === '' || type === 'application/json') value = parseJson(buf, 'DeleteOptions');
  else if (type === 'application/yaml') value = parseYaml(buf);
  else throw unknownFormat('application/json, application/yaml');
  try {
    checkGoStruct(value, deleteOptionsType);
  } catch (err) {
    if (err instanceof GoDecodeError) throw newBadRequest(err.message);
    throw err;
  }
  const b = (value ?? {}) as Record<string, unknown>;
  if (b.kind !== undefined && b.kind !== null && b.kind !== '' && b.kind !== 'DeleteOptions')
    throw newBadRequest(`${plain(b.kind)} is not a DeleteOptions`);
  const opts: DecodedDeleteOptions = {};
  if (typeof b.gracePeriodSeconds === 'number') opts.gracePeriodSeconds = b.gracePeriodSeconds;
  if (typeof b.propagationPolicy === 'string')
    opts.propagationPolicy = b.propagationPolicy as DeleteOptions['propagationPolicy'] & string;
  if (typeof b.orphanDependents === 'boolean') opts.orphanDependents = b.orphanDependents;
  const pre = b.preconditions as Record<string, unknown> | null | undefined;
  if (pre) {
    opts.preconditions = {
      ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
      ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
    };
  }
  if (Array.isArray(b.dryRun)) setDryRun(opts, b.dryRun as (string | null)[]);
  return opts;
}

function parseYaml(buf: Buffer): unknown {
  try {
    return parseYamlLimited(buf.toString('utf8'));
  } catch (err) {
    if (isStatusError(err)) throw err;
    if (err instanceof DecodeError) throw newBadRequest(err.message);
    throw newBadRequest(`DeleteOptions: invalid YAML: ${(err as Error).message}`);
  }
}

// The parameter codec (Convert_url_Values_To_v1_DeleteOptions): every
// dryRun value, the first of the others.
function fromQuery(query: URLSearchParams): DecodedDeleteOptions {
  const opts: DecodedDeleteOptions = {};
  const grace = int64Param(query, 'gracePeriodSeconds');
  if (grace !== undefined) opts.gracePeriodSeconds = grace;
  const policy = query.get('propagationPolicy');
  if (policy !== null)
    opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'] & string;
  const orphan = boolParam(query, 'orphanDependents');
  if (orphan !== undefined) opts.orphanDependents = orphan;
  setDryRun(opts, query.getAll('dryRun'));
  return opts;
}

function setDryRun(opts: DecodedDeleteOptions, values: (string | null)[]): void {
  // A null element decodes to Go's empty string.
  const dryRun = values.map((v) => v ?? '');
  if (dryRun.length === 0) return;
  opts.dryRunValues = dryRun;
  if (dryRun.every((v) => v === 'All')) opts.dryRun = 'All';
}
