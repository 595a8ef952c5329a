// Credentials and TLS from the kubeconfig, applied by client-node and carried
// over HTTPS: CA data, client certificates, insecure-skip-tls-verify,
// tls-server-name, tokens from exec plugins, basic auth and impersonation; and
// the connections they travel on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KubeConfigCluster, KubeConfigUser } from '../src/index.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, loadKubeConfig } from '../src/index.js';
import { b64, makePki, type TestPki } from './certs.js';
import { TestServer, until } from './helpers.js';

let pki: TestPki;
let server: TestServer;

beforeAll(() => {
  pki = makePki();
});

beforeEach(async () => {
  // Asks for a client certificate signed by the CA, but also serves clients
  // without one, so that every kind of credential can be tried.
  server = await new TestServer({
    ...pki.server,
    ca: pki.ca.cert,
    requestCert: true,
    rejectUnauthorized: false,
  }).start();
});

afterEach(async () => {
  await server.close();
});

function clientFor(cluster: Partial<KubeConfigCluster>, user: KubeConfigUser) {
  return createClient({
    clusters: [{ name: 'c', cluster: { server: server.url, ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  });
}

/** The cluster fields that make the test CA trusted. */
const withCa = () => ({ 'certificate-authority-data': b64(pki.ca.cert) });

describe('server verification', () => {
  it('trusts the CA of certificate-authority-data', async () => {
    await clientFor(withCa(), { token: 't' }).nodes.get('n1');
    expect(server.last).toMatchObject({ method: 'GET', path: '/api/v1/nodes/n1' });
  });

  it('trusts the CA of a certificate-authority file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kcm-ts-tls-'));
    try {
      const ca = path.join(dir, 'ca.crt');
      writeFileSync(ca, pki.ca.cert);
      await clientFor({ 'certificate-authority': ca }, { token: 't' }).nodes.get('n1');
      expect(server.requests).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a server its CA did not sign', async () => {
    // The server sends its CA along with its certificate, hence "in chain".
    const untrusted = { code: 'SELF_SIGNED_CERT_IN_CHAIN' };
    await expect(clientFor({}, { token: 't' }).nodes.get('n1')).rejects.toMatchObject(untrusted);
    const other = makePki('another CA');
    await expect(
      clientFor({ 'certificate-authority-data': b64(other.ca.cert) }, { token: 't' }).nodes.get(
        'n1',
      ),
    ).rejects.toMatchObject(untrusted);
    expect(server.requests).toHaveLength(0);
  });

  it('skips verification with insecure-skip-tls-verify', async () => {
    await clientFor({ 'insecure-skip-tls-verify': true }, { token: 't' }).nodes.get('n1');
    expect(server.requests).toHaveLength(1);
  });

  it('checks the certificate against tls-server-name when set', async () => {
    await expect(
      clientFor({ ...withCa(), 'tls-server-name': 'api.example' }, { token: 't' }).nodes.get('n1'),
    ).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });
});

describe('credentials', () => {
  it('presents a client certificate from *-data fields', async () => {
    await clientFor(withCa(), {
      'client-certificate-data': b64(pki.client.cert),
      'client-key-data': b64(pki.client.key),
    }).nodes.get('n1');
    expect(server.last.clientCN).toBe('tester');
    expect(server.last.headers.authorization).toBeUndefined();
  });

  it('presents a client certificate from files', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kcm-ts-tls-'));
    try {
      writeFileSync(path.join(dir, 'client.crt'), pki.client.cert);
      writeFileSync(path.join(dir, 'client.key'), pki.client.key);
      await clientFor(withCa(), {
        'client-certificate': path.join(dir, 'client.crt'),
        'client-key': path.join(dir, 'client.key'),
      }).nodes.get('n1');
      expect(server.last.clientCN).toBe('tester');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sends a bearer token, or basic auth, and impersonation', async () => {
    await clientFor(withCa(), { token: 'abc', as: 'jane' }).nodes.get('n1');
    expect(server.last.headers.authorization).toBe('Bearer abc');
    expect(server.last.headers['impersonate-user']).toBe('jane');
    expect(server.last.clientCN).toBeUndefined();

    await clientFor(withCa(), { username: 'admin', password: 's3cret' }).nodes.get('n1');
    expect(server.last.headers.authorization).toBe(
      `Basic ${Buffer.from('admin:s3cret').toString('base64')}`,
    );
  });

  it('runs an exec credential plugin for a token', async () => {
    const credential = {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: 'from-exec', expirationTimestamp: '2999-01-01T00:00:00Z' },
    };
    await clientFor(withCa(), {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: process.execPath,
        args: ['-e', `process.stdout.write(${JSON.stringify(JSON.stringify(credential))})`],
        interactiveMode: 'Never',
      },
    }).nodes.get('n1');
    expect(server.last.headers.authorization).toBe('Bearer from-exec');
  });
});

describe('connections', () => {
  it('are kept alive and shared by every client of one KubeConfig', async () => {
    const kc = loadKubeConfig({
      clusters: [{ name: 'c', cluster: { server: server.url, ...withCa() } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    });
    const client = createClient(kc);
    await client.nodes.get('n1');
    await client.pods.inNamespace('a').get('p1');
    await createClient(kc).namespaces.get('a');
    expect(server.requests).toHaveLength(3);
    expect(server.connections).toBe(1);
  });

  it('are replaced, the old ones closed, when the client certificate changes', async () => {
    const kc = loadKubeConfig({
      clusters: [{ name: 'c', cluster: { server: server.url, ...withCa() } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    });
    const nodes = createClient(kc).nodes;
    await nodes.get('n1');
    expect(server.last.clientCN).toBeUndefined();
    // What an exec plugin handing out a fresh certificate amounts to.
    const user = kc.getCurrentUser();
    if (user === null) throw new Error('no user');
    Object.assign(user, { certData: b64(pki.client.cert), keyData: b64(pki.client.key) });
    await nodes.get('n1');
    expect(server.last.clientCN).toBe('tester');
    expect(server.connections).toBe(2);
    await until(() => server.openSockets === 1, 'the old connection is closed');
  });
});
