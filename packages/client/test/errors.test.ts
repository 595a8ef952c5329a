import type { Deployment } from 'kubernetes-types/apps/v1.js';
import {
  StatusError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isServiceUnavailable,
  isStatusError,
  isTooManyRequests,
  isUnauthorized,
  suggestsClientDelay,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorFromResponse, parseRetryAfter } from '../src/errors.js';
import { loadKubeConfig, newResourceClient } from '../src/index.js';
import { TestServer, kubeconfigFor, sendJson, statusBody } from './helpers.js';

let server: TestServer;

beforeEach(async () => {
  server = await new TestServer().start();
});

afterEach(async () => {
  await server.close();
});

// These tests are about the error a final answer becomes: no retries, so a
// 429 or 503 with Retry-After is that answer (retry.test.ts covers retries).
function deployments(): ResourceClient<Deployment> {
  return newResourceClient<Deployment>(
    loadKubeConfig(kubeconfigFor(server.url)),
    { group: 'apps', version: 'v1', resource: 'deployments' },
    { namespaced: true, namespace: 'a', maxRetries: 0 },
  );
}

/** The error a call rejects with. */
async function failure(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    expect(isStatusError(err)).toBe(true);
    return err as StatusError;
  }
  throw new Error('expected the call to fail');
}

describe('a Status body', () => {
  it('becomes a StatusError carrying it, for the classifiers', async () => {
    const notFound = statusBody(404, 'NotFound', 'deployments.apps "web" not found', {
      name: 'web',
      group: 'apps',
      kind: 'deployments',
    });
    server.handler = (_req, res) => sendJson(res, 404, notFound);
    const err = await failure(deployments().get('web'));
    expect(err).toBeInstanceOf(StatusError);
    expect(err.message).toBe('deployments.apps "web" not found');
    expect(err.toStatus()).toEqual(notFound);
    expect(isNotFound(err)).toBe(true);
    expect(isConflict(err)).toBe(false);
  });

  it.each([
    [409, 'AlreadyExists', isAlreadyExists],
    [409, 'Conflict', isConflict],
    [422, 'Invalid', isInvalid],
    [410, 'Expired', isResourceExpired],
    [410, 'Gone', isGone],
    [401, 'Unauthorized', isUnauthorized],
    [403, 'Forbidden', isForbidden],
    [500, 'InternalError', isInternalError],
    [503, 'ServiceUnavailable', isServiceUnavailable],
  ] as const)('%i %s is classified', async (code, reason, classify) => {
    server.handler = (_req, res) =>
      sendJson(res, code, statusBody(code, reason, `it is ${reason}`));
    const err = await failure(deployments().create({ metadata: { name: 'web' } }));
    expect(err.code).toBe(code);
    expect(err.reason).toBe(reason);
    expect(classify(err)).toBe(true);
  });

  it('takes the HTTP code when the body has none', async () => {
    const body = statusBody(0, 'Conflict', 'stale');
    delete body.code;
    server.handler = (_req, res) => sendJson(res, 409, body);
    const err = await failure(deployments().update({ metadata: { name: 'web' } }));
    expect(err.code).toBe(409);
    expect(isConflict(err)).toBe(true);
  });

  it('adds Retry-After to a 429 or 5xx Status that names no delay', async () => {
    server.handler = (_req, res) =>
      sendJson(res, 429, statusBody(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '7' });
    const throttled = await failure(deployments().list());
    expect(isTooManyRequests(throttled)).toBe(true);
    expect(throttled.details?.retryAfterSeconds).toBe(7);
    expect(suggestsClientDelay(throttled)).toBe(7);

    server.handler = (_req, res) =>
      sendJson(res, 503, statusBody(503, 'ServiceUnavailable', 'later'), { 'Retry-After': '3' });
    expect((await failure(deployments().list())).details?.retryAfterSeconds).toBe(3);
  });

  it('keeps the delay the Status names, and ignores Retry-After on other codes', async () => {
    server.handler = (_req, res) =>
      sendJson(res, 429, statusBody(429, 'TooManyRequests', 'slow', { retryAfterSeconds: 2 }), {
        'Retry-After': '9',
      });
    expect((await failure(deployments().list())).details?.retryAfterSeconds).toBe(2);

    server.handler = (_req, res) =>
      sendJson(res, 409, statusBody(409, 'Conflict', 'stale'), { 'Retry-After': '9' });
    expect((await failure(deployments().list())).details).toBeUndefined();
  });

  it('is not trusted unless it says Failure', async () => {
    server.handler = (_req, res) =>
      sendJson(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Success', message: 'odd' });
    const err = await failure(deployments().get('web'));
    expect(err.message).toBe(
      'the server could not find the requested resource (get deployments.apps web)',
    );
    expect(err.reason).toBe('NotFound');
  });
});

describe('a body that is not a Status', () => {
  it('gives a generic error from the code, with the text of a text body', async () => {
    server.handler = (_req, res) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end('  the database is on fire\n');
    };
    const err = await failure(deployments().get('web'));
    expect(err.code).toBe(500);
    expect(err.reason).toBe('InternalError');
    expect(err.message).toBe(
      'an error on the server ("the database is on fire") has prevented the request from succeeding (get deployments.apps web)',
    );
    expect(err.details).toEqual({
      name: 'web',
      group: 'apps',
      kind: 'deployments',
      causes: [{ reason: 'UnexpectedServerResponse', message: 'the database is on fire' }],
    });
    expect(isInternalError(err)).toBe(true);
  });

  it('says "unknown" for a body that is neither text nor a Status', async () => {
    server.handler = (_req, res) => sendJson(res, 502, { error: 'bad gateway' });
    const err = await failure(deployments().list());
    expect(err.message).toBe(
      'an error on the server ("unknown") has prevented the request from succeeding (get deployments.apps)',
    );
    expect(err.details?.causes).toEqual([
      { reason: 'UnexpectedServerResponse', message: 'unknown' },
    ]);
  });

  it('maps a 409 to a POST to AlreadyExists, and carries Retry-After', async () => {
    server.handler = (_req, res) => {
      res.writeHead(409, { 'Retry-After': '4' });
      res.end();
    };
    const err = await failure(deployments().create({ metadata: { name: 'web' } }));
    expect(isAlreadyExists(err)).toBe(true);
    expect(err.message).toBe('the server reported a conflict (post deployments.apps)');
    expect(err.details?.retryAfterSeconds).toBe(4);

    server.handler = (_req, res) => {
      res.writeHead(429, { 'Content-Type': 'text/html', 'Retry-After': '11' });
      res.end('<h1>slow down</h1>');
    };
    const throttled = await failure(deployments().get('web'));
    expect(isTooManyRequests(throttled)).toBe(true);
    expect(suggestsClientDelay(throttled)).toBe(11);
  });

  it('quotes at most 2048 bytes of the body', () => {
    const err = errorFromResponse({
      code: 500,
      verb: 'GET',
      contentType: 'text/plain',
      retryAfter: undefined,
      body: Buffer.from('x'.repeat(5000)),
      resource: undefined,
      name: '',
    });
    expect(err.message).toBe(
      `an error on the server ("${'x'.repeat(2048)}") has prevented the request from succeeding`,
    );
  });
});

describe('Retry-After', () => {
  it('counts only whole seconds, like strconv.Atoi', () => {
    expect(parseRetryAfter('5')).toBe(5);
    expect(parseRetryAfter('+5')).toBe(5);
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter('1.5')).toBeUndefined();
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')).toBeUndefined();
  });
});

describe('connection failures', () => {
  it('reject with the original error', async () => {
    const url = server.url;
    await server.close();
    const client = newResourceClient(
      loadKubeConfig(kubeconfigFor(url)),
      { group: '', version: 'v1', resource: 'pods' },
      { namespaced: true },
    );
    await expect(client.list()).rejects.toMatchObject({ code: 'ECONNREFUSED', syscall: 'connect' });
    server = await new TestServer().start(); // for afterEach
  });

  it('reject with the original error when the server hangs up before answering', async () => {
    server.handler = (_req, res) => res.socket?.destroy();
    await expect(deployments().get('web')).rejects.toMatchObject({ code: 'ECONNRESET' });
  });
});
