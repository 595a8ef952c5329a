#!/usr/bin/env node
// Writes packages/sandbox/src/apiserver/protobuf/kube-proto.json: the wire
// schema (message names, field names, numbers and types) of the kinds a
// client may send the sandbox as application/vnd.kubernetes.protobuf, and of
// every message they reach. kubectl's `create <kind>` generators send
// protobuf, so the sandbox must read it to serve them.
//
// The input is the generated.proto files of k8s.io/api and
// k8s.io/apimachinery (Apache-2.0), laid out as their imports name them:
//   <proto-path>/k8s.io/api/core/v1/generated.proto
//   <proto-path>/k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto ...
// Only the schema is kept: no comments, no options. Two things JSON does
// differently from the messages are listed beside them: a message that stands
// for a Go slice type (marked nullable) under `lists`, because its JSON is the
// bare array of its `items`; and a field that holds a Go struct embedded
// inline (Probe's handler, Volume's volumeSource) under `inline`, because JSON
// has its fields in the parent. Which fields are inline is read from
// kube-fields.json (scripts/gen-kube-fields.mjs): the parent's JSON lacks the
// field's name and has most of its fields.
//
// Usage: node scripts/gen-kube-proto.mjs <proto-path> <k8s.io/api version>
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import protobuf from 'protobufjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'packages/sandbox/src/apiserver/protobuf/kube-proto.json');
const [protoPath, version] = process.argv.slice(2);
if (!protoPath || !version) {
  console.error('usage: node scripts/gen-kube-proto.mjs <proto-path> <k8s.io/api version>');
  process.exit(2);
}

// The kinds the sandbox accepts as protobuf: what it serves and a client
// creates or replaces as a typed object.
const KINDS = {
  'v1/Namespace': 'k8s.io.api.core.v1.Namespace',
  'v1/Pod': 'k8s.io.api.core.v1.Pod',
  'v1/ConfigMap': 'k8s.io.api.core.v1.ConfigMap',
  'v1/Secret': 'k8s.io.api.core.v1.Secret',
  'v1/Service': 'k8s.io.api.core.v1.Service',
  'apps/v1/Deployment': 'k8s.io.api.apps.v1.Deployment',
  'apps/v1/ReplicaSet': 'k8s.io.api.apps.v1.ReplicaSet',
};
const ENVELOPE = 'k8s.io.apimachinery.pkg.runtime.Unknown';

const pb = new protobuf.Root();
pb.resolvePath = (_origin, target) => path.join(protoPath, target);
await pb.load(['k8s.io/api/core/v1/generated.proto', 'k8s.io/api/apps/v1/generated.proto'], {
  keepCase: true,
  alternateCommentMode: true,
});
pb.resolveAll();

/** Every message reachable from the roots, by full name without the leading dot. */
const reached = new Map();
const visit = (name) => {
  if (reached.has(name)) return;
  const type = pb.lookupType(name);
  reached.set(name, type);
  for (const field of type.fieldsArray)
    if (field.resolvedType instanceof protobuf.Type) visit(field.resolvedType.fullName.slice(1));
};
for (const name of [...Object.values(KINDS), ENVELOPE]) visit(name);

const jsonTypes = JSON.parse(
  readFileSync(path.join(root, 'packages/sandbox/src/kube-fields.json'), 'utf8'),
).types;
/** k8s.io.api.core.v1.Probe → core/v1.Probe; meta/v1 likewise. */
const jsonName = (name) =>
  name
    .replace(/^k8s\.io\.api\./, '')
    .replace(/^k8s\.io\.apimachinery\.pkg\.apis\./, '')
    .replace(/\.(v\d\w*)\./, '/$1.');
const isInline = (type, field) => {
  const parent = jsonTypes[jsonName(type.fullName.slice(1))];
  if (!parent || field.name in parent || !(field.resolvedType instanceof protobuf.Type))
    return false;
  const inner = field.resolvedType.fieldsArray.map((f) => f.name);
  // Most, not all: the proto may be newer than the JSON field lists.
  return inner.filter((n) => n in parent).length * 2 > inner.length;
};

const lists = [];
const inline = [];
const messages = {};
for (const [name, type] of [...reached].sort(([a], [b]) => a.localeCompare(b))) {
  if (type.comment?.includes('+protobuf.nullable=true')) lists.push(name);
  const fields = {};
  for (const f of type.fieldsArray) {
    if (isInline(type, f)) inline.push(`${name}.${f.name}`);
    fields[f.name] = {
      id: f.id,
      type: f.resolvedType ? f.resolvedType.fullName.slice(1) : f.type,
      ...(f.map ? { keyType: f.keyType } : {}),
      ...(f.repeated ? { rule: 'repeated' } : {}),
    };
  }
  messages[name] = { edition: 'proto2', fields };
}

/** protobufjs' JSON form: namespaces nested by package, full type names. */
const nested = {};
for (const [name, message] of Object.entries(messages)) {
  const parts = name.split('.');
  let at = nested;
  for (const part of parts.slice(0, -1)) at = (at[part] ??= { nested: {} }).nested;
  at[parts.at(-1)] = message;
}

const data = {
  source: `generated.proto of k8s.io/api and k8s.io/apimachinery ${version} (Apache-2.0), schema only; written by scripts/gen-kube-proto.mjs`,
  envelope: ENVELOPE,
  kinds: KINDS,
  lists,
  inline,
  nested,
};
const text = await prettier.format(JSON.stringify(data), { parser: 'json', printWidth: 100 });
writeFileSync(out, text);
console.log(`${path.relative(root, out)}: ${reached.size} messages`);
