// Acting as another user: staging/src/k8s.io/apiserver/pkg/endpoints/
// filters/impersonation.go (WithImpersonation, buildImpersonationRequests).
// The `Impersonate-User`, `Impersonate-Group` and `Impersonate-Uid`
// headers (what `kubectl --as`, `--as-group` and `--as-uid` send) are each
// authorized as the verb `impersonate` on users, serviceaccounts, groups or
// uids; then the request goes on as that user, with the service account
// groups for an account asked for without groups, and
// `system:authenticated` added.
import { newBadRequest } from '@kcm-ts/apimachinery';
import type { StatusError } from '@kcm-ts/apimachinery';
import type { UserInfo } from '../authn.js';
import { serviceAccountUser } from '../registry/core/service-account-token.js';
import { forbidden } from './authorizer.js';
import type { Attributes, Decision } from './rbac.js';

/** What was asked for in the headers. */
interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UID';
  namespace: string;
  name: string;
}

const header = (headers: Record<string, string | string[] | undefined>, name: string): string[] => {
  const v = headers[name];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
};

/**
 * The user a request acts as: `user` itself when it asks to impersonate
 * no one; otherwise the impersonated user, once `authorize` has allowed
 * `user` each `impersonate` it needs. Throws 403 Forbidden for one it may
 * not, 400 for groups or a UID without a user.
 */
export function impersonate(
  user: UserInfo,
  headers: Record<string, string | string[] | undefined>,
  authorize: (attrs: Attributes) => Decision,
): { user: UserInfo; impersonated: boolean } {
  const username = header(headers, 'impersonate-user')[0];
  const groups = header(headers, 'impersonate-group');
  const uid = header(headers, 'impersonate-uid')[0];
  const extras = Object.keys(headers).filter((h) => h.startsWith('impersonate-extra-'));
  if (username === undefined) {
    if (groups.length > 0 || uid !== undefined || extras.length > 0) {
      throw newBadRequest(
        'requested impersonation of groups, a uid or user extras without impersonating a user',
      );
    }
    return { user, impersonated: false };
  }
  const requests: ImpersonationRequest[] = [];
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  requests.push(
    sa
      ? { kind: 'ServiceAccount', namespace: sa[1] ?? '', name: sa[2] ?? '' }
      : { kind: 'User', namespace: '', name: username },
  );
  for (const g of groups) requests.push({ kind: 'Group', namespace: '', name: g });
  if (uid !== undefined) requests.push({ kind: 'UID', namespace: '', name: uid });
  for (const r of requests) {
    const attrs: Attributes = {
      user,
      verb: 'impersonate',
      resourceRequest: true,
      namespace: r.namespace,
      apiGroup: r.kind === 'UID' ? 'authentication.k8s.io' : '',
      resource: { User: 'users', ServiceAccount: 'serviceaccounts', Group: 'groups', UID: 'uids' }[
        r.kind
      ],
      subresource: '',
      name: r.name,
      path: '',
    };
    const decision = authorize(attrs);
    if (!decision.allowed) throw forbiddenImpersonation(attrs, decision.reason);
  }
  let actingGroups = [...groups];
  if (sa && groups.length === 0) {
    actingGroups = serviceAccountUser(sa[1] ?? '', sa[2] ?? '').groups.filter(
      (g) => g !== 'system:authenticated',
    );
  }
  if (username !== 'system:anonymous' && !actingGroups.includes('system:authenticated')) {
    actingGroups.push('system:authenticated');
  }
  return {
    user: { username, groups: actingGroups, ...(uid !== undefined ? { uid } : {}) },
    impersonated: true,
  };
}

function forbiddenImpersonation(attrs: Attributes, reason: string): StatusError {
  return forbidden(attrs, reason);
}
