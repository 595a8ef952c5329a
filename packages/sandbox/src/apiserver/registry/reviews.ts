// The review APIs, create-only and never stored: TokenReview and
// SubjectAccessReview, which a component with delegated authentication and
// authorization (kube-controller-manager's secure port) calls for every
// request it serves, and the ones `kubectl auth can-i` and `kubectl auth
// whoami` call: SelfSubjectAccessReview, LocalSubjectAccessReview and
// SelfSubjectReview. As pkg/registry/authentication/tokenreview/storage.go,
// pkg/registry/authentication/selfsubjectreview/rest.go and
// pkg/registry/authorization/{subjectaccessreview,selfsubjectaccessreview,
// localsubjectaccessreview}/rest.go answer them, with
// pkg/apis/authorization/validation's checks; decisions come from the same
// authorizer as requests (../authorization/).
import { newBadRequest, newInvalid } from '@kcm-ts/apimachinery';
import type { KubeObject } from '@kcm-ts/apimachinery';
import { apiAudiences, sandboxAdmin, TokenAuthenticator } from '../authn.js';
import type { UserInfo } from '../authn.js';
import { authorize } from '../authorization/authorizer.js';
import type { Attributes, RBACAuthorizer } from '../authorization/rbac.js';
import type { ServiceAccountTokens } from './core/service-account-token.js';
import { invalid, plain, toCauses } from './field-errors.js';
import type { FieldError } from './field-errors.js';
import type { ResourceInfo } from '../resources.js';
import { type Obj, isObj, obj } from '../unstructured.js';

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];

/** What the reviews consult besides the static tokens: the registry's RBAC and ServiceAccount tokens. */
export interface ReviewSources {
  rbac: RBACAuthorizer;
  tokens: ServiceAccountTokens;
  /** The clock's current time, epoch ms (token expiry). */
  now(): number;
}

/**
 * Answers the review resources for one sandbox: its static tokens
 * authenticate as their users (the admin `kubernetes-admin` in
 * `kubeadm:cluster-admins`, the controller manager) and ServiceAccount
 * tokens as their accounts; access reviews are decided by the same
 * authorizer as requests (system:masters, then RBAC).
 */
export class Reviewer {
  readonly #authn: TokenAuthenticator;
  #sources: ReviewSources | undefined;

  constructor(authn: TokenAuthenticator = new TokenAuthenticator(undefined)) {
    this.#authn = authn;
  }

  /** Gives the reviewer the registry's RBAC objects and tokens (the registry calls it once). */
  attach(sources: ReviewSources): void {
    this.#sources = sources;
  }

  /** True for the resources this class answers instead of storage. */
  static handles(info: ResourceInfo): boolean {
    return info.storage === '';
  }

  /**
   * Answers a create of a review resource; the result is the review with
   * its status. `user` is who asks (the self reviews answer about them);
   * the admin when unset.
   */
  create(
    info: ResourceInfo,
    namespace: string,
    body: unknown,
    user: UserInfo = sandboxAdmin,
  ): KubeObject {
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
    const answer = (status: Obj) => ({ ...base, status }) as unknown as KubeObject;
    if (info.namespaced) {
      if (!namespace) throw newBadRequest(`namespace is required on this type: ${namespace}`);
    } else if (namespace) {
      throw newBadRequest(`namespace is not allowed on this type: ${namespace}`);
    }
    switch (info.resource) {
      case 'tokenreviews':
        return answer(this.#tokenReviewStatus(spec));
      case 'selfsubjectreviews':
        return answer({ userInfo: userInfoOf(user) });
      case 'selfsubjectaccessreviews':
        this.#validateSelf(info, spec);
        return answer(this.#decide(user, spec));
      case 'localsubjectaccessreviews': {
        const attrs = obj(spec.resourceAttributes);
        if (spec.nonResourceAttributes !== undefined && spec.nonResourceAttributes !== null) {
          throw newInvalid(
            { group: info.group, kind: info.kind },
            '',
            toCauses([
              invalid(
                'spec.nonResourceAttributes',
                spec.nonResourceAttributes,
                'disallowed on this kind of request',
              ),
            ]),
          );
        }
        if ((attrs.namespace ?? '') !== namespace) {
          throw newBadRequest(
            `spec.resourceAttributes.namespace must match namespace: ${namespace}`,
          );
        }
        return answer(this.#accessReviewStatus(info, body, spec));
      }
      default:
        return answer(this.#accessReviewStatus(info, body, spec));
    }
  }

  // ValidateSelfSubjectAccessReviewSpec: exactly one kind of attributes.
  #validateSelf(info: ResourceInfo, spec: Obj): void {
    const has = (v: unknown) => v !== undefined && v !== null;
    const errs: FieldError[] = [];
    if (has(spec.resourceAttributes) && has(spec.nonResourceAttributes)) {
      errs.push(
        invalid(
          'spec.nonResourceAttributes',
          spec.nonResourceAttributes,
          'cannot be specified in combination with resourceAttributes',
        ),
      );
    }
    if (!has(spec.resourceAttributes) && !has(spec.nonResourceAttributes)) {
      errs.push(
        invalid(
          'spec.resourceAttributes',
          'null',
          'exactly one of nonResourceAttributes or resourceAttributes must be specified',
        ),
      );
    }
    if (errs.length > 0)
      throw newInvalid({ group: info.group, kind: info.kind }, '', toCauses(errs));
  }

  // The authorizer's answer for a review's attributes: allowed, with the
  // reason when there is one (Go leaves an empty reason out).
  #decide(user: UserInfo, spec: Obj): Obj {
    const attrs = reviewAttributes(user, spec);
    const sources = this.#sources;
    const decision = sources
      ? authorize(sources.rbac, attrs)
      : { allowed: user.groups.includes('system:masters'), reason: '' };
    return decision.reason
      ? { allowed: decision.allowed, reason: decision.reason }
      : { allowed: decision.allowed };
  }

  #tokenReviewStatus(spec: Obj): Obj {
    const token = typeof spec.token === 'string' ? spec.token : '';
    if (token === '') throw newBadRequest('token is required for TokenReview in authentication');
    // The audiences asked for, else the API server's own; a token meant for
    // none of them does not authenticate (authenticator/audiences.go).
    const wanted = strings(spec.audiences);
    const asked = wanted.length > 0 ? wanted : [...apiAudiences];
    const account = this.#sources?.tokens.authenticate(token, this.#sources.now(), asked);
    if (account) {
      const { audiences, ...user } = account;
      return { authenticated: true, user: userInfoOf(user), audiences };
    }
    const audiences = asked.filter((a) => apiAudiences.includes(a));
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
    const allowedMeta = info.namespaced
      ? ['managedFields', 'creationTimestamp', 'namespace']
      : ['managedFields', 'creationTimestamp'];
    if (Object.keys(meta).some((k) => !allowedMeta.includes(k))) {
      errs.push(invalid('metadata', meta, 'must be empty'));
    }
    if (errs.length > 0) {
      throw newInvalid({ group: info.group, kind: info.kind }, '', toCauses(errs));
    }
    const extra = obj(spec.extra);
    return this.#decide(
      {
        username: user,
        groups,
        ...(typeof spec.uid === 'string' && spec.uid ? { uid: spec.uid } : {}),
        ...(Object.keys(extra).length > 0 ? { extra: extra as Record<string, string[]> } : {}),
      },
      spec,
    );
  }
}

/** authentication/v1 UserInfo as a review's status shows it: empty parts left out. */
function userInfoOf(user: UserInfo): Obj {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: [...user.groups],
    ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

/** authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom. */
export function reviewAttributes(user: UserInfo, spec: Obj): Attributes {
  const resource = spec.resourceAttributes;
  if (isObj(resource)) {
    const s = (k: string) => (typeof resource[k] === 'string' ? resource[k] : '');
    return {
      user,
      verb: s('verb'),
      resourceRequest: true,
      namespace: s('namespace'),
      apiGroup: s('group'),
      resource: s('resource'),
      subresource: s('subresource'),
      name: s('name'),
      path: '',
    };
  }
  const nonResource = obj(spec.nonResourceAttributes);
  return {
    user,
    verb: typeof nonResource.verb === 'string' ? nonResource.verb : '',
    resourceRequest: false,
    namespace: '',
    apiGroup: '',
    resource: '',
    subresource: '',
    name: '',
    path: typeof nonResource.path === 'string' ? nonResource.path : '',
  };
}
