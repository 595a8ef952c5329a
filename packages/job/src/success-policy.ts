// Declaring an Indexed Job succeeded early: pkg/controller/job/success_policy.go
// (matchSuccessPolicy, hasSuccessCriteriaMetCondition,
// isSuccessCriteriaMetCondition, matchSucceededIndexesRule). The
// JobSuccessPolicy feature gate is on, as in the newest releases.
import type { Job, JobCondition, SuccessPolicy } from 'kubernetes-types/batch/v1.js';
import { noopLogger, type Logger } from '@kcm-ts/apimachinery';
import { parseIndexesFromString, type OrderedIntervals } from './indexed-job-utils.js';
import { findConditionByType, isSet } from './sync-job-ctx.js';
import { jobSuccessCriteriaMet } from './types.js';

/**
 * Whether the succeeded indexes meet one of the success policy's rules,
 * tried in order, and the message naming the first that does (`Matched
 * rules at index 1`). A rule with `succeededIndexes` is met when all of
 * them succeeded, or, with `succeededCount`, when that many of them did; a
 * rule with only `succeededCount` is met by that many succeeded indexes in
 * all. A rule whose indexes cannot be parsed is skipped. Go's
 * `matchSuccessPolicy`.
 *
 * @category Success policy
 */
export function matchSuccessPolicy(
  successPolicy: SuccessPolicy | null | undefined,
  completions: number,
  succeededIndexes: OrderedIntervals,
  logger: Logger = noopLogger,
): [message: string, met: boolean] {
  if (!isSet(successPolicy) || succeededIndexes.intervals.length === 0) return ['', false];
  for (const [index, rule] of successPolicy.rules.entries()) {
    if (isSet(rule.succeededIndexes)) {
      const required = parseIndexesFromString(rule.succeededIndexes, completions, logger);
      // Nothing parsed: a malformed rule.
      if (required.intervals.length === 0) continue;
      if (matchSucceededIndexesRule(required, succeededIndexes, rule.succeededCount)) {
        return [`Matched rules at index ${index}`, true];
      }
    } else if (isSet(rule.succeededCount) && succeededIndexes.total() >= rule.succeededCount) {
      return [`Matched rules at index ${index}`, true];
    }
  }
  return ['', false];
}

/**
 * The Job's `SuccessCriteriaMet` condition, if its status is `True`. Go's
 * `hasSuccessCriteriaMetCondition`.
 *
 * @category Success policy
 */
export function hasSuccessCriteriaMetCondition(job: Job): JobCondition | undefined {
  const cond = findConditionByType(job.status?.conditions, jobSuccessCriteriaMet);
  return cond?.status === 'True' ? cond : undefined;
}

/**
 * True for a `SuccessCriteriaMet` condition with status `True`. Go's
 * `isSuccessCriteriaMetCondition`.
 *
 * @category Success policy
 */
export function isSuccessCriteriaMetCondition(cond: JobCondition | undefined): boolean {
  return cond?.type === jobSuccessCriteriaMet && cond.status === 'True';
}

/**
 * True when every index of `ruleIndexes` succeeded, or at least
 * `succeededCount` of them did. Walks both interval lists once. Go's
 * `matchSucceededIndexesRule`.
 *
 * @category Success policy
 */
export function matchSucceededIndexesRule(
  ruleIndexes: OrderedIntervals,
  succeededIndexes: OrderedIntervals,
  succeededCount: number | null | undefined,
): boolean {
  const rule = ruleIndexes.intervals;
  const done = succeededIndexes.intervals;
  let contains = 0;
  let r = 0;
  let s = 0;
  while (r < rule.length && s < done.length) {
    const overlap =
      Math.min(rule[r]!.last, done[s]!.last) - Math.max(rule[r]!.first, done[s]!.first) + 1;
    if (overlap > 0) contains += overlap;
    if (done[s]!.last < rule[r]!.last) s++;
    else if (done[s]!.last > rule[r]!.last) r++;
    else {
      s++;
      r++;
    }
  }
  return contains === ruleIndexes.total() || (isSet(succeededCount) && contains >= succeededCount);
}
