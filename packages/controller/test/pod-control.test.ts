// Ports of controller_utils_test.go's TestCreatePodsWithGenerateName,
// TestDeletePodsAllowsMissing and the RealPodControl event cases, against
// the sandbox's in-process API server.
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import {
  FakeRecorder,
  newControllerRef,
  newForbidden,
  newInternalError,
  isNotFound,
  StatusError,
} from '@kcm-ts/apimachinery';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FakePodControl,
  RealPodControl,
  getPodFromTemplate,
  namespaceTerminatingCause,
} from '../src/index.js';
import { faultyClient, newReplicaSet, type FaultyClient, replicaSetKind } from './helpers.js';

let sandbox: Sandbox;
let pods: FaultyClient<Pod>;
let recorder: FakeRecorder;
let control: RealPodControl;
const rs = newReplicaSet('web', 1);
const ref = newControllerRef(rs, replicaSetKind);
const template: PodTemplateSpec = {
  metadata: {
    labels: { app: 'web', tier: 'front' },
    annotations: { note: 'copied' },
    finalizers: ['example.com/hold'],
  },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
};

beforeEach(async () => {
  sandbox = await startSandbox({ insecureHttp: true });
  pods = faultyClient(sandbox.client<Pod>('', 'pods'));
  recorder = new FakeRecorder({ includeObject: true });
  control = new RealPodControl({ client: pods.client, recorder });
});

afterEach(async () => {
  await sandbox.stop();
});

const stored = async (): Promise<Pod[]> =>
  (await sandbox.client<Pod>('', 'pods').inNamespace('default').list()).items;

describe('RealPodControl', () => {
  it('creates a pod from the template, owned by the controller, and says so', async () => {
    await control.createPods('default', template, rs, ref);
    const [pod] = await stored();
    expect(pod?.metadata?.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(pod?.metadata).toMatchObject({
      generateName: 'web-',
      labels: { app: 'web', tier: 'front' },
      annotations: { note: 'copied' },
      finalizers: ['example.com/hold'],
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web',
          uid: 'uid-web',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(recorder.events).toEqual([
      `Normal SuccessfulCreate Created pod: ${pod?.metadata?.name} involvedObject{kind=ReplicaSet,apiVersion=apps/v1}`,
    ]);
  });

  it('uses a given generateName (TestCreatePodsWithGenerateName)', async () => {
    await control.createPodsWithGenerateName('default', template, rs, ref, 'custom-');
    expect((await stored())[0]?.metadata?.generateName).toBe('custom-');
  });

  it('refuses a pod without labels, and a bad controller reference, before any request', async () => {
    await expect(control.createPods('default', { spec: template.spec }, rs, ref)).rejects.toThrow(
      'unable to create pods, no labels',
    );
    await expect(
      control.createPods('default', template, rs, { ...ref, controller: false }),
    ).rejects.toThrow('controllerRef.Controller is not set to true');
    await expect(
      control.createPods('default', template, rs, { ...ref, blockOwnerDeletion: undefined }),
    ).rejects.toThrow('controllerRef.BlockOwnerDeletion is not set');
    await expect(control.createPods('default', template, rs, { ...ref, kind: '' })).rejects.toThrow(
      'controllerRef has empty Kind',
    );
    expect(pods.counts.get('create')).toBeUndefined();
    expect(recorder.events).toEqual([]);
  });

  it('records FailedCreate with the server error', async () => {
    const rejected = await control
      .createPods('default', { ...template, spec: { containers: [] } }, rs, ref)
      .catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(StatusError);
    expect((rejected as StatusError).code).toBe(422);
    expect(recorder.events).toEqual([
      `Warning FailedCreate Error creating: ${(rejected as Error).message} involvedObject{kind=ReplicaSet,apiVersion=apps/v1}`,
    ]);
  });

  it('records nothing when the namespace is being deleted', async () => {
    pods.failNext('create', 1, () => {
      const err = newForbidden(
        { group: '', resource: 'pods' },
        '',
        new Error(
          'unable to create new content in namespace default because it is being terminated',
        ),
      );
      err.details!.causes = [
        { reason: namespaceTerminatingCause, message: 'namespace default is being terminated' },
      ];
      return err;
    });
    await expect(control.createPods('default', template, rs, ref)).rejects.toThrow(/terminated/);
    expect(recorder.events).toEqual([]);
  });

  it('deletes a pod and says so; a missing pod is NotFound without an event (TestDeletePodsAllowsMissing)', async () => {
    await control.createPods('default', template, rs, ref);
    const name = (await stored())[0]!.metadata!.name!;
    recorder.events.length = 0;
    await control.deletePod('default', name, rs);
    expect(recorder.events).toEqual([
      `Normal SuccessfulDelete Deleted pod: ${name} involvedObject{kind=ReplicaSet,apiVersion=apps/v1}`,
    ]);
    recorder.events.length = 0;
    const missing = await control.deletePod('default', 'podName', rs).catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
    expect(recorder.events).toEqual([]);
  });

  it('records FailedDelete and wraps other delete errors', async () => {
    pods.failNext('delete', 1, () => newInternalError('etcd is sad'));
    const err = await control.deletePod('default', 'web-x', rs).catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      'unable to delete pods: Internal error occurred: etcd is sad',
    );
    expect(recorder.events).toEqual([
      'Warning FailedDelete Error deleting: Internal error occurred: etcd is sad involvedObject{kind=ReplicaSet,apiVersion=apps/v1}',
    ]);
  });

  it('patches pods with a strategic merge patch', async () => {
    await control.createPods('default', template, rs, ref);
    const name = (await stored())[0]!.metadata!.name!;
    await control.patchPod('default', name, { metadata: { labels: { extra: 'yes' } } });
    expect((await stored())[0]?.metadata?.labels).toEqual({
      app: 'web',
      tier: 'front',
      extra: 'yes',
    });
  });
});

describe('getPodFromTemplate', () => {
  it('copies the template, so changing the pod leaves the template alone', () => {
    const pod = getPodFromTemplate(template, rs, ref);
    pod.metadata!.labels!.app = 'changed';
    pod.spec!.containers[0]!.image = 'changed';
    expect(template.metadata?.labels?.app).toBe('web');
    expect(template.spec?.containers[0]?.image).toBe('nginx:1.27');
  });

  it('drops the dash from the prefix when name plus dash is no valid prefix, as Go judges it', () => {
    const prefix = (name: string) =>
      getPodFromTemplate(template, { metadata: { name } }).metadata?.generateName;
    expect(prefix('web')).toBe('web-');
    expect(prefix('Web')).toBe('Web');
    // Go's maskTrailingDash drops two characters for one: a 253-character
    // name keeps its dash (254 characters in all), a 254-character one does not.
    expect(prefix('a'.repeat(253))).toBe(`${'a'.repeat(253)}-`);
    expect(prefix('a'.repeat(254))).toBe('a'.repeat(254));
  });

  it('refuses a parent without metadata', () => {
    expect(() => getPodFromTemplate(template, {})).toThrow('parentObject does not have ObjectMeta');
  });
});

describe('FakePodControl', () => {
  it('records calls, fails past createLimit, and clears', async () => {
    const fake = new FakePodControl();
    fake.createLimit = 1;
    await fake.createPods('default', template, rs, ref);
    await expect(fake.createPods('default', template, rs, ref)).rejects.toThrow(
      'not creating pod, limit 1 already reached (create call 2)',
    );
    await fake.deletePod('default', 'p');
    expect(fake.templates).toHaveLength(1);
    expect(fake.controllerRefs[0]).toEqual(ref);
    expect(fake.deletePodName).toEqual(['p']);
    fake.err = new Error('boom');
    await expect(fake.patchPod('default', 'p', {})).rejects.toThrow('boom');
    fake.clear();
    expect([fake.templates, fake.deletePodName, fake.patches, fake.createCallCount]).toEqual([
      [],
      [],
      [],
      0,
    ]);
  });
});
