import type { DateRange } from '../data-status.js'
import type { PlatformCode } from '../platforms.js'

/**
 * What the gap rules are given about one account: its reported values day by day, and where its
 * data begins and ends. Plain data, read by the store; the rules never read anything themselves.
 */

/** One account's values on one day, by metric name; null or absent: not reported. Money in micro-units. */
export type DayValues = Readonly<Record<string, number | null | undefined>>

/** A value and the day it was reported. */
export interface DatedValue {
  date: string
  value: number
}

export interface AccountDays {
  platform: PlatformCode
  accountId: number
  /**
   * The account's coverage: its first and last day with a row, over its whole history (as in
   * GET /data-status); undefined when it has none. Days outside it are neither missing nor carried.
   */
  coverage: DateRange | undefined
  /** Its rows by day (`YYYY-MM-DD`): at least every row inside the windows asked about. */
  days: ReadonlyMap<string, DayValues>
  /**
   * For each stock metric, its last value reported before the first day of `days` (what a window
   * starting after an unreported day carries); absent when there is none.
   */
  stocksBefore?: Readonly<Record<string, DatedValue | undefined>>
}
