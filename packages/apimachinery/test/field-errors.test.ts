// Cases after apimachinery pkg/util/validation/field/errors_test.go
// (TestMakeFuncs, TestErrorUsefulMessage) and api/errors TestNewInvalid.
import { describe, expect, it } from 'vitest';
import {
  GoLiteral,
  fieldDuplicate,
  fieldErrorBody,
  fieldErrorsToCauses,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  newInvalid,
  omitValue,
  type FieldError,
} from '../src/index.js';

describe('field errors', () => {
  it('makes each type with its body (TestMakeFuncs)', () => {
    const cases: [FieldError, string, string][] = [
      [fieldInvalid('f', 'v', 'd'), 'FieldValueInvalid', 'Invalid value: "v": d'],
      [fieldInvalid('f', -1, 'd'), 'FieldValueInvalid', 'Invalid value: -1: d'],
      [
        fieldNotSupported('f', 'v', ['a', 'b']),
        'FieldValueNotSupported',
        'Unsupported value: "v": supported values: "a", "b"',
      ],
      [fieldDuplicate('f', 'v'), 'FieldValueDuplicate', 'Duplicate value: "v"'],
      [fieldForbidden('f', 'd'), 'FieldValueForbidden', 'Forbidden: d'],
      [fieldRequired('f'), 'FieldValueRequired', 'Required value'],
      [fieldRequired('f', 'd'), 'FieldValueRequired', 'Required value: d'],
      [fieldTooLong('f', 'vvv', 2), 'FieldValueTooLong', 'Too long: may not be more than 2 bytes'],
      // field.OmitValueType: the body names the type and the detail only.
      [fieldInvalid('f', omitValue, 'd'), 'FieldValueInvalid', 'Invalid value: d'],
    ];
    for (const [err, type, body] of cases) {
      expect(err.type).toBe(type);
      expect(err.field).toBe('f');
      expect(fieldErrorBody(err)).toBe(body);
    }
  });

  it('prints values as Go does: maps sorted, literals as given, null', () => {
    expect(fieldErrorBody(fieldInvalid('l', { b: '2', a: '1' }, 'x'))).toBe(
      'Invalid value: map[string]string{"a":"1", "b":"2"}: x',
    );
    expect(fieldErrorBody(fieldInvalid('s', new GoLiteral('[]string{"None"}'), 'x'))).toBe(
      'Invalid value: []string{"None"}: x',
    );
    expect(fieldErrorBody(fieldInvalid('n', null, 'x'))).toBe('Invalid value: null: x');
  });

  it('becomes the causes and message of a 422 Invalid', () => {
    const errs = [
      fieldInvalid('spec.replicas', -1, 'must be greater than or equal to 0'),
      fieldRequired('spec.selector'),
    ];
    expect(fieldErrorsToCauses(errs)).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: -1: must be greater than or equal to 0',
        field: 'spec.replicas',
      },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' },
    ]);
    const err = newInvalid({ group: 'apps', kind: 'Deployment' }, 'web', errs);
    expect(err.code).toBe(422);
    expect(err.message).toBe(
      'Deployment.apps "web" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.selector: Required value]',
    );
    expect(err.details?.causes).toEqual(fieldErrorsToCauses(errs));
  });
});
