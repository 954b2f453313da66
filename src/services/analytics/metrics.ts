import type { Entry, GroupRow, ReportType } from '../../domain/analytics.js'
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
export function platformFieldsFor (report: Report, platform: PlatformCode | undefined): readonly PlatformMetric[] {
  const key = `${report}:${platform ?? '*'}`
  let fields = PLATFORM_FIELDS.get(key)
  if (fields === undefined) {
    fields = PLATFORM_METRIC_NAMES.filter((metric) =>
      (metric !== 'ad_reach' || report === 'daily') &&
      (platform === undefined || metricAppliesTo(metric, platform)))
    PLATFORM_FIELDS.set(key, fields)
  }
  return fields
}

/** Computed once per report type and platform: the lists never change. */
const PLATFORM_FIELDS = new Map<string, readonly PlatformMetric[]>()

const count = (value: number | null): number => value === null ? 0 : Number(value)

/**
 * Writes the metric fields of one entry onto it, in the order the contract lists them (after the
 * key fields the caller has set): one object per entry, built field by field in the same order
 * every time, so every entry of a report shares one shape.
 */
export function writeMetricFields (entry: Entry, row: GroupRow, context: EntryContext): Entry {
  const postsCount = count(row.posts_count)
  const interactions = count(row.interactions)
  const engagement = roundedRatio(interactions, count(row.engagement_denominator), 6)
  entry.revenue = row.revenue_micros === null
    ? (context.report === 'agg' ? null : 0)
    : centsToAmount(microsToCents(Number(row.revenue_micros)))
  entry.views = count(row.views)
  entry.followers = count(row.followers)
  entry.new_followers = count(row.new_followers)
  entry.posts_count = postsCount
  entry.posts_per_day = context.report === 'daily' ? postsCount : roundedRatio(postsCount, context.days, 2)
  entry.interactions = interactions
  entry.engagement_rate = engagement
  entry.interaction_rate = engagement
  for (const metric of platformFieldsFor(context.report, context.platform)) entry[metric] = count(row[metric])
  return entry
}
