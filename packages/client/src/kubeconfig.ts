// Loading a kubeconfig: the job of client-go's tools/clientcmd (loader.go,
// ClientConfigLoadingRules.Load; validation.go, validateContext) and of
// rest.InClusterConfig, done through @kubernetes/client-node's KubeConfig so
// that its credential plugins (exec, OIDC, token files) and TLS handling apply.
// What this file adds is where to look, the merge rule for $KUBECONFIG, and
// errors that say which file or context is wrong.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { KubeConfig, findHomeDir } from '@kubernetes/client-node';
import type { Cluster, Context, User } from '@kubernetes/client-node';

/**
 * One `clusters[].cluster` entry of a kubeconfig: where the API server is and
 * how to trust it.
 *
 * @category Kubeconfig
 */
export interface KubeConfigCluster {
  /** The API server's URL, such as `https://127.0.0.1:6443`. */
  server: string;
  /** A file holding the PEM CA bundle that signed the server's certificate. */
  'certificate-authority'?: string;
  /** The PEM CA bundle, base64-encoded. */
  'certificate-authority-data'?: string;
  /**
   * Skip verifying the server's certificate. Also the only way
   * `@kubernetes/client-node` accepts a plain `http://` server.
   */
  'insecure-skip-tls-verify'?: boolean;
  /** The name to check the server's certificate against, if not the URL's host. */
  'tls-server-name'?: string;
  /** An HTTP(S) or SOCKS proxy to reach the server through. */
  'proxy-url'?: string;
}

/**
 * One `users[].user` entry of a kubeconfig: the credentials to present.
 *
 * @category Kubeconfig
 */
export interface KubeConfigUser {
  /** A bearer token. */
  token?: string;
  /** A file holding a bearer token, read once when the kubeconfig is loaded. */
  'token-file'?: string;
  /** A file holding a PEM client certificate. */
  'client-certificate'?: string;
  /** A PEM client certificate, base64-encoded. */
  'client-certificate-data'?: string;
  /** A file holding the client certificate's PEM private key. */
  'client-key'?: string;
  /** The client certificate's PEM private key, base64-encoded. */
  'client-key-data'?: string;
  /** A user name for basic authentication. */
  username?: string;
  /** The password for basic authentication. */
  password?: string;
  /** A user to impersonate (sent as `Impersonate-User`). */
  as?: string;
  /** An exec credential plugin, such as `aws eks get-token` (run by client-node). */
  exec?: Record<string, unknown>;
  /** A legacy auth provider, such as `oidc` (handled by client-node). */
  'auth-provider'?: Record<string, unknown>;
}

/**
 * One `contexts[].context` entry of a kubeconfig: a cluster, a user and a
 * default namespace.
 *
 * @category Kubeconfig
 */
export interface KubeConfigContext {
  /** The name of an entry of `clusters`. */
  cluster: string;
  /** The name of an entry of `users`. */
  user: string;
  /** The namespace to use when none is given; `default` if unset. */
  namespace?: string;
}

/**
 * A kubeconfig as an object, in the same shape as the YAML file kubectl reads
 * (`apiVersion: v1`, `kind: Config`).
 *
 * @category Kubeconfig
 */
export interface KubeConfigObject {
  /** `v1`. */
  apiVersion?: string;
  /** `Config`. */
  kind?: string;
  /** The API servers, by name. */
  clusters?: {
    /** The name contexts refer to it by. */
    name: string;
    /** Where the API server is and how to trust it. */
    cluster: KubeConfigCluster;
  }[];
  /** The credentials, by name. */
  users?: {
    /** The name contexts refer to it by. */
    name: string;
    /** How to authenticate. */
    user: KubeConfigUser;
  }[];
  /** The cluster, user and namespace combinations, by name. */
  contexts?: {
    /** The name `current-context` and `--context` refer to it by. */
    name: string;
    /** The cluster, user and namespace. */
    context: KubeConfigContext;
  }[];
  /** The name of the context to use. */
  'current-context'?: string;
  /** Ignored; kept so that objects read from kubectl's files type-check. */
  preferences?: Record<string, unknown>;
}

/**
 * Where {@link loadKubeConfig} takes a kubeconfig from:
 *
 * - a string holding a newline, or starting with `{`: the kubeconfig itself,
 *   as YAML or JSON;
 * - any other string: the path of a kubeconfig file (relative paths inside it,
 *   such as `certificate-authority`, are relative to the file);
 * - a {@link KubeConfigObject}: the kubeconfig as an object;
 * - a client-node `KubeConfig`: used as it is.
 *
 * @category Kubeconfig
 */
export type KubeConfigSource = string | KubeConfigObject | KubeConfig;

/**
 * Options for {@link loadKubeConfig}.
 *
 * @category Kubeconfig
 */
export interface LoadKubeConfigOptions {
  /**
   * The context to use instead of the kubeconfig's `current-context`, like
   * kubectl's `--context`.
   */
  context?: string;
}

// rest.InClusterConfig reads these; client-node's loadFromCluster too.
const serviceAccountTokenPath = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * Loads a kubeconfig through `@kubernetes/client-node` and checks that it can
 * be used: it has a current context (or `opts.context` names one), and that
 * context's cluster and user exist. Without a `source` it looks where kubectl
 * does, in this order:
 *
 * 1. `$KUBECONFIG`, a list of files separated by `:` (`;` on Windows); files
 *    that do not exist are skipped, and for an entry defined in several files
 *    (a cluster, user or context of the same name, or `current-context`) the
 *    first file wins, as in client-go;
 * 2. when `$KUBECONFIG` is unset or empty, `~/.kube/config`;
 * 3. when neither gave a file, the service account of the pod it runs in
 *    (`KUBERNETES_SERVICE_HOST`, `KUBERNETES_SERVICE_PORT`, and the token, CA
 *    and namespace under `/var/run/secrets/kubernetes.io/serviceaccount`).
 *
 * Unlike client-node's `loadFromDefault`, it never falls back to an
 * unauthenticated `http://localhost:8080`: it throws, saying where it looked.
 *
 * @param source - where to load from (see {@link KubeConfigSource}); a
 *   `KubeConfig` given here is checked and returned, with its current context
 *   set to `opts.context` if given.
 * @throws Error when no kubeconfig is found, a file cannot be read or is
 *   malformed (the message names the file), or the context, its cluster or its
 *   user is missing, or the cluster is a plain `http://` server without
 *   `insecure-skip-tls-verify: true` (which client-node refuses).
 *
 * @example
 * ```ts
 * const kc = loadKubeConfig(); // $KUBECONFIG, ~/.kube/config or in-cluster
 * const sandbox = loadKubeConfig('.kcm-ts/kubeconfig', { context: 'kcm-ts' });
 * ```
 *
 * @category Kubeconfig
 */
export function loadKubeConfig(
  source?: KubeConfigSource,
  opts: LoadKubeConfigOptions = {},
): KubeConfig {
  let kc: KubeConfig;
  let where: string;
  if (source === undefined) {
    [kc, where] = loadFromDefaultPlaces();
  } else if (isKubeConfig(source)) {
    kc = source;
    where = 'the given KubeConfig';
  } else if (typeof source === 'string') {
    if (looksLikeContent(source)) {
      where = 'the kubeconfig text';
      kc = loadText(source, where);
    } else {
      where = source;
      kc = loadFile(source);
    }
  } else if (typeof source === 'object' && source !== null && !Array.isArray(source)) {
    where = 'the kubeconfig object';
    kc = loadText(JSON.stringify(source), where);
  } else {
    throw new TypeError(
      `loadKubeConfig: expected a file path, YAML or JSON text, a kubeconfig object or a KubeConfig, got ${describe(source)}`,
    );
  }
  selectContext(kc, where, opts.context);
  return kc;
}

/**
 * The namespace of the kubeconfig's current context, or `default` when it sets
 * none: the namespace kubectl uses when given no `--namespace`.
 *
 * @category Kubeconfig
 */
export function contextNamespace(kc: KubeConfig): string {
  const ns = kc.getContextObject(kc.getCurrentContext())?.namespace;
  return typeof ns === 'string' && ns !== '' ? ns : 'default';
}

// True for a client-node KubeConfig, from any copy of the package (the peer
// dependency may be installed twice, or be the other of its ESM/CJS builds).
function isKubeConfig(value: unknown): value is KubeConfig {
  if (value instanceof KubeConfig) return true;
  if (typeof value !== 'object' || value === null) return false;
  const kc = value as Partial<Record<keyof KubeConfig, unknown>>;
  return (
    typeof kc.applyToHTTPSOptions === 'function' &&
    typeof kc.getCurrentCluster === 'function' &&
    typeof kc.getCurrentContext === 'function'
  );
}

// A path never holds a newline, and kubeconfig text on one line is JSON; a
// blank string is treated as text so that the error says it is empty.
function looksLikeContent(s: string): boolean {
  return s.trim() === '' || s.includes('\n') || s.trimStart().startsWith('{');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function loadText(text: string, where: string): KubeConfig {
  if (text.trim() === '') throw new Error(`${where} is empty`);
  const kc = new KubeConfig();
  try {
    kc.loadFromString(text);
  } catch (err) {
    throw new Error(`${where} is malformed: ${errorText(err)}`, { cause: err });
  }
  return kc;
}

function loadFile(file: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    // loadFromFile also resolves relative certificate paths against the file.
    kc.loadFromFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('E')) {
      throw new Error(`cannot read kubeconfig ${file}: ${errorText(err)}`, { cause: err });
    }
    throw new Error(`kubeconfig ${file} is malformed: ${errorText(err)}`, { cause: err });
  }
  return kc;
}

/**
 * The kubeconfig kubectl would use with no flags: the files of `$KUBECONFIG`,
 * else `~/.kube/config`, else the pod's service account, with a description
 * of where it came from for error messages.
 *
 * @param serviceAccountRoot - prefixed to the service account's paths; only
 *   tests change it.
 * @internal
 */
export function loadFromDefaultPlaces(serviceAccountRoot = ''): [KubeConfig, string] {
  const env = process.env.KUBECONFIG ?? '';
  const files =
    env === ''
      ? [path.join(findHomeDir() ?? homedir(), '.kube', 'config')]
      : env.split(path.delimiter).filter((f) => f !== '');
  // clientcmd skips files that do not exist.
  const present = files.filter((f) => existsSync(f));
  if (present.length === 1) return [loadFile(present[0] as string), present[0] as string];
  if (present.length > 1) {
    return [mergeFirstWins(present.map(loadFile)), `$KUBECONFIG (${present.join(', ')})`];
  }
  // With no kubeconfig at all, kubectl falls back to the in-cluster
  // configuration when it runs in a pod (clientcmd's inClusterClientConfig).
  const tokenFile = `${serviceAccountRoot}${serviceAccountTokenPath}`;
  if (existsSync(tokenFile)) {
    const { KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port } = process.env;
    if (host === undefined || host === '' || port === undefined || port === '') {
      throw new Error(
        `cannot use the in-cluster configuration: ${tokenFile} exists but KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not both set`,
      );
    }
    const kc = new KubeConfig();
    // The token is read again every minute, so rotated tokens are picked up.
    kc.loadFromCluster(serviceAccountRoot);
    return [kc, 'the in-cluster service account'];
  }
  const looked =
    env === ''
      ? `$KUBECONFIG is not set and ${files[0]} does not exist`
      : `none of the files in $KUBECONFIG exists (${files.join(', ')})`;
  throw new Error(
    `no kubeconfig found: ${looked}, and this is not a pod with a service account (no ${tokenFile}); pass a kubeconfig file, text or object`,
  );
}

// clientcmd's loader merges files so that the first one to define a name (or
// current-context) wins; client-node's own merge throws on duplicates instead.
function mergeFirstWins(configs: KubeConfig[]): KubeConfig {
  const clusters = new Map<string, Cluster>();
  const users = new Map<string, User>();
  const contexts = new Map<string, Context>();
  let currentContext: string | undefined;
  for (const kc of configs) {
    for (const c of kc.getClusters()) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of kc.getUsers()) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of kc.getContexts()) if (!contexts.has(c.name)) contexts.set(c.name, c);
    const current = kc.getCurrentContext() as string | undefined;
    if (currentContext === undefined && typeof current === 'string' && current !== '') {
      currentContext = current;
    }
  }
  const merged = new KubeConfig();
  merged.loadFromOptions({
    clusters: [...clusters.values()],
    users: [...users.values()],
    contexts: [...contexts.values()],
    currentContext,
  });
  return merged;
}

function contextList(kc: KubeConfig): string {
  const names = kc.getContexts().map((c) => c.name);
  return names.length === 0 ? 'it defines none' : `it defines ${names.join(', ')}`;
}

// clientcmd's validation.go (validateContext, validateClusterInfo) checks the
// same things, so that a bad kubeconfig fails here rather than at the first
// request with a less helpful message.
function selectContext(kc: KubeConfig, where: string, override: string | undefined): void {
  if (override !== undefined) {
    if (kc.getContextObject(override) === null) {
      throw new Error(`context "${override}" not found in ${where} (${contextList(kc)})`);
    }
    kc.setCurrentContext(override);
  }
  const name = kc.getCurrentContext() as string | undefined;
  if (name === undefined || name === '') {
    throw new Error(
      `${where} sets no current-context; pass { context } to pick one (${contextList(kc)})`,
    );
  }
  const context = kc.getContextObject(name);
  if (context === null) {
    throw new Error(`current-context "${name}" of ${where} is not defined (${contextList(kc)})`);
  }
  if (typeof context.cluster !== 'string' || context.cluster === '') {
    throw new Error(`context "${name}" in ${where} names no cluster`);
  }
  const cluster = kc.getCluster(context.cluster);
  if (cluster === null) {
    throw new Error(
      `context "${name}" in ${where} refers to cluster "${context.cluster}", which is not defined`,
    );
  }
  // client-node applies no TLS settings at all (not even the CA) without a user.
  if (typeof context.user !== 'string' || context.user === '') {
    throw new Error(`context "${name}" in ${where} names no user`);
  }
  if (kc.getUser(context.user) === null) {
    throw new Error(
      `context "${name}" in ${where} refers to user "${context.user}", which is not defined`,
    );
  }
  checkServer(cluster, where);
}

function checkServer(cluster: Cluster, where: string): void {
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    throw new Error(
      `cluster "${cluster.name}" in ${where} has an invalid server URL: ${cluster.server}`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(
      `cluster "${cluster.name}" in ${where} has server ${cluster.server}; only https:// and http:// are supported`,
    );
  }
  // client-node's createAgent refuses this at the first request; say so now.
  const proxied = typeof cluster.proxyUrl === 'string' && cluster.proxyUrl !== '';
  if (url.protocol === 'http:' && !cluster.skipTLSVerify && !proxied) {
    throw new Error(
      `cluster "${cluster.name}" in ${where} has a plain http:// server (${cluster.server}); @kubernetes/client-node only allows that with insecure-skip-tls-verify: true`,
    );
  }
}
