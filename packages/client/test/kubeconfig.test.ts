// Loading kubeconfigs the ways kubectl finds them, through client-node's
// KubeConfig, and the errors that name what is wrong.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { contextNamespace, createClient, loadKubeConfig } from '../src/index.js';
import type { KubeConfigObject } from '../src/index.js';
import { loadFromDefaultPlaces } from '../src/kubeconfig.js';
import { makePki, type TestPki } from './certs.js';
import { TestServer, kubeconfigFor } from './helpers.js';

let pki: TestPki;
let dir: string;

beforeAll(() => {
  pki = makePki();
});

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'kcm-ts-kubeconfig-'));
});

afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes `text` to `name` under the test's directory and returns its path. */
function write(name: string, text: string): string {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const yaml = (server: string, extra = '') => `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster:
    server: ${server}
    insecure-skip-tls-verify: true
users:
- name: u1
  user:
    token: yaml-token
contexts:
- name: ctx1
  context:
    cluster: c1
    user: u1
    namespace: team-a
- name: ctx2
  context:
    cluster: c1
    user: u1
current-context: ctx1
${extra}`;

describe('loadKubeConfig sources', () => {
  it('reads a file, resolving relative certificate paths against it', async () => {
    const server = await new TestServer({ ...pki.server }).start();
    try {
      write('certs/ca.crt', pki.ca.cert);
      const file = write(
        'kubeconfig',
        `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: ${server.url}
    certificate-authority: certs/ca.crt
users:
- name: u
  user:
    token: file-token
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`,
      );
      const kc = loadKubeConfig(file);
      expect(kc.getCurrentCluster()?.caFile).toBe(path.join(dir, 'certs/ca.crt'));
      await createClient(kc).namespaces.get('default');
      expect(server.last.headers.authorization).toBe('Bearer file-token');
    } finally {
      await server.close();
    }
  });

  it('reads YAML text, JSON text and an object alike', () => {
    const fromYaml = loadKubeConfig(yaml('https://a.example:6443'));
    expect(fromYaml.getCurrentCluster()?.server).toBe('https://a.example:6443');
    expect(fromYaml.getCurrentUser()?.token).toBe('yaml-token');

    const object = kubeconfigFor('https://b.example');
    expect(loadKubeConfig(JSON.stringify(object)).getCurrentCluster()?.server).toBe(
      'https://b.example',
    );
    const fromObject = loadKubeConfig(object);
    expect(fromObject.getCurrentCluster()?.server).toBe('https://b.example');
    expect(fromObject.getCurrentUser()?.token).toBe('test-token');
  });

  it('checks and returns a client-node KubeConfig as it is', () => {
    const kc = new KubeConfig();
    kc.loadFromString(yaml('https://a.example'));
    expect(loadKubeConfig(kc)).toBe(kc);
    expect(loadKubeConfig(kc, { context: 'ctx2' }).getCurrentContext()).toBe('ctx2');
  });

  it('switches context like --context, and gives the default namespace', () => {
    expect(contextNamespace(loadKubeConfig(yaml('https://a.example')))).toBe('team-a');
    const other = loadKubeConfig(yaml('https://a.example'), { context: 'ctx2' });
    expect(other.getCurrentContext()).toBe('ctx2');
    expect(contextNamespace(other)).toBe('default');
    expect(createClient(yaml('https://a.example')).defaultNamespace).toBe('team-a');
  });
});

describe('loadKubeConfig errors', () => {
  const base = (): KubeConfigObject => kubeconfigFor('https://a.example');

  it('name the file that is missing or malformed', () => {
    const missing = path.join(dir, 'nope');
    expect(() => loadKubeConfig(missing)).toThrow(`cannot read kubeconfig ${missing}: ENOENT`);
    const bad = write('bad', 'clusters: [\n');
    expect(() => loadKubeConfig(bad)).toThrow(`kubeconfig ${bad} is malformed`);
    expect(() => loadKubeConfig('{"clusters": [}')).toThrow('the kubeconfig text is malformed');
    expect(() => loadKubeConfig(' \n ')).toThrow('the kubeconfig text is empty');
    expect(() => loadKubeConfig('')).toThrow('the kubeconfig text is empty');
    expect(() => loadKubeConfig(42 as never)).toThrow(TypeError);
  });

  it('name the context, cluster or user that is missing', () => {
    expect(() => loadKubeConfig(base(), { context: 'prod' })).toThrow(
      'context "prod" not found in the kubeconfig object (it defines test)',
    );
    expect(() => loadKubeConfig({ ...base(), 'current-context': '' })).toThrow(
      'the kubeconfig object sets no current-context; pass { context } to pick one (it defines test)',
    );
    expect(() => loadKubeConfig({ ...base(), 'current-context': 'gone' })).toThrow(
      'current-context "gone" of the kubeconfig object is not defined',
    );
    expect(() => loadKubeConfig({ ...base(), clusters: [] })).toThrow(
      'context "test" in the kubeconfig object refers to cluster "test", which is not defined',
    );
    expect(() => loadKubeConfig({ ...base(), users: [] })).toThrow(
      'context "test" in the kubeconfig object refers to user "tester", which is not defined',
    );
  });

  it('refuse what client-node would refuse at the first request', () => {
    const plain = kubeconfigFor('http://127.0.0.1:1', {
      cluster: { 'insecure-skip-tls-verify': false },
    });
    expect(() => loadKubeConfig(plain)).toThrow(
      'cluster "test" in the kubeconfig object has a plain http:// server (http://127.0.0.1:1); @kubernetes/client-node only allows that with insecure-skip-tls-verify: true',
    );
    expect(() => loadKubeConfig(kubeconfigFor('ftp://x'))).toThrow(
      'only https:// and http:// are supported',
    );
    expect(() => loadKubeConfig(kubeconfigFor('not a url'))).toThrow(
      'cluster "test" in the kubeconfig object has an invalid server URL: not a url',
    );
  });
});

describe('kubectl default places', () => {
  const saRoot = () => path.join(dir, 'pod');

  beforeEach(() => {
    vi.stubEnv('HOME', path.join(dir, 'home'));
    vi.stubEnv('KUBECONFIG', '');
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '');
  });

  it('merge the files of $KUBECONFIG, skipping missing ones, the first to define a name winning', () => {
    const first = write(
      'one',
      JSON.stringify({
        ...kubeconfigFor('https://first.example', { token: 'first' }),
        'current-context': 'test',
      }),
    );
    const second = write(
      'two',
      JSON.stringify({
        clusters: [
          { name: 'test', cluster: { server: 'https://second.example' } },
          { name: 'extra', cluster: { server: 'https://extra.example' } },
        ],
        users: [{ name: 'tester', user: { token: 'second' } }],
        contexts: [{ name: 'other', context: { cluster: 'extra', user: 'tester' } }],
        'current-context': 'other',
      }),
    );
    vi.stubEnv('KUBECONFIG', [first, path.join(dir, 'missing'), second].join(path.delimiter));
    const kc = loadKubeConfig();
    expect(kc.getCurrentContext()).toBe('test');
    expect(kc.getCurrentCluster()?.server).toBe('https://first.example');
    expect(kc.getCurrentUser()?.token).toBe('first');
    expect(loadKubeConfig(undefined, { context: 'other' }).getCurrentCluster()?.server).toBe(
      'https://extra.example',
    );
  });

  it('use ~/.kube/config when $KUBECONFIG is unset', () => {
    write('home/.kube/config', yaml('https://home.example'));
    expect(loadKubeConfig().getCurrentCluster()?.server).toBe('https://home.example');
  });

  it('fall back to the service account of a pod', async () => {
    const server = await new TestServer({ ...pki.server }).start();
    try {
      const sa = path.join(saRoot(), 'var/run/secrets/kubernetes.io/serviceaccount');
      mkdirSync(sa, { recursive: true });
      writeFileSync(path.join(sa, 'token'), 'sa-token');
      writeFileSync(path.join(sa, 'ca.crt'), pki.ca.cert);
      writeFileSync(path.join(sa, 'namespace'), 'kube-system');
      vi.stubEnv('KUBERNETES_SERVICE_HOST', '127.0.0.1');
      vi.stubEnv('KUBERNETES_SERVICE_PORT', new URL(server.url).port);
      const [kc, where] = loadFromDefaultPlaces(saRoot());
      expect(where).toBe('the in-cluster service account');
      const client = createClient(kc);
      expect(client.defaultNamespace).toBe('kube-system');
      await client.pods.inNamespace(client.defaultNamespace).list();
      expect(server.last.path).toBe('/api/v1/namespaces/kube-system/pods');
      expect(server.last.headers.authorization).toBe('Bearer sa-token');

      vi.stubEnv('KUBERNETES_SERVICE_PORT', '');
      expect(() => loadFromDefaultPlaces(saRoot())).toThrow(
        'KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not both set',
      );
    } finally {
      await server.close();
    }
  });

  it('say where they looked when there is nothing', () => {
    const home = path.join(dir, 'home', '.kube', 'config');
    expect(() => loadFromDefaultPlaces(saRoot())).toThrow(
      `no kubeconfig found: $KUBECONFIG is not set and ${home} does not exist, and this is not a pod with a service account`,
    );
    vi.stubEnv('KUBECONFIG', path.join(dir, 'a'));
    expect(() => loadFromDefaultPlaces(saRoot())).toThrow(
      `no kubeconfig found: none of the files in $KUBECONFIG exists (${path.join(dir, 'a')})`,
    );
  });
});
