// The init function of the certificate controllers kcm-ts implements
// (cmd/kube-controller-manager/app/certificates.go:
// newRootCACertificatePublisherController, getKubeAPIServerCAFileContents,
// readCA), and where the CA bundle comes from: `--root-ca-file`, else the
// CA data of the manager's own client config.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { InitFunc } from './controller-context.js';
import { newRootCACertPublisherMetrics } from './rootcacertpublisher/metrics.js';
import { Publisher } from './rootcacertpublisher/publisher.js';

const pemCertificate = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * Checks that `pem` holds at least one certificate and that every one
 * parses, as Go's `certutil.ParseCertsPEM` does for `readCA`; returns it
 * unchanged.
 *
 * @throws Error when no certificate is found or one is malformed
 *
 * @category Controllers
 */
export function verifyCABundle(pem: string): string {
  const blocks = pem.match(pemCertificate) ?? [];
  if (blocks.length === 0)
    throw new Error('data does not contain any valid RSA or ECDSA certificates');
  for (const block of blocks) new X509Certificate(block);
  return pem;
}

/**
 * The CA bundle (PEM) a kubeconfig cluster entry trusts, as client-go
 * loads `rest.Config.CAData`: `certificate-authority-data` decoded, else
 * the file `certificate-authority` names; `''` when it has neither.
 *
 * @throws Error when the named file cannot be read
 *
 * @category Controllers
 */
export function clusterCABundle(
  cluster: { caData?: string | undefined; caFile?: string | undefined } | null | undefined,
): string {
  if (cluster?.caData) return Buffer.from(cluster.caData, 'base64').toString('utf8');
  if (cluster?.caFile) return readFileSync(cluster.caFile, 'utf8');
  return '';
}

//#region start-root-ca-certificate-publisher-controller
/**
 * Starts the controller that keeps the `kube-root-ca.crt` ConfigMap in
 * every namespace, with one worker and the client
 * `root-ca-cert-publisher`, as upstream. Its bundle is `--root-ca-file`
 * when set (it must hold valid certificates, or the manager stops), else
 * the CA of the manager's client config. Go's
 * `newRootCACertificatePublisherController`.
 *
 * @category Controllers
 */
export const startRootCACertificatePublisherController: InitFunc = async (ctx, name, signal) => {
  const file = ctx.componentConfig.saController.rootCAFile;
  let rootCA = ctx.rootCA ?? '';
  if (file !== '') {
    try {
      rootCA = verifyCABundle(await readFile(file, 'utf8'));
    } catch (err) {
      throw new Error(
        `error parsing root-ca-file at ${file}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  const publisher = new Publisher({
    client: ctx.clientBuilder.client('root-ca-cert-publisher'),
    configMapInformer: ctx.informerFactory.configMaps(),
    namespaceInformer: ctx.informerFactory.namespaces(),
    rootCA,
    ...(ctx.metricsRegistry ? { metrics: newRootCACertPublisherMetrics(ctx.metricsRegistry) } : {}),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return { running: publisher.run(1, signal) };
};
//#endregion start-root-ca-certificate-publisher-controller
