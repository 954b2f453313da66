import type { AccountDays } from './account-days.js'

/**
 * The carry of a stock (a metric of kind `stock`, e.g. followers): on a day an account did not
 * report it, the account's last value reported on or before that day stands for it — only inside
 * the account's coverage (never before its first row nor after its last), and never a value from
 * after the day.
 */

export interface StockValue {
  value: number
  /** The day the value was reported. */
  date: string
  /** Whether it stands for a later day than the one it was reported on. */
  carried: boolean
}

const sortedDates = new WeakMap<AccountDays, Map<string, string[]>>()

/** The days the account reported the metric, ascending (computed once per account and metric). */
function reportedDates (account: AccountDays, metric: string): string[] {
  let byMetric = sortedDates.get(account)
  if (byMetric === undefined) {
    byMetric = new Map()
    sortedDates.set(account, byMetric)
  }
  let dates = byMetric.get(metric)
  if (dates === undefined) {
    dates = [...account.days].filter(([, values]) => isReported(values[metric])).map(([date]) => date).sort()
    byMetric.set(metric, dates)
  }
  return dates
}

export function isReported (value: number | null | undefined): value is number {
  return value !== null && value !== undefined
}

/** The last of ascending `dates` on or before `day`, or undefined. */
function lastOnOrBefore (dates: readonly string[], day: string): string | undefined {
  let low = 0
  let high = dates.length
  while (low < high) {
    const middle = (low + high) >> 1
    if ((dates[middle] as string) <= day) low = middle + 1
    else high = middle
  }
  return low === 0 ? undefined : dates[low - 1]
}

/**
 * The account's value of a stock metric on `day`: the value reported that day, else the last one
 * reported before it; undefined when the day is outside the account's coverage or nothing was
 * reported on or before it.
 */
export function stockOn (account: AccountDays, metric: string, day: string): StockValue | undefined {
  const coverage = account.coverage
  if (coverage === undefined || day < coverage.since || day > coverage.until) return undefined
  const date = lastOnOrBefore(reportedDates(account, metric), day)
  if (date !== undefined) {
    const value = account.days.get(date)?.[metric] as number
    return { value, date, carried: date !== day }
  }
  const before = account.stocksBefore?.[metric]
  if (before === undefined || before.date > day || before.date < coverage.since) return undefined
  return { value: before.value, date: before.date, carried: before.date !== day }
}
