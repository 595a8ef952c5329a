// The garbage collector's debugging view: Go's
// pkg/controller/garbagecollector/dump.go (the dependency graph as Graphviz
// DOT, whole or around some uids, and the handler serving it as /graph).
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { parseGroupVersion } from '@kcm-ts/apimachinery';
import type { DebuggingHandler } from '../server/secure-serving.js';
import type { Node, UIDToNode } from './graph.js';

/** One vertex of the DOT graph: a node, or an owner the graph lacks. Go's `gonumVertex`. */
interface Vertex {
  readonly id: number;
  readonly uid: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly missingFromGraph: boolean;
  readonly beingDeleted: boolean;
  readonly deletingDependents: boolean;
  readonly virtual: boolean;
}

function groupVersionOf(apiVersion: string): { group: string; version: string } {
  try {
    return parseGroupVersion(apiVersion);
  } catch {
    // The API server does not store such references; show what can be shown.
    return { group: '', version: '' };
  }
}

function nodeVertex(node: Node, id: number): Vertex {
  const { identity } = node;
  return {
    id,
    uid: identity.uid,
    ...groupVersionOf(identity.apiVersion),
    kind: identity.kind,
    namespace: identity.namespace,
    name: identity.name,
    missingFromGraph: false,
    beingDeleted: node.beingDeleted,
    deletingDependents: node.deletingDependents,
    virtual: node.virtual,
  };
}

function missingVertex(ref: OwnerReference, id: number): Vertex {
  return {
    id,
    uid: ref.uid,
    ...groupVersionOf(ref.apiVersion),
    kind: ref.kind,
    namespace: '',
    name: ref.name,
    missingFromGraph: true,
    beingDeleted: false,
    deletingDependents: false,
    virtual: false,
  };
}

/** A DOT string literal; quotes and backslashes are escaped so any uid stays valid DOT. */
function quote(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** The vertex's attributes in the order Go's `Attributes` lists them. */
function attributes(v: Vertex): [string, string][] {
  const kubectl = `${v.kind}.${v.version}${v.group ? `.${v.group}` : ''}/${v.name}`;
  const conditions = [
    ...(v.beingDeleted ? ['beingDeleted'] : []),
    ...(v.deletingDependents ? ['deletingDependents'] : []),
    ...(v.virtual ? ['virtual'] : []),
    ...(v.missingFromGraph ? ['missingFromGraph'] : []),
  ].join(',');
  // Real line breaks in the label, as upstream writes it; Graphviz accepts them in a string.
  let label = `uid=${v.uid}\nnamespace=${v.namespace}\n${kubectl}\n`;
  if (conditions) label += `${conditions}\n`;
  return [
    ['label', label],
    ['group', v.group],
    ['version', v.version],
    ['kind', v.kind],
    ['namespace', v.namespace],
    ['name', v.name],
    ['uid', v.uid],
    ['missing', String(v.missingFromGraph)],
    ['beingDeleted', String(v.beingDeleted)],
    ['deletingDependents', String(v.deletingDependents)],
    ['virtual', String(v.virtual)],
  ];
}

/**
 * The DOT text of `nodes`: a vertex for each node that owns or is owned, an
 * edge from each dependent to each of its owners, and a "missing" vertex for
 * an owner not among `nodes`. Laid out as gonum's `dot.Marshal` writes a
 * strict directed graph named `full` with a two-space indent. Go's
 * `toGonumGraph` and the marshalling in `ServeHTTP`.
 */
export function toDOT(nodes: Iterable<Node>): string {
  const vertices: Vertex[] = [];
  const byUID = new Map<string, Vertex>();
  const list = [...nodes];
  // Vertices first, then edges, so an edge always finds an observed owner's vertex.
  for (const node of list) {
    // Objects that neither own nor are owned only clutter the picture.
    if (node.dependents.size === 0 && node.owners.length === 0) continue;
    const vertex = nodeVertex(node, vertices.length);
    vertices.push(vertex);
    byUID.set(vertex.uid, vertex);
  }
  const edges = new Map<number, Set<number>>();
  for (const node of list) {
    const from = byUID.get(node.identity.uid);
    if (from === undefined) continue;
    for (const ref of node.owners) {
      let to = byUID.get(ref.uid);
      if (to === undefined) {
        // One missing vertex per uid, however many dependents name it.
        to = missingVertex(ref, vertices.length);
        vertices.push(to);
        byUID.set(to.uid, to);
      }
      let targets = edges.get(from.id);
      if (targets === undefined) edges.set(from.id, (targets = new Set()));
      targets.add(to.id);
    }
  }

  const lines = ['strict digraph full {'];
  if (vertices.length > 0) lines.push('  // Node definitions.');
  for (const v of vertices) {
    lines.push(`  ${v.id} [`);
    for (const [key, value] of attributes(v)) lines.push(`    ${key}=${quote(value)}`);
    lines.push('  ];');
  }
  const sortedEdges = [...edges]
    .sort(([a], [b]) => a - b)
    .flatMap(([from, targets]) => [...targets].sort((a, b) => a - b).map((to) => [from, to]));
  if (sortedEdges.length > 0) lines.push('', '  // Edge definitions.');
  for (const [from, to] of sortedEdges) lines.push(`  ${from} -> ${to};`);
  lines.push('}');
  return lines.join('\n');
}

/**
 * The nodes connected to any of `uids` through owner references, both ways,
 * the given ones included; uids the graph lacks add nothing. Go's
 * `toGonumGraphForObj`, which then draws them with {@link toDOT}.
 */
export function nodesAround(uidToNode: UIDToNode, uids: readonly string[]): Node[] {
  const found = new Map<string, Node>();
  const toCheck = [...uids];
  for (let i = 0; i < toCheck.length; i++) {
    const uid = toCheck[i] ?? '';
    if (found.has(uid)) continue;
    const node = uidToNode.read(uid);
    if (node === undefined) continue;
    found.set(uid, node);
    for (const owner of node.owners) if (!found.has(owner.uid)) toCheck.push(owner.uid);
    for (const dep of node.dependents) {
      if (!found.has(dep.identity.uid)) toCheck.push(dep.identity.uid);
    }
  }
  return [...found.values()];
}

/**
 * The garbage collector's debugging handler: `/graph` answers the
 * dependency graph as `text/vnd.graphviz`, only the part around the `uid`
 * query parameters when there are any; any other path is 404. Go's
 * `debugHTTPHandler`.
 */
export function newDebugHandler(uidToNode: UIDToNode): DebuggingHandler {
  return (subpath, query) => {
    if (subpath !== '/graph') {
      return { status: 404, contentType: 'text/plain; charset=utf-8', body: '\n' };
    }
    const uids = query.getAll('uid');
    const nodes = uids.length > 0 ? nodesAround(uidToNode, uids) : uidToNode.nodes();
    return { status: 200, contentType: 'text/vnd.graphviz', body: toDOT(nodes) };
  };
}
