// The discovery documents and OpenAPI index kubectl reads before any request:
// aggregated discovery (apidiscovery.k8s.io/v2, one round trip) when asked
// for, the legacy APIVersions/APIGroupList/APIResourceList otherwise
// (staging/src/k8s.io/client-go/discovery/discovery_client.go decides by the
// response Content-Type), and the small OpenAPI v3 documents that tell
// `kubectl apply` the server validates fields itself
// (staging/src/k8s.io/cli-runtime/pkg/resource/query_param_verifier_v3.go).
import { createHash } from 'node:crypto';
import { apiVersionOf, resources } from './resources.js';
import type { ResourceInfo } from './resources.js';

/** The Content-Type of an aggregated discovery answer. */
export const aggregatedDiscoveryContentType =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** True when an Accept header asks for aggregated discovery v2. */
export function wantsAggregatedDiscovery(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const params = new Set(part.split(';').map((p) => p.trim().replace(/\s+/g, '')));
    return (
      params.has('g=apidiscovery.k8s.io') &&
      params.has('v=v2') &&
      params.has('as=APIGroupDiscoveryList')
    );
  });
}

const groupsInOrder = (): string[] => [
  ...new Set(resources.filter((r) => r.group !== '').map((r) => r.group)),
];

function subresourceKind(
  info: ResourceInfo,
  sub: string,
): { group: string; version: string; kind: string } {
  if (sub === 'scale') return { group: 'autoscaling', version: 'v1', kind: 'Scale' };
  if (sub === 'binding') return { group: '', version: '', kind: 'Binding' };
  if (sub === 'eviction') return { group: 'policy', version: 'v1', kind: 'Eviction' };
  if (sub === 'token')
    return { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
  if (sub === 'exec') return { group: '', version: '', kind: 'PodExecOptions' };
  if (sub === 'attach') return { group: '', version: '', kind: 'PodAttachOptions' };
  if (sub === 'portforward') return { group: '', version: '', kind: 'PodPortForwardOptions' };
  return { group: '', version: '', kind: info.kind };
}

function subresourceVerbs(sub: string): string[] {
  if (sub === 'finalize') return ['update'];
  if (sub === 'binding' || sub === 'eviction' || sub === 'token') return ['create'];
  if (sub === 'log') return ['get'];
  if (sub === 'exec' || sub === 'attach' || sub === 'portforward') return ['create', 'get'];
  return ['get', 'patch', 'update'];
}

function aggregatedResource(info: ResourceInfo): Record<string, unknown> {
  const out: Record<string, unknown> = {
    resource: info.resource,
    responseKind: { group: '', version: '', kind: info.kind },
    scope: info.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: info.singular,
    verbs: [...info.verbs],
  };
  if (info.shortNames.length > 0) out.shortNames = [...info.shortNames];
  if (info.categories.length > 0) out.categories = [...info.categories];
  if (info.subresources.length > 0) {
    out.subresources = info.subresources.map((sub) => ({
      subresource: sub,
      responseKind: subresourceKind(info, sub),
      verbs: subresourceVerbs(sub),
    }));
  }
  return out;
}

function aggregatedGroup(group: string): Record<string, unknown> {
  const inGroup = resources.filter((r) => r.group === group);
  const versions = [...new Set(inGroup.map((r) => r.version))];
  return {
    metadata: group ? { name: group, creationTimestamp: null } : { creationTimestamp: null },
    versions: versions.map((version) => ({
      version,
      resources: inGroup.filter((r) => r.version === version).map(aggregatedResource),
      freshness: 'Current',
    })),
  };
}

/** `/api` (core) or `/apis` (named groups) in aggregated form. */
export function aggregatedDiscovery(core: boolean): Record<string, unknown> {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: core ? [aggregatedGroup('')] : groupsInOrder().map(aggregatedGroup),
  };
}

/** Legacy `/api`. */
export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(group: string): Record<string, unknown> {
  const versions = [
    ...new Set(resources.filter((r) => r.group === group).map((r) => r.version)),
  ].map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions, preferredVersion: versions[0] };
}

/** Legacy `/apis`. */
export function apiGroupList(): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groupsInOrder().map(apiGroup) };
}

/** Legacy `/apis/{group}`; undefined for a group the sandbox does not serve. */
export function apiGroupDocument(group: string): Record<string, unknown> | undefined {
  if (!groupsInOrder().includes(group)) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group) };
}

/** Legacy `/api/v1` or `/apis/{group}/{version}`; undefined if not served. */
export function apiResourceList(
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const inGV = resources.filter((r) => r.group === group && r.version === version);
  if (inGV.length === 0) return undefined;
  const list: Record<string, unknown>[] = [];
  for (const info of inGV) {
    const entry: Record<string, unknown> = {
      name: info.resource,
      singularName: info.singular,
      namespaced: info.namespaced,
      kind: info.kind,
      verbs: [...info.verbs],
    };
    if (info.shortNames.length > 0) entry.shortNames = [...info.shortNames];
    if (info.categories.length > 0) entry.categories = [...info.categories];
    list.push(entry);
    for (const sub of info.subresources) {
      const kind = subresourceKind(info, sub);
      list.push({
        name: `${info.resource}/${sub}`,
        singularName: '',
        namespaced: info.namespaced,
        ...(kind.group ? { group: kind.group, version: kind.version } : {}),
        kind: kind.kind,
        verbs: subresourceVerbs(sub),
      });
    }
  }
  const groupVersion = group ? `${group}/${version}` : version;
  return group
    ? { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources: list }
    : { kind: 'APIResourceList', groupVersion, resources: list };
}

// ---- OpenAPI v3 -------------------------------------------------------------

const fieldValidationParam = {
  name: 'fieldValidation',
  in: 'query',
  description: 'How the server treats unknown and duplicate fields: Ignore, Warn or Strict.',
  schema: { type: 'string', uniqueItems: true },
};

/** The OpenAPI v3 document of one group-version, keyed `api/v1` or `apis/apps/v1`. */
export function openApiDocument(gvPath: string): Record<string, unknown> | undefined {
  const inGV = resources.filter(
    (r) => (r.group ? `apis/${apiVersionOf(r)}` : `api/${r.version}`) === gvPath,
  );
  if (inGV.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  for (const info of inGV) {
    const prefix = `/${gvPath}${info.namespaced ? '/namespaces/{namespace}' : ''}/${info.resource}`;
    const gvk = { group: info.group, version: info.version, kind: info.kind };
    const op = (action: string) => ({
      operationId: `${action}${info.kind}`,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      parameters: [fieldValidationParam],
      responses: { '200': { description: 'OK' } },
    });
    paths[prefix] = { post: op('post') };
    paths[`${prefix}/{name}`] = { put: op('put'), patch: op('patch') };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas: {} },
  };
}

/** `/openapi/v3`: the index of group-version documents, each with a content hash. */
export function openApiIndex(): Record<string, unknown> {
  const gvPaths = [
    ...new Set(resources.map((r) => (r.group ? `apis/${apiVersionOf(r)}` : `api/${r.version}`))),
  ];
  const paths: Record<string, unknown> = {};
  for (const gv of gvPaths) {
    const hash = createHash('sha512')
      .update(JSON.stringify(openApiDocument(gv)))
      .digest('hex')
      .toUpperCase()
      .slice(0, 128);
    paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${hash}` };
  }
  return { paths };
}
