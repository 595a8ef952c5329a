// `kubectl get services`: printers.go, printService, with makePortString,
// getServiceExternalIP and loadBalancerStatusStringer.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { Service, ServicePort } from 'kubernetes-types/core/v1.js';
import { translateTimestampSince } from './duration.js';
import { ageColumn, column, nameColumn, type PrintedRow, type Printer } from './printer.js';

const columns = [
  nameColumn,
  column(
    'Type',
    'string',
    'How the Service is exposed: ClusterIP, NodePort, LoadBalancer or ExternalName.',
  ),
  column('Cluster-IP', 'string', 'The virtual IP clients inside the cluster reach the Service at.'),
  column('External-IP', 'string', 'Addresses outside the cluster that reach the Service.'),
  column('Port(s)', 'string', 'The ports the Service exposes, with their node ports.'),
  ageColumn,
  column('Selector', 'string', 'The labels of the pods the Service sends traffic to.', 1),
];

/** `80/TCP`, or `80:30080/TCP` with a node port, joined by commas. */
export function servicePorts(ports: readonly ServicePort[] | undefined): string {
  const text = (ports ?? [])
    .map((p) =>
      p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol ?? ''}` : `${p.port}/${p.protocol ?? ''}`,
    )
    .join(',');
  return text === '' ? '<none>' : text;
}

/** The External-IP cell: external IPs, load balancer ingress, or the external name. */
export function serviceExternalIP(svc: Service): string {
  const external = svc.spec?.externalIPs ?? [];
  switch (svc.spec?.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      // The server prints wide, so the ingress list is never shortened.
      const ingress = (svc.status?.loadBalancer?.ingress ?? [])
        .map((i) => i.ip || i.hostname || '')
        .filter((a) => a !== '');
      const all = [...ingress, ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return svc.spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

function formatLabels(labels: Record<string, string> | undefined): string {
  const text = Object.keys(labels ?? {})
    .sort()
    .map((k) => `${k}=${labels?.[k] ?? ''}`)
    .join(',');
  return text === '' ? '<none>' : text;
}

function printService(obj: KubeObject, now: number): PrintedRow {
  const svc = obj as Service;
  return {
    cells: [
      svc.metadata?.name ?? '',
      svc.spec?.type ?? '',
      svc.spec?.clusterIPs?.[0] ?? '<none>',
      serviceExternalIP(svc),
      servicePorts(svc.spec?.ports),
      translateTimestampSince(svc.metadata?.creationTimestamp, now),
      formatLabels(svc.spec?.selector),
    ],
  };
}

/** Services: Name, Type, Cluster-IP, External-IP, Port(s), Age; wide: Selector. */
export const servicePrinter: Printer = { columns, print: printService };
