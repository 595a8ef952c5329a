// The sandbox's authorization chain: kube-apiserver's union of the
// privileged-group authorizer (authorizerfactory.NewPrivilegedGroups for
// system:masters) and RBAC (authorizer/union/union.go), the filter that
// refuses what neither allows (staging/src/k8s.io/apiserver/pkg/endpoints/
// filters/authorization.go, WithAuthorization) and its 403 words
// (endpoints/handlers/responsewriters/errors.go, forbiddenMessage and
// Forbidden).
//
// The sandbox's decision: RBAC is enforced for ServiceAccount tokens and
// impersonated users; the identities of its own static tokens (the admin,
// the controller manager) keep every right whatever the stored roles say,
// as kubeadm's super-admin would.
import { newForbidden } from '@kcm-ts/apimachinery';
import type { StatusError } from '@kcm-ts/apimachinery';
import type { Attributes, Decision, RBACAuthorizer } from './rbac.js';

/** The group every request of which is allowed without a word (system:masters). */
export const privilegedGroup = 'system:masters';

/**
 * The union of the privileged group and RBAC: allowed when either allows,
 * with RBAC's reason; otherwise RBAC's reason for having no opinion.
 */
export function authorize(rbac: RBACAuthorizer, attrs: Attributes): Decision {
  if (attrs.user.groups.includes(privilegedGroup)) return { allowed: true, reason: '' };
  return rbac.authorize(attrs);
}

/** forbiddenMessage: `User "u" cannot list resource "pods" in API group "" in the namespace "ns"`. */
export function forbiddenMessage(attrs: Attributes): string {
  const user = JSON.stringify(attrs.user.username);
  if (!attrs.resourceRequest) {
    return `User ${user} cannot ${attrs.verb} path ${JSON.stringify(attrs.path)}`;
  }
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const what = `User ${user} cannot ${attrs.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attrs.apiGroup)}`;
  return attrs.namespace
    ? `${what} in the namespace ${JSON.stringify(attrs.namespace)}`
    : `${what} at the cluster scope`;
}

/** Forbidden: 403 for the request's resource and name, the reason appended when there is one. */
export function forbidden(attrs: Attributes, reason: string): StatusError {
  const message = forbiddenMessage(attrs);
  return newForbidden(
    { group: attrs.apiGroup, resource: attrs.resource },
    attrs.name,
    reason ? `${message}: ${reason}` : message,
  );
}
