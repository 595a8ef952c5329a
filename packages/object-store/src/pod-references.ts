// Which Secrets and ConfigMaps a pod names: pkg/api/v1/pod/util.go
// (VisitPodSecretNames, VisitPodConfigmapNames, VisitContainers).
import type { Container, Pod, Volume } from 'kubernetes-types/core/v1.js';

/**
 * Called with each referenced name; return `false` to stop visiting. Go's
 * `podutil.Visitor`.
 *
 * @category References
 */
export type NameVisitor = (name: string) => boolean;

// Empty names reference nothing, so visitors never see them.
const skipEmpty =
  (visitor: NameVisitor): NameVisitor =>
  (name) =>
    name === '' || visitor(name);

/** Init, regular and ephemeral containers, in that order. */
function allContainers(pod: Pod): Container[] {
  const spec = pod.spec;
  return [
    ...(spec?.initContainers ?? []),
    ...(spec?.containers ?? []),
    // An ephemeral container has the fields of a container that matter here.
    ...((spec?.ephemeralContainers ?? []) as Container[]),
  ];
}

/** The Secrets or ConfigMaps a container names: `envFrom` first, then `env`, as Go visits them. */
function visitContainerNames(
  c: Container,
  kind: 'secret' | 'configMap',
  visit: NameVisitor,
): boolean {
  for (const from of c.envFrom ?? []) {
    const ref = kind === 'secret' ? from.secretRef : from.configMapRef;
    if (ref && !visit(ref.name ?? '')) return false;
  }
  for (const env of c.env ?? []) {
    const ref = kind === 'secret' ? env.valueFrom?.secretKeyRef : env.valueFrom?.configMapKeyRef;
    if (ref && !visit(ref.name ?? '')) return false;
  }
  return true;
}

const refName = (ref: { name?: string } | undefined): string[] => (ref ? [ref.name ?? ''] : []);

/**
 * The Secrets one volume names. A volume has one source; the first one set
 * counts, in the order of Go's switch.
 */
function volumeSecretNames(v: Volume): string[] {
  if (v.azureFile) return v.azureFile.secretName ? [v.azureFile.secretName] : [];
  if (v.cephfs) return refName(v.cephfs.secretRef);
  if (v.cinder) return refName(v.cinder.secretRef);
  if (v.flexVolume) return refName(v.flexVolume.secretRef);
  if (v.projected) return (v.projected.sources ?? []).flatMap((s) => refName(s.secret));
  if (v.rbd) return refName(v.rbd.secretRef);
  if (v.secret) return [v.secret.secretName ?? ''];
  if (v.scaleIO) return refName(v.scaleIO.secretRef);
  if (v.iscsi) return refName(v.iscsi.secretRef);
  if (v.storageos) return refName(v.storageos.secretRef);
  if (v.csi) return refName(v.csi.nodePublishSecretRef);
  return [];
}

/**
 * Calls `visitor` with the name of every Secret `pod` references: image pull
 * secrets, containers' `env` and `envFrom`, and volumes (secret, projected,
 * and the volume plugins that take a secret reference). References through
 * other objects (a PVC's volume) are not followed. Returns `false` if the
 * visitor stopped early. Go's `VisitPodSecretNames`.
 *
 * @category References
 */
export function visitPodSecretNames(pod: Pod, visitor: NameVisitor): boolean {
  const visit = skipEmpty(visitor);
  for (const ref of pod.spec?.imagePullSecrets ?? []) {
    if (!visit(ref.name ?? '')) return false;
  }
  // Go ignores the containers' early stop here; so do we.
  allContainers(pod).every((c) => visitContainerNames(c, 'secret', visit));
  for (const volume of pod.spec?.volumes ?? []) {
    for (const name of volumeSecretNames(volume)) {
      if (!visit(name)) return false;
    }
  }
  return true;
}

/**
 * Calls `visitor` with the name of every ConfigMap `pod` references:
 * containers' `env` and `envFrom`, configMap volumes and projected volumes.
 * Returns `false` if the visitor stopped early. Go's `VisitPodConfigmapNames`.
 *
 * @category References
 */
export function visitPodConfigMapNames(pod: Pod, visitor: NameVisitor): boolean {
  const visit = skipEmpty(visitor);
  allContainers(pod).every((c) => visitContainerNames(c, 'configMap', visit));
  for (const v of pod.spec?.volumes ?? []) {
    const names = v.projected
      ? (v.projected.sources ?? []).flatMap((s) => refName(s.configMap))
      : refName(v.configMap);
    for (const name of names) {
      if (!visit(name)) return false;
    }
  }
  return true;
}

/**
 * The names of the Secrets `pod` references, as the kubelet's secret manager
 * collects them (`getSecretNames` in `pkg/kubelet/secret/secret_manager.go`).
 *
 * @category References
 */
export function getSecretNames(pod: Pod): Set<string> {
  const names = new Set<string>();
  visitPodSecretNames(pod, (name) => (names.add(name), true));
  return names;
}

/**
 * The names of the ConfigMaps `pod` references (`getConfigMapNames` in
 * `pkg/kubelet/configmap/configmap_manager.go`).
 *
 * @category References
 */
export function getConfigMapNames(pod: Pod): Set<string> {
  const names = new Set<string>();
  visitPodConfigMapNames(pod, (name) => (names.add(name), true));
  return names;
}
