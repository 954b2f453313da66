import { coveredSpan, spanDays, type DateRange } from '../data-status.js'
import { addDays } from '../dates.js'
import { METRIC_CATALOG, type MetricDefinition } from '../metric-catalog.js'
import type { PlatformCode } from '../platforms.js'
import type { AccountDays } from './account-days.js'
import { ZERO_FRACTION, addFractions, roundFraction, type Fraction } from './fractions.js'
import { isReported, stockOn, type StockValue } from './stocks.js'

/**
 * The gap rules (docs/analytics.md "Missing data"), one place for every report, export and
 * query that combines account-days: for one account over one window, then for a group of
 * accounts. Which rule a metric follows is its catalogue kind:
 *
 * - flow: the sum of the values reported inside the window; a day not reported adds nothing
 *   (never invented); null when no day reported it.
 * - stock: the account's value on the last day of the window inside its coverage, carried from
 *   its last report on or before that day (stocks.ts); summed over accounts.
 * - rate: numerator and denominator summed over the account-days that reported both, never one
 *   account's numerator over another's denominator. A rate over `days` (posts_per_day) is each
 *   account's numerator per day it reported it, summed over the accounts.
 *
 * The window's days outside an account's coverage are not the account's: not missing, not carried.
 */

/** One account over one window. */
export interface AccountWindow {
  platform: PlatformCode
  accountId: number
  /** The window's days inside the account's coverage; undefined when they do not meet. */
  span: DateRange | undefined
  /** Days of the span. */
  expectedDays: number
  /** Days of the span with a row. */
  reportedDays: number
  /** Flows: the sum of the reported values (money in micro-units); null when none was reported. */
  flows: Record<string, number | null>
  /** Stocks: the value standing for the span's last day; undefined when there is none. */
  stocks: Record<string, StockValue | undefined>
  /** Rates: numerator and denominator over the account-days that reported both. */
  rates: Record<string, RateParts>
  /** Per reported metric applying to the account's platform: days of the span that did not report it. */
  missingDays: Record<string, number>
}

export interface RateParts {
  numerator: number
  denominator: number
  /** Account-days that reported both parts. */
  days: number
}

/** The metrics the rules compute (aliases are their original's value). */
const COMPUTED = METRIC_CATALOG.filter((metric) => metric.sameAs === undefined)

export function appliesTo (metric: MetricDefinition, platform: PlatformCode): boolean {
  return metric.platforms.includes(platform)
}

/** The metric a rate divides by on a platform's rows: a metric, or `days`. */
export function denominatorOf (metric: MetricDefinition, platform: PlatformCode): string {
  const ratio = metric.ratioOf
  if (ratio === undefined) throw new Error(`${metric.name} is not a rate`)
  return ratio.denominatorByPlatform?.[platform] ?? ratio.denominator
}

/**
 * Which entries gaps=carry has (docs/analytics.md "Missing data"): a group has one over a window
 * (a day, a week, a month inside the period, the period) when one of its accounts' coverage meets
 * the window, whether or not an account-day of the group was reported there. One where none was
 * is a carried-only entry: its stocks carried, its flows and rates those of nothing reported.
 * GET /analytics/?gaps=carry and POST /reports with gaps carry both ask this, so their rows agree.
 */
export function carriesOver (coverage: DateRange | undefined, window: DateRange): boolean {
  return coverage !== undefined && coveredSpan(window, coverage.since, coverage.until) !== undefined
}

/** The gap rules for one account over one window (a day, a month inside the period, the period). */
export function accountWindow (account: AccountDays, window: DateRange, metrics: readonly MetricDefinition[] = COMPUTED): AccountWindow {
  const span = coveredSpan(window, account.coverage?.since ?? null, account.coverage?.until ?? null)
  const result: AccountWindow = {
    platform: account.platform,
    accountId: account.accountId,
    span,
    expectedDays: spanDays(span),
    reportedDays: 0,
    flows: {},
    stocks: {},
    rates: {},
    missingDays: {},
  }
  const applying = metrics.filter((metric) => appliesTo(metric, account.platform))
  const reported = applying.filter((metric) => metric.reported)
  const flows = applying.filter((metric) => metric.kind === 'flow')
  const rates = applying.filter((metric) => metric.kind === 'rate')
  const parts = rates.map((metric) => ({ name: metric.name, numerator: (metric.ratioOf as { numerator: string }).numerator, denominator: denominatorOf(metric, account.platform) }))
  for (const metric of flows) result.flows[metric.name] = null
  for (const metric of reported) result.missingDays[metric.name] = 0
  for (const rate of parts) result.rates[rate.name] = { numerator: 0, denominator: 0, days: 0 }
  if (span === undefined) return result

  for (let day = span.since; day <= span.until; day = addDays(day, 1)) {
    const values = account.days.get(day)
    if (values === undefined) {
      for (const metric of reported) countMissing(result, metric.name)
      continue
    }
    result.reportedDays++
    for (const metric of reported) if (!isReported(values[metric.name])) countMissing(result, metric.name)
    for (const metric of flows) {
      const value = values[metric.name]
      if (isReported(value)) result.flows[metric.name] = (result.flows[metric.name] ?? 0) + value
    }
    for (const rate of parts) {
      const numerator = values[rate.numerator]
      const denominator = rate.denominator === 'days' ? 1 : values[rate.denominator]
      if (!isReported(numerator) || !isReported(denominator)) continue
      const sums = result.rates[rate.name] as RateParts
      sums.numerator += numerator
      sums.denominator += denominator
      sums.days++
    }
  }
  for (const metric of applying) {
    if (metric.kind === 'stock') result.stocks[metric.name] = stockOn(account, metric.name, span.until)
  }
  return result
}

function countMissing (window: AccountWindow, name: string): void {
  window.missingDays[name] = (window.missingDays[name] ?? 0) + 1
}

/** A group of accounts over one window (an entry). */
export interface GroupFigures {
  /** Flows and stocks: summed over the accounts (null: no account had a value). Rates: exact fractions. */
  sums: Record<string, number | null>
  rates: Record<string, Fraction>
  /** Per stock metric: accounts whose value was carried from an earlier day. */
  carried: Record<string, number>
  /** Per reported metric: the accounts with days that did not report it, and how many days. */
  missing: Record<string, MissingAccount[]>
}

export interface MissingAccount {
  platform: PlatformCode
  account_id: number
  days: number
}

/** Combines the windows of a group's accounts (flows and stocks summed, rates from their parts). */
export function combineAccounts (windows: readonly AccountWindow[], metrics: readonly MetricDefinition[] = COMPUTED): GroupFigures {
  const figures: GroupFigures = { sums: {}, rates: {}, carried: {}, missing: {} }
  for (const metric of metrics) {
    if (metric.reported) figures.missing[metric.name] = []
    if (metric.kind === 'stock') figures.carried[metric.name] = 0
    if (metric.kind === 'rate') figures.rates[metric.name] = metric.ratioOf?.denominator === 'days' ? ZERO_FRACTION : { numerator: 0n, denominator: 0n }
    else figures.sums[metric.name] = null
  }
  for (const window of windows) {
    for (const metric of metrics) {
      const name = metric.name
      const missingDays = window.missingDays[name]
      if (missingDays !== undefined && missingDays > 0) figures.missing[name]?.push({ platform: window.platform, account_id: window.accountId, days: missingDays })
      if (metric.kind === 'flow') {
        const value = window.flows[name]
        if (value !== null && value !== undefined) figures.sums[name] = (figures.sums[name] ?? 0) + value
      } else if (metric.kind === 'stock') {
        const stock = window.stocks[name]
        if (stock === undefined) continue
        figures.sums[name] = (figures.sums[name] ?? 0) + stock.value
        if (stock.carried) figures.carried[name] = (figures.carried[name] ?? 0) + 1
      } else {
        const parts = window.rates[name]
        if (parts === undefined) continue
        const sum = figures.rates[name] as Fraction
        figures.rates[name] = metric.ratioOf?.denominator === 'days'
          // Per day the account reported, summed over accounts: a brand's posts per day is the sum of its accounts'.
          ? (parts.days === 0 ? sum : addFractions(sum, { numerator: BigInt(parts.numerator), denominator: BigInt(parts.denominator) }))
          : { numerator: sum.numerator + BigInt(parts.numerator), denominator: sum.denominator + BigInt(parts.denominator) }
      }
    }
  }
  return figures
}

/** A rate of a group, rounded half-up to the metric's decimals; 0 when its denominator is 0. */
export function rateValue (figures: GroupFigures, metric: MetricDefinition): number {
  const name = metric.sameAs ?? metric.name
  return roundFraction(figures.rates[name] ?? ZERO_FRACTION, metric.decimals)
}
