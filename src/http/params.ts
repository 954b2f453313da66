import { issue, validationError, type ValidationIssue } from '../errors.js'
import { resolvePlatform, sortPlatforms, type PlatformCode } from '../domain/platforms.js'

/**
 * Query-parameter parsers shared by /analytics/ and /posts (DECISIONS.md §6, §10). Each parser is
 * pure and returns either a value or one 422 issue `{loc: ['query', name], msg, type, ctx}`;
 * `QueryParams` runs several of them and collects every offending parameter into one 422.
 * Values arrive already trimmed, last-one-wins and empty = absent (src/http/query-string.ts).
 */

export type Parsed<T> = { ok: true, value: T } | { ok: false, issue: ValidationIssue }

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value })
const fail = (name: string, msg: string, type: string, ctx: Record<string, unknown> = {}): Parsed<never> =>
  ({ ok: false, issue: issue(['query', name], msg, type, ctx) })

/** At most this many distinct ids in one id list (bounded work per request). */
export const MAX_IDS = 100
/** Longest period, in inclusive days (until − since + 1). */
export const MAX_PERIOD_DAYS = 1096
/** Default period: since = today − 7 days, until = today. */
export const DEFAULT_PERIOD_BACK_DAYS = 7

const DIGITS = /^[0-9]+$/

/**
 * Comma-separated positive integers: items trimmed, leading zeros allowed, duplicates collapsed,
 * at most MAX_IDS distinct. Empty items, signs, decimals → 422. Result ascending.
 */
export function parseIdList (name: string, raw: string): Parsed<number[]> {
  const ids = new Set<number>()
  for (const item of raw.split(',').map((part) => part.trim())) {
    if (!DIGITS.test(item)) {
      return fail(name, `Each item must be a positive integer; got ${JSON.stringify(item)}`, 'int_parsing', { item })
    }
    const id = Number(item)
    // Ids beyond 2^53 cannot be told apart in JSON numbers; none are issued.
    if (id < 1 || !Number.isSafeInteger(id)) {
      return fail(name, `Each item must be an integer between 1 and ${Number.MAX_SAFE_INTEGER}; got ${item}`, 'int_range', { item })
    }
    ids.add(id)
  }
  if (ids.size > MAX_IDS) {
    return fail(name, `At most ${MAX_IDS} distinct ids are allowed; got ${ids.size}`, 'too_long', { max_length: MAX_IDS, actual_length: ids.size })
  }
  return ok([...ids].sort((a, b) => a - b))
}

/** Comma-separated platform codes or aliases, case-insensitive, duplicates collapsed, canonical order. */
export function parsePlatformList (name: string, raw: string): Parsed<PlatformCode[]> {
  const codes: PlatformCode[] = []
  for (const item of raw.split(',').map((part) => part.trim())) {
    const code = resolvePlatform(item)
    if (code === undefined) {
      return fail(name, `Unknown platform ${JSON.stringify(item)}; use a code or name such as fb or facebook`, 'enum', { item })
    }
    codes.push(code)
  }
  return ok(sortPlatforms(codes))
}

const BOOLEAN_WORDS = new Map<string, boolean>([
  ['true', true], ['1', true], ['yes', true], ['on', true],
  ['false', false], ['0', false], ['no', false], ['off', false],
])

/** true/false/1/0/yes/no/on/off, case-insensitive. */
export function parseBoolean (name: string, raw: string): Parsed<boolean> {
  const value = BOOLEAN_WORDS.get(raw.toLowerCase())
  if (value === undefined) return fail(name, 'Input should be a valid boolean (true, false, 1, 0, yes, no, on, off)', 'bool_parsing')
  return ok(value)
}

const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/

/** A real calendar date `YYYY-MM-DD` (2026-02-29 is refused). */
export function parseCalendarDate (name: string, raw: string): Parsed<string> {
  const match = DATE_SHAPE.exec(raw)
  if (match !== null) {
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
    // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
    const date = new Date(0)
    date.setUTCFullYear(year, month - 1, day)
    if (year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day) return ok(raw)
  }
  return fail(name, 'Input should be a valid date in the format YYYY-MM-DD', 'date_parsing')
}

/** One of a case-sensitive list of words. */
export function parseEnum<T extends string> (name: string, raw: string, allowed: readonly T[]): Parsed<T> {
  if ((allowed as readonly string[]).includes(raw)) return ok(raw as T)
  const pattern = `^(${allowed.join('|')})$`
  return fail(name, `String should match pattern '${pattern}'`, 'string_pattern_mismatch', { pattern })
}

/** Days between two `YYYY-MM-DD` dates (b − a). */
export function daysBetween (a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000)
}

/** `date` moved by `days` (may be negative). */
export function addDays (date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)
}

/** The current UTC calendar date. */
export function utcToday (now = new Date()): string {
  return now.toISOString().slice(0, 10)
}

export interface Period {
  /** Inclusive start, `YYYY-MM-DD`. */
  since: string
  /** Inclusive end, `YYYY-MM-DD`. */
  until: string
}

/**
 * Reads the query's parameters one by one, collecting every offending one; `finish()` throws a
 * single 422 listing them all. Each reader returns undefined when the parameter is absent or bad.
 */
export class QueryParams {
  readonly issues: ValidationIssue[] = []

  constructor (private readonly query: Readonly<Record<string, string | undefined>>) {}

  /** The raw (trimmed, non-empty) value, or undefined when absent. */
  raw (name: string): string | undefined {
    const value = this.query[name]
    return value === undefined || value === '' ? undefined : value
  }

  read<T> (name: string, parse: (name: string, raw: string) => Parsed<T>): T | undefined {
    const raw = this.raw(name)
    if (raw === undefined) return undefined
    const parsed = parse(name, raw)
    if (parsed.ok) return parsed.value
    this.issues.push(parsed.issue)
    return undefined
  }

  idList (name: string): number[] | undefined { return this.read(name, parseIdList) }
  platformList (name: string): PlatformCode[] | undefined { return this.read(name, parsePlatformList) }
  boolean (name: string): boolean | undefined { return this.read(name, parseBoolean) }
  date (name: string): string | undefined { return this.read(name, parseCalendarDate) }
  enum<T extends string> (name: string, allowed: readonly T[]): T | undefined {
    return this.read(name, (param, raw) => parseEnum(param, raw, allowed))
  }

  /**
   * `since`/`until` with their defaults (today − 7 days … today, UTC), inclusive. since > until, or
   * a period longer than MAX_PERIOD_DAYS, is reported on `since`. Undefined when either is bad.
   */
  period (today: string): Period | undefined {
    const before = this.issues.length
    const givenSince = this.date('since')
    const givenUntil = this.date('until')
    if (this.issues.length > before) return undefined
    const until = givenUntil ?? today
    const since = givenSince ?? addDays(until < today ? until : today, -DEFAULT_PERIOD_BACK_DAYS)
    if (since > until) {
      this.issues.push(issue(['query', 'since'], `since (${since}) must not be after until (${until})`, 'date_order', { since, until }))
      return undefined
    }
    const days = daysBetween(since, until) + 1
    if (days > MAX_PERIOD_DAYS) {
      this.issues.push(issue(['query', 'since'], `The period may span at most ${MAX_PERIOD_DAYS} days; got ${days}`, 'period_too_long', { limit_value: MAX_PERIOD_DAYS, actual_days: days }))
      return undefined
    }
    return { since, until }
  }

  /** Adds an issue found outside the parsers (e.g. a bad cursor). */
  add (found: ValidationIssue): void {
    this.issues.push(found)
  }

  /** Throws one 422 with every issue collected so far; returns when there are none. */
  finish (): void {
    if (this.issues.length > 0) throw validationError(this.issues)
  }
}
