// The ClusterRole aggregation controller
// (clusterroleaggregation_controller.go): the cases of
// clusterroleaggregation_controller_test.go's TestSyncClusterRole against a
// cache filled by hand and a recording client (server-side apply, and the
// update a server without it gets), then the controller running against a
// sandbox on a fake clock.
import type { ClusterRole, PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, StatusError, type ApplyPatch } from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox } from '@kcm-ts/sandbox';
import {
  ClusterRoleAggregationController,
  aggregatedRules,
} from '../../src/clusterroleaggregation/clusterroleaggregation-controller.js';
import { FakeClient } from '../disruption/fake-client.js';
import { sandboxSource, until } from '../garbagecollector/helpers.js';

const role = (name: string, labels: Record<string, string>, rules: PolicyRule[]): ClusterRole => ({
  metadata: { name, labels },
  rules,
});
const aggregated = (name: string, rules: PolicyRule[], ...selectors: Record<string, string>[]) => ({
  metadata: { name },
  aggregationRule: { clusterRoleSelectors: selectors.map((matchLabels) => ({ matchLabels })) },
  rules,
});
const rule = (verb: string): PolicyRule => ({
  verbs: [verb],
  apiGroups: [''],
  resources: ['pods'],
});

function fixture(roles: ClusterRole[]) {
  const clock = new FakeClock();
  const client = new FakeClient();
  const factory = new SharedInformerFactory(client, 0, { clock });
  const informer = factory.clusterRoles();
  for (const r of roles) informer.informer().getStore().add(r);
  const controller = new ClusterRoleAggregationController({
    client,
    clusterRoleInformer: informer,
    clock,
  });
  return { client, controller };
}

describe('syncClusterRole (TestSyncClusterRole)', () => {
  const one = role('one', { foo: 'bar' }, [rule('get')]);
  const two = role('two', { foo: 'bar' }, [rule('list'), rule('get')]);
  const three = role('three', { baz: 'qux' }, [rule('watch')]);
  const cases: { name: string; roles: ClusterRole[]; sync: string; want?: PolicyRule[] }[] = [
    {
      name: 'no aggregation rule',
      roles: [one, { metadata: { name: 'plain' }, rules: [] }],
      sync: 'plain',
    },
    {
      name: 'no change',
      roles: [one, two, aggregated('agg', [rule('get'), rule('list')], { foo: 'bar' })],
      sync: 'agg',
    },
    {
      name: 'no change, nil and empty alike',
      roles: [aggregated('agg', [], { nothing: 'matches' })],
      sync: 'agg',
    },
    {
      name: 'update: roles in name order, each rule once',
      roles: [two, one, aggregated('agg', [], { foo: 'bar' })],
      sync: 'agg',
      want: [rule('get'), rule('list')],
    },
    {
      name: 'update: selectors in order, the role itself left out',
      roles: [
        one,
        three,
        {
          ...aggregated('agg', [rule('delete')], { baz: 'qux' }, { foo: 'bar' }),
          metadata: { name: 'agg', labels: { foo: 'bar' } },
        },
      ],
      sync: 'agg',
      want: [rule('watch'), rule('get')],
    },
    { name: 'a role that is gone', roles: [one], sync: 'missing' },
  ];
  it.each(cases)('$name', async ({ roles, sync, want }) => {
    const f = fixture(roles);
    await f.controller.syncClusterRole(sync);
    if (want === undefined) {
      expect(f.client.actions).toEqual([]);
      return;
    }
    expect(f.client.actions.map((a) => a.verb)).toEqual(['patch']);
    const patch = f.client.actions[0]!.patch as ApplyPatch;
    expect(patch).toMatchObject({
      type: 'apply',
      fieldManager: 'clusterrole-aggregation-controller',
      force: true,
    });
    expect(patch.body).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: sync },
      rules: want,
    });
  });

  it('updates the whole role when the server refuses server-side apply', async () => {
    const f = fixture([
      role('one', { foo: 'bar' }, [rule('get')]),
      aggregated('agg', [], { foo: 'bar' }),
    ]);
    f.client.fail(
      'patch',
      'clusterroles',
      new StatusError({ code: 415, reason: 'UnsupportedMediaType', message: 'no apply' }),
    );
    await f.controller.syncClusterRole('agg');
    expect(f.client.actions.map((a) => a.verb)).toEqual(['patch', 'update']);
    expect(f.client.writes<ClusterRole>('update', 'clusterroles')[0]).toMatchObject({
      metadata: { name: 'agg' },
      rules: [rule('get')],
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { foo: 'bar' } }] },
    });
  });

  it('returns other write errors, and an invalid selector', async () => {
    const f = fixture([
      role('one', { foo: 'bar' }, [rule('get')]),
      aggregated('agg', [], { foo: 'bar' }),
    ]);
    f.client.fail('patch', 'clusterroles', new Error('boom'));
    await expect(f.controller.syncClusterRole('agg')).rejects.toThrow('boom');
    expect(() =>
      aggregatedRules(
        {
          metadata: { name: 'bad' },
          aggregationRule: {
            clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }],
          },
        },
        [],
      ),
    ).toThrow(/not a valid label selector operator/);
  });
});

describe('the controller against a sandbox', () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  it('fills an aggregated role, and follows the roles it gathers', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true });
    stops.push(() => sandbox.stop());
    const source = sandboxSource(sandbox);
    const factory = new SharedInformerFactory(source, 0, { clock });
    const controller = new ClusterRoleAggregationController({
      client: source,
      clusterRoleInformer: factory.clusterRoles(),
      clock,
    });
    const abort = new AbortController();
    factory.start(abort.signal);
    const running = controller.run(5, abort.signal);
    stops.push(async () => {
      abort.abort();
      await running;
      await factory.shutdown();
    });
    const roles = sandbox.client<ClusterRole>('rbac.authorization.k8s.io', 'clusterroles');
    await roles.create(aggregated('kcm-test-agg', [], { 'kcm-test': 'yes' }));
    await roles.create(role('kcm-test-a', { 'kcm-test': 'yes' }, [rule('get')]));
    const rulesOf = async () => (await roles.get('kcm-test-agg')).rules ?? [];
    await until(clock, async () => (await rulesOf()).length === 1, 'the first rule');
    await roles.create(role('kcm-test-b', { 'kcm-test': 'yes' }, [rule('list'), rule('get')]));
    await until(clock, async () => (await rulesOf()).length === 2, 'the second rule');
    expect(await rulesOf()).toEqual([rule('get'), rule('list')]);
    await roles.delete('kcm-test-a');
    await until(
      clock,
      async () => JSON.stringify(await rulesOf()) === JSON.stringify([rule('list'), rule('get')]),
      'the rules of the role that is left',
    );
  });
});
