// ServiceAccount tokens: the token subresource of serviceaccounts
// (pkg/registry/core/serviceaccount/storage/token.go, TokenREST.Create,
// with pkg/apis/authentication/validation ValidateTokenRequest and the v1
// default of expirationSeconds) and the authenticator that accepts what it
// hands out (pkg/serviceaccount/jwt.go and claims.go, Validate: the
// audiences, the expiry, and the service account and bound object still
// there with the same UID). kube-apiserver signs a JWT; the sandbox hands
// out an opaque random token and keeps its claims in memory, so tokens
// last as long as the process (a sandbox reopened from its data directory
// has none), and only this sandbox can read them.
import {
  formatTime,
  newBadRequest,
  newConflict,
  newInvalid,
  newNotFound,
} from '@kcm-ts/apimachinery';
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { UserInfo } from '../../authn.js';
import { apiAudiences } from '../../authn.js';
import { invalid, plain, toCauses, type FieldError } from '../field-errors.js';
import { type Obj, isObj, obj } from '../../unstructured.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The least lifetime a TokenRequest may ask for (MinTokenAgeSec, ten minutes). */
export const minTokenSeconds = 600;

/** The longest lifetime a TokenRequest may ask for (MaxTokenAgeSec, 2^32 seconds). */
export const maxTokenSeconds = 2 ** 32;

/** The lifetime of a token when the request names none (SetDefaults_TokenRequestSpec). */
export const defaultTokenSeconds = 3600;

/** What a token stands for: the claims kube-apiserver would sign. */
interface TokenClaims {
  namespace: string;
  name: string;
  uid: string;
  audiences: string[];
  /** Epoch ms after which the token no longer authenticates. */
  expires: number;
  /** The object the token is bound to (a Pod or Secret in the namespace), if any. */
  bound?: { kind: 'Pod' | 'Secret'; name: string; uid: string };
  /** The JWT ID kube-apiserver would put in `jti`, shown as the credential ID. */
  id: string;
}

/** Reads a stored object: `resource` is the storage name (`serviceaccounts`, `pods`). */
export type ObjectLookup = (resource: string, namespace: string, name: string) => Obj | undefined;

/** The user a service account's token authenticates as (serviceaccount.UserInfo). */
export function serviceAccountUser(namespace: string, name: string, uid = ''): UserInfo {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: [
      'system:serviceaccounts',
      `system:serviceaccounts:${namespace}`,
      'system:authenticated',
    ],
    ...(uid ? { uid } : {}),
  };
}

/** 32 random bytes, base64url: the opaque token. */
function randomToken(): string {
  const bytes = new Uint8Array(32);
  globalThis.crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/**
 * The tokens handed out through `serviceaccounts/{name}/token`, and their
 * authenticator.
 */
export class ServiceAccountTokens {
  readonly #tokens = new Map<string, TokenClaims>();
  readonly #lookup: ObjectLookup;

  constructor(lookup: ObjectLookup) {
    this.#lookup = lookup;
  }

  /**
   * Answers a TokenRequest for the service account `name` in `namespace`
   * (TokenREST.Create): 404 for a missing account, 422 for a name,
   * namespace or lifetime it refuses, 400 or 409 for a bound object that
   * does not fit. The result is the TokenRequest with its status.
   */
  create(namespace: string, name: string, body: unknown, now: number): KubeObject {
    if (!isObj(body)) throw newBadRequest('the body of the request must be a TokenRequest object');
    if (body.kind !== undefined && body.kind !== 'TokenRequest') {
      throw newBadRequest(`${plain(body.kind)} is not a TokenRequest`);
    }
    const meta = obj(body.metadata);
    const gk = { group: 'authentication.k8s.io', kind: 'TokenRequest' };
    const mismatch = (field: string, value: unknown, what: string): never => {
      throw newInvalid(gk, name, toCauses([invalid(field, value, what)]));
    };
    if (typeof meta.name === 'string' && meta.name !== '' && meta.name !== name) {
      mismatch('metadata.name', meta.name, 'must match the service account name if specified');
    }
    if (
      typeof meta.namespace === 'string' &&
      meta.namespace !== '' &&
      meta.namespace !== namespace
    ) {
      mismatch(
        'metadata.namespace',
        meta.namespace,
        'must match the service account namespace if specified',
      );
    }
    const account = this.#lookup('serviceaccounts', namespace, name);
    if (!account) {
      throw newNotFound({ group: '', resource: 'serviceaccounts' }, name);
    }
    const spec = { ...obj(body.spec) };
    const audiences = Array.isArray(spec.audiences)
      ? spec.audiences.filter((a): a is string => typeof a === 'string')
      : [];
    spec.audiences = audiences.length > 0 ? audiences : [...apiAudiences];
    spec.expirationSeconds ??= defaultTokenSeconds;
    spec.boundObjectRef ??= null;
    const errs: FieldError[] = [];
    const seconds = spec.expirationSeconds;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds)) {
      errs.push(invalid('spec.expirationSeconds', seconds, 'must be an integer'));
    } else if (seconds < minTokenSeconds) {
      errs.push(
        invalid(
          'spec.expirationSeconds',
          seconds,
          'may not specify a duration less than 10 minutes',
        ),
      );
    } else if (seconds > maxTokenSeconds) {
      errs.push(
        invalid(
          'spec.expirationSeconds',
          seconds,
          'may not specify a duration larger than 2^32 seconds',
        ),
      );
    }
    if (errs.length > 0) throw newInvalid(gk, '', toCauses(errs));
    const bound = this.#boundObject(namespace, name, spec.boundObjectRef);
    const token = randomToken();
    const expires = now + (seconds as number) * 1000;
    const accountMeta = obj(account.metadata);
    this.#tokens.set(token, {
      namespace,
      name,
      uid: str(accountMeta.uid),
      audiences: spec.audiences as string[],
      expires,
      ...(bound ? { bound } : {}),
      id: globalThis.crypto.randomUUID(),
    });
    return {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name, namespace, creationTimestamp: formatTime(now) },
      spec,
      status: { token, expirationTimestamp: formatTime(expires) },
    } as KubeObject;
  }

  // The object a token is bound to: a Pod running as the account, or a
  // Secret, in the account's namespace (Nodes are left out: the sandbox
  // binds no node credentials).
  #boundObject(namespace: string, account: string, ref: unknown): TokenClaims['bound'] {
    if (!isObj(ref)) return undefined;
    const kind = ref.kind;
    const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
    const refName = typeof ref.name === 'string' ? ref.name : '';
    if ((kind !== 'Pod' && kind !== 'Secret') || apiVersion !== 'v1') {
      const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
      const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion;
      throw newBadRequest(
        `cannot bind token to object of type ${group ? `${group}/` : ''}${version}, Kind=${plain(kind ?? '')}`,
      );
    }
    const resource = kind === 'Pod' ? 'pods' : 'secrets';
    const found = this.#lookup(resource, namespace, refName);
    if (!found) {
      throw newNotFound({ group: '', resource }, refName);
    }
    if (kind === 'Pod' && obj(found.spec).serviceAccountName !== account) {
      throw newBadRequest(
        `cannot bind token for serviceaccount "${account}" to pod running with different serviceaccount name.`,
      );
    }
    const uid = str(obj(found.metadata).uid);
    if (typeof ref.uid === 'string' && ref.uid !== '' && ref.uid !== uid) {
      throw newConflict(
        { group: '', resource: kind },
        refName,
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
    return { kind, name: refName, uid };
  }

  /**
   * The user of a token this sandbox handed out, if it is still good: not
   * expired, meant for one of `audiences` (the API server's by default), and
   * its service account (and bound object) still there with the same UID.
   * The user carries the account's UID and the token's credential ID, as
   * `kubectl auth whoami` shows them.
   */
  authenticate(
    token: string,
    now: number,
    audiences: readonly string[] = apiAudiences,
  ): (UserInfo & { audiences: string[] }) | undefined {
    const claims = this.#tokens.get(token);
    if (!claims) return undefined;
    if (now >= claims.expires) {
      this.#tokens.delete(token);
      return undefined;
    }
    const wanted = claims.audiences.filter((a) => audiences.includes(a));
    if (wanted.length === 0) return undefined;
    const account = this.#lookup('serviceaccounts', claims.namespace, claims.name);
    const accountMeta = obj(account?.metadata);
    if (!account || accountMeta.uid !== claims.uid || accountMeta.deletionTimestamp !== undefined) {
      return undefined;
    }
    const extra: Record<string, string[]> = {
      'authentication.kubernetes.io/credential-id': [`JTI=${claims.id}`],
    };
    if (claims.bound) {
      const resource = claims.bound.kind === 'Pod' ? 'pods' : 'secrets';
      const found = this.#lookup(resource, claims.namespace, claims.bound.name);
      if (!found || obj(found.metadata).uid !== claims.bound.uid) return undefined;
      if (claims.bound.kind === 'Pod') {
        extra['authentication.kubernetes.io/pod-name'] = [claims.bound.name];
        extra['authentication.kubernetes.io/pod-uid'] = [claims.bound.uid];
        const node = obj(found.spec).nodeName;
        if (typeof node === 'string' && node !== '') {
          extra['authentication.kubernetes.io/node-name'] = [node];
        }
      }
    }
    return {
      ...serviceAccountUser(claims.namespace, claims.name, claims.uid),
      extra,
      audiences: wanted,
    };
  }
}
