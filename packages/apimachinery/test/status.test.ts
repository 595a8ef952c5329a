// Cases after apimachinery pkg/api/errors/errors_test.go (TestErrorNew, TestNewInvalid,
// TestReasonForErrorSupportsWrappedErrors, TestIsTooManyRequestsSupportsWrappedErrors,
// TestSuggestsClientDelaySupportsWrapping, TestIsErrorTypesByReasonAndCode), and the
// Status bodies of spec/apiserver.md §9.
import { describe, expect, it } from 'vitest';
import {
  StatusError,
  findStatusError,
  hasStatusCause,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isMethodNotSupported,
  isNotAcceptable,
  isNotFound,
  isRequestEntityTooLarge,
  isResourceExpired,
  isServerTimeout,
  isServiceUnavailable,
  isStatus,
  isStatusError,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  isUnsupportedMediaType,
  newAlreadyExists,
  newApplyConflict,
  newBadRequest,
  newConflict,
  newForbidden,
  newGenericServerResponse,
  newGone,
  newInternalError,
  newInvalid,
  newMethodNotSupported,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServerTimeout,
  newServiceUnavailable,
  newTimeoutError,
  newTooManyRequests,
  newUnauthorized,
  optimisticLockErrorMsg,
  reasonForError,
  suggestsClientDelay,
  type StatusReason,
} from '../src/index.js';

const deployments = { group: 'apps', resource: 'deployments' };
const pods = { group: '', resource: 'pods' };

/** The exact JSON text the error sends, as kube-apiserver writes it. */
const wire = (err: StatusError) => JSON.stringify(err.toStatus());

describe('constructors', () => {
  it('newNotFound: 404 with resource.group and the quoted name', () => {
    const err = newNotFound(deployments, 'x');
    expect([err.code, err.reason, err.message]).toEqual([
      404,
      'NotFound',
      'deployments.apps "x" not found',
    ]);
    expect(wire(err)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"x\\" not found","reason":"NotFound","details":{"name":"x","group":"apps","kind":"deployments"},"code":404}',
    );
    expect(newNotFound(pods, 'x').message).toBe('pods "x" not found');
    expect(newNotFound(pods, 'x').details).toEqual({ name: 'x', kind: 'pods' });
  });

  it('newAlreadyExists: 409 AlreadyExists', () => {
    const err = newAlreadyExists(deployments, 'x');
    expect([err.code, err.reason, err.message]).toEqual([
      409,
      'AlreadyExists',
      'deployments.apps "x" already exists',
    ]);
    expect(err.details).toEqual({ name: 'x', group: 'apps', kind: 'deployments' });
  });

  it('newConflict: 409 Conflict, with the optimistic-lock message', () => {
    const err = newConflict(deployments, 'x', optimisticLockErrorMsg);
    expect([err.code, err.reason]).toEqual([409, 'Conflict']);
    expect(err.message).toBe(
      'Operation cannot be fulfilled on deployments.apps "x": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(newConflict(pods, 'p', new Error('Precondition failed')).message).toBe(
      'Operation cannot be fulfilled on pods "p": Precondition failed',
    );
    expect(err.details).toEqual({ name: 'x', group: 'apps', kind: 'deployments' });
  });

  it('newApplyConflict: 409 Conflict with the conflicting fields as causes', () => {
    const causes = [
      { reason: 'FieldManagerConflict', message: 'conflict', field: '.spec.replicas' },
    ];
    const err = newApplyConflict(causes, 'Apply failed with 1 conflict');
    expect([err.code, err.reason, err.message]).toEqual([
      409,
      'Conflict',
      'Apply failed with 1 conflict',
    ]);
    expect(err.details).toEqual({ causes });
  });

  it('newInvalid: 422 with Kind.group, field causes, and one or several messages (TestNewInvalid)', () => {
    const one = newInvalid({ group: '', kind: 'Kind' }, 'name', [
      { reason: 'FieldValueDuplicate', message: 'Duplicate value: "bar"', field: 'field[0].name' },
    ]);
    expect([one.code, one.reason]).toEqual([422, 'Invalid']);
    expect(one.message).toBe('Kind "name" is invalid: field[0].name: Duplicate value: "bar"');
    expect(one.details).toEqual({
      name: 'name',
      kind: 'Kind',
      causes: [
        {
          reason: 'FieldValueDuplicate',
          message: 'Duplicate value: "bar"',
          field: 'field[0].name',
        },
      ],
    });

    const required = newInvalid({ group: '', kind: 'Kind' }, 'name', [
      { reason: 'FieldValueRequired', message: 'Required value', field: 'field[0].name' },
    ]);
    expect(required.message).toBe('Kind "name" is invalid: field[0].name: Required value');

    const none = newInvalid({ group: '', kind: 'Kind' }, 'name', []);
    expect(none.message).toBe('Kind "name" is invalid');
    expect(none.details).toEqual({ name: 'name', kind: 'Kind' });

    const cause = (field: string) => ({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: -1: must be greater than or equal to 0',
      field,
    });
    const two = newInvalid({ group: 'apps', kind: 'Deployment' }, 'x', [
      cause('spec.replicas'),
      cause('spec.minReadySeconds'),
      cause('spec.replicas'), // the same message twice is printed once
    ]);
    expect(two.message).toBe(
      'Deployment.apps "x" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0]',
    );
    expect(two.details?.kind).toBe('Deployment');
    expect(two.details?.causes).toHaveLength(3);
  });

  it('newGone and newResourceExpired: both 410, told apart by reason', () => {
    const gone = newGone('gone away');
    const expired = newResourceExpired('too old resource version: 5 (1234)');
    expect([gone.code, gone.reason, gone.message]).toEqual([410, 'Gone', 'gone away']);
    expect([expired.code, expired.reason]).toEqual([410, 'Expired']);
    expect(wire(expired)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (1234)","reason":"Expired","code":410}',
    );
    expect(gone.details).toBeUndefined();
  });

  it('newTooManyRequests: 429 with retryAfterSeconds', () => {
    const err = newTooManyRequests('slow down', 3);
    expect([err.code, err.reason, err.message]).toEqual([429, 'TooManyRequests', 'slow down']);
    expect(wire(err)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"slow down","reason":"TooManyRequests","details":{"retryAfterSeconds":3},"code":429}',
    );
    // Go sends an empty details object when the delay is zero.
    expect(newTooManyRequests('slow down', 0).toStatus().details).toEqual({});
  });

  it('newBadRequest, newUnauthorized, newServiceUnavailable use the reason as message', () => {
    expect(newBadRequest('bad body')).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'bad body',
    });
    expect(newUnauthorized('who are you')).toMatchObject({
      code: 401,
      reason: 'Unauthorized',
      message: 'who are you',
    });
    expect(newUnauthorized('').message).toBe('not authorized');
    expect(newServiceUnavailable('down')).toMatchObject({
      code: 503,
      reason: 'ServiceUnavailable',
      message: 'down',
    });
  });

  it('newForbidden: 403 in three forms', () => {
    const err = newForbidden(pods, 'p', new Error('User "bob" cannot get resource "pods"'));
    expect([err.code, err.reason]).toEqual([403, 'Forbidden']);
    expect(err.message).toBe('pods "p" is forbidden: User "bob" cannot get resource "pods"');
    expect(newForbidden(deployments, '', 'no').message).toBe('deployments.apps is forbidden: no');
    expect(newForbidden({ group: '', resource: '' }, '', 'no').message).toBe('forbidden: no');
  });

  it('newMethodNotSupported: 405', () => {
    const err = newMethodNotSupported(deployments, 'deletecollection');
    expect([err.code, err.reason, err.message]).toEqual([
      405,
      'MethodNotAllowed',
      'deletecollection is not supported on resources of kind "deployments.apps"',
    ]);
    expect(err.details).toEqual({ group: 'apps', kind: 'deployments' });
  });

  it('newServerTimeout: 500 ServerTimeout with the retry delay', () => {
    const err = newServerTimeout(pods, 'create', 2);
    expect([err.code, err.reason, err.message]).toEqual([
      500,
      'ServerTimeout',
      'The create operation against pods could not be completed at this time, please try again.',
    ]);
    expect(err.details).toEqual({ name: 'create', kind: 'pods', retryAfterSeconds: 2 });
  });

  it('newInternalError: 500 with the cause', () => {
    const err = newInternalError(new Error('etcd is down'));
    expect([err.code, err.reason, err.message]).toEqual([
      500,
      'InternalError',
      'Internal error occurred: etcd is down',
    ]);
    expect(err.details).toEqual({ causes: [{ message: 'etcd is down' }] });
    expect(newInternalError('plain text').message).toBe('Internal error occurred: plain text');
  });

  it('newTimeoutError: 504 Timeout', () => {
    const err = newTimeoutError('Too large resource version: 20, current: 10', 1);
    expect([err.code, err.reason, err.message]).toEqual([
      504,
      'Timeout',
      'Timeout: Too large resource version: 20, current: 10',
    ]);
    expect(err.details).toEqual({ retryAfterSeconds: 1 });
  });

  it('newRequestEntityTooLarge: 413', () => {
    const err = newRequestEntityTooLarge('limit is 3145728');
    expect([err.code, err.reason, err.message]).toEqual([
      413,
      'RequestEntityTooLarge',
      'Request entity too large: limit is 3145728',
    ]);
  });

  it('newGenericServerResponse derives reason and message from the code', () => {
    const err = newGenericServerResponse({
      code: 404,
      verb: 'GET',
      qualifiedResource: pods,
      name: 'p',
      serverMessage: '<html>',
      isUnexpectedResponse: true,
    });
    expect([err.code, err.reason, err.message]).toEqual([
      404,
      'NotFound',
      'the server could not find the requested resource (get pods p)',
    ]);
    expect(err.details).toEqual({
      name: 'p',
      kind: 'pods',
      causes: [{ reason: 'UnexpectedServerResponse', message: '<html>' }],
    });
    expect(hasStatusCause(err, 'UnexpectedServerResponse')).toBe(true);
    expect(newGenericServerResponse({ code: 409, verb: 'POST' }).reason).toBe('AlreadyExists');
    expect(newGenericServerResponse({ code: 409, verb: 'PUT' }).reason).toBe('Conflict');
    const boom = newGenericServerResponse({ code: 502, verb: 'GET', serverMessage: 'bad gateway' });
    expect([boom.reason, boom.message]).toEqual([
      'InternalError',
      'an error on the server ("bad gateway") has prevented the request from succeeding',
    ]);
    const teapot = newGenericServerResponse({
      code: 418,
      verb: 'GET',
      qualifiedResource: deployments,
    });
    expect([teapot.reason, teapot.message]).toEqual([
      '',
      'the server responded with the status code 418 but did not return more information (get deployments.apps)',
    ]);
    expect(teapot.toStatus()).not.toHaveProperty('reason');
  });
});

describe('StatusError', () => {
  it('is an Error whose message is the Status message', () => {
    const err = newNotFound(pods, 'p');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('StatusError');
    expect(err.status).toBe('Failure');
    expect(String(err)).toBe('StatusError: pods "p" not found');
  });

  it('round-trips through the JSON body', () => {
    const errors = [
      newNotFound(deployments, 'x'),
      newInvalid({ group: 'apps', kind: 'Deployment' }, 'x', [
        { reason: 'FieldValueInvalid', message: 'Invalid value: "": bad', field: 'spec.selector' },
      ]),
      newTooManyRequests('slow', 0),
      newResourceExpired('old'),
      newGenericServerResponse({ code: 503, verb: 'GET' }),
    ];
    for (const err of errors) {
      const body: unknown = JSON.parse(JSON.stringify(err));
      expect(body).toEqual(err.toStatus());
      expect(isStatus(body)).toBe(true);
      const back = StatusError.fromStatus(err.toStatus());
      expect(back.toStatus()).toEqual(err.toStatus());
      expect([back.code, back.reason, back.message, back.details]).toEqual([
        err.code,
        err.reason,
        err.message,
        err.details,
      ]);
    }
  });

  it('fromStatus takes the HTTP code when the body has none, and ignores fields of the wrong type', () => {
    const err = StatusError.fromStatus({ kind: 'Status', apiVersion: 'v1', message: 'nope' }, 503);
    expect([err.code, err.reason, err.message, err.status, err.details]).toEqual([
      503,
      '',
      'nope',
      'Failure',
      undefined,
    ]);
    expect(isServiceUnavailable(err)).toBe(true);
    const odd = StatusError.fromStatus({
      code: '404',
      message: 7,
      reason: null,
      details: { name: 3, kind: 'pods', causes: [null, { field: 'x' }], retryAfterSeconds: '1' },
    } as never);
    expect([odd.code, odd.message, odd.reason]).toEqual([0, '', '']);
    expect(odd.details).toEqual({ kind: 'pods', causes: [{ field: 'x' }] });
  });

  it('leaves empty fields out of the body, as Go does', () => {
    const err = new StatusError({ code: 0, reason: '', message: '' });
    expect(err.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
    });
    const cleaned = new StatusError({
      code: 409,
      reason: 'Conflict',
      message: 'm',
      details: { name: '', group: '', kind: 'x', uid: '', causes: [], retryAfterSeconds: 0 },
    });
    expect(cleaned.toStatus().details).toEqual({ kind: 'x' });
  });

  it('is recognised by its brand, not by instanceof', () => {
    expect(isStatusError(newBadRequest('x'))).toBe(true);
    expect(isStatusError(new Error('x'))).toBe(false);
    expect(isStatusError({ code: 404, reason: 'NotFound' })).toBe(false);
    expect(isStatusError(undefined)).toBe(false);
    // An error from another copy of the package carries the same global symbol.
    const foreign = Object.assign(new Error('pods "p" not found'), {
      code: 404,
      reason: 'NotFound',
      details: undefined,
      [Symbol.for('@kcm-ts/apimachinery/StatusError')]: true,
    });
    expect(isStatusError(foreign)).toBe(true);
    expect(isNotFound(foreign)).toBe(true);
  });

  it('isStatus accepts Status objects of meta.k8s.io/v1 and v1 only', () => {
    expect(isStatus({ kind: 'Status', apiVersion: 'meta.k8s.io/v1' })).toBe(true);
    expect(isStatus({ kind: 'Status', apiVersion: 'v2' })).toBe(false);
    expect(isStatus({ kind: 'Pod', apiVersion: 'v1' })).toBe(false);
    expect(isStatus(null)).toBe(false);
  });
});

describe('classifiers', () => {
  const plain = (code: number, reason: StatusReason) =>
    new StatusError({ code, reason, message: '' });

  it('recognise each constructor and nothing else (TestErrorNew)', () => {
    const exists = newAlreadyExists(pods, '1');
    expect(isAlreadyExists(exists)).toBe(true);
    for (const is of [
      isConflict,
      isNotFound,
      isInvalid,
      isBadRequest,
      isForbidden,
      isServerTimeout,
      isMethodNotSupported,
    ]) {
      expect(is(exists), is.name).toBe(false);
    }
    const cases: [StatusError, (err: unknown) => boolean][] = [
      [newConflict(pods, '2', 'message'), isConflict],
      [newNotFound(pods, '3'), isNotFound],
      [newInvalid({ group: '', kind: 'Test' }, '2', []), isInvalid],
      [newBadRequest('reason'), isBadRequest],
      [newForbidden(pods, '2', 'reason'), isForbidden],
      [newUnauthorized('reason'), isUnauthorized],
      [newServerTimeout(pods, 'reason', 0), isServerTimeout],
      [newMethodNotSupported(pods, 'delete'), isMethodNotSupported],
      [newGone('x'), isGone],
      [newResourceExpired('x'), isResourceExpired],
      [newTooManyRequests('x', 1), isTooManyRequests],
      [newTimeoutError('x', 1), isTimeout],
      [newInternalError('x'), isInternalError],
      [newServiceUnavailable('x'), isServiceUnavailable],
      [newRequestEntityTooLarge('x'), isRequestEntityTooLarge],
      [plain(406, 'NotAcceptable'), isNotAcceptable],
      [plain(415, 'UnsupportedMediaType'), isUnsupportedMediaType],
    ];
    for (const [err, is] of cases) expect(is(err), `${is.name}(${err.reason})`).toBe(true);
  });

  it('fall back to the code only when the reason is unknown (TestIsErrorTypesByReasonAndCode)', () => {
    const byCode: [(err: unknown) => boolean, number][] = [
      [isNotFound, 404],
      [isConflict, 409],
      [isInvalid, 422],
      [isGone, 410],
      [isTimeout, 504],
      [isBadRequest, 400],
      [isUnauthorized, 401],
      [isForbidden, 403],
      [isMethodNotSupported, 405],
      [isNotAcceptable, 406],
      [isUnsupportedMediaType, 415],
      [isInternalError, 500],
      [isServiceUnavailable, 503],
    ];
    for (const [is, code] of byCode) {
      expect(is(plain(code, '')), `${is.name} by code`).toBe(true);
      expect(is(plain(code, 'SomethingNew')), `${is.name} by code, new reason`).toBe(true);
      const other: StatusReason = code === 403 ? 'NotFound' : 'Forbidden';
      expect(is(plain(code, other)), `${is.name} with another known reason`).toBe(false);
    }
  });

  it('tell Gone from Expired as Go does', () => {
    expect(isGone(newResourceExpired('x'))).toBe(false);
    expect(isResourceExpired(newGone('x'))).toBe(false);
    expect(isResourceExpired(plain(410, ''))).toBe(false); // Expired needs its reason
    expect(isGone(plain(410, ''))).toBe(true);
  });

  it('never classify by code alone for AlreadyExists, Expired and ServerTimeout', () => {
    expect(isAlreadyExists(plain(409, ''))).toBe(false);
    expect(isServerTimeout(plain(500, ''))).toBe(false);
    expect(isInternalError(plain(500, ''))).toBe(true);
  });

  it('take 429 and 413 by code whatever the reason (TestIsTooManyRequestsSupportsWrappedErrors)', () => {
    expect(isTooManyRequests(plain(429, 'Forbidden'))).toBe(true);
    expect(isTooManyRequests(plain(0, 'TooManyRequests'))).toBe(true);
    expect(isTooManyRequests(plain(404, ''))).toBe(false);
    expect(isTooManyRequests(new StatusError({ code: 0, reason: '', message: '' }))).toBe(false);
    expect(isRequestEntityTooLarge(plain(413, 'Forbidden'))).toBe(true);
    expect(isRequestEntityTooLarge(plain(0, 'RequestEntityTooLarge'))).toBe(true);
    expect(isRequestEntityTooLarge(plain(404, ''))).toBe(false);
  });

  it('look through Error.cause, like errors.As (TestReasonForErrorSupportsWrappedErrors)', () => {
    expect(reasonForError(plain(401, 'Unauthorized'))).toBe('Unauthorized');
    expect(reasonForError(new Error('some other error'))).toBe('');
    const nested = new Error('wrapping', {
      cause: new Error('some more', { cause: plain(409, 'AlreadyExists') }),
    });
    expect(reasonForError(nested)).toBe('AlreadyExists');
    expect(isAlreadyExists(nested)).toBe(true);
    const inner = plain(409, 'AlreadyExists');
    expect(findStatusError(new Error('wrapping', { cause: inner }))).toBe(inner);
    expect(findStatusError(inner)).toBe(inner);
    expect(isTooManyRequests(new Error('wrapping', { cause: plain(429, '') }))).toBe(true);
    expect(reasonForError(new Error('wrapping', { cause: new Error('hello') }))).toBe('');
    // A cycle of causes ends the search.
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(reasonForError(a)).toBe('');
    expect(findStatusError(a)).toBeUndefined();
  });

  it('accept anything, including non-errors', () => {
    for (const value of [undefined, null, 'NotFound', 404, {}]) {
      expect(isNotFound(value)).toBe(false);
      expect(reasonForError(value)).toBe('');
      expect(suggestsClientDelay(value)).toBeUndefined();
      expect(hasStatusCause(value, 'FieldValueInvalid')).toBe(false);
    }
  });

  it('hasStatusCause finds a cause by type', () => {
    const err = newTimeoutError('Too large resource version', 1);
    expect(hasStatusCause(err, 'ResourceVersionTooLarge')).toBe(false);
    const withCause = StatusError.fromStatus({
      ...err.toStatus(),
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large' }] },
    });
    expect(hasStatusCause(withCause, 'ResourceVersionTooLarge')).toBe(true);
  });
});

describe('suggestsClientDelay (TestErrorNew, TestSuggestsClientDelaySupportsWrapping)', () => {
  it('returns the delay the server asked for', () => {
    expect(suggestsClientDelay(newServerTimeout(pods, 'doing something', 10))).toBe(10);
    expect(suggestsClientDelay(newServerTimeout(pods, 'doing something', 0))).toBe(0);
    expect(suggestsClientDelay(newTimeoutError('test reason', 10))).toBe(10);
    expect(suggestsClientDelay(newTooManyRequests('doing something', 10))).toBe(10);
    expect(suggestsClientDelay(newTooManyRequests('doing something', 1))).toBe(1);
    const generic = (code: number, retryAfterSeconds: number) =>
      newGenericServerResponse({
        code,
        verb: 'get',
        qualifiedResource: pods,
        name: 'test',
        serverMessage: 'doing something',
        retryAfterSeconds,
        isUnexpectedResponse: true,
      });
    expect(suggestsClientDelay(generic(429, 10))).toBe(10);
    expect(suggestsClientDelay(generic(500, 10))).toBe(10);
    expect(suggestsClientDelay(generic(429, 0))).toBeUndefined();
  });

  it('needs details, except that ServerTimeout with empty details means now', () => {
    expect(suggestsClientDelay(newNotFound(pods, 'x'))).toBeUndefined();
    expect(suggestsClientDelay(newGone('x'))).toBeUndefined();
    const timeout = new StatusError({
      code: 500,
      reason: 'ServerTimeout',
      message: '',
      details: {},
    });
    expect(suggestsClientDelay(timeout)).toBe(0);
    expect(suggestsClientDelay(new Error('wrapping', { cause: timeout }))).toBe(0);
    expect(
      suggestsClientDelay(new StatusError({ code: 500, reason: 'ServerTimeout', message: '' })),
    ).toBe(undefined);
  });
});
