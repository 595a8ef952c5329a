#!/usr/bin/env node
// Writes packages/sandbox/src/apiserver/protobuf/kube-proto.json: the wire
// schema (message names, field names, numbers and types) of the kinds a
// client may send the sandbox as application/vnd.kubernetes.protobuf, and of
// every message they reach. kubectl's `create <kind>` generators send
// protobuf, so the sandbox must read it to serve them.
//
// The input is the generated.proto and types.go files of k8s.io/api and
// k8s.io/apimachinery (Apache-2.0), laid out as their imports name them:
//   <proto-path>/k8s.io/api/core/v1/{generated.proto,types.go}
//   <proto-path>/k8s.io/apimachinery/pkg/apis/meta/v1/{generated.proto,types.go} ...
// Only the schema is kept: no comments, no options. What JSON does
// differently from the messages is listed beside them: a message that stands
// for a Go slice type (marked nullable) under `lists`, because its JSON is the
// bare array of its `items`; a field that holds a Go struct embedded inline
// (Probe's handler, Volume's volumeSource) under `inline`, because JSON has
// its fields in the parent; and a scalar that Go holds by value with
// `omitempty` under `omitZero`: gogo writes such a field even when it is zero,
// and Go's JSON leaves it out. Those two come from the struct tags in each
// package's types.go, beside its generated.proto.
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
  'v1/PersistentVolumeClaim': 'k8s.io.api.core.v1.PersistentVolumeClaim',
  'v1/PersistentVolume': 'k8s.io.api.core.v1.PersistentVolume',
  'v1/Endpoints': 'k8s.io.api.core.v1.Endpoints',
  'v1/ServiceAccount': 'k8s.io.api.core.v1.ServiceAccount',
  'v1/ReplicationController': 'k8s.io.api.core.v1.ReplicationController',
  'apps/v1/Deployment': 'k8s.io.api.apps.v1.Deployment',
  'apps/v1/ReplicaSet': 'k8s.io.api.apps.v1.ReplicaSet',
  'apps/v1/DaemonSet': 'k8s.io.api.apps.v1.DaemonSet',
  'apps/v1/StatefulSet': 'k8s.io.api.apps.v1.StatefulSet',
  'apps/v1/ControllerRevision': 'k8s.io.api.apps.v1.ControllerRevision',
  'batch/v1/Job': 'k8s.io.api.batch.v1.Job',
  'batch/v1/CronJob': 'k8s.io.api.batch.v1.CronJob',
  'storage.k8s.io/v1/StorageClass': 'k8s.io.api.storage.v1.StorageClass',
  'discovery.k8s.io/v1/EndpointSlice': 'k8s.io.api.discovery.v1.EndpointSlice',
  'policy/v1/PodDisruptionBudget': 'k8s.io.api.policy.v1.PodDisruptionBudget',
  'policy/v1/Eviction': 'k8s.io.api.policy.v1.Eviction',
  'rbac.authorization.k8s.io/v1/Role': 'k8s.io.api.rbac.v1.Role',
  'rbac.authorization.k8s.io/v1/ClusterRole': 'k8s.io.api.rbac.v1.ClusterRole',
  'rbac.authorization.k8s.io/v1/RoleBinding': 'k8s.io.api.rbac.v1.RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': 'k8s.io.api.rbac.v1.ClusterRoleBinding',
  'authentication.k8s.io/v1/TokenRequest': 'k8s.io.api.authentication.v1.TokenRequest',
  'authentication.k8s.io/v1/TokenReview': 'k8s.io.api.authentication.v1.TokenReview',
  'authentication.k8s.io/v1/SelfSubjectReview': 'k8s.io.api.authentication.v1.SelfSubjectReview',
  'authorization.k8s.io/v1/SubjectAccessReview': 'k8s.io.api.authorization.v1.SubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectAccessReview':
    'k8s.io.api.authorization.v1.SelfSubjectAccessReview',
  'authorization.k8s.io/v1/LocalSubjectAccessReview':
    'k8s.io.api.authorization.v1.LocalSubjectAccessReview',
};
const ENVELOPE = 'k8s.io.apimachinery.pkg.runtime.Unknown';

const pb = new protobuf.Root();
pb.resolvePath = (_origin, target) => path.join(protoPath, target);
await pb.load(
  [
    'k8s.io/api/core/v1/generated.proto',
    'k8s.io/api/apps/v1/generated.proto',
    'k8s.io/api/batch/v1/generated.proto',
    'k8s.io/api/storage/v1/generated.proto',
    'k8s.io/api/discovery/v1/generated.proto',
    'k8s.io/api/policy/v1/generated.proto',
    'k8s.io/api/rbac/v1/generated.proto',
    'k8s.io/api/authentication/v1/generated.proto',
    'k8s.io/api/authorization/v1/generated.proto',
  ],
  { keepCase: true, alternateCommentMode: true },
);
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

/**
 * What JSON does with each field of a Go struct, read from the struct tags of
 * the package's types.go beside its generated.proto: keyed by the protobuf
 * field name (`name=` in the tag), whether the Go field is a pointer, has
 * `omitempty`, or is a struct embedded `,inline`.
 */
const goStructs = new Map();
const goFieldsOf = (messageName) => {
  const pkg = messageName.slice(0, messageName.lastIndexOf('.'));
  const struct = messageName.slice(pkg.length + 1);
  if (!goStructs.has(pkg)) {
    const dir = `k8s.io/${pkg.slice('k8s.io.'.length).replaceAll('.', '/')}`;
    goStructs.set(pkg, parseGoStructs(readFileSync(path.join(protoPath, dir, 'types.go'), 'utf8')));
  }
  return goStructs.get(pkg).get(struct);
};
function parseGoStructs(source) {
  const structs = new Map();
  let current;
  for (const line of source.split('\n')) {
    const open = /^type (\w+) struct \{/.exec(line);
    if (open) {
      current = new Map();
      structs.set(open[1], current);
      continue;
    }
    if (line.startsWith('}')) current = undefined;
    if (!current) continue;
    // `Name Type `tags`` or, embedded, `Type `tags``.
    const field = /^\t(?:\w+\s+)?(\S+)\s+`([^`]*)`/.exec(line);
    if (!field || !field[2].includes('protobuf:"')) continue;
    // An embedded struct's tag may leave the name out: go-to-protobuf then
    // names the field after its type (EphemeralContainerCommon).
    const type = field[1].replace(/^\*/, '').replace(/^\w+\./, '');
    const protoName =
      /protobuf:"[^"]*\bname=(\w+)/.exec(field[2])?.[1] ?? type[0].toLowerCase() + type.slice(1);
    const json = /json:"([^"]*)"/.exec(field[2])?.[1] ?? '';
    current.set(protoName, {
      pointer: field[1].startsWith('*'),
      omitempty: json.split(',').includes('omitempty'),
      inline: json.split(',').includes('inline'),
    });
  }
  return structs;
}
const SCALARS = new Set(['string', 'bool', 'int32', 'int64']);
// Read by hand in the decoder, not field by field.
const WELL_KNOWN = new Set([
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1',
  'k8s.io.apimachinery.pkg.api.resource.Quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString',
  'k8s.io.apimachinery.pkg.runtime.TypeMeta',
  ENVELOPE,
]);

const lists = [];
const inline = [];
const omitZero = [];
const messages = {};
for (const [name, type] of [...reached].sort(([a], [b]) => a.localeCompare(b))) {
  // A Go slice type (ExtraValue) has no struct: its one field is `items`.
  const isList = type.comment?.includes('+protobuf.nullable=true') ?? false;
  if (isList) lists.push(name);
  const fields = {};
  const go = WELL_KNOWN.has(name) || isList ? undefined : goFieldsOf(name);
  if (!WELL_KNOWN.has(name) && !isList && !go) throw new Error(`no Go struct for ${name}`);
  for (const f of type.fieldsArray) {
    const tags = go?.get(f.name);
    if (go && !tags) throw new Error(`no Go field for ${name}.${f.name}`);
    if (tags?.inline) inline.push(`${name}.${f.name}`);
    if (tags && !tags.pointer && tags.omitempty && SCALARS.has(f.type) && !f.repeated && !f.map)
      omitZero.push(`${name}.${f.name}`);
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
  omitZero,
  nested,
};
const text = await prettier.format(JSON.stringify(data), { parser: 'json', printWidth: 100 });
writeFileSync(out, text);
console.log(`${path.relative(root, out)}: ${reached.size} messages`);
