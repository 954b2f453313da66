import { MIN_DATE, addDays, daysBetween } from './dates.js'

/**
 * The reporting period of /analytics/ and /posts: inclusive UTC calendar dates, with the
 * contract's defaults and limits. Dates are already known to be calendar dates here.
 */

export interface Period {
  /** Inclusive start, `YYYY-MM-DD`. */
  since: string
  /** Inclusive end, `YYYY-MM-DD`. */
  until: string
}

/** Longest period, in inclusive days (until − since + 1). */
export const MAX_PERIOD_DAYS = 1096
/** Default period: since = today − 7 days, until = today. */
export const DEFAULT_PERIOD_BACK_DAYS = 7

/** Why a period was refused; always reported on `since`, as the contract asks. */
export interface PeriodProblem {
  msg: string
  type: 'date_order' | 'period_too_long'
  ctx: Record<string, unknown>
}

export type ResolvedPeriod = { ok: true, period: Period } | { ok: false, problem: PeriodProblem }

/** Inclusive days of a period. */
export function periodDays (period: Period): number {
  return daysBetween(period.since, period.until) + 1
}

/**
 * The period a request asks for: until defaults to today; since to 7 days before the earlier of
 * until and today, but never before 0001-01-01 (the calendar has no earlier day to default to).
 * since > until, or more than MAX_PERIOD_DAYS days, is refused.
 */
export function resolvePeriod (given: { since?: string | undefined, until?: string | undefined }, today: string): ResolvedPeriod {
  const until = given.until ?? today
  const since = given.since ?? defaultSince(until < today ? until : today)
  if (since > until) {
    return { ok: false, problem: { msg: `since (${since}) must not be after until (${until})`, type: 'date_order', ctx: { since, until } } }
  }
  const days = periodDays({ since, until })
  if (days > MAX_PERIOD_DAYS) {
    return { ok: false, problem: { msg: `The period may span at most ${MAX_PERIOD_DAYS} days; got ${days}`, type: 'period_too_long', ctx: { limit_value: MAX_PERIOD_DAYS, actual_days: days } } }
  }
  return { ok: true, period: { since, until } }
}

function defaultSince (base: string): string {
  return daysBetween(MIN_DATE, base) < DEFAULT_PERIOD_BACK_DAYS ? MIN_DATE : addDays(base, -DEFAULT_PERIOD_BACK_DAYS)
}
