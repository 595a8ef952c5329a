// The DefaultTolerationSeconds admission plugin kube-apiserver enables by
// default (plugin/pkg/admission/defaulttolerationseconds/admission.go,
// Admit): a new pod that does not say how long it stays on a node that is
// not ready, or unreachable, tolerates either for 300 seconds, so that the
// node lifecycle's NoExecute taints evict it after five minutes, not at once.
import { type Obj, obj } from '../../unstructured.js';

const notReadyTaint = 'node.kubernetes.io/not-ready';
const unreachableTaint = 'node.kubernetes.io/unreachable';
/** `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds`. */
const defaultTolerationSeconds = 300;

/** Whether one of `tolerations` covers the NoExecute taint `key` (an empty key or effect covers all). */
function tolerates(tolerations: readonly Obj[], key: string): boolean {
  return tolerations.some((t) => {
    const k = typeof t.key === 'string' ? t.key : '';
    const effect = typeof t.effect === 'string' ? t.effect : '';
    return (k === key || k === '') && (effect === 'NoExecute' || effect === '');
  });
}

/** Adds the two default tolerations a new pod lacks. */
export function admitDefaultTolerationSeconds(pod: Obj): void {
  const spec = obj(pod.spec);
  const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations.map(obj) : [];
  const added: Obj[] = [];
  for (const key of [notReadyTaint, unreachableTaint]) {
    if (!tolerates(tolerations, key)) {
      added.push({
        key,
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: defaultTolerationSeconds,
      });
    }
  }
  if (added.length === 0) return;
  spec.tolerations = [...tolerations, ...added];
  pod.spec = spec;
}
