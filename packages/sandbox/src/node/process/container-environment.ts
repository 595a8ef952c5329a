// What a container's process sees: its environment, as the kubelet builds it
// (pkg/kubelet/kubelet_pods.go, makeEnvironmentVariables: envFrom, then env
// with values, the downward API's fieldRef, configMapKeyRef and
// secretKeyRef, each value expanded with the variables before it; the
// service links of the `kubernetes` Service), and the files of its
// ConfigMap, Secret and downward API volumes at their mount paths
// (pkg/volume/configmap, secret, downwardapi, projected).
import type {
  ConfigMap,
  Container,
  EnvVar,
  Pod,
  Secret,
  Volume,
  VolumeMount,
} from 'kubernetes-types/core/v1.js';
import { expandKubernetesReferences } from './shell.js';

/** Reads a ConfigMap or Secret of the pod's namespace; undefined when it cannot. */
export type ConfigSource = {
  configMap(name: string): Promise<ConfigMap | undefined>;
  secret(name: string): Promise<Secret | undefined>;
};

const decode = (b64: string): string => {
  try {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return new TextDecoder().decode(bytes);
  } catch {
    return '';
  }
};

/** A ConfigMap's or Secret's key/value pairs as text. */
function pairs(obj: ConfigMap | Secret | undefined, secret: boolean): Map<string, string> {
  const out = new Map<string, string>();
  if (!obj) return out;
  if (secret) {
    for (const [k, v] of Object.entries((obj as Secret).data ?? {})) out.set(k, decode(v));
  } else {
    const cm = obj as ConfigMap;
    for (const [k, v] of Object.entries(cm.data ?? {})) out.set(k, v);
    for (const [k, v] of Object.entries(cm.binaryData ?? {})) out.set(k, decode(v));
  }
  return out;
}

/** A downward API field path of the pod (fieldRef.fieldPath). */
export function podField(pod: Pod, path: string): string | undefined {
  const meta = pod.metadata ?? {};
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (keyed)
    return (keyed[1] === 'labels' ? meta.labels : meta.annotations)?.[keyed[2] ?? ''] ?? '';
  switch (path) {
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    case 'metadata.labels':
      return Object.entries(meta.labels ?? {})
        .map(([k, v]) => `${k}="${v}"`)
        .join('\n');
    case 'metadata.annotations':
      return Object.entries(meta.annotations ?? {})
        .map(([k, v]) => `${k}="${v}"`)
        .join('\n');
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.hostIP':
      return pod.status?.hostIP ?? '';
    case 'status.hostIPs':
      return (pod.status?.hostIPs ?? []).map((i) => i.ip).join(',');
    case 'status.podIP':
      return pod.status?.podIP ?? '';
    case 'status.podIPs':
      return (pod.status?.podIPs ?? []).map((i) => i.ip).join(',');
    default:
      return undefined;
  }
}

/** The hostname a pod's containers see: `spec.hostname`, else the pod's name. */
export function podHostname(pod: Pod): string {
  return pod.spec?.hostname ?? pod.metadata?.name ?? '';
}

/**
 * A container's environment, in the order the process sees it: PATH and
 * HOSTNAME, what `envFrom` brings, then `env`, then the `kubernetes`
 * Service's variables and HOME, as a container's `printenv` lists them.
 */
export async function containerEnvironment(
  pod: Pod,
  c: Container,
  source: ConfigSource,
): Promise<Map<string, string>> {
  const env = new Map<string, string>([
    ['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
    ['HOSTNAME', podHostname(pod)],
  ]);
  const own = new Map<string, string>();
  for (const from of c.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    const data = from.configMapRef
      ? pairs(await source.configMap(from.configMapRef.name ?? ''), false)
      : from.secretRef
        ? pairs(await source.secret(from.secretRef.name ?? ''), true)
        : new Map<string, string>();
    for (const [k, v] of data) own.set(`${prefix}${k}`, v);
  }
  for (const e of c.env ?? []) own.set(e.name, await envValue(pod, e, own, source));
  for (const [k, v] of own) env.set(k, v);
  {
    // The kubelet always gives the variables of the `kubernetes` Service.
    for (const [k, v] of [
      ['KUBERNETES_SERVICE_HOST', '10.96.0.1'],
      ['KUBERNETES_SERVICE_PORT', '443'],
      ['KUBERNETES_SERVICE_PORT_HTTPS', '443'],
      ['KUBERNETES_PORT', 'tcp://10.96.0.1:443'],
      ['KUBERNETES_PORT_443_TCP', 'tcp://10.96.0.1:443'],
      ['KUBERNETES_PORT_443_TCP_PROTO', 'tcp'],
      ['KUBERNETES_PORT_443_TCP_PORT', '443'],
      ['KUBERNETES_PORT_443_TCP_ADDR', '10.96.0.1'],
    ] as const) {
      if (!env.has(k)) env.set(k, v);
    }
  }
  if (!env.has('HOME')) env.set('HOME', '/root');
  return env;
}

async function envValue(
  pod: Pod,
  e: EnvVar,
  before: ReadonlyMap<string, string>,
  source: ConfigSource,
): Promise<string> {
  if (e.value !== undefined) return expandKubernetesReferences(e.value, before);
  const from = e.valueFrom;
  if (from?.fieldRef) return podField(pod, from.fieldRef.fieldPath) ?? '';
  if (from?.configMapKeyRef) {
    const data = pairs(await source.configMap(from.configMapKeyRef.name ?? ''), false);
    return data.get(from.configMapKeyRef.key) ?? '';
  }
  if (from?.secretKeyRef) {
    const data = pairs(await source.secret(from.secretKeyRef.name ?? ''), true);
    return data.get(from.secretKeyRef.key) ?? '';
  }
  return '';
}

/** The files one volume holds, by path relative to its mount point. */
async function volumeFiles(
  pod: Pod,
  v: Volume,
  source: ConfigSource,
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const project = (
    data: Map<string, string>,
    items: readonly { key: string; path: string }[] | undefined,
  ) => {
    if (items && items.length > 0) {
      for (const item of items) {
        const value = data.get(item.key);
        if (value !== undefined) files.set(item.path, value);
      }
    } else for (const [k, value] of data) files.set(k, value);
  };
  if (v.configMap)
    project(pairs(await source.configMap(v.configMap.name ?? ''), false), v.configMap.items);
  if (v.secret)
    project(pairs(await source.secret(v.secret.secretName ?? ''), true), v.secret.items);
  for (const item of v.downwardAPI?.items ?? []) {
    if (item.fieldRef) files.set(item.path, podField(pod, item.fieldRef.fieldPath) ?? '');
  }
  for (const s of v.projected?.sources ?? []) {
    if (s.configMap)
      project(pairs(await source.configMap(s.configMap.name ?? ''), false), s.configMap.items);
    if (s.secret) project(pairs(await source.secret(s.secret.name ?? ''), true), s.secret.items);
    for (const item of s.downwardAPI?.items ?? []) {
      if (item.fieldRef) files.set(item.path, podField(pod, item.fieldRef.fieldPath) ?? '');
    }
  }
  return files;
}

/** The files a container sees through its volume mounts, by absolute path. */
export async function containerFiles(
  pod: Pod,
  c: Container,
  source: ConfigSource,
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  for (const mount of c.volumeMounts ?? ([] as VolumeMount[])) {
    const v = volumes.get(mount.name);
    if (!v) continue;
    const inVolume = await volumeFiles(pod, v, source);
    const base = mount.mountPath.replace(/\/+$/, '');
    if (mount.subPath) {
      const content = inVolume.get(mount.subPath);
      if (content !== undefined) files.set(base, content);
      continue;
    }
    for (const [rel, content] of inVolume) files.set(`${base}/${rel}`, content);
  }
  return files;
}
