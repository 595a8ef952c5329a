// core/v1 Services as kube-apiserver stores them: defaults, ClusterIPs from
// 10.96.0.0/12 and NodePorts from 30000-32767 that never clash and come back
// when a Service goes, what an update leaves out kept, kube's field errors,
// the `kubernetes` Service, discovery and the Table kubectl prints.
import { isInvalid } from '@kcm-ts/apimachinery';
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { Service } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { aggregatedDiscovery, apiResourceList } from '../src/apiserver/discovery.js';
import { startSandbox } from '../src/index.js';
import { toTable } from '../src/printers/index.js';
import { epoch, newRegistry } from './helpers.js';

const svc = (name: string, spec: Service['spec'] = {}): KubeObject =>
  ({
    metadata: { name },
    spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec },
  }) as KubeObject;

function setup() {
  const { registry } = newRegistry();
  const info = registry.resource('', 'services');
  const create = (o: KubeObject) => registry.create(info, 'default', o) as Service;
  const causes = (fn: () => unknown): string[] => {
    try {
      fn();
    } catch (err) {
      expect(isInvalid(err)).toBe(true);
      const details = (err as { details?: { causes?: { field?: string; message?: string }[] } })
        .details;
      return (details?.causes ?? []).map((c) => `${c.field ?? ''}: ${c.message ?? ''}`);
    }
    throw new Error('expected 422 Invalid');
  };
  return { registry, info, create, causes };
}

const inCIDR = (ip: string): boolean => {
  const [a, b] = ip.split('.').map(Number);
  return a === 10 && (b ?? 0) >= 96 && (b ?? 0) <= 111;
};

describe('Services', () => {
  it('are defaulted and get a ClusterIP from 10.96.0.0/12', () => {
    const { create } = setup();
    const out = create(svc('web'));
    expect(out.spec).toMatchObject({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    });
    expect(inCIDR(out.spec?.clusterIP ?? '')).toBe(true);
    expect(out.spec?.clusterIPs).toEqual([out.spec?.clusterIP]);
    expect(out.status).toEqual({ loadBalancer: {} });
  });

  it('hand out distinct ClusterIPs and NodePorts, and take back those of deleted Services', () => {
    const { registry, info, create, causes } = setup();
    const ips = new Set<string>();
    const nodePorts = new Set<number>();
    for (let i = 0; i < 50; i++) {
      const out = create(svc(`s${i}`, { type: 'NodePort' }));
      ips.add(out.spec?.clusterIP ?? '');
      const port = out.spec?.ports?.[0]?.nodePort ?? 0;
      expect(port).toBeGreaterThanOrEqual(30000);
      expect(port).toBeLessThanOrEqual(32767);
      nodePorts.add(port);
    }
    expect(ips.size).toBe(50);
    expect(nodePorts.size).toBe(50);
    const taken = registry.get(info, 'default', 's0') as Service;
    const ip = taken.spec?.clusterIP ?? '';
    expect(causes(() => create(svc('copy', { clusterIP: ip })))).toEqual([
      `spec.clusterIPs: Invalid value: []string{"${ip}"}: failed to allocate IP ${ip}: provided IP is already allocated`,
    ]);
    const nodePort = taken.spec?.ports?.[0]?.nodePort ?? 0;
    expect(
      causes(() => create(svc('np', { type: 'NodePort', ports: [{ port: 80, nodePort }] }))),
    ).toEqual([
      `spec.ports[0].nodePort: Invalid value: ${nodePort}: provided port is already allocated`,
    ]);
    registry.delete(info, 'default', 's0');
    expect(create(svc('copy', { clusterIP: ip })).spec?.clusterIP).toBe(ip);
    expect(
      create(svc('np', { type: 'NodePort', ports: [{ port: 80, nodePort }] })).spec?.ports?.[0]
        ?.nodePort,
    ).toBe(nodePort);
  });

  it('refuse asked-for ClusterIPs and NodePorts outside their ranges', () => {
    const { create, causes } = setup();
    expect(causes(() => create(svc('a', { clusterIP: '192.168.0.1' })))).toEqual([
      'spec.clusterIPs: Invalid value: []string{"192.168.0.1"}: failed to allocate IP 192.168.0.1: the provided IP (192.168.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    ]);
    expect(
      causes(() => create(svc('b', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] }))),
    ).toEqual([
      'spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
    ]);
  });

  it('keep their ClusterIP and NodePorts through an update that leaves them out', () => {
    const { registry, info, create, causes } = setup();
    const out = create(svc('web', { type: 'NodePort' }));
    const replaced = registry.update(info, 'default', 'web', {
      ...svc('web', { type: 'NodePort', ports: [{ port: 80, targetPort: 8080 }] }),
      metadata: { name: 'web', resourceVersion: out.metadata?.resourceVersion },
    }).object as Service;
    expect(replaced.spec?.clusterIP).toBe(out.spec?.clusterIP);
    expect(replaced.spec?.ports).toEqual([
      { port: 80, targetPort: 8080, protocol: 'TCP', nodePort: out.spec?.ports?.[0]?.nodePort },
    ]);
    // Back to ClusterIP: the node ports go.
    const back = registry.patch(info, 'default', 'web', {
      type: 'merge',
      body: { spec: { type: 'ClusterIP', ports: [{ port: 80, targetPort: 8080 }] } },
    }).object as Service;
    expect(back.spec?.ports?.[0]?.nodePort).toBeUndefined();
    // The ClusterIP, once set, stays.
    expect(
      causes(() =>
        registry.patch(info, 'default', 'web', {
          type: 'merge',
          body: { spec: { clusterIP: '10.96.7.7', clusterIPs: ['10.96.7.7'] } },
        }),
      ),
    ).toEqual([
      'spec.clusterIPs[0]: Invalid value: []string{"10.96.7.7"}: may not change once set',
    ]);
  });

  it('merge their ports by port number under a strategic merge patch', () => {
    const { registry, info, create } = setup();
    create(
      svc('web', {
        ports: [
          { name: 'http', port: 80 },
          { name: 'https', port: 443 },
        ],
      }),
    );
    const out = registry.patch(info, 'default', 'web', {
      type: 'strategic',
      body: { spec: { ports: [{ port: 443, targetPort: 8443 }] } },
    }).object as Service;
    expect(out.spec?.ports?.map((p) => [p.name, p.port, p.targetPort])).toEqual([
      ['http', 80, 80],
      ['https', 443, 8443],
    ]);
  });

  it('are headless with clusterIP None, and ExternalName without one', () => {
    const { create } = setup();
    const headless = create(svc('db', { clusterIP: 'None', ports: [] }));
    expect(headless.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'] });
    const selectorless = create({
      metadata: { name: 'ext-ips' },
      spec: { clusterIP: 'None' },
    } as KubeObject);
    expect(selectorless.spec).toMatchObject({
      ipFamilyPolicy: 'RequireDualStack',
      ipFamilies: ['IPv4', 'IPv6'],
    });
    const external = create({
      metadata: { name: 'search' },
      spec: { type: 'ExternalName', externalName: 'example.com' },
    } as KubeObject);
    expect(external.spec?.clusterIP).toBeUndefined();
    expect(external.spec?.ipFamilies).toBeUndefined();
    expect(external.spec?.internalTrafficPolicy).toBeUndefined();
  });

  it('are validated with kube-apiserver’s field errors', () => {
    const { create, causes } = setup();
    expect(causes(() => create({ metadata: { name: 'x' }, spec: {} } as KubeObject))).toEqual([
      'spec.ports: Required value',
    ]);
    expect(
      causes(() =>
        create(
          svc('x', {
            ports: [
              { port: 0 },
              { name: 'a', port: 80, protocol: 'ICMP' },
              { name: 'a', port: 81, targetPort: 'Bad_Name' },
            ],
          }),
        ),
      ),
    ).toEqual([
      'spec.ports[0].name: Required value',
      'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      // targetPort is defaulted from port, so it is 0 too.
      'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      'spec.ports[2].name: Duplicate value: "a"',
      'spec.ports[2].targetPort: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]);
    expect(
      causes(() =>
        create(
          svc('x', {
            ports: [
              { name: 'a', port: 80 },
              { name: 'b', port: 80 },
            ],
          }),
        ),
      ),
    ).toEqual([
      'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    ]);
    expect(causes(() => create(svc('x', { type: 'Magic' })))).toEqual([
      'spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ]);
    expect(causes(() => create(svc('x', { ports: [{ port: 80, nodePort: 30001 }] })))).toEqual([
      "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
    ]);
    expect(causes(() => create(svc('x', { selector: { 'bad key!': 'v' } })))).toHaveLength(1);
    expect(causes(() => create(svc('1st')))).toEqual([
      "metadata.name: Invalid value: \"1st\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(
      causes(() =>
        create({ metadata: { name: 'e' }, spec: { type: 'ExternalName' } } as KubeObject),
      ),
    ).toEqual(['spec.externalName: Required value']);
  });

  it('print as kubectl get svc shows them', () => {
    const { create } = setup();
    const rows = [
      create(svc('web', { clusterIP: '10.96.0.10' })),
      create(svc('np', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] })),
      create(svc('lb', { type: 'LoadBalancer', ports: [{ port: 443, nodePort: 30443 }] })),
      create({
        metadata: { name: 'search' },
        spec: { type: 'ExternalName', externalName: 'example.com' },
      } as KubeObject),
    ];
    const table = toTable('services', '', rows, { now: epoch + 61_000, resourceVersion: '9' });
    expect(table.columnDefinitions.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0],
      ['Type', 0],
      ['Cluster-IP', 0],
      ['External-IP', 0],
      ['Port(s)', 0],
      ['Age', 0],
      ['Selector', 1],
    ]);
    expect(table.rows.map((r) => r.cells)).toEqual([
      ['web', 'ClusterIP', '10.96.0.10', '<none>', '80/TCP', '61s', 'app=web'],
      ['np', 'NodePort', rows[1]?.spec?.clusterIP, '<none>', '80:30080/TCP', '61s', 'app=np'],
      [
        'lb',
        'LoadBalancer',
        rows[2]?.spec?.clusterIP,
        '<pending>',
        '443:30443/TCP',
        '61s',
        'app=lb',
      ],
      ['search', 'ExternalName', '<none>', 'example.com', '<none>', '61s', '<none>'],
    ]);
  });

  it('are in discovery as kube-apiserver lists them, for kubectl and metadata informers', () => {
    const core = aggregatedDiscovery(true) as {
      items: { versions: { resources: Record<string, unknown>[] }[] }[];
    };
    const services = core.items[0]?.versions[0]?.resources.find((r) => r.resource === 'services');
    expect(services).toEqual({
      resource: 'services',
      responseKind: { group: '', version: '', kind: 'Service' },
      scope: 'Namespaced',
      singularResource: 'service',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['svc'],
      categories: ['all'],
      subresources: [
        {
          subresource: 'status',
          responseKind: { group: '', version: '', kind: 'Service' },
          verbs: ['get', 'patch', 'update'],
        },
      ],
    });
    const legacy = apiResourceList('', 'v1') as { resources: Record<string, unknown>[] };
    expect(legacy.resources.filter((r) => String(r.name).startsWith('services'))).toEqual([
      {
        name: 'services',
        singularName: 'service',
        namespaced: true,
        kind: 'Service',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['svc'],
        categories: ['all'],
      },
      {
        name: 'services/status',
        singularName: '',
        namespaced: true,
        kind: 'Service',
        verbs: ['get', 'patch', 'update'],
      },
    ]);
  });
});

describe('the kubernetes Service', () => {
  it('is made at start with the first ClusterIP, to the server’s own port, and kept', async () => {
    const sandbox = await startSandbox({ insecureHttp: true });
    try {
      const services = sandbox.client<Service>('', 'services').inNamespace('default');
      const kubernetes = await services.get('kubernetes');
      expect(kubernetes.metadata?.labels).toEqual({
        component: 'apiserver',
        provider: 'kubernetes',
      });
      expect(kubernetes.spec).toMatchObject({
        type: 'ClusterIP',
        clusterIP: '10.96.0.1',
        ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: sandbox.port }],
      });
      // A new Service never gets 10.96.0.1.
      const other = await services.create(svc('web') as Service);
      expect(other.spec?.clusterIP).not.toBe('10.96.0.1');
    } finally {
      await sandbox.stop();
    }
  });
});
