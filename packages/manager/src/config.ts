// kube-controller-manager's component configuration, the parts kcm-ts runs:
// pkg/controller/apis/config (KubeControllerManagerConfiguration) with the
// defaults of its v1alpha1 defaulting and of cmd/kube-controller-manager/app/
// options (the flag defaults: --kube-api-qps 20, --kube-api-burst 30,
// --secure-port 10257). Durations are milliseconds.

/**
 * Leader election settings: Go's `LeaderElectionConfiguration`.
 *
 * @category Configuration
 */
export interface LeaderElectionConfiguration {
  /** `--leader-elect` (default true). */
  leaderElect: boolean;
  /** `--leader-elect-lease-duration` (15 s). */
  leaseDuration: number;
  /** `--leader-elect-renew-deadline` (10 s). */
  renewDeadline: number;
  /** `--leader-elect-retry-period` (2 s). */
  retryPeriod: number;
  /** `--leader-elect-resource-lock`: only `leases`. */
  resourceLock: 'leases';
  /** `--leader-elect-resource-name` (`kube-controller-manager`). */
  resourceName: string;
  /** `--leader-elect-resource-namespace` (`kube-system`). */
  resourceNamespace: string;
}

/**
 * The completed configuration `run` works from.
 *
 * @category Configuration
 */
export interface ControllerManagerConfiguration {
  /** Settings every controller shares: Go's `GenericControllerManagerConfiguration`. */
  generic: {
    /** `--controllers`, canonical names (aliases resolved), `*` and `-name` kept. Default `['*']`. */
    controllers: string[];
    /** `--controller-start-interval`: each controller waits this, jittered by up to 100%, before it starts. Default 0. */
    controllerStartInterval: number;
    /** `--min-resync-period`: informers resync every 1–2× this (12 h). */
    minResyncPeriod: number;
    /** Leader election. */
    leaderElection: LeaderElectionConfiguration;
    /** The client's rate limit: `--kube-api-qps` (20) and `--kube-api-burst` (30). */
    clientConnection: {
      /** `--kube-api-qps`: requests per second, steady state (20). */
      qps: number;
      /** `--kube-api-burst`: requests allowed at once above the steady rate (30). */
      burst: number;
    };
  };
  /** `--concurrent-replicaset-syncs` (5). */
  replicaSetController: {
    /** Workers of the ReplicaSet controller. */
    concurrentRSSyncs: number;
  };
  /** `--concurrent-deployment-syncs` (5). */
  deploymentController: {
    /** Workers of the Deployment controller. */
    concurrentDeploymentSyncs: number;
  };
  /** `--concurrent-daemonset-syncs` (2). */
  daemonSetController: {
    /** Workers of the DaemonSet controller. */
    concurrentDaemonSetSyncs: number;
  };
  /** `--concurrent-statefulset-syncs` (5). */
  statefulSetController: {
    /** Workers of the StatefulSet controller. */
    concurrentStatefulSetSyncs: number;
  };
  /**
   * `--concurrent-service-endpoint-syncs` (5), `--max-endpoints-per-slice`
   * (100) and `--endpointslice-updates-batch-period` (0).
   */
  endpointSliceController: {
    /** Workers of the EndpointSlice controller. */
    concurrentServiceEndpointSyncs: number;
    /** Endpoints one EndpointSlice holds at most. */
    maxEndpointsPerSlice: number;
    /** How long pod changes are gathered before a Service is synced, in ms. */
    endpointUpdatesBatchPeriod: number;
  };
  /** `--concurrent-endpoint-syncs` (5) and `--endpoint-updates-batch-period` (0). */
  endpointController: {
    /** Workers of the Endpoints controller. */
    concurrentEndpointSyncs: number;
    /** How long pod changes are gathered before a Service's Endpoints are written, in ms. */
    endpointUpdatesBatchPeriod: number;
  };
  /**
   * `--mirroring-concurrent-service-endpoint-syncs` (5),
   * `--mirroring-max-endpoints-per-subset` (1000) and
   * `--mirroring-endpointslice-updates-batch-period` (0).
   */
  endpointSliceMirroringController: {
    /** Workers of the EndpointSlice mirroring controller. */
    mirroringConcurrentServiceEndpointSyncs: number;
    /** Addresses of one Endpoints subset mirrored at most. */
    mirroringMaxEndpointsPerSubset: number;
    /** How long Endpoints changes are gathered before they are mirrored, in ms. */
    mirroringEndpointUpdatesBatchPeriod: number;
  };
  /** `--concurrent-rc-syncs` (5). */
  replicationController: {
    /** Workers of the ReplicationController manager. */
    concurrentRCSyncs: number;
  };
  /**
   * The node IPAM controller's ranges: `--service-cluster-ip-range`,
   * `--secondary-service-cluster-ip-range` and the node CIDR mask sizes
   * (`--node-cidr-mask-size`, `-ipv4`, `-ipv6`; 0 for the defaults, 24 and 64).
   */
  nodeIPAMController: {
    /** The Services' range, kept out of the pods' ranges; `''` for none. */
    serviceCIDR: string;
    /** The second family's Services range; `''` for none. */
    secondaryServiceCIDR: string;
    /** Prefix length of each node's CIDR, single-stack only; 0 when unset. */
    nodeCIDRMaskSize: number;
    /** Prefix length of each node's IPv4 CIDR; 0 when unset. */
    nodeCIDRMaskSizeIPv4: number;
    /** Prefix length of each node's IPv6 CIDR; 0 when unset. */
    nodeCIDRMaskSizeIPv6: number;
  };
  /** `--concurrent-job-syncs` (5). */
  jobController: {
    /** Workers of the Job controller. */
    concurrentJobSyncs: number;
  };
  /** `--concurrent-cron-job-syncs` (5). */
  cronJobController: {
    /** Workers of the CronJob controller. */
    concurrentCronJobSyncs: number;
  };
  /** `--concurrent-ttl-after-finished-syncs` (5). */
  ttlAfterFinishedController: {
    /** Workers of the TTL-after-finished controller. */
    concurrentTTLSyncs: number;
  };
  /** `--terminated-pod-gc-threshold` (12,500). */
  podGCController: {
    /** Terminated pods kept before the oldest are deleted; 0 or less keeps them all. */
    terminatedPodGCThreshold: number;
  };
  /** Settings kube-controller-manager shares with the cloud controller manager: Go's `KubeCloudSharedConfiguration`. */
  kubeCloudShared: {
    /** `--node-monitor-period`: how often the node lifecycle controller checks node health (5 s). */
    nodeMonitorPeriod: number;
    /** `--allocate-node-cidrs`: the node IPAM controller gives nodes pod CIDRs (false). */
    allocateNodeCIDRs: boolean;
    /** `--cluster-cidr`: the pods' range, one per IP family, comma-separated (`''`). */
    clusterCIDR: string;
    /** `--cidr-allocator-type`: only `RangeAllocator` runs here (the default). */
    cidrAllocatorType: string;
  };
  /**
   * The node lifecycle controller: `--node-eviction-rate` (0.1),
   * `--secondary-node-eviction-rate` (0.01), `--node-startup-grace-period`
   * (1 min), `--node-monitor-grace-period` (50 s),
   * `--large-cluster-size-threshold` (50), `--unhealthy-zone-threshold` (0.55).
   */
  nodeLifecycleController: {
    /** Nodes tainted for eviction per second, per zone, while the zone is healthy. */
    nodeEvictionRate: number;
    /** The rate in a partly disrupted zone of a large cluster. */
    secondaryNodeEvictionRate: number;
    /** How long a node that never reported Ready may stay silent, in milliseconds. */
    nodeStartupGracePeriod: number;
    /** How long a node may stay silent before it is marked Unknown, in milliseconds. */
    nodeMonitorGracePeriod: number;
    /** A zone of more nodes than this is large: partial disruption slows evictions instead of stopping them. */
    largeClusterSizeThreshold: number;
    /** The share of not-ready nodes (at least 3) that makes a zone partly disrupted. */
    unhealthyZoneThreshold: number;
  };
  /** The garbage collector: `--enable-garbage-collector` (true), `--concurrent-gc-syncs` (20). */
  garbageCollectorController: {
    /** `--enable-garbage-collector`: false leaves the collector out. */
    enableGarbageCollector: boolean;
    /** Workers of each of the collector's two queues (attempt to delete, attempt to orphan). */
    concurrentGCSyncs: number;
    /** Resources the collector never watches (core and events.k8s.io events). */
    gcIgnoredResources: {
      /** API group, `''` for the core group. */
      group: string;
      /** Plural resource name. */
      resource: string;
    }[];
  };
  /**
   * The service-account options kcm-ts reads: `--root-ca-file` (none),
   * whose bundle the root CA publisher puts in every namespace instead of
   * the CA of the manager's own client config.
   */
  saController: {
    /** Path to a PEM CA bundle; `''` for none. */
    rootCAFile: string;
  };
  /** `--concurrent-namespace-syncs` (10), `--namespace-sync-period` (5 min). */
  namespaceController: {
    /** Workers of the namespace controller. */
    concurrentNamespaceSyncs: number;
    /** How often every namespace is looked at again, in milliseconds. */
    namespaceSyncPeriod: number;
  };
  /** The HTTPS endpoints: `--bind-address`, `--secure-port` (10257; 0 turns serving off; `'random'` picks a free port). */
  secureServing: {
    /** The address to listen on. */
    bindAddress: string;
    /** The port, 0 for none, `'random'` for a free one. */
    securePort: number | 'random';
  };
  /** `--authorization-always-allow-paths`: served without asking the API server. */
  authorization: {
    /** Paths answered to anyone, authenticated or not. */
    alwaysAllowPaths: string[];
  };
}

/**
 * The defaults of kube-controller-manager, except `bindAddress`, which is
 * `127.0.0.1` here (kube's is `0.0.0.0`): a sandbox for one machine listens
 * on loopback unless told otherwise.
 *
 * @category Configuration
 */
export function defaultConfiguration(): ControllerManagerConfiguration {
  return {
    generic: {
      controllers: ['*'],
      controllerStartInterval: 0,
      minResyncPeriod: 12 * 60 * 60 * 1000,
      leaderElection: {
        leaderElect: true,
        leaseDuration: 15_000,
        renewDeadline: 10_000,
        retryPeriod: 2_000,
        resourceLock: 'leases',
        resourceName: 'kube-controller-manager',
        resourceNamespace: 'kube-system',
      },
      clientConnection: { qps: 20, burst: 30 },
    },
    replicaSetController: { concurrentRSSyncs: 5 },
    deploymentController: { concurrentDeploymentSyncs: 5 },
    daemonSetController: { concurrentDaemonSetSyncs: 2 },
    statefulSetController: { concurrentStatefulSetSyncs: 5 },
    endpointSliceController: {
      concurrentServiceEndpointSyncs: 5,
      maxEndpointsPerSlice: 100,
      endpointUpdatesBatchPeriod: 0,
    },
    endpointController: { concurrentEndpointSyncs: 5, endpointUpdatesBatchPeriod: 0 },
    endpointSliceMirroringController: {
      mirroringConcurrentServiceEndpointSyncs: 5,
      mirroringMaxEndpointsPerSubset: 1000,
      mirroringEndpointUpdatesBatchPeriod: 0,
    },
    replicationController: { concurrentRCSyncs: 5 },
    nodeIPAMController: {
      serviceCIDR: '',
      secondaryServiceCIDR: '',
      nodeCIDRMaskSize: 0,
      nodeCIDRMaskSizeIPv4: 0,
      nodeCIDRMaskSizeIPv6: 0,
    },
    jobController: { concurrentJobSyncs: 5 },
    cronJobController: { concurrentCronJobSyncs: 5 },
    ttlAfterFinishedController: { concurrentTTLSyncs: 5 },
    podGCController: { terminatedPodGCThreshold: 12_500 },
    kubeCloudShared: {
      nodeMonitorPeriod: 5_000,
      allocateNodeCIDRs: false,
      clusterCIDR: '',
      cidrAllocatorType: 'RangeAllocator',
    },
    nodeLifecycleController: {
      nodeEvictionRate: 0.1,
      secondaryNodeEvictionRate: 0.01,
      nodeStartupGracePeriod: 60_000,
      nodeMonitorGracePeriod: 50_000,
      largeClusterSizeThreshold: 50,
      unhealthyZoneThreshold: 0.55,
    },
    garbageCollectorController: {
      enableGarbageCollector: true,
      concurrentGCSyncs: 20,
      gcIgnoredResources: [
        { group: '', resource: 'events' },
        { group: 'events.k8s.io', resource: 'events' },
      ],
    },
    saController: { rootCAFile: '' },
    namespaceController: { concurrentNamespaceSyncs: 10, namespaceSyncPeriod: 5 * 60 * 1000 },
    secureServing: { bindAddress: '127.0.0.1', securePort: 10257 },
    authorization: { alwaysAllowPaths: ['/healthz', '/readyz', '/livez'] },
  };
}

/**
 * Go's `time.Duration.String` for a duration in milliseconds: `12h0m0s`,
 * `15s`, `1.5s`, `250ms`, `0s`.
 *
 * @category Configuration
 */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) {
    // Below a second Go picks the largest unit that keeps an integer part.
    if (rest >= 1) return `${sign}${trim(rest)}ms`;
    if (rest >= 0.001) return `${sign}${trim(rest * 1000)}µs`;
    return `${sign}${trim(rest * 1e6)}ns`;
  }
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = `${trim(rest / 1000)}s`;
  if (h > 0) return `${sign}${h}h${m}m${s}`;
  if (m > 0) return `${sign}${m}m${s}`;
  return `${sign}${s}`;
}

const trim = (n: number): string => String(Number(n.toFixed(9)));

/**
 * The configuration as `/configz` serves it: under the component's name,
 * with Go's field names and durations as Go prints them.
 *
 * @category Configuration
 */
export function configz(config: ControllerManagerConfiguration): Record<string, unknown> {
  const g = config.generic;
  const le = g.leaderElection;
  const nl = config.nodeLifecycleController;
  return {
    'kubecontrollermanager.config.k8s.io': {
      Generic: {
        Port: config.secureServing.securePort === 'random' ? 0 : config.secureServing.securePort,
        Address: config.secureServing.bindAddress,
        MinResyncPeriod: formatDuration(g.minResyncPeriod),
        ClientConnection: { QPS: g.clientConnection.qps, Burst: g.clientConnection.burst },
        ControllerStartInterval: formatDuration(g.controllerStartInterval),
        LeaderElection: {
          LeaderElect: le.leaderElect,
          LeaseDuration: formatDuration(le.leaseDuration),
          RenewDeadline: formatDuration(le.renewDeadline),
          RetryPeriod: formatDuration(le.retryPeriod),
          ResourceLock: le.resourceLock,
          ResourceName: le.resourceName,
          ResourceNamespace: le.resourceNamespace,
        },
        Controllers: g.controllers,
      },
      ReplicaSetController: { ConcurrentRSSyncs: config.replicaSetController.concurrentRSSyncs },
      DeploymentController: {
        ConcurrentDeploymentSyncs: config.deploymentController.concurrentDeploymentSyncs,
      },
      DaemonSetController: {
        ConcurrentDaemonSetSyncs: config.daemonSetController.concurrentDaemonSetSyncs,
      },
      StatefulSetController: {
        ConcurrentStatefulSetSyncs: config.statefulSetController.concurrentStatefulSetSyncs,
      },
      EndpointSliceController: {
        ConcurrentServiceEndpointSyncs:
          config.endpointSliceController.concurrentServiceEndpointSyncs,
        MaxEndpointsPerSlice: config.endpointSliceController.maxEndpointsPerSlice,
        EndpointUpdatesBatchPeriod: formatDuration(
          config.endpointSliceController.endpointUpdatesBatchPeriod,
        ),
      },
      EndpointController: {
        ConcurrentEndpointSyncs: config.endpointController.concurrentEndpointSyncs,
        EndpointUpdatesBatchPeriod: formatDuration(
          config.endpointController.endpointUpdatesBatchPeriod,
        ),
      },
      EndpointSliceMirroringController: {
        MirroringConcurrentServiceEndpointSyncs:
          config.endpointSliceMirroringController.mirroringConcurrentServiceEndpointSyncs,
        MirroringMaxEndpointsPerSubset:
          config.endpointSliceMirroringController.mirroringMaxEndpointsPerSubset,
        MirroringEndpointUpdatesBatchPeriod: formatDuration(
          config.endpointSliceMirroringController.mirroringEndpointUpdatesBatchPeriod,
        ),
      },
      ReplicationController: { ConcurrentRCSyncs: config.replicationController.concurrentRCSyncs },
      NodeIPAMController: {
        ServiceCIDR: config.nodeIPAMController.serviceCIDR,
        SecondaryServiceCIDR: config.nodeIPAMController.secondaryServiceCIDR,
        NodeCIDRMaskSize: config.nodeIPAMController.nodeCIDRMaskSize,
        NodeCIDRMaskSizeIPv4: config.nodeIPAMController.nodeCIDRMaskSizeIPv4,
        NodeCIDRMaskSizeIPv6: config.nodeIPAMController.nodeCIDRMaskSizeIPv6,
      },
      JobController: { ConcurrentJobSyncs: config.jobController.concurrentJobSyncs },
      CronJobController: {
        ConcurrentCronJobSyncs: config.cronJobController.concurrentCronJobSyncs,
      },
      TTLAfterFinishedController: {
        ConcurrentTTLSyncs: config.ttlAfterFinishedController.concurrentTTLSyncs,
      },
      PodGCController: {
        TerminatedPodGCThreshold: config.podGCController.terminatedPodGCThreshold,
      },
      KubeCloudShared: {
        NodeMonitorPeriod: formatDuration(config.kubeCloudShared.nodeMonitorPeriod),
        AllocateNodeCIDRs: config.kubeCloudShared.allocateNodeCIDRs,
        ClusterCIDR: config.kubeCloudShared.clusterCIDR,
        CIDRAllocatorType: config.kubeCloudShared.cidrAllocatorType,
      },
      NodeLifecycleController: {
        NodeEvictionRate: nl.nodeEvictionRate,
        SecondaryNodeEvictionRate: nl.secondaryNodeEvictionRate,
        NodeStartupGracePeriod: formatDuration(nl.nodeStartupGracePeriod),
        NodeMonitorGracePeriod: formatDuration(nl.nodeMonitorGracePeriod),
        LargeClusterSizeThreshold: nl.largeClusterSizeThreshold,
        UnhealthyZoneThreshold: nl.unhealthyZoneThreshold,
      },
      GarbageCollectorController: {
        EnableGarbageCollector: config.garbageCollectorController.enableGarbageCollector,
        ConcurrentGCSyncs: config.garbageCollectorController.concurrentGCSyncs,
        GCIgnoredResources: config.garbageCollectorController.gcIgnoredResources.map((r) => ({
          Group: r.group,
          Resource: r.resource,
        })),
      },
      SAController: { RootCAFile: config.saController.rootCAFile },
      NamespaceController: {
        NamespaceSyncPeriod: formatDuration(config.namespaceController.namespaceSyncPeriod),
        ConcurrentNamespaceSyncs: config.namespaceController.concurrentNamespaceSyncs,
      },
    },
  };
}
