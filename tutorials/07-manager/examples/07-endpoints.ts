// Chapter 7, seventh experiment: the manager's HTTPS endpoints, asked as a
// monitoring system would ask them, once the nginx Deployment has rolled
// out. The health paths answer anyone; /metrics and /configz need a bearer
// token the API server accepts (a TokenReview) for a user allowed to GET
// the path (a SubjectAccessReview). The log is written in JSON here
// (--logging-format=json); the first lines close the transcript.
// Run: npm run endpoints -w tutorials/07-manager
import { request } from 'node:https';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { newLogger, type SecureServer } from '@kcm-ts/manager';
import { informerResources } from '@kcm-ts/informer';
import { startCluster, startManager } from './cluster.js';
import { nginxDeployment } from './manifests.js';

/** One answer of the manager's secure port. */
export interface Answer {
  status: number;
  body: string;
}

/** What the endpoints answered, for the test. */
export interface Endpoints {
  answers: Map<string, Answer>;
  /** The JSON log lines of the start. */
  logLines: string[];
}

//#region get
/** GET `path` from the manager's secure port, trusting the certificate it made. */
function get(server: SecureServer, path: string, token?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        ...(server.caCert ? { ca: server.caCert } : {}),
        headers: token ? { authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
//#endregion get

/** Runs the experiment, printing each answer. */
export async function run(log: (line: string) => void = console.log): Promise<Endpoints> {
  const c = await startCluster();
  const logLines: string[] = [];
  const logger = newLogger({
    format: 'json',
    write: (line) => logLines.push(line.trimEnd()),
    now: () => c.clock.now(),
    caller: false,
  });
  let server: SecureServer | undefined;
  const manager = startManager(c, {
    identity: 'manager-1',
    version: '0.1.0',
    logger,
    configure: (config) => {
      config.generic.leaderElection.leaderElect = true;
      config.secureServing.securePort = 'random';
    },
    onServing: (s) => (server = s),
  });
  const answers = new Map<string, Answer>();
  try {
    await c.until(() => manager.started() !== undefined);
    const deployments = c.client<Deployment>(informerResources.deployments, 'default');
    await deployments.create(nginxDeployment());
    await c.until(
      async () => (await deployments.get('nginx-deployment')).status?.availableReplicas === 3,
    );

    //#region requests
    const token = c.sandbox.token; // the kubeconfig's token: the sandbox's admin
    const asks: [string, string | undefined][] = [
      ['/healthz', undefined],
      ['/readyz?verbose', undefined],
      ['/healthz/leaderElection', undefined],
      ['/healthz/leaderElection', token],
      ['/metrics', undefined],
      ['/metrics', 'not-a-token'],
      ['/metrics', token],
      ['/configz', token],
    ];
    //#endregion requests
    for (const [path, bearer] of asks) {
      const answer = await get(server!, path, bearer);
      const who =
        bearer === undefined ? 'no token' : bearer === token ? 'admin token' : 'bad token';
      answers.set(`${path} ${who}`, answer);
      log(`GET ${path} (${who}): ${answer.status}`);
      for (const line of shown(path, answer)) log(`  ${line}`);
    }
    await manager.stop();
  } finally {
    await c.stop();
  }
  log('');
  log('the first lines of the log, --logging-format=json:');
  for (const line of logLines.slice(0, 3))
    log(`  ${line.replace(/127\.0\.0\.1:\d+/, '127.0.0.1:<port>')}`);
  return { answers, logLines };
}

/** The part of an answer the transcript shows. */
function shown(path: string, answer: Answer): string[] {
  if (answer.status !== 200 && answer.body.startsWith('{')) {
    const status = JSON.parse(answer.body) as { reason?: string; message?: string };
    return [`${status.reason}: ${status.message}`];
  }
  if (path === '/metrics') {
    // The work queue of the ReplicaSet controller, as client-go names its metrics.
    // How many adds there were depends on how many updates the queue folded
    // into one item, which varies from run to run: counts are shown as <n>.
    return answer.body
      .split('\n')
      .filter(
        (l) =>
          (l.startsWith('workqueue_') && l.includes('{name="replicaset"}')) ||
          l.startsWith('leader_election_master_status'),
      )
      .map((l) => l.replace(/^(workqueue_\w+(?:_total|_count)\{[^}]*\}) \d+$/, '$1 <n>'));
  }
  if (path === '/configz') {
    const config = JSON.parse(answer.body) as Record<string, { Generic: unknown }>;
    return JSON.stringify(
      {
        'kubecontrollermanager.config.k8s.io': {
          Generic: config['kubecontrollermanager.config.k8s.io']?.Generic,
          '...': '...',
        },
      },
      null,
      2,
    )
      .replace(/"\.\.\.": "\.\.\."/, '...')
      .split('\n');
  }
  return answer.body.trimEnd().split('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
