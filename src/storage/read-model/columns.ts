import { ENGAGEMENT_DENOMINATOR, SUMMED_METRICS } from '../../domain/metrics.js'
import { PLATFORM_CODES } from '../../domain/platforms.js'

/**
 * The metric columns every read-model table carries (migration 2026_11_23_0100_read_model), in one
 * order, and the SQL pieces that fill them from raw account-days. Derived from the catalogue
 * (src/domain/metrics.ts), so a new metric is a migration adding its column and nothing here.
 */

/** `rows_count` (account-days summed), money, followers, the engagement denominator, then every flow. */
export const ROLLUP_METRICS = ['rows_count', 'revenue_micros', 'followers', 'engagement_denominator', ...SUMMED_METRICS] as const
export type RollupMetric = (typeof ROLLUP_METRICS)[number]

const REACH_PLATFORMS = PLATFORM_CODES.filter((code) => ENGAGEMENT_DENOMINATOR[code] === 'reach').map((code) => `'${code}'`).join(', ')

/** What each account-day adds to a metric, in SQL over raw rows aliased `d` (followers: its own rule). */
export function rawContribution (metric: RollupMetric): string {
  switch (metric) {
    case 'rows_count': return '1'
    case 'engagement_denominator': return `case when d.platform in (${REACH_PLATFORMS}) then d.reach else d.views end`
    default: return `d.${metric}`
  }
}

/** `sum(<each metric's contribution>)` over raw rows aliased `d`, in the order given. */
export function rawSums (metrics: readonly RollupMetric[] = ROLLUP_METRICS): string {
  return metrics.map((metric) => metric === 'rows_count' ? 'count(*)' : `sum(${rawContribution(metric)})`).join(', ')
}

/** `sum(alias.metric)` of rollup rows, in ROLLUP_METRICS order. */
export function rollupSums (alias: string, cast = ''): string {
  return ROLLUP_METRICS.map((metric) => `sum(${alias}.${metric})${cast}`).join(', ')
}

export const METRIC_LIST = ROLLUP_METRICS.join(', ')
