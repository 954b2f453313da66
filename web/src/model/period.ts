import { isCalendarDate } from '../../../src/domain/dates.js'

/**
 * Periods as UTC calendar dates (the API's dates are UTC, docs/api-reference.md "Basics"). Presets end today,
 * inclusive, because the API has data up to today; the previous period is the same number of
 * days just before, which is what the headline changes compare against.
 */

export const PRESETS = ['7d', '28d', '90d', 'month', '12m'] as const
export type Preset = (typeof PRESETS)[number]

export const PRESET_LABELS: Record<Preset, string> = {
  '7d': 'Last 7 days',
  '28d': 'Last 28 days',
  '90d': 'Last 90 days',
  month: 'This month',
  '12m': 'Last 12 months',
}

export interface Period { since: string, until: string }

/** The longest period the API answers (src/domain/period.ts MAX_PERIOD_DAYS), first and last day included. */
export const MAX_PERIOD_DAYS = 1096

/**
 * The API's own words for a period it refuses as too long (422 `period_too_long`), or undefined
 * when it is short enough: the filters form refuses it before asking.
 */
export function periodTooLong (period: Period): string | undefined {
  const days = daysInPeriod(period)
  return days > MAX_PERIOD_DAYS ? `The period may span at most ${MAX_PERIOD_DAYS} days; got ${days}` : undefined
}

const DAY_MS = 86_400_000
const DATE = /^\d{4}-\d{2}-\d{2}$/

export function isDateText (value: string): boolean {
  return DATE.test(value)
}

/**
 * Why a date typed into a date field is refused, or undefined when it is taken: text that is not a
 * real calendar date written YYYY-MM-DD (2026-02-30, 11/04/2026, 2026-1-4), or a day after
 * `lastDay`, the last day with data (null: no bound). The form checks its fields with this before
 * asking anything, so a typo never becomes a request.
 */
export function dateFieldProblem (text: string, lastDay: string | null): string | undefined {
  const example = lastDay ?? '2026-01-31'
  if (text === '') return `Enter a date as YYYY-MM-DD, e.g. ${example}.`
  if (!isCalendarDate(text)) return `"${text}" is not a date: write it as YYYY-MM-DD, e.g. ${example}.`
  if (lastDay !== null && text > lastDay) return `The data goes through ${lastDay}: choose a day on or before it.`
  return undefined
}

export function todayUtc (now: Date = new Date()): string {
  return now.toISOString().slice(0, 10)
}

/** `date` moved by `days`; a text that is not a real date is returned as it is (the API will refuse it). */
export function addDays (date: string, days: number): string {
  const time = Date.parse(`${date}T00:00:00Z`)
  return Number.isNaN(time) ? date : new Date(time + days * DAY_MS).toISOString().slice(0, 10)
}

/** Inclusive number of days from `since` to `until`. */
export function daysInPeriod (period: Period): number {
  return Math.round((Date.parse(`${period.until}T00:00:00Z`) - Date.parse(`${period.since}T00:00:00Z`)) / DAY_MS) + 1
}

/**
 * The dates of a preset. "Last 12 months" starts on the first day of the month eleven months
 * back, so that monthly bars are twelve whole calendar months (the current one so far).
 */
export function presetPeriod (preset: Preset, today: string): Period {
  switch (preset) {
    case '7d': return { since: addDays(today, -6), until: today }
    case '28d': return { since: addDays(today, -27), until: today }
    case '90d': return { since: addDays(today, -89), until: today }
    case 'month': return { since: `${today.slice(0, 7)}-01`, until: today }
    case '12m': {
      const [year, month] = [Number(today.slice(0, 4)), Number(today.slice(5, 7))]
      const start = new Date(Date.UTC(year, month - 1 - 11, 1))
      return { since: start.toISOString().slice(0, 10), until: today }
    }
  }
}

/** The period of the same length that ends the day before `period` starts. */
export function previousPeriod (period: Period): Period {
  const length = daysInPeriod(period)
  return { since: addDays(period.since, -length), until: addDays(period.since, -1) }
}

/** Every date of the period, oldest first (the x axis of a daily chart). */
export function datesOf (period: Period): string[] {
  const dates: string[] = []
  for (let date = period.since; date <= period.until && dates.length <= 1100; date = addDays(date, 1)) dates.push(date)
  return dates
}

/** Every month (`YYYY-MM`) the period touches, oldest first (the x axis of a monthly chart). */
export function monthsOf (period: Period): string[] {
  const months: string[] = []
  let [year, month] = [Number(period.since.slice(0, 4)), Number(period.since.slice(5, 7))]
  const last = period.until.slice(0, 7)
  for (;;) {
    const text = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`
    if (text > last || months.length > 40) break
    months.push(text)
    month += 1
    if (month > 12) { month = 1; year += 1 }
  }
  return months
}

/**
 * The last day with data: the latest `last_date` among the partner's accounts (GET /data-status),
 * never after today; null when no account has data. Presets end on it and the date inputs stop at
 * it, so a period never counts days not yet synced as days with nothing.
 */
export function lastSyncedDay (lastDates: ReadonlyArray<string | null>, today: string): string | null {
  const latest = lastDates.filter((date): date is string => date !== null).sort().at(-1)
  return latest === undefined ? null : latest < today ? latest : today
}

/**
 * The period shown for the one asked: an end after the last synced day is moved back to it (the
 * days after it have no data yet, they are not days with nothing), and `clampedFrom` says so.
 * A period entirely after it, or text that is not a date, is left as asked (the API answers it).
 */
export function clampToSynced (period: Period, lastDay: string | null): Period & { clampedFrom?: string } {
  if (lastDay === null || !isDateText(period.until) || period.until <= lastDay || period.since > lastDay) return period
  return { since: period.since, until: lastDay, clampedFrom: period.until }
}
