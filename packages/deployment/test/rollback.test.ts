// The legacy rollback of pkg/controller/deployment/rollback.go.
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { describe, expect, it } from 'vitest';
import { rollback } from '../src/rollback.js';
import {
  deprecatedRollbackTo,
  getRollbackTo,
  revisionAnnotation,
  setRollbackTo,
} from '../src/index.js';
import { describeActions, fakeContext, newDeployment, newReplicaSet } from './helpers/fixtures.js';

describe('getRollbackTo and setRollbackTo', () => {
  it('reads an integer revision and ignores anything else', () => {
    const d = newDeployment('foo', 1);
    expect(getRollbackTo(d)).toBeUndefined();
    setRollbackTo(d, { revision: 3 });
    expect(d.metadata?.annotations?.[deprecatedRollbackTo]).toBe('3');
    expect(getRollbackTo(d)).toEqual({ revision: 3 });
    d.metadata!.annotations![deprecatedRollbackTo] = 'latest';
    expect(getRollbackTo(d)).toBeUndefined();
    d.metadata!.annotations![deprecatedRollbackTo] = '';
    expect(getRollbackTo(d)).toBeUndefined();
    setRollbackTo(d, undefined);
    expect(d.metadata?.annotations).not.toHaveProperty(deprecatedRollbackTo);
  });
});

describe('rollback', () => {
  const setup = (to: string) => {
    const fx = fakeContext();
    const d = newDeployment('foo', 1, undefined, 0, 1, { foo: 'bar' });
    d.metadata!.annotations = {
      [revisionAnnotation]: '2',
      [deprecatedRollbackTo]: to,
      'kubernetes.io/change-cause': 'v2',
    };
    const rs1 = newReplicaSet(d, 'foo-old', 0);
    rs1.metadata!.annotations = { [revisionAnnotation]: '1', 'kubernetes.io/change-cause': 'v1' };
    rs1.spec!.template!.spec!.terminationGracePeriodSeconds = 1;
    rs1.spec!.template!.metadata!.labels!['pod-template-hash'] = 'h1';
    const rs2 = newReplicaSet(d, 'foo-new', 1);
    rs2.metadata!.annotations = { [revisionAnnotation]: '2', 'kubernetes.io/change-cause': 'v2' };
    return { ...fx, d, rs1, rs2 };
  };
  const written = (actions: { object?: unknown }[]) => actions.at(-1)?.object as Deployment;

  it('goes back to the previous revision: template and annotations from its ReplicaSet (TestReentrantRollback)', async () => {
    const { ctx, clients, recorder, d, rs1, rs2 } = setup('0');
    await rollback(ctx, d, [rs1, rs2] as ReplicaSet[]);
    expect(describeActions(clients.actions)).toEqual(['update deployments foo']);
    const w = written(clients.actions);
    expect(w.spec?.template.spec?.terminationGracePeriodSeconds).toBe(1);
    expect(w.spec?.template.metadata?.labels).toEqual({ foo: 'bar' });
    expect(w.metadata?.annotations).toEqual({
      [revisionAnnotation]: '2',
      'kubernetes.io/change-cause': 'v1',
    });
    expect(recorder.events).toEqual([
      'Normal DeploymentRollback Rolled back deployment "foo" to revision 1',
    ]);
  });

  it('goes to a named revision', async () => {
    const { ctx, recorder, d, rs1, rs2 } = setup('1');
    await rollback(ctx, d, [rs1, rs2]);
    expect(recorder.events).toEqual([
      'Normal DeploymentRollback Rolled back deployment "foo" to revision 1',
    ]);
  });

  it('warns when the revision has the current template', async () => {
    const { ctx, clients, recorder, d, rs1, rs2 } = setup('2');
    await rollback(ctx, d, [rs1, rs2]);
    expect(recorder.events).toEqual([
      'Warning DeploymentRollbackTemplateUnchanged The rollback revision contains the same template as current deployment "foo"',
    ]);
    expect(written(clients.actions).metadata?.annotations).not.toHaveProperty(deprecatedRollbackTo);
  });

  it('warns when the revision does not exist', async () => {
    const { ctx, clients, recorder, d, rs1, rs2 } = setup('7');
    await rollback(ctx, d, [rs1, rs2]);
    expect(recorder.events).toEqual([
      'Warning DeploymentRollbackRevisionNotFound Unable to find the revision to rollback to.',
    ]);
    expect(
      written(clients.actions).spec?.template.spec?.terminationGracePeriodSeconds,
    ).toBeUndefined();
    expect(written(clients.actions).metadata?.annotations).not.toHaveProperty(deprecatedRollbackTo);
  });

  it('warns when there is no previous revision', async () => {
    const { ctx, clients, recorder, d, rs2 } = setup('0');
    await rollback(ctx, d, [rs2]);
    expect(recorder.events).toEqual([
      'Warning DeploymentRollbackRevisionNotFound Unable to find last revision.',
    ]);
    expect(describeActions(clients.actions)).toEqual(['update deployments foo']);
  });
});
