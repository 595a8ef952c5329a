// The debugging view of the graph (dump.go): which vertices and edges the
// DOT output holds, whole and around given uids (the cases of dump_test.go),
// the text itself, and the handler around it.
import { describe, expect, it } from 'vitest';
import { newDebugHandler, nodesAround, toDOT } from '../../src/garbagecollector/dump.js';
import { Node, UIDToNode } from '../../src/garbagecollector/graph.js';

interface Spec {
  uid: string;
  owners?: string[];
  kind?: string;
  apiVersion?: string;
  namespace?: string;
  virtual?: boolean;
  beingDeleted?: boolean;
  deletingDependents?: boolean;
}

/** A graph of `specs` (only those present are nodes), its dependents linked as the graph builder links them. */
function graphOf(specs: Spec[]): UIDToNode {
  const graph = new UIDToNode();
  for (const s of specs) {
    graph.write(
      new Node({
        identity: {
          apiVersion: s.apiVersion ?? 'v1',
          kind: s.kind ?? 'ConfigMap',
          name: `${s.uid}-name`,
          uid: s.uid,
          namespace: s.namespace ?? 'ns',
        },
        owners: (s.owners ?? []).map((uid) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: `${uid}-name`,
          uid,
        })),
        virtual: s.virtual ?? false,
        beingDeleted: s.beingDeleted ?? false,
        deletingDependents: s.deletingDependents ?? false,
      }),
    );
  }
  for (const n of graph.nodes()) {
    for (const o of n.owners) graph.read(o.uid)?.addDependent(n);
  }
  return graph;
}

/** The vertices (by uid, `!` marking a missing one) and edges (`dependent->owner`) of DOT text. */
function parse(dot: string): { vertices: string[]; edges: string[] } {
  const uidOf = new Map<string, string>();
  for (const m of dot.matchAll(/^ {2}(\d+) \[\n([\s\S]*?)\n {2}\];$/gm)) {
    const attrs = m[2] ?? '';
    const uid = /^ {4}uid="(.*)"$/m.exec(attrs)?.[1] ?? '';
    const missing = /^ {4}missing="true"$/m.test(attrs);
    uidOf.set(m[1] ?? '', missing ? `${uid}!` : uid);
  }
  const edges = [...dot.matchAll(/^ {2}(\d+) -> (\d+);$/gm)].map(
    (m) => `${uidOf.get(m[1] ?? '')}->${uidOf.get(m[2] ?? '')}`,
  );
  return { vertices: [...uidOf.values()].sort(), edges: edges.sort() };
}

// alpha is owned by bravo and charlie; delta by foxtrot, owned by golf; echo stands alone.
const alpha = { uid: 'alpha', owners: ['bravo', 'charlie'] };
const bravo = { uid: 'bravo' };
const charlie = { uid: 'charlie' };
const delta = { uid: 'delta', owners: ['foxtrot'] };
const echo = { uid: 'echo' };
const foxtrot = { uid: 'foxtrot', owners: ['golf'] };
const golf = { uid: 'golf' };
const twoChains = [alpha, bravo, charlie, delta, foxtrot, golf];
const firstChain = {
  vertices: ['alpha', 'bravo', 'charlie'],
  edges: ['alpha->bravo', 'alpha->charlie'],
};
const secondChain = {
  vertices: ['delta', 'foxtrot', 'golf'],
  edges: ['delta->foxtrot', 'foxtrot->golf'],
};

describe('toDOT', () => {
  it('draws owners and dependents, an owner the graph lacks as missing, and leaves out loners', () => {
    expect(parse(toDOT(graphOf([alpha, bravo, charlie]).nodes()))).toEqual(firstChain);
    expect(parse(toDOT(graphOf([alpha, charlie]).nodes()))).toEqual({
      vertices: ['alpha', 'bravo!', 'charlie'],
      edges: ['alpha->bravo!', 'alpha->charlie'],
    });
    expect(parse(toDOT(graphOf([alpha, bravo, charlie, echo]).nodes()))).toEqual(firstChain);
    expect(parse(toDOT(graphOf(twoChains).nodes()))).toEqual({
      vertices: [...firstChain.vertices, ...secondChain.vertices],
      edges: [...firstChain.edges, ...secondChain.edges],
    });
  });

  it('draws one missing vertex for an owner many dependents name', () => {
    const graph = graphOf([
      { uid: 'a', owners: ['gone'] },
      { uid: 'b', owners: ['gone'] },
    ]);
    expect(parse(toDOT(graph.nodes()))).toEqual({
      vertices: ['a', 'b', 'gone!'],
      edges: ['a->gone!', 'b->gone!'],
    });
  });

  it('writes a strict digraph with each vertex’s identity and state', () => {
    const graph = graphOf([
      {
        uid: 'rs-1',
        kind: 'ReplicaSet',
        apiVersion: 'apps/v1',
        namespace: 'default',
        owners: ['d-1'],
        beingDeleted: true,
        deletingDependents: true,
      },
    ]);
    expect(toDOT(graph.nodes())).toBe(
      [
        'strict digraph full {',
        '  // Node definitions.',
        '  0 [',
        '    label="uid=rs-1',
        'namespace=default',
        'ReplicaSet.v1.apps/rs-1-name',
        'beingDeleted,deletingDependents',
        '"',
        '    group="apps"',
        '    version="v1"',
        '    kind="ReplicaSet"',
        '    namespace="default"',
        '    name="rs-1-name"',
        '    uid="rs-1"',
        '    missing="false"',
        '    beingDeleted="true"',
        '    deletingDependents="true"',
        '    virtual="false"',
        '  ];',
        '  1 [',
        '    label="uid=d-1',
        'namespace=',
        'ConfigMap.v1/d-1-name',
        'missingFromGraph',
        '"',
        '    group=""',
        '    version="v1"',
        '    kind="ConfigMap"',
        '    namespace=""',
        '    name="d-1-name"',
        '    uid="d-1"',
        '    missing="true"',
        '    beingDeleted="false"',
        '    deletingDependents="false"',
        '    virtual="false"',
        '  ];',
        '',
        '  // Edge definitions.',
        '  0 -> 1;',
        '}',
      ].join('\n'),
    );
    expect(toDOT([])).toBe('strict digraph full {\n}');
  });

  it('escapes quotes so an odd uid in a reference cannot break the DOT text', () => {
    const dot = toDOT(graphOf([{ uid: 'a', owners: ['x"y\\z'] }]).nodes());
    expect(dot).toContain('    uid="x\\"y\\\\z"');
  });
});

describe('nodesAround', () => {
  const uids = (graph: UIDToNode, around: string[]) =>
    parse(toDOT(nodesAround(graph, around))).vertices;

  it('follows owners and dependents both ways from the given uids', () => {
    const graph = graphOf(twoChains);
    expect(uids(graph, ['bravo'])).toEqual(firstChain.vertices);
    expect(uids(graph, ['golf'])).toEqual(secondChain.vertices);
    expect(uids(graph, ['delta'])).toEqual(secondChain.vertices);
    expect(uids(graph, ['delta', 'charlie'])).toEqual([
      ...firstChain.vertices,
      ...secondChain.vertices,
    ]);
  });

  it('gives nothing for a uid the graph lacks or an object that neither owns nor is owned', () => {
    expect(uids(graphOf([alpha, charlie]), ['bravo'])).toEqual([]);
    expect(uids(graphOf([alpha, bravo, charlie, echo]), ['echo'])).toEqual([]);
  });
});

describe('the debugging handler', () => {
  it('serves /graph as text/vnd.graphviz, whole or around the uid parameters, and 404 elsewhere', async () => {
    const handler = newDebugHandler(graphOf(twoChains));
    const whole = await handler('/graph', new URLSearchParams());
    expect(whole.status).toBe(200);
    expect(whole.contentType).toBe('text/vnd.graphviz');
    expect(parse(whole.body).vertices).toHaveLength(6);
    const around = await handler('/graph', new URLSearchParams('uid=golf&uid=nothing'));
    expect(parse(around.body)).toEqual(secondChain);
    // An empty uid parameter still asks for a part: of nothing.
    expect((await handler('/graph', new URLSearchParams('uid='))).body).toBe(
      'strict digraph full {\n}',
    );
    expect((await handler('', new URLSearchParams())).status).toBe(404);
    expect((await handler('/graphs', new URLSearchParams())).status).toBe(404);
  });
});
