// Port of success_policy_test.go's TestMatchSuccessPolicy. The JobSuccessPolicy
// gate is on here, so upstream's "JobSuccessPolicy is disabled" case (no
// policy, gate off) is the same as "successPolicy is null" and not repeated.
import type { SuccessPolicyRule } from 'kubernetes-types/batch/v1.js';
import type { Job } from 'kubernetes-types/batch/v1.js';
import { describe, expect, it } from 'vitest';
import { OrderedIntervals, matchSuccessPolicy } from '../src/index.js';
import {
  hasSuccessCriteriaMetCondition,
  isSuccessCriteriaMetCondition,
} from '../src/success-policy.js';

const iv = (...pairs: [number, number][]) =>
  new OrderedIntervals(pairs.map(([first, last]) => ({ first, last })));
const rule = (succeededIndexes?: string, succeededCount?: number): SuccessPolicyRule => ({
  ...(succeededIndexes !== undefined && { succeededIndexes }),
  ...(succeededCount !== undefined && { succeededCount }),
});

// [name, rules (undefined: no policy), succeeded indexes, wanted message ('' when not met)]
const cases: [string, SuccessPolicyRule[] | undefined, OrderedIntervals, string][] = [
  ['successPolicy is null', undefined, iv([0, 0]), ''],
  ['any rules are nothing', [], iv([0, 0]), ''],
  ['rules.succeededIndexes is invalid format', [rule('invalid-form')], iv([0, 0]), ''],
  [
    'rules.succeededIndexes is specified; succeededIndexes matched rules',
    [rule('0-2')],
    iv([0, 2], [4, 7]),
    'Matched rules at index 0',
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules",
    [rule('3')],
    iv([0, 2]),
    '',
  ],
  [
    'rules.succeededCount is specified; succeededIndexes matched rules',
    [rule(undefined, 2)],
    iv([0, 2]),
    'Matched rules at index 0',
  ],
  [
    "rules.succeededCount is specified; succeededIndexes didn't match rules",
    [rule(undefined, 4)],
    iv([0, 2]),
    '',
  ],
  [
    'multiple rules; rules.succeededIndexes is specified; succeededIndexes met one of rules',
    [rule('9'), rule('4,6')],
    iv([0, 2], [4, 7]),
    'Matched rules at index 1',
  ],
  [
    'multiple rules; rules.succeededIndexes is specified; succeededIndexes met all rules',
    [rule('0,1'), rule('5')],
    iv([0, 2], [4, 7]),
    'Matched rules at index 0',
  ],
  [
    'rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes met all rules',
    [rule('3-6', 2)],
    iv([0, 2], [4, 7]),
    'Matched rules at index 0',
  ],
  [
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes didn't match rules",
    [rule('3-6', 2)],
    iv([0, 2], [6, 7]),
    '',
  ],
  [
    'rules.succeededIndexes is specified; succeededIndexes are nothing',
    [rule(undefined, 4)],
    iv(),
    '',
  ],
  [
    'rules.succeededIndexes is specified; succeededIndexes matched rules; rules is proper subset of succeededIndexes',
    [rule('2-4,6-8')],
    iv([1, 5], [6, 9]),
    'Matched rules at index 0',
  ],
  [
    'rules.succeededIndexes is specified; succeededIndexes matched rules; rules equals succeededIndexes',
    [rule('2-4,6-9')],
    iv([2, 4], [6, 9]),
    'Matched rules at index 0',
  ],
  [
    'rules.succeededIndexes is specified; succeededIndexes matched rules; rules is subset of succeededIndexes',
    [rule('2-4,8-12')],
    iv([2, 5], [7, 15]),
    'Matched rules at index 0',
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules is an empty set",
    [rule('')],
    iv([1, 3]),
    '',
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; succeededIndexes is an empty set",
    [rule('')],
    iv(),
    '',
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules and succeededIndexes are empty set",
    [rule('')],
    iv(),
    '',
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; all elements of rules.succeededIndexes aren't included in succeededIndexes",
    [rule('10-12,14-16')],
    iv([1, 3], [5, 7]),
    '',
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules overlaps succeededIndexes at first",
    [rule('1-3,5-7')],
    iv([2, 4], [6, 8]),
    '',
  ],
  [
    'rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules overlaps succeededIndexes at first',
    [rule('1-3,5-7', 4)],
    iv([2, 4], [6, 8]),
    'Matched rules at index 0',
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules overlaps succeededIndexes at last",
    [rule('2-4,6-9')],
    iv([1, 3], [5, 7]),
    '',
  ],
  [
    'rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules overlaps succeededIndexes at last',
    [rule('2-4,6-9', 4)],
    iv([1, 3], [5, 7]),
    'Matched rules at index 0',
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules completely overlaps succeededIndexes",
    [rule('0-4,6-9')],
    iv([1, 3], [7, 8]),
    '',
  ],
  [
    'rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules completely overlaps succeededIndexes',
    [rule('0-4,6-9', 5)],
    iv([1, 3], [7, 8]),
    'Matched rules at index 0',
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules overlaps multiple succeededIndexes at last",
    [rule('0-6,8-9')],
    iv([1, 3], [5, 9]),
    '',
  ],
  [
    'rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules overlaps multiple succeededIndexes at last',
    [rule('0-6,8-9', 7)],
    iv([1, 3], [5, 9]),
    'Matched rules at index 0',
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules overlaps succeededIndexes at first, and rules equals succeededIndexes at last",
    [rule('0-5,7-9')],
    iv([1, 5], [7, 10]),
    '',
  ],
  [
    'rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules overlaps succeededIndexes at first, and rules equals succeededIndexes at last',
    [rule('0-5,7-9', 8)],
    iv([1, 5], [7, 10]),
    'Matched rules at index 0',
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; the first rules overlaps succeededIndexes at first",
    [rule('0-3,6-9')],
    iv([1, 10]),
    '',
  ],
  [
    'rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; the first rules overlaps succeededIndexes at first',
    [rule('0-3,6-9', 7)],
    iv([1, 10]),
    'Matched rules at index 0',
  ],
];

describe('TestMatchSuccessPolicy', () => {
  it.each(cases)('%s', (_name, rules, succeeded, wantMessage) => {
    const policy = rules === undefined ? undefined : { rules };
    expect(matchSuccessPolicy(policy, 10, succeeded)).toEqual([wantMessage, wantMessage !== '']);
  });
});

describe('the SuccessCriteriaMet condition', () => {
  const jobWith = (status: string): Job => ({
    status: { conditions: [{ type: 'SuccessCriteriaMet', status, reason: 'SuccessPolicy' }] },
  });

  it('is found only with status True', () => {
    expect(hasSuccessCriteriaMetCondition(jobWith('True'))?.reason).toBe('SuccessPolicy');
    expect(hasSuccessCriteriaMetCondition(jobWith('False'))).toBeUndefined();
    expect(hasSuccessCriteriaMetCondition({})).toBeUndefined();
  });

  it('is told apart from other conditions', () => {
    expect(isSuccessCriteriaMetCondition({ type: 'SuccessCriteriaMet', status: 'True' })).toBe(
      true,
    );
    expect(isSuccessCriteriaMetCondition({ type: 'SuccessCriteriaMet', status: 'False' })).toBe(
      false,
    );
    expect(isSuccessCriteriaMetCondition({ type: 'Complete', status: 'True' })).toBe(false);
    expect(isSuccessCriteriaMetCondition(undefined)).toBe(false);
  });
});
