import type { ReportRequest, ReportRow } from '../../../packages/client/src/types.js'
import type { Filters } from './filters.js'
import type { Period } from './period.js'
import type { Platform } from './platforms.js'

/**
 * The POST /reports requests behind the Summary and Top accounts views (docs/reports.md), and how
 * a change is written from a report's figures. Every figure shown is the report's: each metric
 * aggregated by its catalogue rule on the server (followers are each account's last reported
 * value, so an account missing on the last day does not read as a drop; the engagement rate is
 * recomputed from its summed parts).
 */

/** The headline metrics, in the order of the cards. */
export const HEADLINE_METRICS = ['views', 'interactions', 'engagement_rate', 'followers', 'new_followers', 'posts_count'] as const
export type HeadlineMetric = (typeof HEADLINE_METRICS)[number]

/** The scope members of a report request from the filters: the chosen brands and platforms (none: all). */
function reportFilters (filters: Filters): NonNullable<ReportRequest['filters']> | undefined {
  const scope: { brand_id?: number[], platform?: Platform[] } = {
    ...(filters.brands.length > 0 ? { brand_id: filters.brands } : {}),
    ...(filters.platforms.length > 0 ? { platform: filters.platforms } : {}),
  }
  return Object.keys(scope).length === 0 ? undefined : scope as NonNullable<ReportRequest['filters']>
}

/**
 * The Summary: one row for the whole scope and period (no dimension), compared with `previous`
 * (the period line's, sent as dates so that the page and the request name the same days), with
 * this period's account-days (include status), by the gap rules (gaps carry: docs/reports.md).
 */
export function headlineReport (filters: Filters, period: Period, previous: Period): ReportRequest {
  const scope = reportFilters(filters)
  return {
    metrics: [...HEADLINE_METRICS],
    since: period.since,
    until: period.until,
    ...(scope !== undefined ? { filters: scope } : {}),
    comparison: { since: previous.since, until: previous.until },
    include: ['status'],
    // The gap rules, as the charts ask /analytics/: the headline rate and the charts' are one figure.
    gaps: 'carry',
  }
}

/** The metrics of the Top accounts table, in its column order. */
export const ACCOUNT_METRICS = ['views', 'interactions', 'engagement_rate', 'followers', 'new_followers', 'posts_count'] as const

/**
 * Top N accounts by `metric` over the period: dimension account, highest first, with each account's
 * account-days, compared with `previous` (each row gets its account's figures there).
 */
export function topAccountsReport (filters: Filters, period: Period, previous: Period): ReportRequest {
  const scope = reportFilters(filters)
  return {
    metrics: [...ACCOUNT_METRICS],
    dimensions: ['account'],
    since: period.since,
    until: period.until,
    ...(scope !== undefined ? { filters: scope } : {}),
    order_by: [{ metric: filters.metric, desc: true }],
    limit: filters.limit,
    comparison: { since: previous.since, until: previous.until },
    include: ['status'],
    // The gap rules, as the charts ask /analytics/: the headline rate and the charts' are one figure.
    gaps: 'carry',
  }
}

export interface ReportChange {
  /** now − then, in the metric's decimals. */
  absolute: number
  /** (now − then) / then, 6 decimals; null when then is 0. */
  relative: number | null
  /** Whether the report gave it (its comparison complete) or the page computed it by the same rule. */
  source: 'report' | 'page'
}

/** Decimals of a metric's figures on the wire (the catalogue's: rates 6, the rest integers here). */
const DECIMALS: Record<string, number> = { engagement_rate: 6, posts_per_day: 2, revenue: 2 }

/** A quotient rounded half away from zero to `decimals`, with integer arithmetic (the API's rule for relative_change). */
function signedRatio (numerator: bigint, denominator: bigint, decimals: number): number {
  const negative = (numerator < 0n) !== (denominator < 0n) && numerator !== 0n
  const n = numerator < 0n ? -numerator : numerator
  const d = denominator < 0n ? -denominator : denominator
  const scale = 10n ** BigInt(decimals)
  const scaled = (n * scale * 2n + d) / (2n * d)
  const magnitude = Number(scaled) / Number(scale)
  return negative && magnitude !== 0 ? -magnitude : magnitude
}

/**
 * The change of one metric of a report row against its comparison. A complete comparison gives it
 * (`change`, `relative_change`, used as they are). An incomplete one gives none; when the page's
 * own coverage rule (model/coverage.ts, 90 %) still allows a change, it is computed here from the
 * two figures the report gave, by the report's rule (src/services/reports/figures.ts changeOf):
 * exact in the metric's decimals, relative to 6 decimals, half away from zero, null when then is 0.
 * Undefined when a figure is missing (null: a metric the scope's platform lacks).
 */
export function reportChange (row: ReportRow, metric: string): ReportChange | undefined {
  const comparison = row.comparison
  if (comparison === undefined || comparison === null) return undefined
  const now = row.metrics[metric]
  const then = comparison.metrics[metric]
  if (typeof now !== 'number' || typeof then !== 'number') return undefined
  if (comparison.complete) {
    const absolute = comparison.change[metric]
    if (typeof absolute !== 'number') return undefined
    return { absolute, relative: comparison.relative_change[metric] ?? null, source: 'report' }
  }
  const scale = 10 ** (DECIMALS[metric] ?? 0)
  const a = BigInt(Math.round(now * scale))
  const b = BigInt(Math.round(then * scale))
  return { absolute: Number(a - b) / scale, relative: b === 0n ? null : signedRatio(a - b, b, 6), source: 'page' }
}

/** "+12.3 % (+1,234)", "−0.4 % (−0.0123 pt)", "+5 (previous period had 0)", "no change", with the direction. */
export function describeReportChange (change: ReportChange, format: (value: number) => string): { direction: 'up' | 'down' | 'flat' | 'new', text: string } {
  const { absolute, relative } = change
  if (absolute === 0) return { direction: 'flat', text: 'no change' }
  const sign = absolute > 0 ? '+' : '−'
  const amount = `${sign}${format(Math.abs(absolute)).replace(/ %$/, ' pt')}`
  if (relative === null) return { direction: 'new', text: `${amount} (previous period had 0)` }
  return { direction: absolute > 0 ? 'up' : 'down', text: `${sign}${(Math.abs(relative) * 100).toFixed(1)} % (${amount})` }
}
