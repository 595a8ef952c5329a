// kube-controller-manager's flags, with its names and defaults
// (cmd/kube-controller-manager/app/options/options.go and the option groups
// it composes: generic, leader election, secure serving, authorization,
// replicaset, deployment, job, cronjob, ttl-after-finished, podgc, kube-cloud
// shared (--node-monitor-period), node lifecycle, garbage collector,
// namespace, service account (--root-ca-file), logs), and how they
// become the completed configuration (options.Config, ApplyTo, Validate).
import {
  canonicalControllers,
  controllersFlagHelp,
  validateControllers,
} from '../controller-descriptors.js';
import {
  defaultConfiguration,
  formatDuration,
  type ControllerManagerConfiguration,
} from '../config.js';
import type { LoggingFormat } from '../logging/logger.js';
import { FlagError, type FlagSpec, type FlagValue } from './flags.js';

const d = defaultConfiguration();
const le = d.generic.leaderElection;

/**
 * The flags of `kcm-ts controller-manager`, named as kube-controller-manager's.
 *
 * @category CLI
 */
export const controllerManagerFlags: readonly FlagSpec[] = [
  {
    name: 'kubeconfig',
    kind: 'string',
    defaultText: '',
    valueName: 'string',
    help: 'Path to the kubeconfig that says where the API server is and how to authenticate to it (default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account).',
  },
  {
    name: 'controllers',
    kind: 'strings',
    defaultText: '[*]',
    valueName: 'strings',
    help: controllersFlagHelp(),
  },
  {
    name: 'concurrent-replicaset-syncs',
    kind: 'int',
    defaultText: String(d.replicaSetController.concurrentRSSyncs),
    valueName: 'int32',
    help: 'How many ReplicaSets may be synced at once: more workers react faster and cost more CPU and requests.',
  },
  {
    name: 'concurrent-deployment-syncs',
    kind: 'int',
    defaultText: String(d.deploymentController.concurrentDeploymentSyncs),
    valueName: 'int32',
    help: 'How many Deployments may be synced at once: more workers react faster and cost more CPU and requests.',
  },
  {
    name: 'concurrent-daemonset-syncs',
    kind: 'int',
    defaultText: String(d.daemonSetController.concurrentDaemonSetSyncs),
    valueName: 'int32',
    help: 'How many DaemonSets may be synced at once: more workers react faster and cost more CPU and requests.',
  },
  {
    name: 'concurrent-statefulset-syncs',
    kind: 'int',
    defaultText: String(d.statefulSetController.concurrentStatefulSetSyncs),
    valueName: 'int32',
    help: 'How many StatefulSets may be synced at once: more workers react faster and cost more CPU and requests.',
  },
  {
    name: 'concurrent-service-endpoint-syncs',
    kind: 'int',
    defaultText: String(d.endpointSliceController.concurrentServiceEndpointSyncs),
    valueName: 'int32',
    help: 'How many Services may have their EndpointSlices synced at once.',
  },
  {
    name: 'max-endpoints-per-slice',
    kind: 'int',
    defaultText: String(d.endpointSliceController.maxEndpointsPerSlice),
    valueName: 'int32',
    help: 'The most endpoints one EndpointSlice holds: more endpoints make more slices.',
  },
  {
    name: 'endpointslice-updates-batch-period',
    kind: 'duration',
    defaultText: formatDuration(d.endpointSliceController.endpointUpdatesBatchPeriod),
    valueName: 'duration',
    help: "How long pod changes are gathered before a Service's EndpointSlices are written: fewer writes, later endpoints.",
  },
  {
    name: 'concurrent-endpoint-syncs',
    kind: 'int',
    defaultText: String(d.endpointController.concurrentEndpointSyncs),
    valueName: 'int32',
    help: 'How many Services may have their Endpoints synced at once.',
  },
  {
    name: 'endpoint-updates-batch-period',
    kind: 'duration',
    defaultText: formatDuration(d.endpointController.endpointUpdatesBatchPeriod),
    valueName: 'duration',
    help: "How long pod changes are gathered before a Service's Endpoints are written: fewer writes, later endpoints.",
  },
  {
    name: 'mirroring-concurrent-service-endpoint-syncs',
    kind: 'int',
    defaultText: String(d.endpointSliceMirroringController.mirroringConcurrentServiceEndpointSyncs),
    valueName: 'int32',
    help: 'How many Services may have their custom Endpoints mirrored to EndpointSlices at once (1 to 50).',
  },
  {
    name: 'mirroring-max-endpoints-per-subset',
    kind: 'int',
    defaultText: String(d.endpointSliceMirroringController.mirroringMaxEndpointsPerSubset),
    valueName: 'int32',
    help: 'The most addresses of one Endpoints subset mirrored into EndpointSlices (1 to 1000).',
  },
  {
    name: 'mirroring-endpointslice-updates-batch-period',
    kind: 'duration',
    defaultText: formatDuration(
      d.endpointSliceMirroringController.mirroringEndpointUpdatesBatchPeriod,
    ),
    valueName: 'duration',
    help: 'How long Endpoints changes are gathered before they are mirrored.',
  },
  {
    name: 'concurrent-rc-syncs',
    kind: 'int',
    defaultText: String(d.replicationController.concurrentRCSyncs),
    valueName: 'int32',
    help: 'How many ReplicationControllers may be synced at once.',
  },
  {
    name: 'allocate-node-cidrs',
    kind: 'bool',
    defaultText: String(d.kubeCloudShared.allocateNodeCIDRs),
    help: 'Give each node a pod CIDR from --cluster-cidr (the node-ipam-controller).',
  },
  {
    name: 'cluster-cidr',
    kind: 'string',
    defaultText: d.kubeCloudShared.clusterCIDR,
    valueName: 'string',
    help: "The pods' range, such as 10.244.0.0/16; two of different IP families, comma-separated, for dual stack.",
  },
  {
    name: 'cidr-allocator-type',
    kind: 'string',
    defaultText: d.kubeCloudShared.cidrAllocatorType,
    valueName: 'string',
    help: 'How node CIDRs are given: RangeAllocator (CloudAllocator needs a cloud provider, which kcm-ts has not).',
  },
  {
    name: 'service-cluster-ip-range',
    kind: 'string',
    defaultText: d.nodeIPAMController.serviceCIDR,
    valueName: 'string',
    help: "The Services' range, kept out of the nodes' pod CIDRs when the two overlap.",
  },
  {
    name: 'secondary-service-cluster-ip-range',
    kind: 'string',
    defaultText: d.nodeIPAMController.secondaryServiceCIDR,
    valueName: 'string',
    help: "The other IP family's Services range, for dual stack.",
  },
  {
    name: 'node-cidr-mask-size',
    kind: 'int',
    defaultText: String(d.nodeIPAMController.nodeCIDRMaskSize),
    valueName: 'int32',
    help: "The prefix length of each node's CIDR in a single-stack cluster (0: 24 for IPv4, 64 for IPv6).",
  },
  {
    name: 'node-cidr-mask-size-ipv4',
    kind: 'int',
    defaultText: String(d.nodeIPAMController.nodeCIDRMaskSizeIPv4),
    valueName: 'int32',
    help: "The prefix length of each node's IPv4 CIDR (0: 24).",
  },
  {
    name: 'node-cidr-mask-size-ipv6',
    kind: 'int',
    defaultText: String(d.nodeIPAMController.nodeCIDRMaskSizeIPv6),
    valueName: 'int32',
    help: "The prefix length of each node's IPv6 CIDR (0: 64).",
  },
  {
    name: 'concurrent-job-syncs',
    kind: 'int',
    defaultText: String(d.jobController.concurrentJobSyncs),
    valueName: 'int32',
    help: 'How many Jobs may be synced at once: more workers react faster and cost more CPU and requests.',
  },
  {
    name: 'concurrent-cron-job-syncs',
    kind: 'int',
    defaultText: String(d.cronJobController.concurrentCronJobSyncs),
    valueName: 'int32',
    help: 'How many CronJobs may be synced at once.',
  },
  {
    name: 'concurrent-ttl-after-finished-syncs',
    kind: 'int',
    defaultText: String(d.ttlAfterFinishedController.concurrentTTLSyncs),
    valueName: 'int32',
    help: 'How many workers delete finished Jobs whose ttlSecondsAfterFinished has passed.',
  },
  {
    name: 'terminated-pod-gc-threshold',
    kind: 'int',
    defaultText: String(d.podGCController.terminatedPodGCThreshold),
    valueName: 'int32',
    help: 'How many terminated pods may exist before the pod garbage collector deletes the oldest. 0 or less keeps them all.',
  },
  {
    name: 'node-monitor-period',
    kind: 'duration',
    defaultText: formatDuration(d.kubeCloudShared.nodeMonitorPeriod),
    valueName: 'duration',
    help: 'How often the node lifecycle controller looks at the heartbeats of every node (its status and its Lease); shorter than --node-monitor-grace-period.',
  },
  {
    name: 'node-monitor-grace-period',
    kind: 'duration',
    defaultText: formatDuration(d.nodeLifecycleController.nodeMonitorGracePeriod),
    valueName: 'duration',
    help: "How long a running node may go without a heartbeat before it is marked Unknown (and later tainted unreachable); several times the kubelet's status and Lease intervals.",
  },
  {
    name: 'node-startup-grace-period',
    kind: 'duration',
    defaultText: formatDuration(d.nodeLifecycleController.nodeStartupGracePeriod),
    valueName: 'duration',
    help: 'How long a node that has never reported Ready may go without a heartbeat before it is marked Unknown.',
  },
  {
    name: 'node-eviction-rate',
    kind: 'float',
    defaultText: String(d.nodeLifecycleController.nodeEvictionRate),
    valueName: 'float32',
    help: 'How many nodes per second, in each healthy zone, may get the NoExecute taint that evicts their pods.',
  },
  {
    name: 'secondary-node-eviction-rate',
    kind: 'float',
    defaultText: String(d.nodeLifecycleController.secondaryNodeEvictionRate),
    valueName: 'float32',
    help: 'The rate of --node-eviction-rate in a zone where many nodes are down, if the zone is larger than --large-cluster-size-threshold; smaller zones stop evicting then.',
  },
  {
    name: 'large-cluster-size-threshold',
    kind: 'int',
    defaultText: String(d.nodeLifecycleController.largeClusterSizeThreshold),
    valueName: 'int32',
    help: 'A zone of more nodes than this keeps evicting, at --secondary-node-eviction-rate, when many of its nodes are down.',
  },
  {
    name: 'unhealthy-zone-threshold',
    kind: 'float',
    defaultText: String(d.nodeLifecycleController.unhealthyZoneThreshold),
    valueName: 'float32',
    help: 'The share of not-ready nodes (at least 3 of them) that makes a zone unhealthy, slowing or stopping its evictions.',
  },
  {
    name: 'concurrent-gc-syncs',
    kind: 'int',
    defaultText: String(d.garbageCollectorController.concurrentGCSyncs),
    valueName: 'int32',
    help: 'How many workers the garbage collector runs on each of its queues.',
  },
  {
    name: 'enable-garbage-collector',
    kind: 'bool',
    defaultText: 'true',
    help: 'Run the garbage collector, which deletes objects whose owners are gone. Keep it in step with the API server.',
  },
  {
    name: 'concurrent-namespace-syncs',
    kind: 'int',
    defaultText: String(d.namespaceController.concurrentNamespaceSyncs),
    valueName: 'int32',
    help: 'How many terminating namespaces may be emptied at once.',
  },
  {
    name: 'namespace-sync-period',
    kind: 'duration',
    defaultText: formatDuration(d.namespaceController.namespaceSyncPeriod),
    valueName: 'duration',
    help: 'How often the namespace controller looks at every namespace again.',
  },
  {
    name: 'root-ca-file',
    kind: 'string',
    defaultText: '',
    valueName: 'string',
    help: "A PEM CA bundle to publish as ca.crt in every namespace's kube-root-ca.crt ConfigMap, instead of the CA the manager's kubeconfig trusts.",
  },
  {
    name: 'leader-elect',
    kind: 'bool',
    defaultText: 'true',
    help: 'Hold a Lease before running the controllers, so that several replicas of the manager can run and only one acts.',
  },
  {
    name: 'leader-elect-lease-duration',
    kind: 'duration',
    defaultText: formatDuration(le.leaseDuration),
    valueName: 'duration',
    help: 'How long other candidates wait, after the last renewal they saw, before taking the Lease over: the longest a stopped leader goes unreplaced.',
  },
  {
    name: 'leader-elect-renew-deadline',
    kind: 'duration',
    defaultText: formatDuration(le.renewDeadline),
    valueName: 'duration',
    help: 'How long the leader keeps trying to renew before it stops leading; less than the lease duration.',
  },
  {
    name: 'leader-elect-retry-period',
    kind: 'duration',
    defaultText: formatDuration(le.retryPeriod),
    valueName: 'duration',
    help: 'The wait between attempts to acquire or renew the Lease.',
  },
  {
    name: 'leader-elect-resource-lock',
    kind: 'string',
    defaultText: le.resourceLock,
    valueName: 'string',
    help: "The kind of object locked for leader election; only 'leases'.",
  },
  {
    name: 'leader-elect-resource-name',
    kind: 'string',
    defaultText: le.resourceName,
    valueName: 'string',
    help: 'The name of the Lease.',
  },
  {
    name: 'leader-elect-resource-namespace',
    kind: 'string',
    defaultText: le.resourceNamespace,
    valueName: 'string',
    help: 'The namespace of the Lease.',
  },
  {
    name: 'secure-port',
    kind: 'int',
    defaultText: String(d.secureServing.securePort),
    valueName: 'int',
    help: 'The HTTPS port of /healthz, /readyz, /livez, /metrics and /configz; 0 serves nothing.',
  },
  {
    name: 'bind-address',
    kind: 'string',
    defaultText: d.secureServing.bindAddress,
    valueName: 'ip',
    help: 'The address the secure port listens on; 0.0.0.0 or :: for every interface.',
  },
  {
    name: 'authorization-always-allow-paths',
    kind: 'strings',
    defaultText: `[${d.authorization.alwaysAllowPaths.join(',')}]`,
    valueName: 'strings',
    help: 'Paths served to anyone, without asking the API server (a trailing * matches a prefix).',
  },
  {
    name: 'kube-api-qps',
    kind: 'float',
    defaultText: String(d.generic.clientConnection.qps),
    valueName: 'float32',
    help: 'Requests per second each controller may send to the API server.',
  },
  {
    name: 'kube-api-burst',
    kind: 'int',
    defaultText: String(d.generic.clientConnection.burst),
    valueName: 'int32',
    help: 'Requests each controller may send at once above the QPS.',
  },
  {
    name: 'controller-start-interval',
    kind: 'duration',
    defaultText: formatDuration(d.generic.controllerStartInterval),
    valueName: 'duration',
    help: 'A pause before each controller starts, jittered by up to as much again.',
  },
  {
    name: 'min-resync-period',
    kind: 'duration',
    defaultText: formatDuration(d.generic.minResyncPeriod),
    valueName: 'duration',
    help: 'Informers resync every one to two times this period, chosen at random.',
  },
  {
    name: 'v',
    short: 'v',
    kind: 'int',
    defaultText: '0',
    valueName: 'Level',
    help: 'Log verbosity: info lines up to this level are written.',
  },
  {
    name: 'logging-format',
    kind: 'string',
    defaultText: '"text"',
    valueName: 'string',
    help: 'How log lines look: "text" (klog) or "json".',
  },
  {
    name: 'help',
    short: 'h',
    kind: 'bool',
    defaultText: '',
    help: 'Print this help.',
  },
];

/**
 * What the flags set beyond the component configuration.
 *
 * @category CLI
 */
export interface CommandOptions {
  /** The completed configuration. */
  config: ControllerManagerConfiguration;
  /** `--kubeconfig`, if given. */
  kubeconfig?: string;
  /** `-v`. */
  verbosity: number;
  /** `--logging-format`. */
  loggingFormat: LoggingFormat;
}

/**
 * Applies parsed flags over kube-controller-manager's defaults and validates
 * the result: Go's `options.Config` (ApplyTo, then Validate). Every problem
 * is reported at once, as Go aggregates them.
 *
 * @throws FlagError listing what is wrong
 *
 * @category CLI
 */
export function completeOptions(values: ReadonlyMap<string, FlagValue>): CommandOptions {
  const config = defaultConfiguration();
  const get = <T extends FlagValue>(name: string): T | undefined =>
    values.get(name) as T | undefined;
  const errors: string[] = [];
  const g = config.generic;
  const l = g.leaderElection;

  const controllers = get<string[]>('controllers');
  if (controllers) {
    errors.push(...validateControllers(controllers));
    g.controllers = canonicalControllers(controllers);
  }
  const positive = (name: string, min: number): number | undefined => {
    const v = get<number>(name);
    if (v !== undefined && v < min) errors.push(`--${name} must be at least ${min}, got ${v}`);
    return v;
  };
  config.replicaSetController.concurrentRSSyncs =
    positive('concurrent-replicaset-syncs', 1) ?? config.replicaSetController.concurrentRSSyncs;
  config.deploymentController.concurrentDeploymentSyncs =
    positive('concurrent-deployment-syncs', 1) ??
    config.deploymentController.concurrentDeploymentSyncs;
  config.daemonSetController.concurrentDaemonSetSyncs =
    positive('concurrent-daemonset-syncs', 1) ??
    config.daemonSetController.concurrentDaemonSetSyncs;
  config.statefulSetController.concurrentStatefulSetSyncs =
    positive('concurrent-statefulset-syncs', 1) ??
    config.statefulSetController.concurrentStatefulSetSyncs;
  const es = config.endpointSliceController;
  es.concurrentServiceEndpointSyncs =
    positive('concurrent-service-endpoint-syncs', 1) ?? es.concurrentServiceEndpointSyncs;
  const maxPerSlice = get<number>('max-endpoints-per-slice');
  if (maxPerSlice !== undefined && (maxPerSlice < 1 || maxPerSlice > 1000)) {
    errors.push(`--max-endpoints-per-slice must be from 1 to 1000, got ${maxPerSlice}`);
  }
  es.maxEndpointsPerSlice = maxPerSlice ?? es.maxEndpointsPerSlice;
  es.endpointUpdatesBatchPeriod =
    get<number>('endpointslice-updates-batch-period') ?? es.endpointUpdatesBatchPeriod;
  const ep = config.endpointController;
  ep.concurrentEndpointSyncs =
    positive('concurrent-endpoint-syncs', 1) ?? ep.concurrentEndpointSyncs;
  ep.endpointUpdatesBatchPeriod =
    get<number>('endpoint-updates-batch-period') ?? ep.endpointUpdatesBatchPeriod;
  const mirror = config.endpointSliceMirroringController;
  const within = (name: string, min: number, max: number): number | undefined => {
    const v = get<number>(name);
    if (v !== undefined && (v < min || v > max))
      errors.push(`--${name} must be from ${min} to ${max}, got ${v}`);
    return v;
  };
  mirror.mirroringConcurrentServiceEndpointSyncs =
    within('mirroring-concurrent-service-endpoint-syncs', 1, 50) ??
    mirror.mirroringConcurrentServiceEndpointSyncs;
  mirror.mirroringMaxEndpointsPerSubset =
    within('mirroring-max-endpoints-per-subset', 1, 1000) ?? mirror.mirroringMaxEndpointsPerSubset;
  mirror.mirroringEndpointUpdatesBatchPeriod =
    get<number>('mirroring-endpointslice-updates-batch-period') ??
    mirror.mirroringEndpointUpdatesBatchPeriod;
  config.replicationController.concurrentRCSyncs =
    positive('concurrent-rc-syncs', 1) ?? config.replicationController.concurrentRCSyncs;
  const shared = config.kubeCloudShared;
  shared.allocateNodeCIDRs = get<boolean>('allocate-node-cidrs') ?? shared.allocateNodeCIDRs;
  shared.clusterCIDR = get<string>('cluster-cidr') ?? shared.clusterCIDR;
  shared.cidrAllocatorType = get<string>('cidr-allocator-type') ?? shared.cidrAllocatorType;
  if (!['RangeAllocator', 'CloudAllocator'].includes(shared.cidrAllocatorType)) {
    errors.push(
      `--cidr-allocator-type must be RangeAllocator or CloudAllocator, got ${JSON.stringify(shared.cidrAllocatorType)}`,
    );
  }
  const ipam = config.nodeIPAMController;
  ipam.serviceCIDR = get<string>('service-cluster-ip-range') ?? ipam.serviceCIDR;
  ipam.secondaryServiceCIDR =
    get<string>('secondary-service-cluster-ip-range') ?? ipam.secondaryServiceCIDR;
  ipam.nodeCIDRMaskSize = within('node-cidr-mask-size', 0, 128) ?? ipam.nodeCIDRMaskSize;
  ipam.nodeCIDRMaskSizeIPv4 =
    within('node-cidr-mask-size-ipv4', 0, 32) ?? ipam.nodeCIDRMaskSizeIPv4;
  ipam.nodeCIDRMaskSizeIPv6 =
    within('node-cidr-mask-size-ipv6', 0, 128) ?? ipam.nodeCIDRMaskSizeIPv6;
  config.jobController.concurrentJobSyncs =
    positive('concurrent-job-syncs', 1) ?? config.jobController.concurrentJobSyncs;
  config.cronJobController.concurrentCronJobSyncs =
    positive('concurrent-cron-job-syncs', 1) ?? config.cronJobController.concurrentCronJobSyncs;
  config.ttlAfterFinishedController.concurrentTTLSyncs =
    positive('concurrent-ttl-after-finished-syncs', 1) ??
    config.ttlAfterFinishedController.concurrentTTLSyncs;
  config.podGCController.terminatedPodGCThreshold =
    get<number>('terminated-pod-gc-threshold') ?? config.podGCController.terminatedPodGCThreshold;
  config.kubeCloudShared.nodeMonitorPeriod =
    get<number>('node-monitor-period') ?? config.kubeCloudShared.nodeMonitorPeriod;
  const nl = config.nodeLifecycleController;
  nl.nodeMonitorGracePeriod = get<number>('node-monitor-grace-period') ?? nl.nodeMonitorGracePeriod;
  nl.nodeStartupGracePeriod = get<number>('node-startup-grace-period') ?? nl.nodeStartupGracePeriod;
  nl.nodeEvictionRate = get<number>('node-eviction-rate') ?? nl.nodeEvictionRate;
  nl.secondaryNodeEvictionRate =
    get<number>('secondary-node-eviction-rate') ?? nl.secondaryNodeEvictionRate;
  nl.largeClusterSizeThreshold =
    get<number>('large-cluster-size-threshold') ?? nl.largeClusterSizeThreshold;
  nl.unhealthyZoneThreshold = get<number>('unhealthy-zone-threshold') ?? nl.unhealthyZoneThreshold;
  config.garbageCollectorController.concurrentGCSyncs =
    positive('concurrent-gc-syncs', 1) ?? config.garbageCollectorController.concurrentGCSyncs;
  config.garbageCollectorController.enableGarbageCollector =
    get<boolean>('enable-garbage-collector') ??
    config.garbageCollectorController.enableGarbageCollector;
  config.namespaceController.concurrentNamespaceSyncs =
    positive('concurrent-namespace-syncs', 1) ??
    config.namespaceController.concurrentNamespaceSyncs;
  config.namespaceController.namespaceSyncPeriod =
    get<number>('namespace-sync-period') ?? config.namespaceController.namespaceSyncPeriod;
  config.saController.rootCAFile = get<string>('root-ca-file') ?? config.saController.rootCAFile;

  l.leaderElect = get<boolean>('leader-elect') ?? l.leaderElect;
  l.leaseDuration = get<number>('leader-elect-lease-duration') ?? l.leaseDuration;
  l.renewDeadline = get<number>('leader-elect-renew-deadline') ?? l.renewDeadline;
  l.retryPeriod = get<number>('leader-elect-retry-period') ?? l.retryPeriod;
  const lock = get<string>('leader-elect-resource-lock');
  if (lock !== undefined && lock !== 'leases')
    errors.push(
      `--leader-elect-resource-lock: unsupported lock type ${JSON.stringify(lock)}: only "leases"`,
    );
  l.resourceName = get<string>('leader-elect-resource-name') ?? l.resourceName;
  l.resourceNamespace = get<string>('leader-elect-resource-namespace') ?? l.resourceNamespace;
  if (l.leaderElect) {
    if (l.leaseDuration <= l.renewDeadline)
      errors.push(
        'leaderElection.leaseDuration: Invalid value: LeaseDuration must be greater than RenewDeadline',
      );
    if (l.renewDeadline <= 1.2 * l.retryPeriod)
      errors.push(
        'leaderElection.renewDeadline: Invalid value: RenewDeadline must be greater than RetryPeriod*JitterFactor',
      );
    if (l.resourceName === '')
      errors.push('leaderElection.resourceName: Required value: resourceName is required');
    if (l.resourceNamespace === '')
      errors.push(
        'leaderElection.resourceNamespace: Required value: resourceNamespace is required',
      );
  }

  const port = get<number>('secure-port');
  if (port !== undefined) {
    if (port < 0 || port > 65535)
      errors.push(
        `--secure-port ${port} must be between 0 and 65535, inclusive. 0 for turning off secure port`,
      );
    config.secureServing.securePort = port;
  }
  const bind = get<string>('bind-address');
  if (bind !== undefined) {
    if (!/^(\d{1,3}(\.\d{1,3}){3}|[0-9a-fA-F:]+)$/.test(bind))
      errors.push(`--bind-address: invalid IP address ${JSON.stringify(bind)}`);
    config.secureServing.bindAddress = bind;
  }
  config.authorization.alwaysAllowPaths =
    get<string[]>('authorization-always-allow-paths') ?? config.authorization.alwaysAllowPaths;

  const qps = get<number>('kube-api-qps');
  if (qps !== undefined) g.clientConnection.qps = qps;
  const burst = get<number>('kube-api-burst');
  if (burst !== undefined) {
    if (burst < 0) errors.push(`--kube-api-burst must not be negative, got ${burst}`);
    g.clientConnection.burst = burst;
  }
  g.controllerStartInterval = get<number>('controller-start-interval') ?? g.controllerStartInterval;
  g.minResyncPeriod = get<number>('min-resync-period') ?? g.minResyncPeriod;

  const verbosity = get<number>('v') ?? 0;
  if (verbosity < 0) errors.push(`-v must not be negative, got ${verbosity}`);
  const format = get<string>('logging-format') ?? 'text';
  if (format !== 'text' && format !== 'json')
    errors.push(
      `logging format: Unsupported value: ${JSON.stringify(format)}: supported values: "json", "text"`,
    );

  if (errors.length > 0) throw new FlagError(errors.join('\n'));
  const kubeconfig = get<string>('kubeconfig');
  return {
    config,
    ...(kubeconfig ? { kubeconfig } : {}),
    verbosity,
    loggingFormat: format as LoggingFormat,
  };
}
