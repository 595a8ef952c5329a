// Which flow schema a request falls under: staging/src/k8s.io/apiserver/pkg/
// util/flowcontrol/rule.go (matchesFlowSchema, matchesPolicyRule, the
// subject, verb, group, resource, namespace and URL matchers), with the
// schemas tried in order of matching precedence, then name, as
// apf_controller.go sorts them.
import type {
  FlowSchema,
  NonResourcePolicyRule,
  PolicyRulesWithSubjects,
  ResourcePolicyRule,
  Subject,
} from './bootstrap.js';

/** What classification reads of a request: who sent it and what it asks. */
export interface RequestDigest {
  user: { username: string; groups: readonly string[] };
  /** Resource requests name a group, resource and namespace; others a path. */
  isResourceRequest: boolean;
  /** The API verb (get, list, watch, create...), or the lower-cased method of a non-resource request. */
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  /** `''` for a cluster-scoped resource. */
  namespace: string;
  name: string;
  /** The request path, for non-resource rules. */
  path: string;
}

const serviceAccountPrefix = 'system:serviceaccount:';

function matchesSubject(user: RequestDigest['user'], subject: Subject): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.user.name === '*' || subject.user.name === user.username;
    case 'Group':
      return subject.group.name === '*' || user.groups.includes(subject.group.name);
    case 'ServiceAccount': {
      if (!user.username.startsWith(serviceAccountPrefix)) return false;
      const [namespace, name] = user.username.slice(serviceAccountPrefix.length).split(':');
      const sa = subject.serviceAccount;
      return sa.namespace === namespace && (sa.name === '*' || sa.name === name);
    }
  }
}

const matchesAll = (list: readonly string[], value: string): boolean =>
  list.includes('*') || list.includes(value);

function matchesResourceRule(r: RequestDigest, rule: ResourcePolicyRule): boolean {
  if (!matchesAll(rule.verbs, r.verb) || !matchesAll(rule.apiGroups, r.apiGroup)) return false;
  const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  if (!matchesAll(rule.resources, resource)) return false;
  if (r.namespace === '') return rule.clusterScope === true;
  return matchesAll(rule.namespaces ?? [], r.namespace);
}

function matchesNonResourceRule(r: RequestDigest, rule: NonResourcePolicyRule): boolean {
  if (!matchesAll(rule.verbs, r.verb)) return false;
  return rule.nonResourceURLs.some(
    (url) =>
      url === '*' ||
      url === r.path ||
      (url.endsWith('*') && r.path.startsWith(url.replace(/\*+$/, ''))),
  );
}

function matchesPolicyRule(r: RequestDigest, rule: PolicyRulesWithSubjects): boolean {
  if (!rule.subjects.some((s) => matchesSubject(r.user, s))) return false;
  return r.isResourceRequest
    ? (rule.resourceRules ?? []).some((rr) => matchesResourceRule(r, rr))
    : (rule.nonResourceRules ?? []).some((nr) => matchesNonResourceRule(r, nr));
}

/** The schemas in the order they are tried. */
export function sortFlowSchemas(schemas: readonly FlowSchema[]): FlowSchema[] {
  return [...schemas].sort(
    (a, b) =>
      a.spec.matchingPrecedence - b.spec.matchingPrecedence ||
      (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0),
  );
}

/** The first of `sorted` whose rules match `r`; catch-all matches everything authenticated. */
export function matchFlowSchema(
  sorted: readonly FlowSchema[],
  r: RequestDigest,
): FlowSchema | undefined {
  return sorted.find((fs) => fs.spec.rules.some((rule) => matchesPolicyRule(r, rule)));
}

/** The flow a request belongs to within its schema: its user, its namespace, or one flow for all. */
export function flowDistinguisher(fs: FlowSchema, r: RequestDigest): string {
  switch (fs.spec.distinguisherMethod?.type) {
    case 'ByUser':
      return r.user.username;
    case 'ByNamespace':
      return r.namespace;
    default:
      return '';
  }
}
