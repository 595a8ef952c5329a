// What kube-apiserver does with rbac.authorization.k8s.io/v1 objects before
// it stores them: the defaults of pkg/apis/rbac/v1/defaults.go
// (SetDefaults_ClusterRoleBinding, SetDefaults_RoleBinding,
// SetDefaults_Subject) and the checks of pkg/apis/rbac/validation/
// validation.go (ValidateRole, ValidateClusterRole, ValidatePolicyRule,
// ValidateRoleBinding, ValidateClusterRoleBinding, ValidateRoleBindingSubject,
// and the Update forms that keep roleRef fixed), as the strategies in
// pkg/registry/rbac/*/strategy.go call them. Names follow ValidateRBACName:
// any path segment name.
import { isDNS1123Subdomain } from '@kcm-ts/apimachinery';
import { validateLabelSelector } from '../policy/validation.js';
import { GoLiteral, invalid, notSupported, required } from '../field-errors.js';
import type { FieldError } from '../field-errors.js';
import { sameJSON } from '../semantic-equality.js';
import { type Obj, isObj, obj } from '../../unstructured.js';

/** The API group of RBAC, which roleRefs and User and Group subjects name. */
export const rbacGroup = 'rbac.authorization.k8s.io';

/** ValidateRBACName (path.IsValidPathSegmentName): the problems with a name, none when valid. */
export function rbacNameProblems(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const problems: string[] = [];
  if (name.includes('/')) problems.push(`may not contain '/'`);
  if (name.includes('%')) problems.push(`may not contain '%'`);
  return problems;
}

const strings = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** SetDefaults_RoleBinding / ClusterRoleBinding and SetDefaults_Subject. */
export function defaultBinding(o: Obj): void {
  const ref = obj(o.roleRef);
  if (isObj(o.roleRef) && (ref.apiGroup === undefined || ref.apiGroup === '')) {
    ref.apiGroup = rbacGroup;
  }
  for (const s of strings(o.subjects)) {
    if (!isObj(s) || (s.apiGroup !== undefined && s.apiGroup !== '')) continue;
    if (s.kind === 'ServiceAccount') s.apiGroup = '';
    else if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = rbacGroup;
  }
}

/** ValidatePolicyRule: verbs, and either resource rules or (cluster-wide) URL rules. */
function validatePolicyRule(errs: FieldError[], rule: unknown, namespaced: boolean, at: string) {
  const r = obj(rule);
  if (strings(r.verbs).length === 0) {
    errs.push(required(`${at}.verbs`, 'verbs must contain at least one value'));
  }
  const urls = strings(r.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced) {
      errs.push(
        invalid(
          `${at}.nonResourceURLs`,
          urls,
          'namespaced rules cannot apply to non-resource URLs',
        ),
      );
    }
    if (
      strings(r.apiGroups).length > 0 ||
      strings(r.resources).length > 0 ||
      strings(r.resourceNames).length > 0
    ) {
      errs.push(
        invalid(
          `${at}.nonResourceURLs`,
          urls,
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    }
    return;
  }
  if (strings(r.apiGroups).length === 0) {
    errs.push(required(`${at}.apiGroups`, 'resource rules must supply at least one api group'));
  }
  if (strings(r.resources).length === 0) {
    errs.push(required(`${at}.resources`, 'resource rules must supply at least one resource'));
  }
}

function validateRules(errs: FieldError[], rules: unknown, namespaced: boolean): void {
  strings(rules).forEach((rule, i) => validatePolicyRule(errs, rule, namespaced, `rules[${i}]`));
}

/** ValidateRole: every rule, none for non-resource URLs. */
export function validateRole(role: Obj): FieldError[] {
  const errs: FieldError[] = [];
  validateRules(errs, role.rules, true);
  return errs;
}

/** ValidateClusterRole: every rule, and an aggregation rule with at least one selector. */
export function validateClusterRole(role: Obj): FieldError[] {
  const errs: FieldError[] = [];
  validateRules(errs, role.rules, false);
  const aggregation = role.aggregationRule;
  if (aggregation !== undefined && aggregation !== null) {
    const selectors = strings(obj(aggregation).clusterRoleSelectors);
    if (selectors.length === 0) {
      errs.push(
        required(
          'aggregationRule.clusterRoleSelectors',
          'at least one clusterRoleSelector required if aggregationRule is non-nil',
        ),
      );
    }
    selectors.forEach((s, i) =>
      validateLabelSelector(errs, `aggregationRule.clusterRoleSelectors[${i}]`, s),
    );
  }
  return errs;
}

/** ValidateRoleBindingSubject. */
function validateSubject(errs: FieldError[], subject: unknown, namespaced: boolean, at: string) {
  const s = obj(subject);
  const name = typeof s.name === 'string' ? s.name : '';
  if (name === '') errs.push(required(`${at}.name`, ''));
  const apiGroup = typeof s.apiGroup === 'string' ? s.apiGroup : '';
  switch (s.kind) {
    case 'ServiceAccount':
      if (name !== '') {
        for (const msg of isDNS1123Subdomain(name)) errs.push(invalid(`${at}.name`, name, msg));
      }
      if (apiGroup !== '') errs.push(notSupported(`${at}.apiGroup`, apiGroup, ['']));
      if (!namespaced && (typeof s.namespace !== 'string' || s.namespace === '')) {
        errs.push(required(`${at}.namespace`, ''));
      }
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== rbacGroup) errs.push(notSupported(`${at}.apiGroup`, apiGroup, [rbacGroup]));
      break;
    default:
      errs.push(notSupported(`${at}.kind`, s.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
}

function validateBinding(binding: Obj, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = obj(binding.roleRef);
  if (ref.apiGroup !== rbacGroup) {
    errs.push(notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [rbacGroup]));
  }
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(String(ref.kind))) {
    errs.push(notSupported('roleRef.kind', ref.kind ?? '', kinds));
  }
  const name = typeof ref.name === 'string' ? ref.name : '';
  if (name === '') errs.push(required('roleRef.name', ''));
  else for (const msg of rbacNameProblems(name)) errs.push(invalid('roleRef.name', name, msg));
  strings(binding.subjects).forEach((s, i) =>
    validateSubject(errs, s, namespaced, `subjects[${i}]`),
  );
  return errs;
}

/** ValidateRoleBinding: a roleRef to a Role or ClusterRole, and valid subjects. */
export const validateRoleBinding = (b: Obj): FieldError[] => validateBinding(b, true);

/** ValidateClusterRoleBinding: a roleRef to a ClusterRole, and subjects with namespaces. */
export const validateClusterRoleBinding = (b: Obj): FieldError[] => validateBinding(b, false);

/** ValidateRoleBindingUpdate and ValidateClusterRoleBindingUpdate: roleRef may not change. */
export function validateBindingUpdate(next: Obj, old: Obj): FieldError[] {
  if (sameJSON(next.roleRef ?? null, old.roleRef ?? null)) return [];
  // Go prints the internal rbac.RoleRef struct.
  const ref = obj(next.roleRef);
  const q = (v: unknown) => JSON.stringify(typeof v === 'string' ? v : '');
  const literal = `rbac.RoleRef{APIGroup:${q(ref.apiGroup)}, Kind:${q(ref.kind)}, Name:${q(ref.name)}}`;
  return [invalid('roleRef', new GoLiteral(literal), 'cannot change roleRef')];
}
