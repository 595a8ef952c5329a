// The ServiceAccounts controller (serviceaccounts_controller.go): the cases
// of serviceaccounts_controller_test.go's TestServiceAccountCreation against
// caches filled by hand and a recording client, the errors syncNamespace
// forgives and returns, then the controller running against a sandbox on a
// fake clock.
import type { Namespace, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, StatusError, newAlreadyExists, newInternalError } from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox } from '@kcm-ts/sandbox';
import { ServiceAccountsController } from '../../src/serviceaccount/serviceaccounts-controller.js';
import { gone, sandboxSource, until } from '../garbagecollector/helpers.js';
import { FakeClient } from '../disruption/fake-client.js';

function fixture(toEnsure?: ServiceAccount[]) {
  const clock = new FakeClock();
  const client = new FakeClient();
  const factory = new SharedInformerFactory(client, 0, { clock });
  const sas = factory.serviceAccounts();
  const nss = factory.namespaces();
  const controller = new ServiceAccountsController({
    client,
    serviceAccountInformer: sas,
    namespaceInformer: nss,
    ...(toEnsure ? { serviceAccounts: toEnsure } : {}),
    clock,
  });
  return {
    client,
    controller,
    saStore: sas.informer().getStore(),
    nsStore: nss.informer().getStore(),
    created: () =>
      client.actions.filter((a) => a.verb === 'create').map((a) => `${a.namespace}/${a.name}`),
  };
}

const namespace = (name: string, phase: 'Active' | 'Terminating' = 'Active'): Namespace => ({
  metadata: { name },
  status: { phase },
});
const sa = (ns: string, name: string): ServiceAccount => ({ metadata: { name, namespace: ns } });

describe('syncNamespace (TestServiceAccountCreation)', () => {
  const cases: {
    name: string;
    existing: ServiceAccount[];
    namespace?: Namespace;
    expected: string[];
  }[] = [
    {
      name: 'new active namespace missing serviceaccounts',
      existing: [],
      namespace: namespace('ns'),
      expected: ['ns/default'],
    },
    {
      name: 'new active namespace missing serviceaccount',
      existing: [sa('ns', 'other')],
      namespace: namespace('ns'),
      expected: ['ns/default'],
    },
    {
      name: 'new active namespace with serviceaccounts',
      existing: [sa('ns', 'default')],
      namespace: namespace('ns'),
      expected: [],
    },
    {
      name: 'new terminating namespace',
      existing: [],
      namespace: namespace('ns', 'Terminating'),
      expected: [],
    },
    {
      name: 'deleted serviceaccount with active namespace',
      existing: [],
      namespace: namespace('ns'),
      expected: ['ns/default'],
    },
    {
      name: 'deleted serviceaccount with terminating namespace',
      existing: [],
      namespace: namespace('ns', 'Terminating'),
      expected: [],
    },
    { name: 'deleted serviceaccount in unknown namespace', existing: [], expected: [] },
  ];
  it.each(cases)('$name', async ({ existing, namespace: ns, expected }) => {
    const f = fixture();
    if (ns) f.nsStore.add(ns);
    for (const s of existing) f.saStore.add(s);
    await f.controller.syncNamespace('ns');
    expect(f.created()).toEqual(expected);
  });

  it('creates every ServiceAccount it is told to ensure, in the namespace', async () => {
    const f = fixture([
      { metadata: { name: 'default' } },
      { metadata: { name: 'builder', labels: { a: 'b' } } },
    ]);
    f.nsStore.add(namespace('ns'));
    await f.controller.syncNamespace('ns');
    expect(f.created()).toEqual(['ns/default', 'ns/builder']);
    expect(f.client.writes<ServiceAccount>('create', 'serviceaccounts')[1]).toEqual({
      metadata: { name: 'builder', namespace: 'ns', labels: { a: 'b' } },
    });
  });

  it('forgives AlreadyExists and a terminating namespace, and returns other failures', async () => {
    const f = fixture([
      { metadata: { name: 'a' } },
      { metadata: { name: 'b' } },
      { metadata: { name: 'c' } },
    ]);
    f.nsStore.add(namespace('ns'));
    f.client.fail(
      'create',
      'serviceaccounts',
      newAlreadyExists({ group: '', resource: 'serviceaccounts' }, 'a'),
    );
    f.client.fail(
      'create',
      'serviceaccounts',
      new StatusError({
        code: 403,
        reason: 'Forbidden',
        message: 'unable to create new content in namespace ns because it is being terminated',
        details: {
          causes: [{ reason: 'NamespaceTerminating', message: 'namespace ns is being terminated' }],
        },
      }),
    );
    f.client.fail('create', 'serviceaccounts', newInternalError(new Error('boom')));
    await expect(f.controller.syncNamespace('ns')).rejects.toThrow(/boom/);
  });

  it('rejects a ServiceAccount to ensure without a name', () => {
    expect(() => fixture([{ metadata: {} }])).toThrow(
      'every ServiceAccount to ensure needs a name',
    );
  });
});

describe('the ServiceAccounts controller against a sandbox', () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  it('makes default in a new namespace, and makes it again when it is deleted', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true });
    stops.push(() => sandbox.stop());
    const source = sandboxSource(sandbox);
    const factory = new SharedInformerFactory(source, 0, { clock });
    const controller = new ServiceAccountsController({
      client: source,
      serviceAccountInformer: factory.serviceAccounts(),
      namespaceInformer: factory.namespaces(),
      clock,
    });
    const abort = new AbortController();
    factory.start(abort.signal);
    const running = controller.run(1, abort.signal);
    stops.push(async () => {
      abort.abort();
      await running;
      await factory.shutdown();
    });
    await sandbox.client<Namespace>('', 'namespaces').create({ metadata: { name: 'team' } });
    const sas = sandbox.client<ServiceAccount>('', 'serviceaccounts').inNamespace('team');
    const exists = async () => !(await gone(sas, 'default'));
    await until(clock, exists, 'default to be made');
    const first = await sas.get('default');
    await sas.delete('default');
    await until(
      clock,
      async () =>
        (await exists()) && (await sas.get('default')).metadata?.uid !== first.metadata?.uid,
      'default to be made again',
    );
  });
});
