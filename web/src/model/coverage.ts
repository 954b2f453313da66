import type { AccountStatus } from '../../../packages/client/src/types.js'
import { daysInPeriod, type Period } from './period.js'

/**
 * How much of a comparison's previous period was reported, so that a change against a period in
 * which the data had barely begun is not shown as +1,382 %. **Ruling:** the accounts compared are
 * those with data in the current period; the previous period expects each of them on every one of
 * its days (the days before an account's first row count as not reported: there is nothing to
 * compare with). Under 90 % reported, the page shows the coverage instead of a change.
 */

export const COMPARABLE_SHARE = 0.9

export interface Coverage {
  reported: number
  expected: number
  /** reported ÷ expected (1 when nothing is expected). */
  share: number
}

export function previousCoverage (current: readonly AccountStatus[], previous: readonly AccountStatus[], previousPeriod: Period): Coverage {
  const compared = new Set(current.filter((account) => account.days_reported > 0).map((account) => `${account.platform}|${account.account_id}`))
  const days = daysInPeriod(previousPeriod)
  const expected = compared.size * days
  const reported = previous.filter((account) => compared.has(`${account.platform}|${account.account_id}`)).reduce((sum, account) => sum + Math.min(days, account.days_reported), 0)
  return { reported, expected, share: expected === 0 ? 1 : reported / expected }
}

/**
 * One platform's coverage of a previous period, by the same rule: the platform's accounts with data
 * in the current period, each expected on every day of the previous one (the Platforms view's rows).
 */
export function platformCoverage (current: readonly AccountStatus[], previous: readonly AccountStatus[], platform: string, previousPeriod: Period): Coverage {
  return previousCoverage(current.filter((account) => account.platform === platform), previous, previousPeriod)
}

/** What a table's change cell says instead of a change under the rule: "No change shown: previous period 84.4 % reported". */
export function noChangeText (coverage: Coverage): string {
  return `No change shown: previous period ${formatShare(coverage.share)} reported`
}

/** "7.6 %" — a share as a percentage with one decimal, never rounded up to 90.0 % from below. */
export function formatShare (share: number): string {
  return `${(Math.floor(share * 1000) / 10).toFixed(1)} %`
}

/**
 * One account's coverage of a previous period, by the same rule: its days with data there over
 * every day of that period (days before its first row count as not reported).
 */
export function accountCoverage (previous: readonly AccountStatus[], platform: string, accountId: number, previousPeriod: Period): Coverage {
  const expected = daysInPeriod(previousPeriod)
  const found = previous.find((account) => account.platform === platform && account.account_id === accountId)
  const reported = Math.min(expected, found?.days_reported ?? 0)
  return { reported, expected, share: expected === 0 ? 1 : reported / expected }
}
