// `pods/log`, and what the sandbox says to `exec`, `attach` and
// `port-forward`: pkg/registry/core/pod/rest/log.go (LogREST.Get) with the
// options of PodLogOptions and their validation
// (pkg/apis/core/validation, ValidatePodLogOptions), the container choice of
// pkg/registry/core/pod/strategy.go (validateContainer), and the kubelet's
// answers for a container that has not started or has no previous run.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newBadRequest, newInvalid } from '@kcm-ts/apimachinery';
import type { StatusError } from '@kcm-ts/apimachinery';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ContainerLogs, LogQuery } from '../../node/container-logs.js';
import { forbidden, invalid, toCauses } from '../registry/field-errors.js';
import type { FieldError } from '../registry/field-errors.js';
import { boolParam, int64Param } from '../query-params.js';

/** The log options of a `pods/log` request, checked as kube-apiserver checks them. */
function logQuery(
  query: URLSearchParams,
  name: string,
  now: number,
): LogQuery & { container?: string; follow: boolean } {
  const sinceSeconds = int64Param(query, 'sinceSeconds');
  const tailLines = int64Param(query, 'tailLines');
  const limitBytes = int64Param(query, 'limitBytes');
  const sinceTimeText = query.get('sinceTime');
  let sinceTime: number | undefined;
  if (sinceTimeText !== null && sinceTimeText !== '') {
    sinceTime = Date.parse(sinceTimeText);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(sinceTimeText) || Number.isNaN(sinceTime)) {
      throw newBadRequest(
        `parsing time ${JSON.stringify(sinceTimeText)} as "2006-01-02T15:04:05Z07:00": not RFC 3339`,
      );
    }
  }
  const errs: FieldError[] = [];
  if (tailLines !== undefined && tailLines < 0)
    errs.push(invalid('tailLines', tailLines, 'must be greater than or equal to 0'));
  if (limitBytes !== undefined && limitBytes < 1)
    errs.push(invalid('limitBytes', limitBytes, 'must be greater than 0'));
  if (sinceSeconds !== undefined && sinceTime !== undefined)
    errs.push(forbidden('[]', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (sinceSeconds !== undefined && sinceSeconds < 1)
    errs.push(invalid('sinceSeconds', sinceSeconds, 'must be greater than 0'));
  if (errs.length > 0) throw newInvalid({ group: '', kind: 'PodLogOptions' }, name, toCauses(errs));
  const container = query.get('container');
  const since = sinceSeconds !== undefined ? now - sinceSeconds * 1000 : sinceTime;
  return {
    follow: boolParam(query, 'follow') === true,
    previous: boolParam(query, 'previous') === true,
    timestamps: boolParam(query, 'timestamps') === true,
    ...(container ? { container } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(tailLines !== undefined ? { tailLines } : {}),
    ...(limitBytes !== undefined ? { limitBytes } : {}),
  };
}

// strategy.go, validateContainer: which container a request means.
function chooseContainer(pod: Pod, name: string, asked: string | undefined): string {
  const names = (pod.spec?.containers ?? []).map((c) => c.name);
  const init = (pod.spec?.initContainers ?? []).map((c) => c.name);
  if (asked === undefined) {
    if (names.length === 1 && names[0] !== undefined) return names[0];
    let message = `a container name must be specified for pod ${name}, choose one of: [${names.join(' ')}]`;
    if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
    throw newBadRequest(message);
  }
  if (![...names, ...init].includes(asked)) {
    throw newBadRequest(`container ${asked} is not valid for pod ${name}`);
  }
  return asked;
}

/**
 * Serves `GET pods/{name}/log` from the simulated containers' logs: the
 * current run (or `previous`), `sinceSeconds`/`sinceTime`, `tailLines`,
 * `timestamps`, `limitBytes`, and with `follow` every new line until the
 * container exits or the client leaves.
 */
export function servePodLog(
  req: IncomingMessage,
  res: ServerResponse,
  pod: Pod,
  logs: ContainerLogs | undefined,
  query: URLSearchParams,
  now: number,
): void {
  const name = pod.metadata?.name ?? '';
  const opts = logQuery(query, name, now);
  const container = chooseContainer(pod, name, opts.container);
  const uid = pod.metadata?.uid ?? '';
  // An unscheduled pod has no kubelet to ask: an empty log.
  const scheduled = (pod.spec?.nodeName ?? '') !== '';
  if (scheduled && logs && !logs.has(uid, container, opts.previous === true)) {
    throw noLogYet(pod, container, opts.previous === true);
  }
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
  if (!scheduled || !logs) {
    res.end();
    return;
  }
  // Lines that arrive (or an end that comes) while the first part is being
  // written wait for it, so nothing is written after the end.
  let started = false;
  let ended = false;
  const end = (): void => {
    ended = true;
    if (started && !res.writableEnded) res.end();
  };
  const reading = logs.read(
    uid,
    container,
    opts,
    opts.follow
      ? {
          onLine: (text) => {
            if (started && !ended && !res.writableEnded && !res.destroyed) res.write(text);
          },
          onEnd: end,
        }
      : undefined,
  );
  if (reading.text !== '') res.write(reading.text);
  started = true;
  if (!opts.follow || ended) {
    res.end();
    return;
  }
  res.flushHeaders();
  req.resume();
  res.once('close', reading.stop);
}

/** 400 for a container with no log to read: not started yet, or no previous run. */
function noLogYet(pod: Pod, container: string, previous: boolean): StatusError {
  const name = pod.metadata?.name ?? '';
  if (previous) {
    return newBadRequest(`previous terminated container "${container}" in pod "${name}" not found`);
  }
  const status = [
    ...(pod.status?.containerStatuses ?? []),
    ...(pod.status?.initContainerStatuses ?? []),
  ].find((s) => s.name === container);
  const reason = status?.state?.waiting?.reason ?? 'ContainerCreating';
  return newBadRequest(`container "${container}" in pod "${name}" is waiting to start: ${reason}`);
}

/**
 * `pods/exec`, `pods/attach` and `pods/portforward`: the sandbox's
 * containers are simulated, so there is no process to reach. kube-apiserver
 * answers a request it cannot upgrade with 400 BadRequest; so does the
 * sandbox, saying why.
 */
export function noProcesses(subresource: string, name: string): Error {
  const what = subresource === 'portforward' ? 'port-forward' : subresource;
  return newBadRequest(
    `the kcm-ts sandbox runs no processes: ${what} is not available for pod "${name}" (its containers are simulated; kubectl logs shows what they report)`,
  );
}
