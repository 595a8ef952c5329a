// The controller registry of kube-controller-manager: every controller it
// knows by name, with aliases and default enablement
// (cmd/kube-controller-manager/app/controllermanager.go: ControllerDescriptor,
// NewControllerDescriptors, KnownControllers, ControllerAliases,
// ControllersDisabledByDefault; names/controller_names.go;
// staging/src/k8s.io/controller-manager/app/helper.go: IsControllerEnabled;
// controller-manager/options/generic.go: the --controllers validation).
// kcm-ts implements some of them; the others are known, so `--controllers`
// accepts their names, and are reported as not implemented when enabled.
import type { ControllerContext, InitFunc } from './controller-context.js';

/**
 * One controller the manager can run: Go's `ControllerDescriptor`.
 *
 * @category Controller registry
 */
export interface ControllerDescriptor {
  /** The canonical name, such as `replicaset-controller`. */
  readonly name: string;
  /** Older names `--controllers` still accepts, such as `replicaset`. */
  readonly aliases: readonly string[];
  /** Off unless named explicitly in `--controllers` (`*` does not turn it on). */
  readonly disabledByDefault?: boolean;
  /** A cloud-provider loop; kube-controller-manager skips these without a cloud provider. */
  readonly cloudProvider?: boolean;
  /** Started before the others, with the root client (the service-account token controller). */
  readonly requiresSpecialHandling?: boolean;
  /** Starts the controller; absent for the controllers kcm-ts does not implement. */
  readonly init?: InitFunc;
}

/** Every controller of kube-controller-manager, in registration order. */
const upstream: readonly Omit<ControllerDescriptor, 'init'>[] = [
  {
    name: 'serviceaccount-token-controller',
    aliases: ['serviceaccount-token'],
    requiresSpecialHandling: true,
  },
  { name: 'endpoints-controller', aliases: ['endpoint'] },
  { name: 'endpointslice-controller', aliases: ['endpointslice'] },
  { name: 'endpointslice-mirroring-controller', aliases: ['endpointslicemirroring'] },
  { name: 'replicationcontroller-controller', aliases: ['replicationcontroller'] },
  { name: 'pod-garbage-collector-controller', aliases: ['podgc'] },
  { name: 'resourcequota-controller', aliases: ['resourcequota'] },
  { name: 'namespace-controller', aliases: ['namespace'] },
  { name: 'serviceaccount-controller', aliases: ['serviceaccount'] },
  { name: 'garbage-collector-controller', aliases: ['garbagecollector'] },
  { name: 'daemonset-controller', aliases: ['daemonset'] },
  { name: 'job-controller', aliases: ['job'] },
  { name: 'deployment-controller', aliases: ['deployment'] },
  { name: 'replicaset-controller', aliases: ['replicaset'] },
  { name: 'horizontal-pod-autoscaler-controller', aliases: ['horizontalpodautoscaling'] },
  { name: 'disruption-controller', aliases: ['disruption'] },
  { name: 'statefulset-controller', aliases: ['statefulset'] },
  { name: 'cronjob-controller', aliases: ['cronjob'] },
  { name: 'certificatesigningrequest-signing-controller', aliases: ['csrsigning'] },
  { name: 'certificatesigningrequest-approving-controller', aliases: ['csrapproving'] },
  { name: 'certificatesigningrequest-cleaner-controller', aliases: ['csrcleaner'] },
  { name: 'podcertificaterequest-cleaner-controller', aliases: [] },
  { name: 'ttl-controller', aliases: ['ttl'] },
  { name: 'bootstrap-signer-controller', aliases: ['bootstrapsigner'], disabledByDefault: true },
  { name: 'token-cleaner-controller', aliases: ['tokencleaner'], disabledByDefault: true },
  { name: 'node-ipam-controller', aliases: ['nodeipam'] },
  { name: 'node-lifecycle-controller', aliases: ['nodelifecycle'] },
  { name: 'service-lb-controller', aliases: ['service'], cloudProvider: true },
  { name: 'node-route-controller', aliases: ['route'], cloudProvider: true },
  {
    name: 'cloud-node-lifecycle-controller',
    aliases: ['cloud-node-lifecycle'],
    cloudProvider: true,
  },
  { name: 'persistentvolume-binder-controller', aliases: ['persistentvolume-binder'] },
  { name: 'persistentvolume-attach-detach-controller', aliases: ['attachdetach'] },
  { name: 'persistentvolume-expander-controller', aliases: ['persistentvolume-expander'] },
  { name: 'clusterrole-aggregation-controller', aliases: ['clusterrole-aggregation'] },
  { name: 'persistentvolumeclaim-protection-controller', aliases: ['pvc-protection'] },
  { name: 'persistentvolume-protection-controller', aliases: ['pv-protection'] },
  { name: 'volumeattributesclass-protection-controller', aliases: [] },
  { name: 'ttl-after-finished-controller', aliases: ['ttl-after-finished'] },
  { name: 'root-ca-certificate-publisher-controller', aliases: ['root-ca-cert-publisher'] },
  { name: 'kube-apiserver-serving-clustertrustbundle-publisher-controller', aliases: [] },
  { name: 'ephemeral-volume-controller', aliases: ['ephemeral-volume'] },
  { name: 'storageversion-garbage-collector-controller', aliases: ['storage-version-gc'] },
  { name: 'resourceclaim-controller', aliases: ['resource-claim-controller'] },
  { name: 'device-taint-eviction-controller', aliases: [] },
  {
    name: 'legacy-serviceaccount-token-cleaner-controller',
    aliases: ['legacy-service-account-token-cleaner'],
  },
  { name: 'validatingadmissionpolicy-status-controller', aliases: [] },
  { name: 'taint-eviction-controller', aliases: [] },
  { name: 'service-cidr-controller', aliases: [] },
  { name: 'storage-version-migrator-controller', aliases: ['svm'] },
  { name: 'selinux-warning-controller', aliases: [], disabledByDefault: true },
];

/** The canonical names of the controllers kcm-ts implements. */
export const names = {
  /** `namespace-controller`. */
  namespaceController: 'namespace-controller',
  /** `garbage-collector-controller`. */
  garbageCollectorController: 'garbage-collector-controller',
  /** `deployment-controller`. */
  deploymentController: 'deployment-controller',
  /** `replicaset-controller`. */
  replicaSetController: 'replicaset-controller',
  /** `pod-garbage-collector-controller`. */
  podGarbageCollectorController: 'pod-garbage-collector-controller',
  /** `daemonset-controller`. */
  daemonSetController: 'daemonset-controller',
  /** `statefulset-controller`. */
  statefulSetController: 'statefulset-controller',
  /** `persistentvolumeclaim-protection-controller`. */
  pvcProtectionController: 'persistentvolumeclaim-protection-controller',
  /** `persistentvolume-protection-controller`. */
  pvProtectionController: 'persistentvolume-protection-controller',
  /** `endpointslice-controller`. */
  endpointSliceController: 'endpointslice-controller',
  /** `job-controller`. */
  jobController: 'job-controller',
  /** `cronjob-controller`. */
  cronJobController: 'cronjob-controller',
  /** `ttl-after-finished-controller`. */
  ttlAfterFinishedController: 'ttl-after-finished-controller',
  /** `node-lifecycle-controller`. */
  nodeLifecycleController: 'node-lifecycle-controller',
  /** `taint-eviction-controller`. */
  taintEvictionController: 'taint-eviction-controller',
  /** `serviceaccount-controller`. */
  serviceAccountController: 'serviceaccount-controller',
  /** `root-ca-certificate-publisher-controller`. */
  rootCACertificatePublisherController: 'root-ca-certificate-publisher-controller',
  /** `clusterrole-aggregation-controller`. */
  clusterRoleAggregationController: 'clusterrole-aggregation-controller',
  /** `disruption-controller`. */
  disruptionController: 'disruption-controller',
  /** `endpoints-controller`. */
  endpointsController: 'endpoints-controller',
  /** `endpointslice-mirroring-controller`. */
  endpointSliceMirroringController: 'endpointslice-mirroring-controller',
  /** `replicationcontroller-controller`. */
  replicationController: 'replicationcontroller-controller',
  /** `node-ipam-controller`. */
  nodeIpamController: 'node-ipam-controller',
} as const;

/**
 * Every controller kube-controller-manager knows, by canonical name, with the
 * init functions of those kcm-ts implements taken from `inits`. Throws when
 * two controllers share a name or an alias, as Go's registration panics.
 *
 * @category Controller registry
 */
export function newControllerDescriptors(
  inits: Readonly<Record<string, InitFunc>> = {},
): Map<string, ControllerDescriptor> {
  const controllers = new Map<string, ControllerDescriptor>();
  const aliases = new Set<string>();
  for (const known of upstream) {
    if (controllers.has(known.name))
      throw new Error(`controller name "${known.name}" was registered twice`);
    for (const alias of known.aliases) {
      if (aliases.has(alias))
        throw new Error(`controller "${known.name}" has a duplicate alias "${alias}"`);
      aliases.add(alias);
    }
    const init = inits[known.name];
    controllers.set(known.name, init ? { ...known, init } : { ...known });
  }
  for (const name of Object.keys(inits)) {
    if (!controllers.has(name)) throw new Error(`init function for unknown controller "${name}"`);
  }
  for (const alias of aliases) {
    if (controllers.has(alias))
      throw new Error(`alias "${alias}" conflicts with a controller name`);
  }
  return controllers;
}

/**
 * The canonical names of every known controller, sorted: Go's `KnownControllers`.
 *
 * @category Controller registry
 */
export function knownControllers(): string[] {
  return upstream.map((c) => c.name).sort();
}

/**
 * Alias → canonical name: Go's `ControllerAliases`.
 *
 * @category Controller registry
 */
export function controllerAliases(): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of upstream) for (const alias of c.aliases) out.set(alias, c.name);
  return out;
}

/**
 * The names of the controllers `*` leaves off, sorted: Go's `ControllersDisabledByDefault`.
 *
 * @category Controller registry
 */
export function controllersDisabledByDefault(): string[] {
  return upstream
    .filter((c) => c.disabledByDefault)
    .map((c) => c.name)
    .sort();
}

//#region is-controller-enabled
/**
 * Whether `--controllers` turns `name` on: the first entry naming it (`name`
 * or `-name`) decides; with none, it is on only when `*` is listed and it is
 * not disabled by default. Go's `IsControllerEnabled` (helper.go). Entries
 * are expected in canonical form (see {@link canonicalControllers}).
 *
 * @category Controller registry
 */
export function isControllerEnabled(
  name: string,
  disabledByDefault: ReadonlySet<string>,
  controllers: readonly string[],
): boolean {
  let hasStar = false;
  for (const entry of controllers) {
    if (entry === name) return true;
    if (entry === `-${name}`) return false;
    if (entry === '*') hasStar = true;
  }
  return hasStar && !disabledByDefault.has(name);
}
//#endregion is-controller-enabled

/**
 * Checks a `--controllers` list: every entry but `*` must name a known
 * controller or alias, with or without a leading `-`. Returns one message
 * per bad entry, in kube-controller-manager's words.
 *
 * @category Controller registry
 */
export function validateControllers(controllers: readonly string[]): string[] {
  const known = new Set(knownControllers());
  const aliases = controllerAliases();
  const errors: string[] = [];
  for (const entry of controllers) {
    if (entry === '*') continue;
    const bare = entry.startsWith('-') ? entry.slice(1) : entry;
    if (!known.has(aliases.get(bare) ?? bare))
      errors.push(`${JSON.stringify(bare)} is not in the list of known controllers`);
  }
  return errors;
}

/**
 * The list with every alias replaced by its canonical name, keeping `-` and
 * `*`, as the completed configuration holds it.
 *
 * @category Controller registry
 */
export function canonicalControllers(controllers: readonly string[]): string[] {
  const aliases = controllerAliases();
  return controllers.map((entry) => {
    const off = entry.startsWith('-');
    const bare = off ? entry.slice(1) : entry;
    const name = aliases.get(bare) ?? bare;
    return off ? `-${name}` : name;
  });
}

/**
 * The help text of `--controllers`, listing every controller and those off by default.
 *
 * @category Controller registry
 */
export function controllersFlagHelp(): string {
  return [
    "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'.",
    `All controllers: ${knownControllers().join(', ')}`,
    `Disabled-by-default controllers: ${controllersDisabledByDefault().join(', ')}`,
  ].join('\n');
}

//#region is-descriptor-enabled
/**
 * Whether the context's `--controllers` turns this controller on: Go's
 * `ControllerContext.IsControllerEnabled`.
 *
 * @category Controller registry
 */
export function isDescriptorEnabled(ctx: ControllerContext, d: ControllerDescriptor): boolean {
  const off = new Set(d.disabledByDefault ? [d.name] : []);
  return isControllerEnabled(d.name, off, ctx.componentConfig.generic.controllers);
}
//#endregion is-descriptor-enabled
