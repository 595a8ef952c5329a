// pods/eviction as pkg/registry/core/pod/storage/eviction.go answers it
// (the cases of upstream's eviction_test.go TestEviction,
// TestEvictionIgnorePDB, TestEvictionDryRun and TestAddConditionAndDelete
// that a sandbox can reach), in process on the fake clock and over HTTP.
import protobuf from 'protobufjs/light.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import schema from '../src/apiserver/protobuf/kube-proto.json' with { type: 'json' };
import { formatTime } from '@kcm-ts/apimachinery';
import type { KubeObject } from '@kcm-ts/apimachinery';
import { inProcessClient } from '../src/client/in-process-client.js';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import type { Registry } from '../src/apiserver/registry/store.js';
import { epoch, newRegistry } from './helpers.js';
import { call } from './http-helpers.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A pod on node-1, Running, and Ready unless told otherwise. */
function runningPod(registry: Registry, name: string, ready = true): Obj {
  const pods = registry.resource('', 'pods');
  const pod = registry.create(pods, 'default', {
    metadata: { name, labels: { app: 'web' } },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx:1.27' }] },
  });
  return registry.update(
    pods,
    'default',
    name,
    {
      ...pod,
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      },
    },
    { subresource: 'status' },
  ).object;
}

/** A PDB over app=web, with the status a disruption controller would have written. */
function budget(registry: Registry, name: string, status: Obj, spec: Obj = {}): Obj {
  const pdbs = registry.resource('policy', 'poddisruptionbudgets');
  const pdb = registry.create(pdbs, 'default', {
    metadata: { name },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } }, ...spec },
  }) as Obj;
  return registry.update(
    pdbs,
    'default',
    name,
    { ...pdb, status: { observedGeneration: 1, ...status } },
    { subresource: 'status' },
  ).object;
}

const eviction = (name: string, deleteOptions?: Obj) => ({
  apiVersion: 'policy/v1',
  kind: 'Eviction',
  metadata: { name },
  ...(deleteOptions ? { deleteOptions } : {}),
});

const thrown = (fn: () => unknown): Obj => {
  try {
    fn();
  } catch (err) {
    return (err as { toStatus(): Obj }).toStatus();
  }
  throw new Error('expected an error');
};

describe('pods/eviction', () => {
  it('deletes a pod no budget covers, after giving it the DisruptionTarget condition', () => {
    const { registry } = newRegistry();
    const pods = registry.resource('', 'pods');
    runningPod(registry, 'a');
    const watch = registry.watch(pods, 'default', {
      resourceVersion: registry.storage.currentRevision().toString(),
    });
    const status = registry.evictPod('default', 'a', eviction('a'));
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      code: 201,
    });
    // Graceful: the pod is on a node, so it waits its 30 seconds.
    const pod = registry.get(pods, 'default', 'a') as Obj;
    expect(pod.metadata.deletionTimestamp).toBe(formatTime(epoch + 30_000));
    expect(pod.status.conditions).toContainEqual({
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'EvictionByEvictionAPI',
      message: 'Eviction API: evicting',
      lastProbeTime: null,
      lastTransitionTime: formatTime(epoch),
    });
    watch.stop();
  });

  it('spends an allowed disruption in one guarded status write, recording the pod', () => {
    const { registry } = newRegistry();
    runningPod(registry, 'a');
    const before = budget(registry, 'p', {
      disruptionsAllowed: 1,
      currentHealthy: 2,
      desiredHealthy: 1,
      expectedPods: 2,
    });
    registry.evictPod('default', 'a', eviction('a', { gracePeriodSeconds: 0 }));
    const pdb = registry.get(
      registry.resource('policy', 'poddisruptionbudgets'),
      'default',
      'p',
    ) as Obj;
    expect(Number(pdb.metadata.resourceVersion)).toBeGreaterThan(
      Number(before.metadata.resourceVersion),
    );
    expect(pdb.status.disruptionsAllowed).toBe(0);
    expect(pdb.status.disruptedPods).toEqual({ a: formatTime(epoch) });
    expect(pdb.status.conditions).toEqual([
      {
        type: 'DisruptionAllowed',
        status: 'False',
        reason: 'InsufficientPods',
        message: '',
        observedGeneration: 1,
        lastTransitionTime: formatTime(epoch),
      },
    ]);
    expect(() => registry.get(registry.resource('', 'pods'), 'default', 'a')).toThrow(/not found/);
  });

  it('answers 429 with the DisruptionBudget cause when the budget is spent, or not yet observed', () => {
    const { registry } = newRegistry();
    runningPod(registry, 'a');
    budget(registry, 'p', { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1 });
    expect(thrown(() => registry.evictPod('default', 'a', eviction('a')))).toMatchObject({
      code: 429,
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: {
        causes: [
          {
            reason: 'DisruptionBudget',
            message: 'The disruption budget p needs 1 healthy pods and has 1 currently',
          },
        ],
      },
    });
    const { registry: other } = newRegistry();
    runningPod(other, 'a');
    budget(other, 'p', { disruptionsAllowed: 1, observedGeneration: 0 });
    expect(thrown(() => other.evictPod('default', 'a', eviction('a')))).toMatchObject({
      code: 429,
      details: {
        retryAfterSeconds: 10,
        causes: [
          {
            reason: 'DisruptionBudget',
            message: 'The disruption budget p is still being processed by the server.',
          },
        ],
      },
    });
  });

  it('fails with code 500 when two budgets cover the pod, and 400 for a name mismatch', () => {
    const { registry } = newRegistry();
    runningPod(registry, 'a');
    budget(registry, 'p', { disruptionsAllowed: 1 });
    budget(registry, 'q', { disruptionsAllowed: 1 });
    expect(registry.evictPod('default', 'a', eviction('a'))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      code: 500,
    });
    expect(thrown(() => registry.evictPod('default', 'a', eviction('b')))).toMatchObject({
      code: 400,
      message: 'name in URL does not match name in Eviction object',
    });
  });

  it('lets unready pods go without spending a disruption, per unhealthyPodEvictionPolicy', () => {
    const { registry } = newRegistry();
    runningPod(registry, 'sick', false);
    // IfHealthyBudget (the default): the budget is met, so the unready pod goes.
    budget(registry, 'p', { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 });
    registry.evictPod('default', 'sick', eviction('sick', { gracePeriodSeconds: 0 }));
    const pdbs = registry.resource('policy', 'poddisruptionbudgets');
    expect((registry.get(pdbs, 'default', 'p') as Obj).status.disruptionsAllowed).toBe(0);
    // Not met: refused, unless the policy is AlwaysAllow.
    const { registry: strict } = newRegistry();
    runningPod(strict, 'sick', false);
    budget(strict, 'p', { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2 });
    expect(thrown(() => strict.evictPod('default', 'sick', eviction('sick'))).code).toBe(429);
    const { registry: lenient } = newRegistry();
    runningPod(lenient, 'sick', false);
    budget(
      lenient,
      'p',
      { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2 },
      { unhealthyPodEvictionPolicy: 'AlwaysAllow' },
    );
    expect(lenient.evictPod('default', 'sick', eviction('sick')).status).toBe('Success');
  });

  it('ignores budgets for pending pods, honours dryRun and preconditions', () => {
    const { registry } = newRegistry();
    const pods = registry.resource('', 'pods');
    registry.create(pods, 'default', {
      metadata: { name: 'pending', labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
    });
    budget(registry, 'p', { disruptionsAllowed: 0 });
    expect(registry.evictPod('default', 'pending', eviction('pending')).status).toBe('Success');
    expect(() => registry.get(pods, 'default', 'pending')).toThrow(/not found/);

    const ready = runningPod(registry, 'a');
    // Two budgets would fail; take the spent one away first.
    registry.delete(registry.resource('policy', 'poddisruptionbudgets'), 'default', 'p');
    // Two: a refused precondition is found after the budget's write, as upstream.
    budget(registry, 'r', { disruptionsAllowed: 2 });
    const rv = registry.storage.currentRevision();
    registry.evictPod('default', 'a', eviction('a', { dryRun: ['All'] }));
    expect(registry.storage.currentRevision()).toBe(rv);
    expect(
      thrown(() =>
        registry.evictPod('default', 'a', eviction('a', { preconditions: { uid: 'other' } })),
      ),
    ).toMatchObject({ code: 409 });
    const pdbs = registry.resource('policy', 'poddisruptionbudgets');
    expect((registry.get(pdbs, 'default', 'r') as Obj).status.disruptionsAllowed).toBe(1);
    expect(
      registry.evictPod(
        'default',
        'a',
        eviction('a', { preconditions: { uid: ready.metadata.uid }, gracePeriodSeconds: 0 }),
      ).status,
    ).toBe('Success');
    expect(() => registry.get(pods, 'default', 'a')).toThrow(/not found/);
  });

  it("is created through the in-process pods client, as client-go's EvictV1", async () => {
    const { registry } = newRegistry();
    runningPod(registry, 'a');
    const pods = inProcessClient<KubeObject>(registry, registry.resource('', 'pods'));
    const out = (await pods
      .inNamespace('default')
      .create(eviction('a', { gracePeriodSeconds: 0 }))) as Obj;
    expect(out.status).toBe('Success');
    await expect(pods.inNamespace('default').get('a')).rejects.toMatchObject({ code: 404 });
  });
});

describe('pods/eviction over HTTP', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ insecureHttp: true });
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it('answers 201 with a Status, and 429 with Retry-After when the budget is spent', async () => {
    runningPod(sandbox.registry, 'h');
    const path = '/api/v1/namespaces/default/pods/h/eviction';
    budget(sandbox.registry, 'hp', { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1 });
    const refused = await call(sandbox, 'POST', path, { body: JSON.stringify(eviction('h')) });
    expect(refused.status).toBe(429);
    expect(refused.json().details.causes[0].reason).toBe('DisruptionBudget');
    sandbox.registry.delete(
      sandbox.registry.resource('policy', 'poddisruptionbudgets'),
      'default',
      'hp',
    );
    const ok = await call(sandbox, 'POST', path, {
      body: JSON.stringify(eviction('h', { gracePeriodSeconds: 0 })),
    });
    expect(ok.status).toBe(201);
    expect(ok.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      code: 201,
    });
    expect((await call(sandbox, 'GET', '/api/v1/namespaces/default/pods/h')).status).toBe(404);
    expect((await call(sandbox, 'GET', path)).status).toBe(405);
  });

  it("reads a protobuf Eviction, as client-go's typed client may send it", async () => {
    runningPod(sandbox.registry, 'pb');
    const root = protobuf.Root.fromJSON(schema);
    const encode = (type: string, object: Obj) => {
      const t = root.lookupType(type);
      return t.encode(t.fromObject(object)).finish();
    };
    const raw = encode('k8s.io.api.policy.v1.Eviction', {
      metadata: { name: 'pb', namespace: 'default' },
      deleteOptions: { gracePeriodSeconds: 0 },
    });
    const unknown = encode('k8s.io.apimachinery.pkg.runtime.Unknown', {
      typeMeta: { apiVersion: 'policy/v1', kind: 'Eviction' },
      raw,
    });
    const res = await call(sandbox, 'POST', '/api/v1/namespaces/default/pods/pb/eviction', {
      body: Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), unknown]),
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
    });
    expect(res.status).toBe(201);
    expect((await call(sandbox, 'GET', '/api/v1/namespaces/default/pods/pb')).status).toBe(404);
  });
});
