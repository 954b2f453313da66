import { centsToAmount, microsToCents, roundedRatio } from '../analytics/rounding.js'
import { ENGAGEMENT_DENOMINATOR, metricAppliesTo } from '../domain/metrics.js'
import { PLATFORM_NAMES, type PlatformCode } from '../domain/platforms.js'
import type { PostPageRow } from './posts.query.js'

/**
 * One stored post version → the post record of DECISIONS.md §7, with exactly its fields: the
 * metrics a platform lacks are absent, those it has but the import left out are null.
 */

/** Post metrics that only some platforms report (SPEC.md platform-specific table). */
const PLATFORM_SPECIFIC = ['likes', 'comments', 'shares', 'reach', 'impressions'] as const

export type PostRecord = Record<string, string | number | null>

export interface RecordOptions {
  topics: boolean
  category: boolean
}

const count = (value: number | null): number | null => value === null ? null : Number(value)

/** `2026-11-21T10:30:00Z`, whichever way the store returned the instant. */
function toWholeSecondUtc (value: string): string {
  return new Date(value).toISOString().slice(0, 19) + 'Z'
}

/**
 * The analytics formula on one post: interactions / (reach or views, by platform), half-up to 6
 * decimals, 0 when the denominator is 0, null when either side was not imported.
 */
export function postEngagementRate (platform: PlatformCode, interactions: number | null, reach: number | null, views: number | null): number | null {
  const denominator = ENGAGEMENT_DENOMINATOR[platform] === 'reach' ? reach : views
  if (interactions === null || denominator === null) return null
  return roundedRatio(interactions, denominator, 6)
}

export function toPostRecord (row: PostPageRow, options: RecordOptions): PostRecord {
  const platform = row.platform
  const interactions = count(row.interactions)
  const record: PostRecord = {
    id: row.id,
    platform: PLATFORM_NAMES[platform],
    account_id: Number(row.account_id),
    account_name: row.account_name,
    brand_id: Number(row.brand_id),
    created_time: toWholeSecondUtc(row.created_time),
    type: row.type,
    post_type: row.post_type,
    title: row.title,
    description: row.description,
    permalink: row.permalink,
    thumbnail_url: row.thumbnail_url,
    views: count(row.views),
  }
  for (const metric of PLATFORM_SPECIFIC) {
    if (metricAppliesTo(metric, platform)) record[metric] = count(row[metric])
  }
  record.interactions = interactions
  record.total_interactions = interactions
  record.revenue = row.revenue_micros === null ? null : centsToAmount(microsToCents(Number(row.revenue_micros)))
  record.engagement_rate = postEngagementRate(platform, interactions, count(row.reach), count(row.views))
  if (options.topics) record.subjects = row.subjects
  if (options.category) record.category = row.category
  return record
}
