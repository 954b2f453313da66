import { formatUtcSeconds, isCalendarDate } from '../../domain/dates.js'
import { resolvePlatform, type PlatformCode } from '../../domain/platforms.js'
import { unstorableMessage } from '../../domain/storable-text.js'

/**
 * Field checks shared by every record kind. Each returns the clean value, or a `FieldError`
 * carrying the message the operator will read after `FILE:LINE: `. Pure: no I/O, no state.
 */

export class FieldError {
  constructor (readonly message: string) {}
}

export type Checked<T> = T | FieldError

/** A short, quoted rendering of a bad value for messages (long strings are cut). */
export function show (value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 40 ? `${text.slice(0, 37)}...` : text
}

/** Account and brand ids: positive integers (as the API's query parameters, docs/api-reference.md "GET /analytics/"). */
export function checkId (field: string, value: unknown): Checked<number> {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    return new FieldError(`${field} must be a positive integer (got ${show(value)})`)
  }
  return value
}

/** A metric count: null (not reported) or a non-negative integer. */
export function checkCount (field: string, value: unknown): Checked<number | null> {
  if (value === null) return null
  if (typeof value !== 'number') return new FieldError(`${field} must be an integer or null (got ${show(value)})`)
  if (!Number.isInteger(value)) return new FieldError(`${field} must be an integer (got ${show(value)})`)
  if (value < 0) return new FieldError(`${field} must not be negative (got ${show(value)})`)
  if (!Number.isSafeInteger(value)) return new FieldError(`${field} is too large (got ${show(value)})`)
  return value
}

const MAX_FAST_AMOUNT = Number.MAX_SAFE_INTEGER / 1_000_000 / 2
const DECIMAL = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/

/**
 * Money: null or a non-negative amount with at most 6 decimals, converted exactly to integer
 * micro-units. The decimal digits are read from the number's shortest round-trip text (what the
 * file said), never from float arithmetic, so 0.1 is 100000 and 0.0000001 is refused.
 */
export function checkMoney (field: string, value: unknown): Checked<number | null> {
  if (value === null) return null
  if (typeof value !== 'number' || !Number.isFinite(value)) return new FieldError(`${field} must be a number or null (got ${show(value)})`)
  if (value < 0) return new FieldError(`${field} must not be negative (got ${show(value)})`)
  // Fast path, exact: a double has a <= 6-decimal shortest form iff it is the double nearest to
  // (its micro-units / 1e6); below 2^53 micro-units the rounding of value * 1e6 cannot miss.
  if (value <= MAX_FAST_AMOUNT) {
    const micros = Math.round(value * 1_000_000)
    if (micros / 1_000_000 === value) return micros
  }
  const match = DECIMAL.exec(String(value))
  if (match === null) return new FieldError(`${field} must be a plain decimal number (got ${show(value)})`)
  const [, whole = '', fraction = '', exponentText = '0'] = match
  const exponent = Number(exponentText)
  if (Math.max(0, fraction.length - exponent) > 6) {
    return new FieldError(`${field} has more than 6 decimals (got ${show(value)}); money is stored in micro-units`)
  }
  // At most 6 decimals, so the shift to micro-units is never negative.
  const micros = BigInt(whole + fraction) * 10n ** BigInt(6 + exponent - fraction.length)
  if (micros > BigInt(Number.MAX_SAFE_INTEGER)) return new FieldError(`${field} is too large (got ${show(value)})`)
  return Number(micros)
}

/** Text no store can hold as given (src/domain/storable-text.ts): refused here, with its line, not by the store. */
function nulError (field: string, value: string): FieldError | undefined {
  const message = unstorableMessage(field, value)
  return message === undefined ? undefined : new FieldError(`${message} (got ${show(value)})`)
}

/** A required, non-empty string (surrounding blanks are kept: names are stored as given). */
export function checkName (field: string, value: unknown): Checked<string> {
  if (typeof value !== 'string' || value.trim() === '') return new FieldError(`${field} must be a non-empty string (got ${show(value)})`)
  return nulError(field, value) ?? value
}

/** An optional text: null or a string. */
export function checkText (field: string, value: unknown): Checked<string | null> {
  if (value === null) return value
  if (typeof value === 'string') return nulError(field, value) ?? value
  return new FieldError(`${field} must be a string or null (got ${show(value)})`)
}

export function checkPlatform (value: unknown): Checked<PlatformCode> {
  const code = typeof value === 'string' ? resolvePlatform(value) : undefined
  if (code === undefined) return new FieldError(`platform must be a platform code or alias such as fb or facebook (got ${show(value)})`)
  return code
}

/**
 * Dates already found valid. A file repeats the same few thousand dates on every account, and
 * the calendar bounds this set, so remembering them is cheap and saves a Date per row.
 */
const knownDates = new Set<string>()
const KNOWN_DATES_MAX = 100_000

/** A real calendar date, `YYYY-MM-DD` (2026-02-30 is refused). */
export function checkDate (field: string, value: unknown): Checked<string> {
  if (typeof value === 'string' && knownDates.has(value)) return value
  if (!isCalendarDate(value)) {
    return new FieldError(`${field} must be a real calendar date YYYY-MM-DD (got ${show(value)})`)
  }
  if (knownDates.size < KNOWN_DATES_MAX) knownDates.add(value)
  return value
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/

/**
 * An ISO-8601 instant with `Z` or an offset, normalised to `YYYY-MM-DDTHH:MM:SSZ` in UTC.
 * Seconds may be left out; fractions of a second are dropped (the API shows whole seconds).
 */
export function checkTimestamp (field: string, value: unknown): Checked<string> {
  const match = typeof value === 'string' ? TIMESTAMP.exec(value) : null
  const bad = new FieldError(`${field} must be an ISO-8601 time with Z or an offset, e.g. 2026-11-01T10:30:00Z (got ${show(value)})`)
  if (match === null) return bad
  const [, year, month, day, hour, minute, second = '00', zone = 'Z'] = match
  if (!isCalendarDate(`${year}-${month}-${day}`)) return bad
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return bad
  let offsetMinutes = 0
  if (zone !== 'Z') {
    const digits = zone.replace(':', '')
    const hours = Number(digits.slice(1, 3))
    const minutes = Number(digits.slice(3, 5))
    if (hours > 23 || minutes > 59) return bad
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes)
  }
  // setUTCFullYear, unlike Date.UTC, keeps years 0–99 as written.
  const local = new Date(0)
  local.setUTCFullYear(Number(year), Number(month) - 1, Number(day))
  local.setUTCHours(Number(hour), Number(minute), Number(second))
  const utc = new Date(local.getTime() - offsetMinutes * 60_000)
  // The offset may move the instant out of the years both stores hold.
  if (utc.getUTCFullYear() < 1 || utc.getUTCFullYear() > 9999) return bad
  return formatUtcSeconds(utc)
}
