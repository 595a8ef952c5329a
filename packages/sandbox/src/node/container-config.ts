// What a container needs before it can be created: the Secrets and
// ConfigMaps its pod's volumes mount (the kubelet's volume manager, which
// keeps the pod ContainerCreating with a FailedMount event) and those its
// environment names (pkg/kubelet/kubelet_pods.go, makeEnvironmentVariables:
// CreateContainerConfigError). The kubelet reads them; these say what to
// read and what a missing one means.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { Container, Volume } from 'kubernetes-types/core/v1.js';

/** Why a container cannot be created yet, and whether it is a volume (still ContainerCreating). */
export interface ConfigProblem {
  reason: 'CreateContainerConfigError' | 'ContainerCreating';
  message: string;
  event: { reason: string; message: string };
}

/** A Secret or ConfigMap a container's environment needs, and the key it reads, if any. */
export interface EnvRef {
  kind: 'configmap' | 'secret';
  /** The name to look up (`''` when the reference names none). */
  name: string;
  /** For one variable: the key it reads, and how the error names the reference. */
  key?: { key: string; kind: 'ConfigMap' | 'Secret'; name: string | undefined };
}

/** The Secrets and ConfigMaps a volume must mount, by kind and name (optional ones left out). */
export function volumeRefs(v: Volume): ['configmap' | 'secret', string][] {
  const refs: ['configmap' | 'secret', string, boolean][] = [];
  if (v.configMap) refs.push(['configmap', v.configMap.name ?? '', v.configMap.optional === true]);
  if (v.secret) refs.push(['secret', v.secret.secretName ?? '', v.secret.optional === true]);
  for (const s of v.projected?.sources ?? []) {
    if (s.configMap)
      refs.push(['configmap', s.configMap.name ?? '', s.configMap.optional === true]);
    if (s.secret) refs.push(['secret', s.secret.name ?? '', s.secret.optional === true]);
  }
  return refs
    .filter(([, name, optional]) => !optional && name !== '')
    .map(([kind, name]) => [kind, name]);
}

/** A volume that cannot be mounted: the pod stays ContainerCreating, with a FailedMount event. */
export function mountProblem(v: Volume, why: string): ConfigProblem {
  const message = `MountVolume.SetUp failed for volume "${v.name}" : ${why}`;
  return { reason: 'ContainerCreating', message, event: { reason: 'FailedMount', message } };
}

/** What a container's `envFrom`, then its `env`, must read (optional ones left out), in that order. */
export function envRefs(c: Container): EnvRef[] {
  const refs: EnvRef[] = [];
  for (const from of c.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    if (ref === undefined || ref.optional === true) continue;
    refs.push({ kind: from.configMapRef ? 'configmap' : 'secret', name: ref.name ?? '' });
  }
  for (const env of c.env ?? []) {
    const cm = env.valueFrom?.configMapKeyRef;
    const sec = env.valueFrom?.secretKeyRef;
    const ref = cm ?? sec;
    if (ref === undefined || ref.optional === true) continue;
    refs.push({
      kind: cm ? 'configmap' : 'secret',
      name: ref.name ?? '',
      key: { key: ref.key, kind: cm ? 'ConfigMap' : 'Secret', name: ref.name },
    });
  }
  return refs;
}

/** CreateContainerConfigError when what `ref` reads is missing: the object (`got` says why), or its key. */
export function envProblem(
  ns: string,
  ref: EnvRef,
  got: KubeObject | string,
): ConfigProblem | undefined {
  if (typeof got === 'string') return configError(got);
  if (ref.key === undefined) return undefined;
  const data = {
    ...(got as { data?: Record<string, string> }).data,
    ...(got as { binaryData?: Record<string, string> }).binaryData,
  };
  if (ref.key.key in data) return undefined;
  return configError(`couldn't find key ${ref.key.key} in ${ref.key.kind} ${ns}/${ref.key.name}`);
}

function configError(message: string): ConfigProblem {
  return {
    reason: 'CreateContainerConfigError',
    message,
    event: { reason: 'Failed', message: `Error: ${message}` },
  };
}
