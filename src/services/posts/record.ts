import { formatUtcSeconds } from '../../domain/dates.js'
import { ENGAGEMENT_DENOMINATOR } from '../../domain/metrics.js'
import { PLATFORM_NAMES, type PlatformCode } from '../../domain/platforms.js'
import { POST_COUNT_METRICS, POST_TEXT_FIELDS, postMetricAppliesTo } from '../../domain/post-fields.js'
import type { PostRecord } from '../../domain/posts.js'
import { centsToAmount, microsToCents, roundedRatio } from '../../domain/rounding.js'
import type { PostPageRow } from '../../storage/queries/posts-page.query.js'

/**
 * One stored post version → the post record of docs/posts.md, with exactly its fields: the
 * metrics a platform lacks are absent, those it has but the import left out are null.
 */

export interface RecordOptions {
  topics: boolean
  category: boolean
}

const count = (value: number | null): number | null => value === null ? null : Number(value)

/**
 * The analytics formula on one post: interactions / (reach or views, by platform), half-up to 6
 * decimals, 0 when the denominator is 0, null when either side was not imported.
 */
export function postEngagementRate (platform: PlatformCode, interactions: number | null, reach: number | null, views: number | null): number | null {
  const denominator = ENGAGEMENT_DENOMINATOR[platform] === 'reach' ? reach : views
  if (interactions === null || denominator === null) return null
  return roundedRatio(interactions, denominator, 6)
}

/** Texts shown only when asked for (`topics=true`, `category=true`). */
const OPTIONAL_TEXTS = { subjects: 'topics', category: 'category' } as const

export function toPostRecord (row: PostPageRow, options: RecordOptions): PostRecord {
  const platform = row.platform
  const record: PostRecord = {
    id: row.id,
    platform: PLATFORM_NAMES[platform],
    account_id: Number(row.account_id),
    account_name: row.account_name,
    brand_id: Number(row.brand_id),
    created_time: formatUtcSeconds(row.created_time),
    type: row.type,
    post_type: row.post_type,
  }
  for (const field of POST_TEXT_FIELDS) {
    const askedBy = (OPTIONAL_TEXTS as Record<string, 'topics' | 'category'>)[field]
    if (askedBy === undefined || options[askedBy]) record[field] = row[field]
  }
  for (const metric of POST_COUNT_METRICS) {
    if (postMetricAppliesTo(metric, platform)) record[metric] = count(row[metric])
  }
  record.total_interactions = count(row.interactions)
  record.revenue = row.revenue_micros === null ? null : centsToAmount(microsToCents(Number(row.revenue_micros)))
  record.engagement_rate = postEngagementRate(platform, count(row.interactions), count(row.reach), count(row.views))
  return record
}
