import { countOf } from './plural.js'

/**
 * Calendar dates (`YYYY-MM-DD`, UTC) and the one timestamp format of the API. Every date the
 * service accepts, computes or stores lies in 0001-01-01 … 9999-12-31: both stores hold exactly
 * that range, so nothing outside it may ever reach them.
 */

export const MIN_DATE = '0001-01-01'
export const MAX_DATE = '9999-12-31'

const DAY_MS = 86_400_000
const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/

/** The UTC instant of a date's midnight. setUTCFullYear, unlike Date.UTC, keeps years 0–99. */
function midnight (year: number, month: number, day: number): Date {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return date
}

function pad (value: number, width: number): string {
  return String(value).padStart(width, '0')
}

/** `YYYY-MM-DD` of an instant, or undefined outside 0001 … 9999 (toISOString would write ±YYYYYY). */
function formatDate (date: Date): string | undefined {
  const year = date.getUTCFullYear()
  if (year < 1 || year > 9999) return undefined
  return `${pad(year, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}`
}

function parse (value: string): Date {
  const match = DATE_SHAPE.exec(value)
  if (match === null) throw new RangeError(`not a date YYYY-MM-DD: ${JSON.stringify(value)}`)
  return midnight(Number(match[1]), Number(match[2]), Number(match[3]))
}

/** True for a real calendar date `YYYY-MM-DD` from 0001-01-01 to 9999-12-31 (2026-02-29 is not one). */
export function isCalendarDate (value: unknown): value is string {
  if (typeof value !== 'string') return false
  const match = DATE_SHAPE.exec(value)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = midnight(year, month, day)
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** `date` moved by `days` (may be negative). @throws RangeError when the result leaves 0001 … 9999. */
export function addDays (date: string, days: number): string {
  const moved = formatDate(new Date(parse(date).getTime() + days * DAY_MS))
  if (moved === undefined) throw new RangeError(`${date} ${days < 0 ? '-' : '+'} ${countOf(Math.abs(days), 'day')} is outside ${MIN_DATE} … ${MAX_DATE}`)
  return moved
}

/** Whole days from a to b (b − a); both `YYYY-MM-DD`. */
export function daysBetween (a: string, b: string): number {
  return Math.round((parse(b).getTime() - parse(a).getTime()) / DAY_MS)
}

/** The current UTC calendar date. */
export function utcToday (now: Date = new Date()): string {
  return formatDate(now) as string
}

/** The UTC weekday of a date, Sunday = 0 (Date#getUTCDay order). */
export function weekdayOf (date: string): number {
  return parse(date).getUTCDay()
}

/** The last day of a `YYYY-MM` month, `YYYY-MM-DD`. */
export function lastDayOfMonth (month: string): string {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number]
  // Day 0 of the next month is the last day of this one.
  return formatDate(midnight(year, monthNumber + 1, 0)) as string
}

/**
 * The API's one timestamp format: UTC to the whole second, `2026-11-21T12:00:00Z` (error bodies,
 * post times, key-pair creation times, CLI output). Accepts a Date, epoch milliseconds or any
 * string Date can parse (the stores return ISO-8601 text).
 */
export function formatUtcSeconds (instant: Date | number | string = new Date()): string {
  return new Date(instant).toISOString().slice(0, 19) + 'Z'
}
