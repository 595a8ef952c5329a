// Chapter 2: the cache under every informer, on its own: pods keyed by
// namespace/name, with the namespace index and an index by node, the way a
// controller's lister reads them.
// Run: npm run start:indexer -w tutorials/02-informer
import { metaNamespaceKeyFunc } from '@kcm-ts/apimachinery';
import {
  metaNamespaceIndexFunc,
  namespaceIndex,
  newIndexer,
  type IndexFunc,
} from '@kcm-ts/informer';
import type { Pod } from 'kubernetes-types/core/v1.js';

//#region by-node
/** An index function: the node a pod is bound to; none before it is scheduled. */
export const byNode: IndexFunc<Pod> = (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []);
//#endregion by-node

const pod = (namespace: string, name: string, nodeName?: string): Pod => ({
  metadata: { namespace, name },
  spec: { containers: [{ name: 'app' }], ...(nodeName ? { nodeName } : {}) },
});

/** Fills an indexer, moves a pod and deletes one, and logs what each index answers. */
export function run(log: (line: string) => void = console.log): void {
  //#region indexer
  const pods = newIndexer<Pod>(metaNamespaceKeyFunc, {
    [namespaceIndex]: metaNamespaceIndexFunc,
    byNode,
  });
  pods.add(pod('default', 'web-1', 'node-a'));
  pods.add(pod('default', 'web-2', 'node-b'));
  pods.add(pod('kube-system', 'dns', 'node-a'));
  pods.add(pod('default', 'web-3')); // not scheduled yet: no value under byNode
  //#endregion indexer

  const show = (what: string) => {
    log(what);
    log(`  keys:                ${pods.listKeys().sort().join(' ')}`);
    log(`  namespace default:   ${pods.indexKeys(namespaceIndex, 'default').join(' ')}`);
    for (const node of pods.listIndexFuncValues('byNode').sort())
      log(`  byNode ${node}:       ${pods.indexKeys('byNode', node).join(' ')}`);
  };
  show('four pods added:');

  //#region update
  // The scheduler binds web-3; the update moves it into the byNode index.
  pods.update(pod('default', 'web-3', 'node-b'));
  // A delete takes web-1 out of every index; an emptied value disappears.
  pods.delete(pod('default', 'web-1', 'node-a'));
  //#endregion update
  show('web-3 scheduled to node-b, web-1 deleted:');

  //#region by-index
  const onNodeA = pods.byIndex('byNode', 'node-a').map((p) => p.metadata?.name);
  log(`objects on node-a: ${onNodeA.join(' ')}`);
  log(`get by key default/web-2: ${pods.getByKey('default/web-2')?.spec?.nodeName}`);
  //#endregion by-index
}

if (import.meta.url === `file://${process.argv[1]}`) run();
