import { addDays, daysBetween, lastDayOfMonth } from './dates.js'
import type { Period } from './period.js'
import type { PlatformCode } from './platforms.js'

/**
 * The state of each account's data (GET /data-status, docs/api-reference.md "Data status"): its
 * coverage (first and last day with a row, whole history), when an import last changed it, and,
 * for the period asked, the days it should have reported, those it did, and the ones it missed.
 * Days outside an account's coverage are not missing: the coverage says where its data starts
 * and ends.
 */

/** Accounts per page: `limit` 1 to 100, default 100 (one page for most partners). */
export const DATA_STATUS_MAX_LIMIT = 100
export const DATA_STATUS_DEFAULT_LIMIT = 100

/** An inclusive run of days. */
export interface DateRange {
  since: string
  until: string
}

/** Where a page of accounts ends: its last account's sort key (what a cursor carries). */
export interface AccountPosition {
  brandId: number
  /** Canonical platform index. */
  platformRank: number
  accountId: number
}

export interface AccountStatus {
  brand_id: number
  platform: PlatformCode
  account_id: number
  account_name: string
  /** First and last day with a row, whole history; null when the account has none. */
  first_date: string | null
  last_date: string | null
  /** When an import last changed the account's data (UTC to the second); null when unknown. */
  synced_at: string | null
  /** Days from max(since, first_date) to min(until, last_date); 0 when that span is empty. */
  days_expected: number
  /** Days of that span with a row. */
  days_reported: number
  /** The days of that span without a row, as inclusive ranges, ascending. */
  missing: DateRange[]
}

export interface DataStatusPage {
  period: Period
  brandIds: number[]
  singleBrandId: number | undefined
  accounts: AccountStatus[]
  /** Set when another page exists. */
  next?: AccountPosition | undefined
}

/**
 * The part of a period an account's coverage meets: [max(since, first), min(until, last)], or
 * undefined when they do not meet (or the account has no row at all).
 */
export function coveredSpan (period: Period, firstDate: string | null, lastDate: string | null): DateRange | undefined {
  if (firstDate === null || lastDate === null) return undefined
  const since = firstDate > period.since ? firstDate : period.since
  const until = lastDate < period.until ? lastDate : period.until
  return since <= until ? { since, until } : undefined
}

export function spanDays (span: DateRange | undefined): number {
  return span === undefined ? 0 : daysBetween(span.since, span.until) + 1
}

/** A month of an account's span: the part of the span in it, and the account's covered days in the whole month. */
export interface MonthWindow {
  /** The month's first day, `YYYY-MM-01`. */
  month: string
  window: DateRange
  /** Days of the month inside the account's coverage: a month with as many rows has no gap. */
  coveredDays: number
}

/** The months a span touches, oldest first (a span is at most 1096 days: 37 months). */
export function monthWindows (span: DateRange, coverage: DateRange): MonthWindow[] {
  const windows: MonthWindow[] = []
  for (let first = `${span.since.slice(0, 7)}-01`; first <= span.until; first = addDays(lastDayOfMonth(first.slice(0, 7)), 1)) {
    const last = lastDayOfMonth(first.slice(0, 7))
    windows.push({
      month: first,
      window: { since: first > span.since ? first : span.since, until: last < span.until ? last : span.until },
      coveredDays: spanDays(coveredSpan({ since: first, until: last }, coverage.since, coverage.until)),
    })
    if (last >= span.until) break
  }
  return windows
}

/** A day with a row, and the days with a row before and after it inside its window (null: none). */
export interface RowNeighbours {
  day: string
  prev: string | null
  next: string | null
}

/** The missing days a row borders inside its window: before the window's first row, after the row before it, after the window's last row. */
export function missingAround (row: RowNeighbours, window: DateRange): DateRange[] {
  const ranges: DateRange[] = []
  if (row.prev === null && row.day > window.since) ranges.push({ since: window.since, until: addDays(row.day, -1) })
  if (row.prev !== null && daysBetween(row.prev, row.day) > 1) ranges.push({ since: addDays(row.prev, 1), until: addDays(row.day, -1) })
  if (row.next === null && row.day < window.until) ranges.push({ since: addDays(row.day, 1), until: window.until })
  return ranges
}

/** Ranges sorted, with ranges that touch or overlap joined (a gap across a month's end is one gap). */
export function mergeRanges (ranges: readonly DateRange[]): DateRange[] {
  const merged: DateRange[] = []
  for (const range of [...ranges].sort((a, b) => a.since < b.since ? -1 : a.since > b.since ? 1 : 0)) {
    const last = merged[merged.length - 1]
    if (last !== undefined && daysBetween(last.until, range.since) <= 1) {
      if (range.until > last.until) last.until = range.until
    } else {
      merged.push({ ...range })
    }
  }
  return merged
}
