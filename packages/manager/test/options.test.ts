import { describe, expect, it } from 'vitest';
import { FlagError, flagUsages, parseFlags } from '../src/cli/flags.js';
import { completeOptions, controllerManagerFlags } from '../src/cli/options.js';
import { configz, defaultConfiguration, formatDuration } from '../src/config.js';

const parse = (...argv: string[]) =>
  completeOptions(parseFlags(argv, controllerManagerFlags).values);

describe('flags', () => {
  it('takes pflag’s forms: --a=b, --a b, bare and explicit booleans, -v', () => {
    const o = parse(
      '--kubeconfig',
      '/tmp/kc',
      '--concurrent-replicaset-syncs=7',
      '--leader-elect=false',
      '--enable-garbage-collector',
      '-v=4',
      '--controllers=*,-deployment',
      '--leader-elect-lease-duration',
      '30s',
      '--kube-api-qps=12.5',
      '--logging-format',
      'json',
    );
    expect(o.kubeconfig).toBe('/tmp/kc');
    expect(o.config.replicaSetController.concurrentRSSyncs).toBe(7);
    expect(o.config.generic.leaderElection.leaderElect).toBe(false);
    expect(o.config.garbageCollectorController.enableGarbageCollector).toBe(true);
    expect(o.verbosity).toBe(4);
    expect(o.config.generic.controllers).toEqual(['*', '-deployment-controller']);
    expect(o.config.generic.leaderElection.leaseDuration).toBe(30_000);
    expect(o.config.generic.clientConnection.qps).toBe(12.5);
    expect(o.loggingFormat).toBe('json');
    expect(parse('-v', '2').verbosity).toBe(2);
  });

  it('takes the batch controllers’ flags', () => {
    const o = parse(
      '--concurrent-job-syncs=8',
      '--concurrent-cron-job-syncs=3',
      '--concurrent-ttl-after-finished-syncs=2',
      '--terminated-pod-gc-threshold=0',
    );
    expect(o.config.jobController.concurrentJobSyncs).toBe(8);
    expect(o.config.cronJobController.concurrentCronJobSyncs).toBe(3);
    expect(o.config.ttlAfterFinishedController.concurrentTTLSyncs).toBe(2);
    // 0 (or less) turns the terminated-pod collection off; it is not refused.
    expect(o.config.podGCController.terminatedPodGCThreshold).toBe(0);
    expect(parse().config.podGCController.terminatedPodGCThreshold).toBe(12_500);
    expect(() => parse('--concurrent-job-syncs=0')).toThrow(
      '--concurrent-job-syncs must be at least 1, got 0',
    );
    const body = configz(o.config)['kubecontrollermanager.config.k8s.io'] as Record<
      string,
      unknown
    >;
    expect(body.JobController).toEqual({ ConcurrentJobSyncs: 8 });
    expect(body.CronJobController).toEqual({ ConcurrentCronJobSyncs: 3 });
    expect(body.TTLAfterFinishedController).toEqual({ ConcurrentTTLSyncs: 2 });
    expect(body.PodGCController).toEqual({ TerminatedPodGCThreshold: 0 });
  });

  it('takes the node lifecycle controller’s flags, with upstream’s defaults', () => {
    const d = parse().config;
    expect(d.kubeCloudShared.nodeMonitorPeriod).toBe(5_000);
    expect(d.nodeLifecycleController).toEqual({
      nodeEvictionRate: 0.1,
      secondaryNodeEvictionRate: 0.01,
      nodeStartupGracePeriod: 60_000,
      nodeMonitorGracePeriod: 50_000,
      largeClusterSizeThreshold: 50,
      unhealthyZoneThreshold: 0.55,
    });
    const o = parse(
      '--node-monitor-period=2s',
      '--node-monitor-grace-period=40s',
      '--node-startup-grace-period=2m',
      '--node-eviction-rate=0.5',
      '--secondary-node-eviction-rate=0',
      '--large-cluster-size-threshold=10',
      '--unhealthy-zone-threshold=0.4',
    );
    expect(o.config.kubeCloudShared.nodeMonitorPeriod).toBe(2_000);
    const body = configz(o.config)['kubecontrollermanager.config.k8s.io'] as Record<
      string,
      unknown
    >;
    expect(body.KubeCloudShared).toEqual({
      NodeMonitorPeriod: '2s',
      AllocateNodeCIDRs: false,
      ClusterCIDR: '',
      CIDRAllocatorType: 'RangeAllocator',
    });
    expect(body.NodeLifecycleController).toEqual({
      NodeEvictionRate: 0.5,
      SecondaryNodeEvictionRate: 0,
      NodeStartupGracePeriod: '2m0s',
      NodeMonitorGracePeriod: '40s',
      LargeClusterSizeThreshold: 10,
      UnhealthyZoneThreshold: 0.4,
    });
  });

  it('keeps kube-controller-manager’s defaults when no flag is given', () => {
    const o = parse();
    expect(o.config).toEqual(defaultConfiguration());
    expect(o.config.generic.clientConnection).toEqual({ qps: 20, burst: 30 });
    expect(o.config.secureServing.securePort).toBe(10257);
    expect(o.verbosity).toBe(0);
    expect(o.loggingFormat).toBe('text');
  });

  it.each([
    [['--no-such-flag'], 'unknown flag: --no-such-flag'],
    [['--kubeconfig'], 'flag needs an argument: --kubeconfig'],
    [
      ['--concurrent-replicaset-syncs=five'],
      'invalid argument "five" for "--concurrent-replicaset-syncs" flag: strconv.ParseInt: parsing "five": invalid syntax',
    ],
    [
      ['--leader-elect=maybe'],
      'invalid argument "maybe" for "--leader-elect" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    ],
    [
      ['--leader-elect-retry-period=2'],
      'invalid argument "2" for "--leader-elect-retry-period" flag',
    ],
    [['--controllers=replicasets'], '"replicasets" is not in the list of known controllers'],
    [['--secure-port=70000'], '--secure-port 70000 must be between 0 and 65535'],
    [['--logging-format=xml'], 'logging format: Unsupported value: "xml"'],
    [['--leader-elect-lease-duration=5s'], 'LeaseDuration must be greater than RenewDeadline'],
    [['-x'], 'unknown shorthand flag: "x" in -x'],
  ])('refuses %j, naming the flag', (argv, message) => {
    expect(() => parse(...argv)).toThrow(FlagError);
    expect(() => parse(...argv)).toThrow(message);
  });

  it('reports every problem at once', () => {
    try {
      parse('--controllers=nope', '--kube-api-burst=-1', '--concurrent-gc-syncs=0');
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message.split('\n')).toEqual([
        '"nope" is not in the list of known controllers',
        '--concurrent-gc-syncs must be at least 1, got 0',
        '--kube-api-burst must not be negative, got -1',
      ]);
    }
  });

  it('prints usage with defaults', () => {
    const usage = flagUsages(controllerManagerFlags);
    expect(usage).toContain('--concurrent-replicaset-syncs int32');
    expect(usage).toContain('(default 5)');
    expect(usage).toContain('-v, --v Level');
    expect(usage).toContain('All controllers: ');
  });
});

describe('configz', () => {
  it('prints Go durations', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(15_000)).toBe('15s');
    expect(formatDuration(300_000)).toBe('5m0s');
    expect(formatDuration(12 * 3_600_000)).toBe('12h0m0s');
    expect(formatDuration(1_500)).toBe('1.5s');
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(250)).toBe('250ms');
  });

  it('serves the effective configuration under the component’s name with Go field names', () => {
    const o = parse('--concurrent-deployment-syncs=9', '--leader-elect-renew-deadline=8s');
    const body = configz(o.config)['kubecontrollermanager.config.k8s.io'] as Record<
      string,
      Record<string, unknown>
    >;
    expect(body.DeploymentController).toEqual({ ConcurrentDeploymentSyncs: 9 });
    expect((body.Generic!.LeaderElection as Record<string, unknown>).RenewDeadline).toBe('8s');
    expect(body.Generic!.MinResyncPeriod).toBe('12h0m0s');
    expect(body.NamespaceController).toEqual({
      NamespaceSyncPeriod: '5m0s',
      ConcurrentNamespaceSyncs: 10,
    });
  });
});
