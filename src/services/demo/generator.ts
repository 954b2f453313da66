import { MIN_DATE, addDays, daysBetween, formatUtcSeconds, isCalendarDate, weekdayOf } from '../../domain/dates.js'
import { countOf } from '../../domain/plural.js'
import { describeBrand, planAccounts } from './catalog.js'
import type { DemoRecord } from './records.js'
import { generateAccountHistory, type Calendar } from './timeline.js'

/**
 * The deterministic demo data generator: brands 1..N, about three accounts each, `days` of
 * daily rows ending at `until`, and their posts, as import records (README.md "Operator CLI").
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
  /** Last day, `YYYY-MM-DD` (UTC); default today; never after the day of `asOf`. */
  until?: string
  /**
   * The moment the data is generated at, `YYYY-MM-DDTHH:MM:SSZ`; default now. Nothing later
   * exists: no day after its date, and on its date no post published after it.
   */
  asOf?: string
}

export const DEMO_DEFAULTS = { brands: 8, days: 400, seed: 42 } as const
/** Limits that keep ids and post numbers far inside their ranges. */
export const DEMO_LIMITS = { brands: 1_000_000, days: 3660, seed: 2 ** 32 - 1 } as const

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
  const asOf = options.asOf ?? formatUtcSeconds()
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(asOf) || !isCalendarDate(asOf.slice(0, 10))) throw new RangeError(`asOf must be a time YYYY-MM-DDTHH:MM:SSZ (got "${asOf}")`)
  const today = asOf.slice(0, 10)
  const until = options.until ?? today
  if (!isCalendarDate(until)) throw new RangeError(`until must be a date YYYY-MM-DD (got "${until}")`)
  if (until > today) throw new RangeError(`until must not be after today, ${today} (got ${until}): data in the future cannot exist`)
  if (daysBetween(MIN_DATE, until) + 1 < options.days) throw new RangeError(`${countOf(options.days, 'day')} ending ${until} would start before ${MIN_DATE}`)
  return { brands: options.brands, days: options.days, seed: options.seed, until, asOf }
}

function buildCalendar (days: number, until: string, asOf: string): Calendar {
  const dates: string[] = []
  const weekdays: number[] = []
  for (let day = days - 1; day >= 0; day--) {
    const date = addDays(until, -day)
    dates.push(date)
    weekdays.push(weekdayOf(date))
  }
  return { dates, weekdays, notAfter: asOf }
}

/**
 * The records, in an order the import accepts in one pass: each brand, then its accounts,
 * then each account's daily rows and posts.
 */
export function * generateDemoRecords (options: DemoOptions): Generator<DemoRecord> {
  const { brands, days, seed, until, asOf } = resolveDemoOptions(options)
  const calendar = buildCalendar(days, until, asOf)
  for (let brandId = 1; brandId <= brands; brandId++) {
    const brand = describeBrand(seed, brandId)
    yield brand.record
    const accounts = planAccounts(seed, brand)
    for (const account of accounts) yield account.record
    for (const account of accounts) yield * generateAccountHistory(seed, account, calendar)
  }
}
