// Reading application/vnd.kubernetes.protobuf bodies, as kube-apiserver's
// protobuf serializer does (apimachinery runtime/serializer/protobuf/protobuf.go,
// Serializer.Decode): a 4-byte magic `k8s\0`, then a runtime.Unknown whose
// typeMeta names the kind and whose raw bytes are the object's message.
// The messages' schema is kube-proto.json (scripts/gen-kube-proto.mjs).
//
// The result is the object as Go's JSON would write it. gogo writes every
// field Go holds by value, zero or not, and Go's JSON leaves such a field out
// when it is zero and tagged `omitempty`: those fields are listed in
// kube-proto.json (`omitZero`) and dropped when zero, so a Deployment made by
// `kubectl create` equals the one `kubectl apply` makes. A pointer field is
// on the wire only when set, and kept as sent, zero or false included.
// Empty lists and maps are left out, and a zero Time, which Go writes as null.
import protobuf from 'protobufjs/light.js';
import schema from './kube-proto.json' with { type: 'json' };

const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

const root = protobuf.Root.fromJSON(schema);
const envelope = root.lookupType(schema.envelope);
const lists = new Set<string>(schema.lists);
const inline = new Set<string>(schema.inline);
const omitZero = new Set<string>(schema.omitZero);
const kinds: Record<string, string> = schema.kinds;

/** Why a protobuf body could not be read: the caller answers 400 or 415 with it. */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
  constructor(
    message: string,
    /** The body is protobuf, but of a kind the sandbox has no schema for. */
    readonly unsupportedKind = false,
  ) {
    super(message);
  }
}

/** The kinds (`apiVersion/Kind`) whose protobuf the sandbox reads. */
export const protobufKinds: readonly string[] = Object.keys(kinds);

/**
 * Decodes a `k8s\0`-prefixed protobuf body into the object its JSON would be,
 * with `apiVersion` and `kind` from the envelope.
 */
export function decodeProtobufObject(body: Uint8Array): Record<string, unknown> {
  if (body.length < MAGIC.length || MAGIC.some((b, i) => body[i] !== b))
    throw new ProtobufDecodeError(
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    );
  let unknown: Record<string, unknown>;
  try {
    unknown = envelope.decode(body.subarray(MAGIC.length));
  } catch (err) {
    throw new ProtobufDecodeError(
      `the runtime.Unknown envelope is malformed: ${(err as Error).message}`,
    );
  }
  const typeMeta = (unknown.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const apiVersion = typeMeta.apiVersion ?? '';
  const kind = typeMeta.kind ?? '';
  if (unknown.contentEncoding)
    throw new ProtobufDecodeError(
      `content encoding ${JSON.stringify(unknown.contentEncoding)} is not supported`,
    );
  const name = kinds[`${apiVersion}/${kind}`];
  if (!name)
    throw new ProtobufDecodeError(
      `no protobuf schema for ${JSON.stringify(`${apiVersion}/${kind}`)}; the sandbox reads protobuf for ${protobufKinds.join(', ')}`,
      true,
    );
  const type = root.lookupType(name);
  let message: protobuf.Message;
  try {
    message = type.decode((unknown.raw as Uint8Array | undefined) ?? new Uint8Array());
  } catch (err) {
    throw new ProtobufDecodeError(
      `${kind} in version "${apiVersion}" is malformed: ${(err as Error).message}`,
    );
  }
  return { apiVersion, kind, ...(toJson(type, message) as Record<string, unknown>) };
}

type Value = unknown;

function toJson(type: protobuf.Type, message: protobuf.Message): Value {
  const special = wellKnown(type.fullName.slice(1), message as unknown as Record<string, unknown>);
  if (special) return special.json;
  const out: Record<string, Value> = {};
  const fields = message as unknown as Record<string, unknown>;
  const name = type.fullName.slice(1);
  for (const field of type.fieldsArray) {
    if (!Object.prototype.hasOwnProperty.call(fields, field.name)) continue;
    const key = `${name}.${field.name}`;
    const value = fieldValue(field, fields[field.name]);
    // A Go struct embedded inline: JSON has its fields in this object.
    if (inline.has(key)) Object.assign(out, value);
    else if (value !== undefined && !(omitZero.has(key) && !value)) out[field.name] = value;
  }
  if (lists.has(name)) return out.items ?? [];
  return out;
}

function fieldValue(field: protobuf.Field, raw: unknown): Value {
  if (field.map) {
    const entries = Object.entries(raw as Record<string, unknown>)
      .map(([k, v]) => [k, single(field, v)] as const)
      .filter(([, v]) => v !== undefined);
    return entries.length ? Object.fromEntries(entries) : undefined;
  }
  if (field.repeated) {
    const items = (raw as unknown[]).map((v) => single(field, v));
    return items.length ? items : undefined;
  }
  return single(field, raw);
}

function single(field: protobuf.Field, raw: unknown): Value {
  if (field.resolvedType instanceof protobuf.Type)
    return toJson(field.resolvedType, raw as protobuf.Message);
  switch (field.type) {
    case 'bytes':
      return Buffer.from(raw as Uint8Array).toString('base64');
    case 'int64':
      return toNumber(raw);
    default:
      return raw;
  }
}

function toNumber(raw: unknown): number {
  if (typeof raw === 'number') return raw;
  const long = raw as { toNumber?: () => number; low: number; high: number };
  return long.toNumber ? long.toNumber() : long.high * 2 ** 32 + (long.low >>> 0);
}

/**
 * Messages whose JSON is not an object of their fields: of the apimachinery
 * types, those the kinds in kube-proto.json reach.
 */
function wellKnown(name: string, m: Record<string, unknown>): { json: Value } | undefined {
  switch (name) {
    case `${META}.Time`:
      return { json: time(m) };
    case `${META}.FieldsV1`:
      return { json: rawJson(m.Raw) };
    case 'k8s.io.apimachinery.pkg.api.resource.Quantity':
      return { json: m.string ?? '0' };
    case 'k8s.io.apimachinery.pkg.util.intstr.IntOrString':
      return { json: toNumber(m.type ?? 0) === 1 ? (m.strVal ?? '') : (m.intVal ?? 0) };
    default:
      return undefined;
  }
}

/** RFC 3339 in UTC, to the second; the zero time is absent. */
function time(m: Record<string, unknown>): string | undefined {
  const seconds = toNumber(m.seconds ?? 0);
  const nanos = (m.nanos as number | undefined) ?? 0;
  if (seconds === 0 && nanos === 0) return undefined;
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
}

function rawJson(raw: unknown): Value {
  if (!(raw instanceof Uint8Array) || raw.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8')) as Value;
  } catch (err) {
    throw new ProtobufDecodeError(`managedFields' fieldsV1 is not JSON: ${(err as Error).message}`);
  }
}
