import { expect, it } from 'vitest';
import {
  controllersDisabledByDefault,
  implementedControllers,
  knownControllers,
} from '@kcm-ts/manager';
import { run } from './01-phases.js';

/** Seconds since the start of the fake clock, from a klog header. */
const seconds = (line: string): number => {
  const m = /^[IE]\d{4} (\d\d):(\d\d):(\d\d\.\d+)/.exec(line);
  if (!m) throw new Error(`not a klog line: ${line}`);
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
};

it('runs the phases of Run in order: serve, lead, wait for the API server, start each controller, then the informers', async () => {
  const printed: string[] = [];
  const { lines, started, leaseHolder } = await run((line) => printed.push(line));
  const first = (text: string): number => {
    const i = lines.findIndex((l) => l.includes(text));
    expect(i, text).toBeGreaterThanOrEqual(0);
    return i;
  };

  // The order of Run: log the version, serve, take the Lease, then (inside
  // the leader's callback) wait for /healthz, start controllers, start informers.
  const order = [
    first('"Starting" version="0.1.0"'),
    first('"Serving securely"'),
    first('manager-1 became leader'),
    first("APIServer isn't healthy yet"),
    first(`"Starting controller" controller="${started[0]}"`),
    first(`"Started controller" controller="${started.at(-1)}"`),
    first('InformersStarted resolves'),
    first('every informer of the shared factory has synced'),
  ];
  expect([...order].sort((a, b) => a - b)).toEqual(order);

  // WaitForAPIServer polls every second; the API server is healthy at 2 s.
  const waits = lines.filter((l) => l.includes("APIServer isn't healthy yet")).map(seconds);
  expect(waits).toEqual([0, 1]);

  // The twenty-two implemented controllers that start without
  // --allocate-node-cidrs, in registration order (the order of
  // kube-controller-manager's NewControllerDescriptors), each after a
  // jittered pause of 500 ms × (1 + 0.5). The node IPAM controller's init
  // function says it did not start, as startNodeIpamController does when
  // CIDR allocation is off.
  expect(started).toEqual([
    'endpoints-controller',
    'endpointslice-controller',
    'endpointslice-mirroring-controller',
    'replicationcontroller-controller',
    'pod-garbage-collector-controller',
    'namespace-controller',
    'serviceaccount-controller',
    'garbage-collector-controller',
    'daemonset-controller',
    'job-controller',
    'deployment-controller',
    'replicaset-controller',
    'disruption-controller',
    'statefulset-controller',
    'cronjob-controller',
    'node-lifecycle-controller',
    'clusterrole-aggregation-controller',
    'persistentvolumeclaim-protection-controller',
    'persistentvolume-protection-controller',
    'ttl-after-finished-controller',
    'root-ca-certificate-publisher-controller',
    'taint-eviction-controller',
  ]);
  expect([...started, 'node-ipam-controller'].sort()).toEqual(
    Object.keys(implementedControllers).sort(),
  );
  const skipped = lines.filter((l) => l.includes('"Warning: skipping controller"'));
  expect(skipped).toHaveLength(1);
  expect(skipped[0]).toContain('controller="node-ipam-controller"');
  const starts = lines
    .filter((l) => l.includes('] "Starting controller" controller='))
    .map(seconds);
  expect(starts).toEqual(Array.from({ length: 23 }, (_, i) => 2.75 + 0.75 * i));

  // Every other known controller is accounted for: off by default, cloud, or
  // not implemented here; the service-account token controller is special.
  const count = (text: string) => lines.filter((l) => l.includes(text)).length;
  expect(count('"Warning: controller is disabled"')).toBe(controllersDisabledByDefault().length);
  expect(count('"Skipping a cloud provider controller"')).toBe(3);
  expect(count('"Controller is not implemented in kcm-ts"')).toBe(
    knownControllers().length -
      Object.keys(implementedControllers).length -
      controllersDisabledByDefault().length -
      3 -
      1,
  );

  // The leader held the Lease while it ran and released it when stopped.
  expect(leaseHolder).toEqual({ running: 'manager-1', stopped: '' });

  await expect(`${printed.join('\n')}\n`).toMatchFileSnapshot('./__output__/01-phases.txt');
});
