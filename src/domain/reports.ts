import { addDays, daysBetween, lastDayOfMonth, weekdayOf } from './dates.js'
import type { GapsMode } from './gaps/modes.js'
import { METRIC_CATALOG } from './metric-catalog.js'
import type { Period } from './period.js'
import type { PlatformCode } from './platforms.js'

/**
 * POST /reports (docs/reports.md): what a report asks for, its time buckets and their labels, the
 * comparison period, and the limits. Pure: no I/O, no wire format.
 */

/** Time dimensions: each cuts the period into calendar buckets (ISO weeks start on Monday). */
export const TIME_DIMENSIONS = ['date', 'week', 'month', 'quarter', 'year'] as const
export type TimeDimension = (typeof TIME_DIMENSIONS)[number]

/** Every dimension a report may split by, in the order rows write their fields. */
export const REPORT_DIMENSIONS = [...TIME_DIMENSIONS, 'platform', 'brand', 'account'] as const
export type ReportDimension = (typeof REPORT_DIMENSIONS)[number]

/** The metrics a report may ask for: every metric of the catalogue (GET /catalog/metrics). */
export const REPORT_METRICS: readonly string[] = METRIC_CATALOG.map((metric) => metric.name)

export const MAX_REPORT_DIMENSIONS = 4
/** Rows a report may have at most (its estimate, before it runs): over it, a 422 says what to narrow. */
export const MAX_REPORT_ROWS = 100_000
export const DEFAULT_REPORT_LIMIT = 100
export const MAX_REPORT_LIMIT = 1000
export const MAX_REPORT_OFFSET = MAX_REPORT_ROWS

export interface ReportOrder {
  /** A metric of the request or a dimension of the request. */
  key: string
  kind: 'metric' | 'dimension'
  desc: boolean
}

export type ComparisonAsk = 'previous_period' | 'previous_year' | Period

export interface ReportRequest {
  metrics: string[]
  dimensions: ReportDimension[]
  period: Period
  brandIds: number[] | undefined
  accountIds: number[] | undefined
  platforms: PlatformCode[] | undefined
  orderBy: ReportOrder[]
  limit: number
  offset: number
  comparison: ComparisonAsk | undefined
  withTotals: boolean
  withStatus: boolean
  /** How an account-day not reported is treated (src/domain/gaps): `zero`, the default, or `carry`. */
  gaps: GapsMode
}

export function isTimeDimension (dimension: string): dimension is TimeDimension {
  return (TIME_DIMENSIONS as readonly string[]).includes(dimension)
}

export function timeDimensionOf (dimensions: readonly ReportDimension[]): TimeDimension | undefined {
  return dimensions.find(isTimeDimension)
}

/** The first day of the bucket holding `date`. */
export function bucketStart (dimension: TimeDimension, date: string): string {
  switch (dimension) {
    case 'date': return date
    case 'week': return addDays(date, -((weekdayOf(date) + 6) % 7))
    case 'month': return `${date.slice(0, 7)}-01`
    case 'quarter': {
      const month = Math.floor((Number(date.slice(5, 7)) - 1) / 3) * 3 + 1
      return `${date.slice(0, 4)}-${String(month).padStart(2, '0')}-01`
    }
    case 'year': return `${date.slice(0, 4)}-01-01`
  }
}

/** The last day of the bucket starting on `start`. */
export function bucketEnd (dimension: TimeDimension, start: string): string {
  switch (dimension) {
    case 'date': return start
    case 'week': return addDays(start, 6)
    case 'month': return lastDayOfMonth(start.slice(0, 7))
    case 'quarter': {
      const month = Number(start.slice(5, 7)) + 2
      return lastDayOfMonth(`${start.slice(0, 4)}-${String(month).padStart(2, '0')}`)
    }
    case 'year': return `${start.slice(0, 4)}-12-31`
  }
}

/**
 * A bucket's label on the wire: `YYYY-MM-DD`, ISO week `YYYY-Www` (the ISO year: the year of the
 * week's Thursday), `YYYY-MM`, `YYYY-Qn`, `YYYY`. Labels of one dimension sort as their buckets do.
 */
export function bucketLabel (dimension: TimeDimension, start: string): string {
  switch (dimension) {
    case 'date': return start
    case 'week': {
      const thursday = addDays(start, 3)
      const isoYear = thursday.slice(0, 4)
      const week = Math.floor(daysBetween(`${isoYear}-01-01`, thursday) / 7) + 1
      return `${isoYear}-W${String(week).padStart(2, '0')}`
    }
    case 'month': return start.slice(0, 7)
    case 'quarter': return `${start.slice(0, 4)}-Q${Math.floor((Number(start.slice(5, 7)) - 1) / 3) + 1}`
    case 'year': return start.slice(0, 4)
  }
}

/** One time bucket of a period: its label, its days inside the period, its position (0 = first). */
export interface TimeBucket {
  label: string
  start: string
  from: string
  to: string
  days: number
  position: number
}

/**
 * The buckets of a period, in order, each clipped to the period (a week straddling `since` counts
 * only its days inside). Without a time dimension, the whole period is one bucket labelled ''.
 */
export function bucketsOf (dimension: TimeDimension | undefined, period: Period): TimeBucket[] {
  if (dimension === undefined) return [{ label: '', start: '', from: period.since, to: period.until, days: daysBetween(period.since, period.until) + 1, position: 0 }]
  const buckets: TimeBucket[] = []
  let start = bucketStart(dimension, period.since)
  while (start <= period.until) {
    const end = bucketEnd(dimension, start)
    const from = start < period.since ? period.since : start
    const to = end > period.until ? period.until : end
    buckets.push({ label: bucketLabel(dimension, start), start, from, to, days: daysBetween(from, to) + 1, position: buckets.length })
    if (end >= '9999-12-31') break
    start = addDays(end, 1)
  }
  return buckets
}

/** How many buckets a period has, without listing them (the size estimate). */
export function bucketCount (dimension: TimeDimension | undefined, period: Period): number {
  if (dimension === undefined) return 1
  const days = daysBetween(period.since, period.until) + 1
  if (dimension === 'date') return days
  if (dimension === 'week') return Math.floor(daysBetween(bucketStart('week', period.since), period.until) / 7) + 1
  const months = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1
  const span = months(period.until) - months(period.since)
  if (dimension === 'month') return span + 1
  if (dimension === 'quarter') return Math.floor(months(period.until) / 3) - Math.floor(months(period.since) / 3) + 1
  return Number(period.until.slice(0, 4)) - Number(period.since.slice(0, 4)) + 1
}

/** The same calendar day a year earlier; 29 February becomes 28 February. */
export function yearBefore (date: string): string {
  const year = String(Number(date.slice(0, 4)) - 1).padStart(4, '0')
  const monthDay = date.slice(5)
  return monthDay === '02-29' ? `${year}-02-28` : `${year}-${monthDay}`
}

/**
 * The period a comparison reads: the same number of days just before (previous_period), the same
 * dates a year before (previous_year), or the period given. undefined when it would start before
 * 0001-01-01.
 */
export function comparisonPeriod (ask: ComparisonAsk, period: Period): Period | undefined {
  if (typeof ask !== 'string') return ask
  if (ask === 'previous_year') {
    if (period.since < '0002-01-01') return undefined
    return { since: yearBefore(period.since), until: yearBefore(period.until) }
  }
  const days = daysBetween(period.since, period.until) + 1
  if (daysBetween('0001-01-01', period.since) < days) return undefined
  return { since: addDays(period.since, -days), until: addDays(period.since, -1) }
}
