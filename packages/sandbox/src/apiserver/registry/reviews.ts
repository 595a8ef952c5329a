// TokenReview and SubjectAccessReview: the two create-only APIs a component
// with delegated authentication and authorization (kube-controller-manager's
// secure port) calls for every request it serves. As
// pkg/registry/authentication/tokenreview/storage.go and
// pkg/registry/authorization/subjectaccessreview/rest.go answer them, with
// pkg/apis/authorization/validation's checks. Nothing is stored.
import { newBadRequest, newInvalid } from '@kcm-ts/apimachinery';
import type { KubeObject } from '@kcm-ts/apimachinery';
import { adminGroups, apiAudiences, sandboxAdmin, TokenAuthenticator } from '../authn.js';
import { invalid, plain, toCauses } from './field-errors.js';
import type { FieldError } from './field-errors.js';
import type { ResourceInfo } from '../resources.js';
import { type Obj, isObj } from '../unstructured.js';

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];

/**
 * Answers the review resources (`tokenreviews.authentication.k8s.io`,
 * `subjectaccessreviews.authorization.k8s.io`) for one sandbox: its tokens
 * authenticate as their users (the admin `kubernetes-admin` in
 * `kubeadm:cluster-admins`, the controller manager); the admin groups may
 * do anything, every other user is refused.
 */
export class Reviewer {
  readonly #authn: TokenAuthenticator;

  constructor(authn: TokenAuthenticator = new TokenAuthenticator(undefined)) {
    this.#authn = authn;
  }

  /** True for the resources this class answers instead of storage. */
  static handles(info: ResourceInfo): boolean {
    return info.storage === '';
  }

  /** Answers a create of a review resource; the result is the review with its status. */
  create(info: ResourceInfo, namespace: string, body: unknown): KubeObject {
    if (!isObj(body)) {
      throw newBadRequest(
        `the body of the request must be a ${info.kind} object, got ${Array.isArray(body) ? 'an array' : JSON.stringify(body)}`,
      );
    }
    const apiVersion = `${info.group}/${info.version}`;
    if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
      throw newBadRequest(
        `the API version in the data (${plain(body.apiVersion)}) does not match the expected API version (${apiVersion})`,
      );
    }
    if (body.kind !== undefined && body.kind !== info.kind) {
      throw newBadRequest(`not a ${info.kind}: ${JSON.stringify(body)}`);
    }
    const spec = isObj(body.spec) ? body.spec : {};
    // Go decodes into a fresh object, so the metadata sent comes back with a
    // zero creationTimestamp, which it writes as null.
    const metadata = { ...(isObj(body.metadata) ? body.metadata : {}), creationTimestamp: null };
    const base = { kind: info.kind, apiVersion, metadata, spec };
    if (info.resource === 'tokenreviews') {
      if (namespace) {
        throw newBadRequest(`namespace is not allowed on this type: ${namespace}`);
      }
      return { ...base, status: this.#tokenReviewStatus(spec) } as unknown as KubeObject;
    }
    return { ...base, status: this.#accessReviewStatus(info, body, spec) } as unknown as KubeObject;
  }

  #tokenReviewStatus(spec: Obj): Obj {
    const token = typeof spec.token === 'string' ? spec.token : '';
    if (token === '') throw newBadRequest('token is required for TokenReview in authentication');
    // The audiences asked for, else the API server's own; a token meant for
    // none of them does not authenticate (authenticator/audiences.go).
    const wanted = strings(spec.audiences);
    const audiences = (wanted.length > 0 ? wanted : [...apiAudiences]).filter((a) =>
      apiAudiences.includes(a),
    );
    const user = audiences.length > 0 ? this.#authn.authenticateToken(token) : undefined;
    if (user === undefined) return { user: {}, error: 'invalid bearer token' };
    return {
      authenticated: true,
      user: { username: user.username, groups: [...user.groups] },
      audiences,
    };
  }

  #accessReviewStatus(info: ResourceInfo, body: Obj, spec: Obj): Obj {
    const errs: FieldError[] = [];
    const resourceAttributes = spec.resourceAttributes;
    const nonResourceAttributes = spec.nonResourceAttributes;
    const has = (v: unknown) => v !== undefined && v !== null;
    if (has(resourceAttributes) && has(nonResourceAttributes)) {
      errs.push(
        invalid(
          'spec.nonResourceAttributes',
          nonResourceAttributes,
          'cannot be specified in combination with resourceAttributes',
        ),
      );
    }
    if (!has(resourceAttributes) && !has(nonResourceAttributes)) {
      // A nil pointer prints as the quoted word "null" in field errors.
      errs.push(
        invalid(
          'spec.resourceAttributes',
          'null',
          'exactly one of nonResourceAttributes or resourceAttributes must be specified',
        ),
      );
    }
    const user = typeof spec.user === 'string' ? spec.user : '';
    const groups = strings(spec.groups);
    if (user === '' && groups.length === 0) {
      errs.push(invalid('spec.user', user, 'at least one of user or group must be specified'));
    }
    const meta = isObj(body.metadata) ? body.metadata : {};
    if (Object.keys(meta).some((k) => k !== 'managedFields' && k !== 'creationTimestamp')) {
      errs.push(invalid('metadata', meta, 'must be empty'));
    }
    if (errs.length > 0) {
      throw newInvalid({ group: info.group, kind: info.kind }, '', toCauses(errs));
    }
    // The privileged group authorizer allows system:masters without a word
    // (authorizerfactory.NewPrivilegedGroups), and kubeadm binds
    // kubeadm:cluster-admins to cluster-admin; the sandbox binds nothing
    // else, where RBAC would give no opinion, so others learn why.
    if (groups.some((g) => adminGroups.includes(g)) || user === sandboxAdmin.username) {
      return { allowed: true };
    }
    return {
      allowed: false,
      reason: `the kcm-ts sandbox grants access only to the groups ${adminGroups.join(' and ')} and the user ${sandboxAdmin.username}`,
    };
  }
}
