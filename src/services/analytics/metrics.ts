import type { GroupRow, ReportType } from '../../domain/analytics.js'
import type { PlatformCode } from '../../domain/platforms.js'
import { PLATFORM_METRIC_NAMES, metricAppliesTo, type PlatformMetric } from '../../domain/metrics.js'
import { centsToAmount, microsToCents, roundedRatio } from '../../domain/rounding.js'

/**
 * The metric half of every entry: one summed group row → the metric fields (docs/api-reference.md "GET /analytics/": field
 * presence by platform scope, revenue null vs 0, posts_per_day, engagement rate, half-up rounding).
 */

type Report = ReportType

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
