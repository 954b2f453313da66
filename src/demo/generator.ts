import { describeBrand, planAccounts } from './catalog.js'
import type { DemoRecord } from './records.js'
import { generateAccountHistory, type Calendar } from './timeline.js'

/**
 * The deterministic demo data generator: brands 1..N, about three accounts each, `days` of
 * daily rows ending at `until`, and their posts, as import records (DECISIONS.md §9).
 * Same options → same records, byte for byte. It streams: one brand's accounts at a time,
 * one account's history at a time, so memory stays flat at any size (see docs/demo-data.md).
 */

export interface DemoOptions {
  /** Number of brands; ids 1..brands. */
  brands: number
  /** Days of history, ending at `until` (inclusive). */
  days: number
  /** Any non-negative integer; the same seed gives the same data. */
  seed: number
  /** Last day, `YYYY-MM-DD` (UTC); default today. */
  until?: string
}

export const DEMO_DEFAULTS = { brands: 8, days: 400, seed: 42 } as const
/** Limits that keep ids and post numbers far inside their ranges. */
export const DEMO_LIMITS = { brands: 1_000_000, days: 3660, seed: 2 ** 32 - 1 } as const

const DAY_MS = 86_400_000

export function todayUtc (now: Date = new Date()): string {
  return now.toISOString().slice(0, 10)
}

/** True for a real calendar date written `YYYY-MM-DD` (2026-02-30 is not one). */
export function isCalendarDate (value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false
  const time = Date.parse(`${value}T00:00:00Z`)
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value
}

/** Checks the options and fills `until`; throws RangeError naming the bad option. */
export function resolveDemoOptions (options: DemoOptions): Required<DemoOptions> {
  const check = (name: keyof typeof DEMO_LIMITS, min: number): void => {
    const value = options[name]
    if (!Number.isSafeInteger(value) || value < min || value > DEMO_LIMITS[name]) {
      throw new RangeError(`${name} must be an integer from ${min} to ${DEMO_LIMITS[name]} (got ${value})`)
    }
  }
  check('brands', 1)
  check('days', 1)
  check('seed', 0)
  const until = options.until ?? todayUtc()
  if (!isCalendarDate(until)) throw new RangeError(`until must be a date YYYY-MM-DD (got "${until}")`)
  return { brands: options.brands, days: options.days, seed: options.seed, until }
}

function buildCalendar (days: number, until: string): Calendar {
  const last = Date.parse(`${until}T00:00:00Z`)
  const dates: string[] = []
  const weekdays: number[] = []
  for (let day = days - 1; day >= 0; day--) {
    const date = new Date(last - day * DAY_MS)
    dates.push(date.toISOString().slice(0, 10))
    weekdays.push(date.getUTCDay())
  }
  return { dates, weekdays }
}

/**
 * The records, in an order the import accepts in one pass: each brand, then its accounts,
 * then each account's daily rows and posts.
 */
export function * generateDemoRecords (options: DemoOptions): Generator<DemoRecord> {
  const { brands, days, seed, until } = resolveDemoOptions(options)
  const calendar = buildCalendar(days, until)
  for (let brandId = 1; brandId <= brands; brandId++) {
    const brand = describeBrand(seed, brandId)
    yield brand.record
    const accounts = planAccounts(seed, brand)
    for (const account of accounts) yield account.record
    for (const account of accounts) yield * generateAccountHistory(seed, account, calendar)
  }
}
