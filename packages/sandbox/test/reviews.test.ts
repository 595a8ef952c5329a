// TokenReview and SubjectAccessReview, as a component with delegated
// authentication and authorization calls them: the sandbox's token is the
// admin (kind's kubernetes-admin, in kubeadm:cluster-admins, which kubeadm's
// binding makes a cluster-admin); others are not authenticated, or are
// decided by RBAC, with kube-apiserver's answer shapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { call } from './http-helpers.js';

const TOKENREVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const SARS = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ insecureHttp: true });
});

afterAll(async () => {
  await sandbox.stop();
});

const tokenReview = (spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec });
const sar = (spec: Record<string, unknown>, metadata?: Record<string, unknown>) =>
  JSON.stringify({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    ...(metadata ? { metadata } : {}),
    spec,
  });

describe('TokenReview', () => {
  it("authenticates the sandbox token as kind's admin, and the controller manager's as its own user", async () => {
    const res = await call(sandbox, 'POST', TOKENREVIEWS, {
      body: tokenReview({ token: sandbox.token }),
    });
    expect(res.status).toBe(201);
    expect(res.json()).toEqual({
      kind: 'TokenReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { token: sandbox.token },
      status: {
        authenticated: true,
        user: {
          username: 'kubernetes-admin',
          groups: ['kubeadm:cluster-admins', 'system:authenticated'],
        },
        audiences: ['https://kubernetes.default.svc.cluster.local'],
      },
    });
    const kubeconfig = sandbox.componentKubeconfigObject('kube-controller-manager') as {
      users: { user: { token: string } }[];
    };
    const managerToken = kubeconfig.users[0]!.user.token;
    expect(managerToken).not.toBe(sandbox.token);
    const manager = await call(sandbox, 'POST', TOKENREVIEWS, {
      body: tokenReview({ token: managerToken }),
    });
    expect(manager.json().status.user).toEqual({
      username: 'system:kube-controller-manager',
      groups: ['system:authenticated'],
    });
  });

  it('does not authenticate another token, or one for another audience', async () => {
    for (const spec of [
      { token: 'not-the-token' },
      { token: sandbox.token, audiences: ['https://elsewhere.example.com'] },
    ]) {
      const res = await call(sandbox, 'POST', TOKENREVIEWS, { body: tokenReview(spec) });
      expect(res.status).toBe(201);
      expect(res.json().status).toEqual({ user: {}, error: 'invalid bearer token' });
    }
  });

  it('requires a token, and stores nothing', async () => {
    const before = sandbox.registry.storage.currentRevision();
    const res = await call(sandbox, 'POST', TOKENREVIEWS, { body: tokenReview({}) });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({
      reason: 'BadRequest',
      message: 'token is required for TokenReview in authentication',
    });
    expect(sandbox.registry.storage.currentRevision()).toBe(before);
  });

  it('is create-only: reads are 405', async () => {
    const list = await call(sandbox, 'GET', TOKENREVIEWS);
    expect(list.status).toBe(405);
    expect(list.json()).toMatchObject({
      reason: 'MethodNotAllowed',
      message: 'list is not supported on resources of kind "tokenreviews.authentication.k8s.io"',
    });
    expect((await call(sandbox, 'GET', `${TOKENREVIEWS}/x`)).status).toBe(405);
  });
});

describe('SubjectAccessReview', () => {
  it('allows system:masters and kubeadm:cluster-admins, decides others by RBAC, saying why', async () => {
    const attrs = { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } };
    const admin = await call(sandbox, 'POST', SARS, {
      body: sar({ ...attrs, user: 'kubernetes-admin', groups: ['kubeadm:cluster-admins'] }),
    });
    expect(admin.status).toBe(201);
    expect(admin.json().status).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole "cluster-admin" to Group "kubeadm:cluster-admins"',
    });
    // The user name alone has no binding, as in a kind cluster.
    const byName = await call(sandbox, 'POST', SARS, {
      body: sar({ ...attrs, user: 'kubernetes-admin' }),
    });
    expect(byName.json().status).toEqual({ allowed: false });
    const master = await call(sandbox, 'POST', SARS, {
      body: sar({
        nonResourceAttributes: { path: '/metrics', verb: 'get' },
        groups: ['system:masters'],
      }),
    });
    expect(master.json().status).toEqual({ allowed: true });
    const other = await call(sandbox, 'POST', SARS, {
      body: sar({
        ...attrs,
        user: 'system:serviceaccount:default:x',
        groups: ['system:authenticated'],
      }),
    });
    expect(other.status).toBe(201);
    expect(other.json().status).toEqual({ allowed: false });
    expect(other.json().spec.user).toBe('system:serviceaccount:default:x');
    // Discovery is anyone's who is authenticated (system:discovery).
    const discovery = await call(sandbox, 'POST', SARS, {
      body: sar({
        nonResourceAttributes: { path: '/apis/apps/v1', verb: 'get' },
        user: 'system:serviceaccount:default:x',
        groups: ['system:authenticated'],
      }),
    });
    expect(discovery.json().status).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    });
  });

  it('refuses an invalid review with kube-apiserver’s field errors', async () => {
    const res = await call(sandbox, 'POST', SARS, { body: sar({}) });
    expect(res.status).toBe(422);
    expect(res.json()).toMatchObject({
      reason: 'Invalid',
      message:
        'SubjectAccessReview.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
      details: { group: 'authorization.k8s.io', kind: 'SubjectAccessReview' },
    });
    const both = await call(sandbox, 'POST', SARS, {
      body: sar(
        { resourceAttributes: {}, nonResourceAttributes: {}, user: 'u' },
        { name: 'named' },
      ),
    });
    expect(both.status).toBe(422);
    expect(both.json().details.causes.map((c: { field: string }) => c.field)).toEqual([
      'spec.nonResourceAttributes',
      'metadata',
    ]);
  });
});

describe('discovery and the in-process client', () => {
  it('lists the reviews, create-only, in legacy and aggregated discovery', async () => {
    const authn = (await call(sandbox, 'GET', '/apis/authentication.k8s.io/v1')).json();
    expect(authn.resources).toEqual([
      {
        name: 'selfsubjectreviews',
        singularName: 'selfsubjectreview',
        namespaced: false,
        kind: 'SelfSubjectReview',
        verbs: ['create'],
      },
      {
        name: 'tokenreviews',
        singularName: 'tokenreview',
        namespaced: false,
        kind: 'TokenReview',
        verbs: ['create'],
      },
    ]);
    const authz = (await call(sandbox, 'GET', '/apis/authorization.k8s.io/v1')).json();
    expect(authz.resources.map((r: { name: string }) => r.name)).toEqual([
      'localsubjectaccessreviews',
      'selfsubjectaccessreviews',
      'subjectaccessreviews',
    ]);
    expect(authz.resources[2]).toMatchObject({ name: 'subjectaccessreviews', verbs: ['create'] });
    const groups = (await call(sandbox, 'GET', '/apis'))
      .json()
      .groups.map((g: { name: string }) => g.name);
    expect(groups).toEqual(
      expect.arrayContaining(['authentication.k8s.io', 'authorization.k8s.io']),
    );
    const aggregated = await call(sandbox, 'GET', '/apis', {
      headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
    });
    const names = aggregated
      .json()
      .items.map((g: { metadata: { name: string } }) => g.metadata.name);
    expect(names).toEqual(
      expect.arrayContaining(['authentication.k8s.io', 'authorization.k8s.io']),
    );
  });

  it('answers reviews in process too', async () => {
    const reviews = sandbox.client('authentication.k8s.io', 'tokenreviews');
    const review = (await reviews.create({
      spec: { token: sandbox.token },
    } as never)) as unknown as { status: { authenticated: boolean } };
    expect(review.status.authenticated).toBe(true);
    await expect(reviews.list()).rejects.toMatchObject({ code: 405 });
  });
});
