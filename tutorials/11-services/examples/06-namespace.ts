// Chapter 11, sixth experiment: a namespace that comes furnished. The
// manager package's test environment runs the sandbox (over HTTPS, so that
// it has a CA) and kube-controller-manager's own `run()` with three
// controllers: `serviceaccount-controller`,
// `root-ca-certificate-publisher-controller` (given the sandbox's CA as
// `--root-ca-file`, as kubeadm gives it /etc/kubernetes/pki/ca.crt) and
// `clusterrole-aggregation-controller`. A new namespace gets its `default`
// ServiceAccount and its `kube-root-ca.crt` ConfigMap; both are put back
// when deleted or edited. A ClusterRole labelled to aggregate into `view`
// adds its rule to `view`, and through `view` to `edit` and `admin`.
// Run: npm run namespace -w tutorials/11-services
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ConfigMap, Namespace, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { ClusterRole } from 'kubernetes-types/rbac/v1.js';
import { informerResources } from '@kcm-ts/informer';
import { implementedControllers, startTestEnvironment } from '@kcm-ts/manager';

/** The controllers this example runs. */
export const furnishingControllers = [
  'serviceaccount-controller',
  'root-ca-certificate-publisher-controller',
  'clusterrole-aggregation-controller',
];

/** What the experiment found, for its test. */
export interface NamespaceRun {
  /** The ServiceAccount and ConfigMap of the new namespace. */
  serviceAccount: ServiceAccount;
  configMap: ConfigMap;
  /** The CA the manager was given, to compare with the ConfigMap's `ca.crt`. */
  caCert: string;
  /** The UIDs of the ServiceAccount before and after it was deleted. */
  uids: [string, string];
  /** `ca.crt` after someone edited it, once the publisher has been by. */
  restored: string;
  /** Whether each aggregated role has the widgets rule, in order admin, edit, view. */
  widgets: boolean[];
}

const roleNames = ['admin', 'edit', 'view'];
const hasWidgets = (r: ClusterRole | undefined): boolean =>
  (r?.rules ?? []).some((rule) => rule.resources?.includes('widgets'));

/** A new namespace `shop`; its ServiceAccount deleted, its ConfigMap edited; a role aggregated. */
export async function run(log: (line: string) => void = console.log): Promise<NamespaceRun> {
  const env = await startTestEnvironment({ nodes: 1, tick: 100, sandbox: { insecureHttp: false } });
  const dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-ch11-'));
  let start = env.clock.now();
  const at = (): string => `t=${((env.clock.now() - start) / 1000).toFixed(1).padStart(5)}s`;
  const seen: string[] = [];
  const kinds: Record<string, string> = {
    namespaces: 'namespace',
    serviceaccounts: 'serviceaccount',
    configmaps: 'configmap',
    'clusterroles.rbac.authorization.k8s.io': 'clusterrole',
  };
  const unsubscribe = env.sandbox.registry.storage.subscribe((e) => {
    const kind = kinds[e.storage];
    const meta = e.object.metadata;
    if (kind === undefined || !['shop', undefined].includes(meta?.namespace)) return;
    if (kind === 'namespace' && meta?.name !== 'shop') return;
    if (
      kind === 'clusterrole' &&
      !['admin', 'edit', 'view', 'widgets-view'].includes(meta?.name ?? '')
    )
      return;
    const sign = e.type === 'ADDED' ? '+' : e.type === 'DELETED' ? '-' : ' ';
    let what = '';
    if (kind === 'configmap' && e.type !== 'DELETED') {
      const data = (e.object as ConfigMap).data?.['ca.crt'] ?? '';
      what = `: ca.crt ${data === env.sandbox.caCert ? "is the API server's CA" : JSON.stringify(data)}`;
    }
    if (kind === 'clusterrole') {
      const n = (e.object as ClusterRole).rules?.length ?? 0;
      what = `: ${n} rule${n === 1 ? '' : 's'}`;
    }
    const name = `${meta?.namespace ? `${meta.namespace}/` : ''}${meta?.name ?? ''}`;
    seen.push(`${at()}  ${sign} ${kind} ${name}${what}`);
  });
  const flush = (): void => {
    for (const l of seen.splice(0)) log(l);
  };
  try {
    const caFile = path.join(dir, 'ca.crt');
    await writeFile(caFile, env.sandbox.caCert ?? '');
    //#region manager
    // kube-controller-manager's run(), with three of its controllers, each
    // started by its init function; the CA as kubeadm passes it.
    const manager = env.runManager({
      controllers: implementedControllers,
      configure: (config) => {
        config.generic.controllers = furnishingControllers;
        config.saController.rootCAFile = caFile; // --root-ca-file
      },
    });
    //#endregion manager
    await env.until(() => manager.started() !== undefined);
    await env.step(2000);
    const namespaces = env.client<Namespace>(informerResources.namespaces);
    const furnished = async (): Promise<string[]> => {
      const all = env.client<ServiceAccount>(informerResources.serviceAccounts);
      const cas = env.client<ConfigMap>(informerResources.configMaps);
      const withSA = new Set(
        (await all.list()).items
          .filter((sa) => sa.metadata?.name === 'default')
          .map((sa) => sa.metadata?.namespace),
      );
      const withCA = new Set(
        (await cas.list()).items
          .filter((cm) => cm.metadata?.name === 'kube-root-ca.crt')
          .map((cm) => cm.metadata?.namespace),
      );
      return (await namespaces.list()).items
        .map((ns) => ns.metadata?.name ?? '')
        .filter((ns) => withSA.has(ns) && withCA.has(ns))
        .sort();
    };
    log(
      `the manager started; namespaces with a default ServiceAccount and kube-root-ca.crt: ${(await furnished()).join(', ')}`,
    );
    log('');
    seen.length = 0;
    const rest = env.clock.now() % 1000;
    if (rest !== 0) await env.step(1000 - rest);
    start = env.clock.now();

    const sas = env.client<ServiceAccount>(informerResources.serviceAccounts, 'shop');
    const cms = env.client<ConfigMap>(informerResources.configMaps, 'shop');
    const roles = env.client<ClusterRole>(informerResources.clusterRoles);

    //#region create-namespace
    log('kubectl create namespace shop');
    await namespaces.create({ metadata: { name: 'shop' } });
    await env.until(async () => {
      const [sa, cm] = await Promise.all([
        sas.get('default').catch(() => undefined),
        cms.get('kube-root-ca.crt').catch(() => undefined),
      ]);
      return sa !== undefined && cm !== undefined;
    });
    //#endregion create-namespace
    await env.step(1000);
    flush();
    const serviceAccount = await sas.get('default');
    const configMap = await cms.get('kube-root-ca.crt');
    log('kubectl get configmap kube-root-ca.crt -n shop -o yaml:');
    for (const [k, v] of Object.entries(configMap.metadata?.annotations ?? {})) {
      log(`  annotation ${k}: ${v.slice(0, 60)}...`);
    }
    const ca = configMap.data?.['ca.crt'] ?? '';
    log(`  data ca.crt: ${ca.split(/\r?\n/)[0]} ... (the API server's CA)`);
    log('');

    log('kubectl delete serviceaccount default -n shop');
    const before = serviceAccount.metadata?.uid ?? '';
    await sas.delete('default');
    await env.until(async () => {
      const sa = await sas.get('default').catch(() => undefined);
      return sa !== undefined && sa.metadata?.uid !== before;
    });
    await env.step(1000);
    flush();
    const after = (await sas.get('default')).metadata?.uid ?? '';
    log('');

    log('kubectl edit configmap kube-root-ca.crt -n shop: ca.crt replaced by a line of text');
    const cur = await cms.get('kube-root-ca.crt');
    await cms.update({ ...cur, data: { 'ca.crt': 'not a certificate' } });
    await env.until(async () => (await cms.get('kube-root-ca.crt')).data?.['ca.crt'] === ca);
    await env.step(1000);
    flush();
    const restored = (await cms.get('kube-root-ca.crt')).data?.['ca.crt'] ?? '';
    log('');

    const count = async (): Promise<string> => {
      const out: string[] = [];
      for (const name of roleNames)
        out.push(`${name} ${(await roles.get(name)).rules?.length ?? 0}`);
      return out.join(', ');
    };
    log(`rules of the aggregated ClusterRoles: ${await count()}`);
    //#region aggregate
    log('kubectl apply -f widgets-view.yaml: a ClusterRole labelled aggregate-to-view, one rule');
    await roles.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: {
        name: 'widgets-view',
        labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
      },
      rules: [
        { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] },
      ],
    });
    await env.until(async () => hasWidgets(await roles.get('admin')));
    //#endregion aggregate
    await env.step(1000);
    flush();
    log(`rules of the aggregated ClusterRoles: ${await count()}`);
    const widgets: boolean[] = [];
    for (const name of roleNames) widgets.push(hasWidgets(await roles.get(name)));
    await manager.stop();
    return {
      serviceAccount,
      configMap,
      caCert: env.sandbox.caCert ?? '',
      uids: [before, after],
      restored,
      widgets,
    };
  } finally {
    unsubscribe();
    await env.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
