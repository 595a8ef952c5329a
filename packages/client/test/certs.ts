// Throwaway certificates for the TLS tests: a CA, a server certificate for
// 127.0.0.1 and a client certificate, all signed by the CA. Keys come from
// node:crypto (fast); node-forge only builds and signs the certificates.
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

export interface Pem {
  cert: string;
  key: string;
}

export interface TestPki {
  ca: Pem;
  server: Pem;
  client: Pem;
}

function keyPair(): {
  forgeKey: forge.pki.rsa.PrivateKey;
  publicKey: forge.pki.rsa.PublicKey;
  pem: string;
} {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(pem);
  const publicKey = forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e);
  return { forgeKey, publicKey, pem };
}

let serial = 1;

function certificate(
  subjectCN: string,
  publicKey: forge.pki.rsa.PublicKey,
  issuer: { cn: string; key: forge.pki.rsa.PrivateKey },
  extensions: object[],
): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = (serial++).toString(16).padStart(2, '0');
  const now = new Date();
  cert.validity.notBefore = new Date(now.getTime() - 60 * 60 * 1000);
  cert.validity.notAfter = new Date(now.getTime() + 24 * 60 * 60 * 1000);
  cert.setSubject([{ name: 'commonName', value: subjectCN }]);
  cert.setIssuer([{ name: 'commonName', value: issuer.cn }]);
  cert.setExtensions(extensions);
  cert.sign(issuer.key, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

/** A fresh CA with a server certificate for 127.0.0.1 and a client certificate. */
export function makePki(caName = 'kcm-ts test CA'): TestPki {
  const ca = keyPair();
  const caCert = certificate(caName, ca.publicKey, { cn: caName, key: ca.forgeKey }, [
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true },
  ]);
  const server = keyPair();
  const serverCert = certificate('127.0.0.1', server.publicKey, { cn: caName, key: ca.forgeKey }, [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
  ]);
  const client = keyPair();
  const clientCert = certificate('tester', client.publicKey, { cn: caName, key: ca.forgeKey }, [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', clientAuth: true },
  ]);
  return {
    ca: { cert: caCert, key: ca.pem },
    server: { cert: serverCert, key: server.pem },
    client: { cert: clientCert, key: client.pem },
  };
}

/** Base64 of a PEM string, as kubeconfig `*-data` fields hold it. */
export const b64 = (pem: string) => Buffer.from(pem).toString('base64');
