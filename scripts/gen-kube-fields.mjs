#!/usr/bin/env node
// Writes packages/sandbox/src/kube-fields.json: for each kind the sandbox
// serves, the fields its objects may have, read from the type declarations
// of `kubernetes-types` (generated from Kubernetes' OpenAPI schema). The
// sandbox uses it to find unknown fields, as kube-apiserver's strict decoding
// does. Field names only: no descriptions are copied.
//
// Usage: node scripts/gen-kube-fields.mjs [--check]
//   --check  write nothing; exit 1 if the committed file is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'packages/sandbox/package.json'));
const typesDir = path.dirname(require.resolve('kubernetes-types/package.json'));
const out = path.join(root, 'packages/sandbox/src/kube-fields.json');

// The kinds the sandbox serves (apiVersion/Kind) and the type that describes each.
const KINDS = {
  'v1/Namespace': 'core/v1.Namespace',
  'v1/Pod': 'core/v1.Pod',
  'v1/ConfigMap': 'core/v1.ConfigMap',
  'v1/Secret': 'core/v1.Secret',
  'v1/Event': 'core/v1.Event',
  'v1/Node': 'core/v1.Node',
  'v1/Service': 'core/v1.Service',
  'v1/Endpoints': 'core/v1.Endpoints',
  'v1/PersistentVolumeClaim': 'core/v1.PersistentVolumeClaim',
  'v1/PersistentVolume': 'core/v1.PersistentVolume',
  'v1/Binding': 'core/v1.Binding',
  'v1/ServiceAccount': 'core/v1.ServiceAccount',
  'v1/ReplicationController': 'core/v1.ReplicationController',
  'apps/v1/Deployment': 'apps/v1.Deployment',
  'apps/v1/ReplicaSet': 'apps/v1.ReplicaSet',
  'apps/v1/DaemonSet': 'apps/v1.DaemonSet',
  'apps/v1/StatefulSet': 'apps/v1.StatefulSet',
  'apps/v1/ControllerRevision': 'apps/v1.ControllerRevision',
  'batch/v1/Job': 'batch/v1.Job',
  'batch/v1/CronJob': 'batch/v1.CronJob',
  'autoscaling/v1/Scale': 'autoscaling/v1.Scale',
  'coordination.k8s.io/v1/Lease': 'coordination/v1.Lease',
  'storage.k8s.io/v1/StorageClass': 'storage/v1.StorageClass',
  'discovery.k8s.io/v1/EndpointSlice': 'discovery/v1.EndpointSlice',
  'events.k8s.io/v1/Event': 'events/v1.Event',
  'policy/v1/PodDisruptionBudget': 'policy/v1.PodDisruptionBudget',
  'policy/v1/Eviction': 'policy/v1.Eviction',
  'rbac.authorization.k8s.io/v1/Role': 'rbac/v1.Role',
  'rbac.authorization.k8s.io/v1/ClusterRole': 'rbac/v1.ClusterRole',
  'rbac.authorization.k8s.io/v1/RoleBinding': 'rbac/v1.RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': 'rbac/v1.ClusterRoleBinding',
  'authentication.k8s.io/v1/TokenRequest': 'authentication/v1.TokenRequest',
};

/** Every declaration file of kubernetes-types, by module path (`core/v1`). */
function modules() {
  const found = new Map();
  const walk = (dir) => {
    for (const entry of ts.sys.readDirectory(dir, ['.d.ts'])) {
      const rel = path
        .relative(typesDir, entry)
        .replace(/\\/g, '/')
        .replace(/\.d\.ts$/, '');
      found.set(
        rel,
        ts.createSourceFile(entry, readFileSync(entry, 'utf8'), ts.ScriptTarget.Latest),
      );
    }
  };
  walk(typesDir);
  return found;
}

const files = modules();

/** Resolves `name` as seen from module `mod`: a local declaration or an import. */
function resolve(mod, name) {
  const sf = files.get(mod);
  for (const st of sf.statements) {
    if ((ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) && st.name.text === name) {
      return { mod, decl: st };
    }
    if (
      ts.isImportDeclaration(st) &&
      st.importClause?.namedBindings &&
      ts.isNamedImports(st.importClause.namedBindings)
    ) {
      for (const el of st.importClause.namedBindings.elements) {
        if (el.name.text !== name) continue;
        const from = path.posix.normalize(
          path.posix.join(path.posix.dirname(mod), st.moduleSpecifier.text),
        );
        return resolve(from, (el.propertyName ?? el.name).text);
      }
    }
  }
  throw new Error(`cannot resolve ${name} in ${mod}`);
}

const types = {};

/** The schema of a type node: 0 for a leaf, "mod.Name" for an object, [x] for a list, {"*": x} for a map. */
function schemaOf(mod, node) {
  if (ts.isParenthesizedTypeNode(node)) return schemaOf(mod, node.type);
  if (ts.isArrayTypeNode(node)) return [schemaOf(mod, node.elementType)];
  if (ts.isTypeLiteralNode(node)) {
    const index = node.members.find(ts.isIndexSignatureDeclaration);
    return index ? { '*': schemaOf(mod, index.type) } : 0;
  }
  if (ts.isTypeReferenceNode(node)) {
    const name = node.typeName.getText(files.get(mod));
    if (name === 'Array') return [schemaOf(mod, node.typeArguments[0])];
    if (name === 'Record') return { '*': schemaOf(mod, node.typeArguments[1]) };
    const { mod: at, decl } = resolve(mod, name);
    if (ts.isTypeAliasDeclaration(decl)) return schemaOf(at, decl.type);
    return define(at, decl);
  }
  return 0; // string, number, boolean, literals and their unions
}

function define(mod, decl) {
  const id = `${mod}.${decl.name.text}`;
  const props = decl.members.filter(ts.isPropertySignature);
  if (props.length === 0) return 0; // FieldsV1, RawExtension: free-form
  if (!(id in types)) {
    types[id] = {};
    const fields = {};
    for (const p of props)
      fields[p.name.getText(files.get(mod)).replace(/^"|"$/g, '')] = schemaOf(mod, p.type);
    types[id] = Object.fromEntries(Object.entries(fields).sort(([a], [b]) => a.localeCompare(b)));
  }
  return id;
}

// Fields a 1.32 API server knows that kubernetes-types@1.30 does not declare.
const ADDED = {
  'coordination/v1.LeaseSpec': ['preferredHolder', 'strategy'],
  'core/v1.PodSpec': ['resources'],
  'core/v1.Volume': ['image'],
  'core/v1.ContainerStatus': ['allocatedResourcesStatus', 'user'],
  'core/v1.NodeStatus': ['features'],
};

const kinds = {};
for (const [kind, ref] of Object.entries(KINDS)) {
  const dot = ref.lastIndexOf('.');
  const { mod, decl } = resolve(ref.slice(0, dot), ref.slice(dot + 1));
  kinds[kind] = define(mod, decl);
}
for (const [id, names] of Object.entries(ADDED)) {
  for (const name of names) types[id] = { ...types[id], [name]: 0 };
  types[id] = Object.fromEntries(Object.entries(types[id]).sort(([a], [b]) => a.localeCompare(b)));
}
const version = JSON.parse(readFileSync(path.join(typesDir, 'package.json'), 'utf8')).version;
const sortedTypes = Object.fromEntries(
  Object.entries(types).sort(([a], [b]) => a.localeCompare(b)),
);
const text = await prettier.format(
  JSON.stringify({ source: `kubernetes-types@${version}`, kinds, types: sortedTypes }),
  { ...(await prettier.resolveConfig(out)), parser: 'json' },
);

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(out, 'utf8');
  } catch {
    // missing: out of date
  }
  if (current !== text) {
    console.error(
      `${path.relative(root, out)} is out of date: run node scripts/gen-kube-fields.mjs`,
    );
    process.exit(1);
  }
  console.log(
    `kube-fields: ${Object.keys(kinds).length} kinds, ${Object.keys(types).length} types, up to date`,
  );
} else {
  writeFileSync(out, text);
  console.log(
    `kube-fields: wrote ${Object.keys(kinds).length} kinds, ${Object.keys(types).length} types`,
  );
}
