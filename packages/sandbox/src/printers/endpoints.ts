// `kubectl get endpoints` and `kubectl get endpointslices`: printers.go,
// printEndpoints and printEndpointSlice, with formatEndpoints,
// formatDiscoveryPorts, formatDiscoveryEndpoints and listWithMoreString.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { Endpoints } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { translateTimestampSince } from './duration.js';
import { ageColumn, column, nameColumn, type PrintedRow, type Printer } from './printer.js';

const shown = 3;

/** formatEndpoints: up to three `ip:port`s, then `+ N more...`; `<none>` without subsets. */
export function formatEndpoints(ep: Endpoints): string {
  const subsets = ep.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  let count = 0;
  for (const ss of subsets) {
    const addresses = ss.addresses ?? [];
    const ports = ss.ports ?? [];
    if (ports.length === 0) {
      // A headless Service may have no ports.
      for (const a of addresses) if (list.length < shown) list.push(a.ip);
      count += addresses.length;
      continue;
    }
    for (const port of ports) {
      for (const a of addresses) if (list.length < shown) list.push(`${a.ip}:${port.port}`);
      count += addresses.length;
    }
  }
  const text = list.join(',');
  return count > shown ? `${text} + ${count - shown} more...` : text;
}

/** listWithMoreString: `<unset>` for none. */
function listWithMore(list: string[], count: number): string {
  const text = list.slice(0, shown).join(',');
  if (count > shown) return `${text} + ${count - shown} more...`;
  return text === '' ? '<unset>' : text;
}

const endpointsColumns = [
  nameColumn,
  column('Endpoints', 'string', 'The addresses and ports of the endpoints.'),
  ageColumn,
];

function printEndpoints(o: KubeObject, now: number): PrintedRow {
  const ep = o as Endpoints;
  return {
    cells: [
      ep.metadata?.name ?? '',
      formatEndpoints(ep),
      translateTimestampSince(ep.metadata?.creationTimestamp, now),
    ],
  };
}

/** Endpoints: Name, Endpoints (`10.244.1.2:80,... + 2 more...`), Age. */
export const endpointsPrinter: Printer = { columns: endpointsColumns, print: printEndpoints };

const sliceColumns = [
  nameColumn,
  column('AddressType', 'string', 'The type of address the slice carries.'),
  column('Ports', 'string', 'The ports of the slice.'),
  column('Endpoints', 'string', 'The addresses of the endpoints.'),
  ageColumn,
];

function printEndpointSlice(o: KubeObject, now: number): PrintedRow {
  const slice = o as EndpointSlice;
  const ports = (slice.ports ?? []).map((p) =>
    p.port != null ? String(p.port) : p.name != null ? p.name : '*',
  );
  const addresses = (slice.endpoints ?? []).flatMap((e) => e.addresses);
  return {
    cells: [
      slice.metadata?.name ?? '',
      slice.addressType,
      listWithMore(ports, ports.length),
      listWithMore(addresses, addresses.length),
      translateTimestampSince(slice.metadata?.creationTimestamp, now),
    ],
  };
}

/** EndpointSlices: Name, AddressType, Ports, Endpoints, Age. */
export const endpointSlicePrinter: Printer = { columns: sliceColumns, print: printEndpointSlice };
