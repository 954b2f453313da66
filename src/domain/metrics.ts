import { PLATFORM_CODES, type PlatformCode } from './platforms.js'

/**
 * The metric catalogue of docs/api-reference.md: core daily fields and platform-specific fields with the
 * platforms they apply to. Storage columns, import validation and analytics field presence
 * are all derived from these lists.
 */

/** Integer core metrics of a daily row (revenue is money and handled apart). */
export const CORE_COUNT_METRICS = ['views', 'followers', 'new_followers', 'posts_count', 'interactions'] as const
export type CoreCountMetric = (typeof CORE_COUNT_METRICS)[number]

/** Platform-specific integer metrics and the platforms that report them (docs/api-reference.md table). */
export const PLATFORM_METRICS = {
  video_views_3s: ['fb'],
  video_views_2s: ['pi'],
  views_video: ['ig', 'tk', 'yt', 'sc', 'li', 'th', 'da'],
  reach: ['fb', 'ig', 'sc', 'li'],
  impressions: ['fb', 'li', 'da', 'pi'],
  ad_reach: ['fb', 'ig'],
  likes: ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'da', 'pi'],
  shares: ['fb', 'ig', 'tk', 'yt', 'sc', 'li', 'th'],
  comments: ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'pi'],
  views_organic: ['fb', 'ig'],
  views_paid: ['fb', 'ig'],
  link_clicks: ['fb', 'li'],
} as const satisfies Record<string, readonly PlatformCode[]>

export type PlatformMetric = keyof typeof PLATFORM_METRICS
export const PLATFORM_METRIC_NAMES = Object.keys(PLATFORM_METRICS) as PlatformMetric[]

/** Every integer metric column of the daily table, in a stable order. */
export const DAILY_COUNT_METRICS = [...CORE_COUNT_METRICS, ...PLATFORM_METRIC_NAMES] as const

/** Flow metrics summed as-is over a group's rows (followers and revenue have their own rules). */
export const SUMMED_METRICS = ['views', 'new_followers', 'posts_count', 'interactions', ...PLATFORM_METRIC_NAMES] as const

export function metricAppliesTo (metric: PlatformMetric, platform: PlatformCode): boolean {
  return (PLATFORM_METRICS[metric] as readonly PlatformCode[]).includes(platform)
}

/** The platform-specific metrics a platform reports, in catalogue order. */
export function platformMetricsOf (platform: PlatformCode): PlatformMetric[] {
  return PLATFORM_METRIC_NAMES.filter((metric) => metricAppliesTo(metric, platform))
}

/**
 * Engagement denominator (docs/api-reference.md "GET /analytics/"): reach for fb, ig, sc, li; views for the others.
 */
export const ENGAGEMENT_DENOMINATOR: Record<PlatformCode, 'reach' | 'views'> = Object.fromEntries(
  PLATFORM_CODES.map((code) => [code, ['fb', 'ig', 'sc', 'li'].includes(code) ? 'reach' : 'views']),
) as Record<PlatformCode, 'reach' | 'views'>
