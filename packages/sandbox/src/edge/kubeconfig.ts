// The kubeconfig a sandbox hands to its clients: one cluster (with the CA
// that signed the serving certificate), one user (the bearer token), one
// context, as kind writes for its clusters.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';

/** What goes into a sandbox kubeconfig. */
export interface KubeconfigParams {
  /** The server URL, such as `https://127.0.0.1:6443`. */
  server: string;
  /** The bearer token. */
  token: string;
  /** The CA certificate (PEM); absent for a plain HTTP sandbox. */
  caCert?: string;
  /** The name used for the cluster, user and context. Default `kcm-ts-sandbox`. */
  name?: string;
}

/**
 * The kubeconfig as an object, in the shape of a kubeconfig file
 * (`apiVersion: v1`, `kind: Config`, clusters, users, contexts).
 *
 * A plain `http://` server is marked `insecure-skip-tls-verify`, because
 * `@kubernetes/client-node` refuses plain HTTP otherwise.
 *
 * @category Sandbox
 */
export function kubeconfigObject(params: KubeconfigParams): Record<string, unknown> {
  const name = params.name ?? 'kcm-ts-sandbox';
  const cluster: Record<string, unknown> = { server: params.server };
  if (params.caCert) {
    cluster['certificate-authority-data'] = Buffer.from(params.caCert).toString('base64');
  } else {
    cluster['insecure-skip-tls-verify'] = true;
  }
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: { token: params.token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  };
}

/**
 * The kubeconfig as YAML text.
 *
 * @category Sandbox
 */
export function kubeconfigYaml(params: KubeconfigParams): string {
  return stringify(kubeconfigObject(params));
}

/**
 * Writes the kubeconfig to `file` (creating its directory), readable by the
 * owner only (mode 0600): it holds the token.
 *
 * @category Sandbox
 */
export async function writeKubeconfig(file: string, params: KubeconfigParams): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, kubeconfigYaml(params), { mode: 0o600 });
  // writeFile's mode only applies to a new file.
  await chmod(file, 0o600);
}
