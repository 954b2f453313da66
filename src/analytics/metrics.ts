import { sql, type RawBuilder } from 'kysely'
import { PLATFORM_CODES, type PlatformCode } from '../domain/platforms.js'
import { ENGAGEMENT_DENOMINATOR, PLATFORM_METRIC_NAMES, metricAppliesTo, type PlatformMetric } from '../domain/metrics.js'
import { centsToAmount, microsToCents, roundedRatio } from './rounding.js'

/**
 * The metric half of every report: the SQL sums over a group's account-day rows, and the mapping
 * of one summed group row to the metric fields of an entry (DECISIONS.md §6: field presence by
 * platform scope, revenue null vs 0, posts_per_day, engagement rate, half-up rounding).
 */

export type Report = 'daily' | 'monthly' | 'agg'

/** Flow metrics summed as-is over the group's rows (followers and revenue have their own rules). */
export const SUMMED_METRICS = ['views', 'new_followers', 'posts_count', 'interactions', ...PLATFORM_METRIC_NAMES] as const
export type SummedMetric = (typeof SUMMED_METRICS)[number]

/** One group as the store returns it: keys, then sums (null when no row reported the metric). */
export type GroupRow = {
  /** Day (`YYYY-MM-DD`), month (`YYYY-MM`) or '' for the whole period. */
  bucket: string
  /** brand_id or account_id; 0 when the report is not grouped by either. */
  group_id: number
  /** Canonical platform index; 0 when the report is not grouped by platform. */
  platform_rank: number
  revenue_micros: number | null
  followers: number | null
  /** Sum of reach (fb, ig, sc, li rows) and views (the other platforms' rows). */
  engagement_denominator: number | null
} & Record<SummedMetric, number | null>

/** Platforms whose engagement rate divides by reach; the others divide by views. */
const REACH_PLATFORMS = PLATFORM_CODES.filter((code) => ENGAGEMENT_DENOMINATOR[code] === 'reach')

/** Per row: the engagement denominator that row contributes. Platform codes are our constants. */
export function engagementDenominatorOfRow (platform: RawBuilder<unknown>, reach: RawBuilder<unknown>, views: RawBuilder<unknown>): RawBuilder<number | null> {
  const codes = sql.join(REACH_PLATFORMS.map((code) => sql.lit(code)))
  return sql<number | null>`case when ${platform} in (${codes}) then ${reach} else ${views} end`
}

/** Per row: the canonical rank of its platform, as a SQL CASE over our constant codes. */
export function platformRankOfRow (platform: RawBuilder<unknown>): RawBuilder<number> {
  const branches = PLATFORM_CODES.map((code, rank) => sql`when ${sql.lit(code)} then ${sql.lit(rank)}`)
  return sql<number>`case ${platform} ${sql.join(branches, sql` `)} end`
}

export interface EntryContext {
  report: Report
  /** The entry's own platform, when it has one; undefined means every platform is summed. */
  platform: PlatformCode | undefined
  /** Days of the entry's window inside [since, until] (monthly and agg posts_per_day). */
  days: number
}

/** The platform-specific fields an entry carries: those applying to a platform in its scope. */
export function platformFieldsFor (report: Report, platform: PlatformCode | undefined): PlatformMetric[] {
  return PLATFORM_METRIC_NAMES.filter((metric) =>
    (metric !== 'ad_reach' || report === 'daily') &&
    (platform === undefined || metricAppliesTo(metric, platform)))
}

export type MetricFields = Record<string, number | null>

/** The metric fields of one entry, in the order the contract lists them. */
export function toMetricFields (row: GroupRow, context: EntryContext): MetricFields {
  const count = (value: number | null): number => value === null ? 0 : Number(value)
  const postsCount = count(row.posts_count)
  const interactions = count(row.interactions)
  const revenue = row.revenue_micros === null
    ? (context.report === 'agg' ? null : 0)
    : centsToAmount(microsToCents(Number(row.revenue_micros)))
  const engagement = roundedRatio(interactions, count(row.engagement_denominator), 6)
  const fields: MetricFields = {
    revenue,
    views: count(row.views),
    followers: count(row.followers),
    new_followers: count(row.new_followers),
    posts_count: postsCount,
    posts_per_day: context.report === 'daily' ? postsCount : roundedRatio(postsCount, context.days, 2),
    interactions,
    engagement_rate: engagement,
    interaction_rate: engagement,
  }
  for (const metric of platformFieldsFor(context.report, context.platform)) fields[metric] = count(row[metric])
  return fields
}
