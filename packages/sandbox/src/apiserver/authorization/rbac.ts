// RBAC decisions from the stored Roles, ClusterRoles and their bindings:
// plugin/pkg/auth/authorizer/rbac/rbac.go (RBACAuthorizer.Authorize,
// authorizingVisitor, RuleAllows), pkg/registry/rbac/validation/rule.go
// (DefaultRuleResolver.VisitRulesFor, GetRoleReferenceRules, appliesTo,
// appliesToUser, the binding describers) and pkg/apis/rbac/v1/
// evaluation_helpers.go (VerbMatches, APIGroupMatches, ResourceMatches,
// ResourceNameMatches, NonResourceURLMatches). Rules are read from storage
// at each decision, so a new binding counts at once, as the informer-fed
// resolver has it within moments.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { UserInfo } from '../authn.js';
import { storageKey } from '../storage/storage.js';
import { type Obj, isObj, obj } from '../unstructured.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * What a request asks to do, as authorizer.Attributes describes it.
 *
 * @category Server
 */
export interface Attributes {
  /** Who asks. */
  user: UserInfo;
  /** The API verb (`get`, `list`, `create`, `impersonate`...) or, for a path, the lower-cased method. */
  verb: string;
  /** True for a resource request, false for a non-resource path such as `/healthz`. */
  resourceRequest: boolean;
  /** The namespace, `''` for cluster-wide. */
  namespace: string;
  /** The API group, `''` for the core group. */
  apiGroup: string;
  /** The plural resource. */
  resource: string;
  /** The subresource, `''` for none. */
  subresource: string;
  /** The object's name, `''` for a collection. */
  name: string;
  /** The path of a non-resource request. */
  path: string;
}

/** An authorizer's answer: allowed or no opinion, with its reason. */
export interface Decision {
  allowed: boolean;
  /** Why, as SubjectAccessReview's status.reason shows it; `''` for none. */
  reason: string;
}

/** What the resolver reads: stored objects of a storage, by namespace and name. */
export interface RbacObjects {
  list(storage: string, namespace?: string): KubeObject[];
  get(storage: string, key: string): KubeObject | undefined;
}

const rbacStorage = (resource: string) => `${resource}.rbac.authorization.k8s.io`;
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];

const hasOrStar = (list: string[], value: string) =>
  list.some((item) => item === '*' || item === value);

/** VerbMatches. */
export const verbMatches = (rule: Obj, verb: string): boolean =>
  hasOrStar(strings(rule.verbs), verb);

/** APIGroupMatches. */
export const apiGroupMatches = (rule: Obj, group: string): boolean =>
  hasOrStar(strings(rule.apiGroups), group);

/**
 * ResourceMatches: `*`, the resource with its subresource (`pods/log`), or
 * `* /sub` (any resource's `sub`, written without the space).
 */
export function resourceMatches(rule: Obj, combined: string, subresource: string): boolean {
  for (const r of strings(rule.resources)) {
    if (r === '*' || r === combined) return true;
    if (subresource === '') continue;
    if (r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) {
      return true;
    }
  }
  return false;
}

/** ResourceNameMatches: no names means every name. */
export function resourceNameMatches(rule: Obj, name: string): boolean {
  const names = strings(rule.resourceNames);
  return names.length === 0 || names.includes(name);
}

/** NonResourceURLMatches: `*`, the path, or a prefix ending in `*`. */
export function nonResourceURLMatches(rule: Obj, path: string): boolean {
  for (const url of strings(rule.nonResourceURLs)) {
    if (url === '*' || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** RuleAllows: whether one policy rule covers the request. */
export function ruleAllows(attrs: Attributes, rule: Obj): boolean {
  if (attrs.resourceRequest) {
    const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    return (
      verbMatches(rule, attrs.verb) &&
      apiGroupMatches(rule, attrs.apiGroup) &&
      resourceMatches(rule, combined, attrs.subresource) &&
      resourceNameMatches(rule, attrs.name)
    );
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
}

/** serviceaccount.MatchesUsername: `system:serviceaccount:<ns>:<name>`. */
const isServiceAccount = (username: string, namespace: string, name: string) =>
  username === `system:serviceaccount:${namespace}:${name}`;

/** appliesToUser: whether a binding's subject is the user (or one of its groups). */
function appliesToUser(user: UserInfo, subject: Obj, bindingNamespace: string): boolean {
  const name = typeof subject.name === 'string' ? subject.name : '';
  switch (subject.kind) {
    case 'User':
      return user.username === name;
    case 'Group':
      return user.groups.includes(name);
    case 'ServiceAccount': {
      // A subject without a namespace means the binding's own.
      const ns =
        typeof subject.namespace === 'string' && subject.namespace !== ''
          ? subject.namespace
          : bindingNamespace;
      return ns !== '' && isServiceAccount(user.username, ns, name);
    }
    default:
      return false;
  }
}

/** describeSubject: how a reason names the subject that matched. */
function describeSubject(subject: Obj, bindingNamespace: string): string {
  const name = str(subject.name);
  if (subject.kind === 'ServiceAccount') {
    const ns =
      typeof subject.namespace === 'string' && subject.namespace !== ''
        ? subject.namespace
        : bindingNamespace;
    return `${String(subject.kind)} ${JSON.stringify(`${name}/${ns}`)}`;
  }
  return `${String(subject.kind)} ${JSON.stringify(name)}`;
}

/**
 * The sandbox's RBAC authorizer over stored RBAC objects. It only allows:
 * a request no rule covers gets no opinion, which the API server turns
 * into 403 Forbidden.
 */
export class RBACAuthorizer {
  readonly #objects: RbacObjects;

  constructor(objects: RbacObjects) {
    this.#objects = objects;
  }

  /** Authorize: allowed by the first rule that covers the request, with its binding named. */
  authorize(attrs: Attributes): Decision {
    let reason = '';
    const errors: string[] = [];
    const allowed = this.visitRulesFor(attrs.user, attrs.namespace, (source, rule, err) => {
      if (rule && ruleAllows(attrs, rule)) {
        reason = `RBAC: allowed by ${source}`;
        return false;
      }
      if (err) errors.push(err);
      return true;
    });
    if (allowed) return { allowed: true, reason };
    return {
      allowed: false,
      reason:
        errors.length === 0
          ? ''
          : `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`,
    };
  }

  /**
   * The rules that apply to `user` in `namespace`: the cluster role
   * bindings' first, then the namespace's role bindings, each rule with the
   * binding it came from. `visit` returns false to stop; the result is true
   * when a visit stopped the walk.
   */
  visitRulesFor(
    user: UserInfo,
    namespace: string,
    visit: (source: string, rule: Obj | undefined, err: string | undefined) => boolean,
  ): boolean {
    for (const b of this.#objects.list(rbacStorage('clusterrolebindings'))) {
      const binding = b as unknown as Obj;
      const match = (Array.isArray(binding.subjects) ? binding.subjects : [])
        .filter(isObj)
        .find((s) => appliesToUser(user, s, ''));
      if (!match) continue;
      const ref = obj(binding.roleRef);
      const { rules, err } = this.#roleRules(ref, '');
      if (err && !visit('', undefined, err)) return true;
      const source = `ClusterRoleBinding ${JSON.stringify(String(obj(binding.metadata).name))} of ${String(ref.kind)} ${JSON.stringify(String(ref.name))} to ${describeSubject(match, '')}`;
      for (const rule of rules) if (!visit(source, rule, undefined)) return true;
    }
    if (namespace === '') return false;
    for (const b of this.#objects.list(rbacStorage('rolebindings'), namespace)) {
      const binding = b as unknown as Obj;
      const match = (Array.isArray(binding.subjects) ? binding.subjects : [])
        .filter(isObj)
        .find((s) => appliesToUser(user, s, namespace));
      if (!match) continue;
      const ref = obj(binding.roleRef);
      const { rules, err } = this.#roleRules(ref, namespace);
      if (err && !visit('', undefined, err)) return true;
      const name = String(obj(binding.metadata).name);
      const source = `RoleBinding ${JSON.stringify(`${name}/${namespace}`)} of ${String(ref.kind)} ${JSON.stringify(String(ref.name))} to ${describeSubject(match, namespace)}`;
      for (const rule of rules) if (!visit(source, rule, undefined)) return true;
    }
    return false;
  }

  // GetRoleReferenceRules: the rules of the Role (in the binding's
  // namespace) or ClusterRole a roleRef names.
  #roleRules(ref: Obj, namespace: string): { rules: Obj[]; err?: string } {
    const name = str(ref.name);
    if (ref.kind === 'ClusterRole') {
      const role = this.#objects.get(rbacStorage('clusterroles'), storageKey('', name));
      if (!role)
        return {
          rules: [],
          err: `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(name)} not found`,
        };
      return { rules: rulesOf(role) };
    }
    if (ref.kind === 'Role') {
      const role = this.#objects.get(rbacStorage('roles'), storageKey(namespace, name));
      if (!role)
        return {
          rules: [],
          err: `role.rbac.authorization.k8s.io ${JSON.stringify(name)} not found`,
        };
      return { rules: rulesOf(role) };
    }
    return {
      rules: [],
      err: `unsupported role reference kind: ${JSON.stringify(String(ref.kind))}`,
    };
  }
}

const rulesOf = (role: KubeObject): Obj[] => {
  const rules = (role as unknown as Obj).rules;
  return Array.isArray(rules) ? rules.filter(isObj) : [];
};
