// The finalizers a delete's propagation policy asks the garbage collector
// for: the generic store's deletionFinalizersForGarbageCollection
// (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go),
// with the old `orphanDependents` option read as a policy.
import type { DeleteOptions } from '@kcm-ts/apimachinery';

/** The propagation policy a delete asks for, if any. */
export function propagationPolicy(
  opts: DeleteOptions & { orphanDependents?: boolean },
): string | undefined {
  if (opts.propagationPolicy !== undefined) return opts.propagationPolicy;
  if (opts.orphanDependents === true) return 'Orphan';
  if (opts.orphanDependents === false) return 'Background';
  return undefined;
}

/** `finalizers` with `orphan` and `foregroundDeletion` set as `policy` wants them. */
export function deletionFinalizersForGarbageCollection(
  finalizers: string[],
  policy: string | undefined,
): string[] {
  if (policy === 'Foreground')
    return [
      ...finalizers.filter((f) => f !== 'orphan'),
      ...(finalizers.includes('foregroundDeletion') ? [] : ['foregroundDeletion']),
    ];
  if (policy === 'Orphan')
    return [
      ...finalizers.filter((f) => f !== 'foregroundDeletion'),
      ...(finalizers.includes('orphan') ? [] : ['orphan']),
    ];
  if (policy === 'Background')
    return finalizers.filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
  return finalizers;
}
