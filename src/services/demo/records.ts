import type { PlatformCode } from '../../domain/platforms.js'
import type { PlatformMetric } from '../../domain/metrics.js'

/**
 * The import records the demo generator emits: the NDJSON record shapes of README.md "Operator CLI",
 * field for field. Properties are created in the order shown there (`kind` first), which is
 * the order JSON.stringify writes them.
 */

export interface BrandRecord {
  kind: 'brand'
  brand_id: number
  brand_name: string
}

export interface AccountRecord {
  kind: 'account'
  account_id: number
  brand_id: number
  platform: PlatformCode
  account_name: string
  network_id: string
  storage_avatar: string
  permalink: string
}

/** A metric that was not reported is null; a field that does not apply is absent. */
export type DailyRecord = {
  kind: 'daily'
  platform: PlatformCode
  account_id: number
  date: string
  views: number | null
  /** Money with at most 2 decimals; null when the account has no revenue or it was not reported. */
  revenue: number | null
  followers: number | null
  new_followers: number | null
  posts_count: number | null
  interactions: number | null
} & Partial<Record<PlatformMetric, number | null>>

export type PostMetric = 'views' | 'likes' | 'comments' | 'shares' | 'interactions' | 'reach' | 'impressions' | 'revenue'

export type PostRecord = {
  kind: 'post'
  id: string
  platform: PlatformCode
  account_id: number
  /** `2026-11-21T10:30:00Z` */
  created_time: string
  /** The platform's own type, e.g. `REELS`, `video_inline`. */
  type: string
  /** Left out on some posts so the import derives it from `type`. */
  post_type?: string
  title: string | null
  description: string | null
  permalink: string
  thumbnail_url: string | null
  subjects: string | null
  category: string | null
} & Partial<Record<PostMetric, number | null>>

export type DemoRecord = BrandRecord | AccountRecord | DailyRecord | PostRecord
export type DemoRecordKind = DemoRecord['kind']
