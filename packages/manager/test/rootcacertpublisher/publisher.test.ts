// The root CA publisher (publisher.go): the cases of publisher_test.go's
// TestConfigMapCreation and TestConfigMapUpdateNoHotLoop against caches
// filled by hand and a recording client, its metrics, the CA bundle
// helpers of certificates.go, then the publisher running against a sandbox
// on a fake clock.
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, StatusError, newNotFound } from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox } from '@kcm-ts/sandbox';
import { clusterCABundle, verifyCABundle } from '../../src/certificates.js';
import {
  newRootCACertPublisherMetrics,
  rootCACertPublisherMetrics,
  syncResultCode,
} from '../../src/rootcacertpublisher/metrics.js';
import {
  Publisher,
  descriptionAnnotation,
  rootCACertConfigMapName,
  rootCACertDescription,
} from '../../src/rootcacertpublisher/publisher.js';
import { FakeClient } from '../disruption/fake-client.js';
import { gone, sandboxSource, until } from '../garbagecollector/helpers.js';
import { counterValue } from '../podgc/helpers.js';

const ca = '-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n';

function fixture(registry?: Registry) {
  const clock = new FakeClock();
  const client = new FakeClient();
  const factory = new SharedInformerFactory(client, 0, { clock });
  const cms = factory.configMaps();
  const publisher = new Publisher({
    client,
    configMapInformer: cms,
    namespaceInformer: factory.namespaces(),
    rootCA: ca,
    ...(registry ? { metrics: newRootCACertPublisherMetrics(registry) } : {}),
    clock,
  });
  return { client, publisher, cmStore: cms.informer().getStore() };
}

const caConfigMap = (extra: Partial<ConfigMap> = {}): ConfigMap => ({
  metadata: {
    name: rootCACertConfigMapName,
    namespace: 'ns',
    annotations: { [descriptionAnnotation]: rootCACertDescription },
  },
  data: { 'ca.crt': ca },
  ...extra,
});

describe('syncNamespace (TestConfigMapCreation, TestConfigMapUpdateNoHotLoop)', () => {
  it('creates the ConfigMap in a namespace that lacks it', async () => {
    const f = fixture();
    await f.publisher.syncNamespace('ns');
    expect(f.client.actions.map((a) => `${a.verb} ${a.namespace}/${a.name}`)).toEqual([
      `create ns/${rootCACertConfigMapName}`,
    ]);
    expect(f.client.writes<ConfigMap>('create', 'configmaps')[0]).toEqual({
      metadata: {
        name: 'kube-root-ca.crt',
        annotations: {
          'kubernetes.io/description':
            'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.',
        },
      },
      data: { 'ca.crt': ca },
    });
  });

  it.each<[string, ConfigMap, boolean]>([
    ['up to date', caConfigMap(), false],
    ['a field added', caConfigMap({ data: { 'ca.crt': ca, extra: 'x' } }), true],
    ['the bundle changed', caConfigMap({ data: { 'ca.crt': 'other' } }), true],
    ['no data', caConfigMap({ data: undefined }), true],
    [
      'the annotation missing (TestConfigMapUpdateNoHotLoop)',
      caConfigMap({ metadata: { name: rootCACertConfigMapName, namespace: 'ns' } }),
      true,
    ],
  ])('with the ConfigMap %s, updates: %s', async (_name, cm, updates) => {
    const f = fixture();
    f.cmStore.add(cm);
    await f.publisher.syncNamespace('ns');
    const updated = f.client.writes<ConfigMap>('update', 'configmaps');
    expect(updated).toHaveLength(updates ? 1 : 0);
    if (updates) {
      expect(updated[0]!.data).toEqual({ 'ca.crt': ca });
      expect(updated[0]!.metadata?.annotations?.[descriptionAnnotation]).toBe(
        rootCACertDescription,
      );
    }
  });

  it('does not retry a create in a namespace that is gone or terminating', async () => {
    const f = fixture();
    f.client.fail('create', 'configmaps', newNotFound({ group: '', resource: 'namespaces' }, 'ns'));
    await f.publisher.syncNamespace('ns');
    f.client.fail(
      'create',
      'configmaps',
      new StatusError({
        code: 403,
        reason: 'Forbidden',
        message: 'namespace ns is terminating',
        details: { causes: [{ reason: 'NamespaceTerminating' }] },
      }),
    );
    await f.publisher.syncNamespace('ns');
    f.client.fail('create', 'configmaps', new Error('boom'));
    await expect(f.publisher.syncNamespace('ns')).rejects.toThrow('boom');
  });

  it('counts syncs by result code', async () => {
    const registry = new Registry();
    const f = fixture(registry);
    await f.publisher.syncNamespace('a');
    f.client.fail(
      'create',
      'configmaps',
      new StatusError({ code: 429, reason: 'TooManyRequests', message: 'slow down' }),
    );
    await expect(f.publisher.syncNamespace('b')).rejects.toThrow('slow down');
    const total = rootCACertPublisherMetrics.syncTotal.name;
    expect(await counterValue(registry, total, { code: '200' })).toBe(1);
    expect(await counterValue(registry, total, { code: '429' })).toBe(1);
    expect(syncResultCode(new Error('x'))).toBe('500');
  });

  it('refuses a bundle that is not a string', () => {
    const clock = new FakeClock();
    const client = new FakeClient();
    const factory = new SharedInformerFactory(client, 0, { clock });
    expect(
      () =>
        new Publisher({
          client,
          configMapInformer: factory.configMaps(),
          namespaceInformer: factory.namespaces(),
          rootCA: undefined as unknown as string,
        }),
    ).toThrow('rootCA must be a PEM string');
  });
});

describe('the CA bundle (certificates.go)', () => {
  it('reads a kubeconfig cluster entry as client-go loads CAData', () => {
    expect(clusterCABundle({ caData: Buffer.from(ca).toString('base64') })).toBe(ca);
    expect(clusterCABundle({})).toBe('');
    expect(clusterCABundle(undefined)).toBe('');
    expect(() => clusterCABundle({ caFile: '/nonexistent/ca.crt' })).toThrow();
  });

  it('rejects a --root-ca-file without valid certificates', () => {
    expect(() => verifyCABundle('not a certificate')).toThrow(
      'data does not contain any valid RSA or ECDSA certificates',
    );
    expect(() => verifyCABundle(ca)).toThrow();
  });
});

describe('the publisher against a sandbox', () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  it('publishes into a new namespace, and puts back an edited or deleted ConfigMap', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true });
    stops.push(() => sandbox.stop());
    const source = sandboxSource(sandbox);
    const factory = new SharedInformerFactory(source, 0, { clock });
    const publisher = new Publisher({
      client: source,
      configMapInformer: factory.configMaps(),
      namespaceInformer: factory.namespaces(),
      rootCA: ca,
      clock,
    });
    const abort = new AbortController();
    factory.start(abort.signal);
    const running = publisher.run(1, abort.signal);
    stops.push(async () => {
      abort.abort();
      await running;
      await factory.shutdown();
    });
    await sandbox.client<Namespace>('', 'namespaces').create({ metadata: { name: 'team' } });
    const cms = sandbox.client<ConfigMap>('', 'configmaps').inNamespace('team');
    const published = async () =>
      !(await gone(cms, rootCACertConfigMapName)) &&
      (await cms.get(rootCACertConfigMapName)).data?.['ca.crt'] === ca;
    await until(clock, published, 'the bundle to be published');
    const cm = await cms.get(rootCACertConfigMapName);
    await cms.update({ ...cm, data: { 'ca.crt': 'tampered' } });
    await until(clock, published, 'the edit to be undone');
    await cms.delete(rootCACertConfigMapName);
    await until(clock, published, 'the ConfigMap to be made again');
    // Other ConfigMaps are left alone.
    await cms.create({ metadata: { name: 'other' }, data: { a: 'b' } });
    await clock.advance(5_000);
    expect((await cms.get('other')).data).toEqual({ a: 'b' });
  });
});
