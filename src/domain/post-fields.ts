import { PLATFORM_METRICS, metricAppliesTo, type PlatformMetric } from './metrics.js'
import type { PlatformCode } from './platforms.js'

/**
 * The post field catalogue: every field of a post, in one place. The store's columns, the import's
 * accepted fields, the /posts record and its schema, and the demo generator all read these lists,
 * as daily metrics are read from src/domain/metrics.ts.
 */

/** Free texts of a post (null when not imported). */
export const POST_TEXT_FIELDS = ['title', 'description', 'permalink', 'thumbnail_url', 'subjects', 'category'] as const
export type PostTextField = (typeof POST_TEXT_FIELDS)[number]

/** Integer metrics of a post, in record order (the platform-specific ones where they apply); revenue is money and handled apart. */
export const POST_COUNT_METRICS = ['views', 'likes', 'comments', 'shares', 'reach', 'impressions', 'interactions'] as const
export type PostCountMetric = (typeof POST_COUNT_METRICS)[number]

function isPlatformMetric (metric: string): metric is PlatformMetric {
  return Object.hasOwn(PLATFORM_METRICS, metric)
}

/** The post metrics only some platforms have: they follow the daily catalogue's applicability. */
export const POST_PLATFORM_METRICS = POST_COUNT_METRICS.filter(isPlatformMetric)

/** Whether a post on this platform has the metric (views and interactions: every platform). */
export function postMetricAppliesTo (metric: PostCountMetric, platform: PlatformCode): boolean {
  return !isPlatformMetric(metric) || metricAppliesTo(metric, platform)
}

/** The stored columns of one version of a post, key first, in write order. */
export const POST_COLUMNS = [
  'platform', 'id', 'account_id', 'created_time', 'type', 'post_type',
  ...POST_TEXT_FIELDS, ...POST_COUNT_METRICS, 'revenue_micros',
] as const
export type PostColumn = (typeof POST_COLUMNS)[number]
