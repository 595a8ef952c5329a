// ServiceAccount tokens (serviceaccounts/token, TokenREST.Create) and what
// they may do: RBAC decisions from the stored roles and bindings
// (rbac.go RuleAllows, after upstream's rbac_test.go TestRuleMatches and
// the authorizer tests), 403 Forbidden with kube-apiserver's words,
// impersonation (`kubectl --as`), and the self reviews `kubectl auth can-i`
// and `kubectl auth whoami` call. The admin's token keeps every right.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { ruleAllows } from '../src/apiserver/authorization/rbac.js';
import type { Attributes } from '../src/apiserver/authorization/rbac.js';
import { epoch, newRegistry } from './helpers.js';
import { call } from './http-helpers.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const sa = { username: 'system:serviceaccount:default:x', groups: ['system:authenticated'] };
const attrs = (over: Partial<Attributes>): Attributes => ({
  user: sa,
  verb: 'get',
  resourceRequest: true,
  namespace: 'default',
  apiGroup: '',
  resource: 'pods',
  subresource: '',
  name: '',
  path: '',
  ...over,
});

describe('RuleAllows (TestRuleMatches cases)', () => {
  it('matches verbs, groups, resources, subresources, names and URLs', () => {
    const rule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'] };
    expect(ruleAllows(attrs({}), rule)).toBe(true);
    expect(ruleAllows(attrs({ verb: 'delete' }), rule)).toBe(false);
    expect(ruleAllows(attrs({ apiGroup: 'apps' }), rule)).toBe(false);
    expect(ruleAllows(attrs({ subresource: 'log' }), rule)).toBe(true);
    expect(ruleAllows(attrs({ subresource: 'exec' }), rule)).toBe(false);
    const star = { verbs: ['*'], apiGroups: ['*'], resources: ['*/scale'] };
    expect(ruleAllows(attrs({ resource: 'deployments', subresource: 'scale' }), star)).toBe(true);
    expect(ruleAllows(attrs({ resource: 'deployments' }), star)).toBe(false);
    const named = { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] };
    expect(ruleAllows(attrs({ name: 'a' }), named)).toBe(true);
    expect(ruleAllows(attrs({ name: 'b' }), named)).toBe(false);
    expect(ruleAllows(attrs({ verb: 'list' }), { ...named, verbs: ['list'] })).toBe(false);
    const url = { verbs: ['get'], nonResourceURLs: ['/apis/*', '/healthz'] };
    const path = (p: string) => attrs({ resourceRequest: false, path: p });
    expect(ruleAllows(path('/apis/apps/v1'), url)).toBe(true);
    expect(ruleAllows(path('/healthz'), url)).toBe(true);
    expect(ruleAllows(path('/healthz/etcd'), url)).toBe(false);
  });
});

describe('ServiceAccount tokens in process', () => {
  it('default audiences and lifetime, refuse short lifetimes, and expire on the clock', () => {
    const { registry, clock } = newRegistry();
    registry.create(registry.resource('', 'serviceaccounts'), 'default', {
      metadata: { name: 'x' },
    });
    const out = registry.createServiceAccountToken('default', 'x', {}) as Obj;
    expect(out.spec).toEqual({
      audiences: ['https://kubernetes.default.svc.cluster.local'],
      expirationSeconds: 3600,
      boundObjectRef: null,
    });
    expect(out.status.expirationTimestamp).toBe(
      new Date(Math.floor(epoch / 1000) * 1000 + 3600_000).toISOString().replace('.000', ''),
    );
    const user = registry.serviceAccountTokens.authenticate(out.status.token, clock.now());
    expect(user).toMatchObject({
      username: 'system:serviceaccount:default:x',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    });
    clock.step(3600_000);
    expect(registry.serviceAccountTokens.authenticate(out.status.token, clock.now())).toBe(
      undefined,
    );
    expect(() =>
      registry.createServiceAccountToken('default', 'x', { spec: { expirationSeconds: 60 } }),
    ).toThrow(
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    expect(() => registry.createServiceAccountToken('default', 'nobody', {})).toThrow(
      'serviceaccounts "nobody" not found',
    );
  });

  it('stop authenticating once the account is gone, even if made again', () => {
    const { registry, clock } = newRegistry();
    const sas = registry.resource('', 'serviceaccounts');
    registry.create(sas, 'default', { metadata: { name: 'x' } });
    const token = (registry.createServiceAccountToken('default', 'x', {}) as Obj).status.token;
    registry.delete(sas, 'default', 'x');
    registry.create(sas, 'default', { metadata: { name: 'x' } });
    expect(registry.serviceAccountTokens.authenticate(token, clock.now())).toBe(undefined);
  });
});

describe('RBAC over HTTP', () => {
  let sandbox: Sandbox;
  let token: string;
  const as = (t: string) => ({ token: t });
  beforeAll(async () => {
    sandbox = await startSandbox({ insecureHttp: true });
    await call(sandbox, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
      body: JSON.stringify({ metadata: { name: 'x' } }),
    });
    const res = await call(sandbox, 'POST', '/api/v1/namespaces/default/serviceaccounts/x/token', {
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest' }),
    });
    expect(res.status).toBe(201);
    token = res.json().status.token;
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it("refuses what no rule allows with kube-apiserver's 403, and allows discovery", async () => {
    const list = await call(sandbox, 'GET', '/api/v1/namespaces/default/pods', as(token));
    expect(list.status).toBe(403);
    expect(list.json()).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message:
        'pods is forbidden: User "system:serviceaccount:default:x" cannot list resource "pods" in API group "" in the namespace "default"',
      details: { kind: 'pods' },
    });
    const cluster = await call(sandbox, 'GET', '/apis/apps/v1/deployments', as(token));
    expect(cluster.json().message).toBe(
      'deployments.apps is forbidden: User "system:serviceaccount:default:x" cannot list resource "deployments" in API group "apps" at the cluster scope',
    );
    expect((await call(sandbox, 'GET', '/apis/apps/v1', as(token))).status).toBe(200);
    expect((await call(sandbox, 'GET', '/api/v1/pods', as('not-a-token'))).status).toBe(401);
  });

  it('allows what a RoleBinding grants, names included, and the admin everything', async () => {
    await call(sandbox, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      body: JSON.stringify({
        metadata: { name: 'pod-reader' },
        rules: [
          { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
          { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['open'] },
        ],
      }),
    });
    await call(
      sandbox,
      'POST',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
      {
        body: JSON.stringify({
          metadata: { name: 'x-reads' },
          roleRef: { kind: 'Role', name: 'pod-reader', apiGroup: 'rbac.authorization.k8s.io' },
          subjects: [{ kind: 'ServiceAccount', name: 'x' }],
        }),
      },
    );
    expect((await call(sandbox, 'GET', '/api/v1/namespaces/default/pods', as(token))).status).toBe(
      200,
    );
    expect(
      (await call(sandbox, 'GET', '/api/v1/namespaces/kube-system/pods', as(token))).status,
    ).toBe(403);
    const open = await call(
      sandbox,
      'GET',
      '/api/v1/namespaces/default/configmaps/open',
      as(token),
    );
    expect(open.status).toBe(404);
    const shut = await call(
      sandbox,
      'GET',
      '/api/v1/namespaces/default/configmaps/shut',
      as(token),
    );
    expect(shut.json().message).toBe(
      'configmaps "shut" is forbidden: User "system:serviceaccount:default:x" cannot get resource "configmaps" in API group "" in the namespace "default"',
    );
    expect((await call(sandbox, 'GET', '/api/v1/namespaces/kube-system/pods')).status).toBe(200);
  });

  it('answers whoami and can-i for the token, and TokenReview for others', async () => {
    const whoami = await call(
      sandbox,
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      {
        ...as(token),
        body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      },
    );
    expect(whoami.status).toBe(201);
    expect(whoami.json().status.userInfo).toMatchObject({
      username: 'system:serviceaccount:default:x',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    });
    expect(whoami.json().status.userInfo.uid).toEqual(expect.any(String));
    const canI = async (verb: string, namespace: string) =>
      (
        await call(sandbox, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
          ...as(token),
          body: JSON.stringify({
            kind: 'SelfSubjectAccessReview',
            apiVersion: 'authorization.k8s.io/v1',
            spec: { resourceAttributes: { verb, resource: 'pods', namespace } },
          }),
        })
      ).json().status;
    expect(await canI('list', 'default')).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "x-reads/default" of Role "pod-reader" to ServiceAccount "x/default"',
    });
    expect(await canI('delete', 'default')).toEqual({ allowed: false });
    const review = await call(sandbox, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      body: JSON.stringify({
        kind: 'TokenReview',
        apiVersion: 'authentication.k8s.io/v1',
        spec: { token },
      }),
    });
    expect(review.json().status).toMatchObject({
      authenticated: true,
      user: { username: 'system:serviceaccount:default:x' },
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    });
  });

  it('lets the admin impersonate, checked by RBAC as that user, and refuses others', async () => {
    const impersonating = {
      headers: { 'impersonate-user': 'system:serviceaccount:default:x' },
    };
    const listed = await call(sandbox, 'GET', '/api/v1/namespaces/default/pods', impersonating);
    expect(listed.status).toBe(200);
    const refused = await call(
      sandbox,
      'DELETE',
      '/api/v1/namespaces/default/pods/a',
      impersonating,
    );
    expect(refused.json().message).toBe(
      'pods "a" is forbidden: User "system:serviceaccount:default:x" cannot delete resource "pods" in API group "" in the namespace "default"',
    );
    const bob = await call(sandbox, 'GET', '/api/v1/namespaces/default/pods', {
      headers: { 'impersonate-user': 'bob', 'impersonate-group': 'team' },
    });
    expect(bob.status).toBe(403);
    expect(bob.json().message).toContain('User "bob" cannot list resource "pods"');
    const bySa = await call(sandbox, 'GET', '/api/v1/namespaces/default/pods', {
      ...as(token),
      headers: { 'impersonate-user': 'bob' },
    });
    expect(bySa.json().message).toBe(
      'users "bob" is forbidden: User "system:serviceaccount:default:x" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    const groupOnly = await call(sandbox, 'GET', '/api/v1/namespaces/default/pods', {
      headers: { 'impersonate-group': 'team' },
    });
    expect(groupOnly.status).toBe(400);
  });
});
