// The sandbox's serving certificate, made fresh at every start the way kind
// and kubeadm bootstrap a cluster: a private CA, and a certificate for
// 127.0.0.1 and localhost signed by it. Clients trust the CA through the
// kubeconfig, so TLS is verified as with a real cluster. Keys come from
// node:crypto (fast, native); node-forge builds and signs the certificates.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

/** PEM-encoded material for an HTTPS server and its clients. */
export interface SandboxCertificates {
  /** The CA certificate clients must trust (the kubeconfig's `certificate-authority-data`). */
  caCert: string;
  /** The serving certificate, for 127.0.0.1 and localhost. */
  cert: string;
  /** The serving certificate's private key. */
  key: string;
}

function keyPair(): {
  publicKey: forge.pki.rsa.PublicKey;
  privateKey: forge.pki.rsa.PrivateKey;
  pem: string;
} {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    publicKey: forge.pki.publicKeyFromPem(publicKey),
    privateKey: forge.pki.privateKeyFromPem(privateKey),
    pem: privateKey,
  };
}

// node-forge reads a field's `valueTagClass` as the ASN.1 type of its value;
// its type declarations call it a tag class.
const utf8String = forge.asn1.Type.UTF8 as unknown as forge.asn1.Class;

function serial(): string {
  // A positive serial number: clear the top bit of the first byte.
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}

/**
 * The common names of the CA and the serving certificate. The sandbox's are
 * `kcm-ts-sandbox-ca` and `kcm-ts-sandbox`; a component serving on its own
 * (the controller manager's secure port) names them as client-go's
 * `GenerateSelfSignedCertKey` does, `localhost-ca@<unix time>` and
 * `localhost@<unix time>`, so that its CA is never taken for the cluster's.
 */
export interface CertificateNames {
  /** The CA's common name (subject and issuer). */
  ca: string;
  /** The serving certificate's common name. */
  serving: string;
}

/** The names client-go's GenerateSelfSignedCertKey gives a self-signed pair made at `now`. */
export function selfSignedNames(now: Date = new Date()): CertificateNames {
  const seconds = Math.floor(now.getTime() / 1000);
  return { ca: `localhost-ca@${seconds}`, serving: `localhost@${seconds}` };
}

/**
 * Makes a CA and a serving certificate for 127.0.0.1 and localhost, valid
 * from `now` for `days` days (default 365), named as `names` says (the
 * sandbox's names by default).
 */
export function makeCertificates(
  now: Date = new Date(),
  days = 365,
  names: CertificateNames = { ca: 'kcm-ts-sandbox-ca', serving: 'kcm-ts-sandbox' },
): SandboxCertificates {
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now.getTime() + days * 86_400_000);

  const ca = keyPair();
  const caCert = forge.pki.createCertificate();
  caCert.publicKey = ca.publicKey;
  caCert.serialNumber = serial();
  caCert.validity.notBefore = notBefore;
  caCert.validity.notAfter = notAfter;
  // A UTF8String, as Go writes names: `@` (in client-go's
  // `localhost-ca@<time>`) is not allowed in node-forge's default
  // PrintableString, and Go's parser refuses such a certificate.
  const caName = [{ name: 'commonName', value: names.ca, valueTagClass: utf8String }];
  caCert.setSubject(caName);
  caCert.setIssuer(caName);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  caCert.sign(ca.privateKey, forge.md.sha256.create());

  const server = keyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = server.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = notAfter;
  cert.setSubject([{ name: 'commonName', value: names.serving, valueTagClass: utf8String }]);
  cert.setIssuer(caName);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 7, ip: '127.0.0.1' },
        { type: 2, value: 'localhost' },
      ],
    },
  ]);
  cert.sign(ca.privateKey, forge.md.sha256.create());

  return {
    caCert: forge.pki.certificateToPem(caCert),
    cert: forge.pki.certificateToPem(cert),
    key: server.pem,
  };
}
