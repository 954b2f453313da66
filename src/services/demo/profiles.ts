import type { PlatformCode } from '../../domain/platforms.js'

/**
 * How each platform behaves in the demo data. The numbers are orders of magnitude seen on real
 * brand accounts, not measurements: enough that YouTube views dwarf LinkedIn's, that LinkedIn
 * sleeps at weekends and TikTok does not, and that engagement rates land where they usually do.
 * Ranges are [min, max); the generator draws each account's own value once.
 */

export interface PostTypeProfile {
  /** The platform's own type string, as its API reports it. */
  type: string
  /** Relative frequency among the account's posts. */
  weight: number
  /** Views of one such post relative to the account's typical post. */
  reachFactor: number
  /** False for formats without a picture (a text post), which then have no thumbnail. */
  hasThumbnail: boolean
}

export interface PlatformProfile {
  /** Followers when the window starts (log-uniform). */
  followers: readonly [number, number]
  /** Net follower growth per day, as a fraction of followers. */
  dailyGrowth: readonly [number, number]
  /** Daily views per follower. */
  viewsPerFollower: readonly [number, number]
  /** Unique reach per view (reach ≤ impressions): only where `reach` applies. */
  reachPerView: readonly [number, number]
  /** Impressions per view, ≥ 1: only where `impressions` applies. */
  impressionsPerView: readonly [number, number]
  /** Share of views that are video views (views_video, video_views_3s, video_views_2s). */
  videoShare: readonly [number, number]
  /** Interactions / engagement denominator (reach or views, docs/api-reference.md "GET /analytics/"). */
  engagement: readonly [number, number]
  /** How interactions split between likes, comments and shares, where they apply. */
  split: { likes: number, comments: number, shares: number }
  /** Mean posts per day. */
  postsPerDay: number
  /** Activity by UTC weekday, Sunday first (Date#getUTCDay order). */
  weekday: readonly [number, number, number, number, number, number, number]
  /** Chance that an account on this platform is monetised (reports revenue). */
  monetisedChance: number
  /** Revenue per 1000 views, in currency units, for monetised accounts. */
  rpm: readonly [number, number]
  postTypes: readonly PostTypeProfile[]
}

/** A post type; its category (`post_type`) comes from the import's own table, src/domain/post-types.ts. */
function postType (type: string, weight: number, reachFactor = 1, hasThumbnail = true): PostTypeProfile {
  return { type, weight, reachFactor, hasThumbnail }
}

export const PLATFORM_PROFILES: Record<PlatformCode, PlatformProfile> = {
  fb: {
    followers: [5_000, 2_000_000],
    dailyGrowth: [0.0001, 0.0012],
    viewsPerFollower: [0.03, 0.15],
    reachPerView: [0.55, 0.8],
    impressionsPerView: [1.1, 1.6],
    videoShare: [0.2, 0.45],
    engagement: [0.01, 0.04],
    split: { likes: 0.78, comments: 0.1, shares: 0.12 },
    postsPerDay: 1.4,
    weekday: [0.9, 1.02, 1.05, 1.05, 1.04, 1.0, 0.92],
    monetisedChance: 0.5,
    rpm: [0.4, 2.0],
    postTypes: [postType('video_inline', 3, 1.4), postType('photo', 5), postType('link', 3, 0.6), postType('status', 1, 0.4, false)],
  },
  ig: {
    followers: [10_000, 3_000_000],
    dailyGrowth: [0.0002, 0.002],
    viewsPerFollower: [0.05, 0.3],
    reachPerView: [0.5, 0.8],
    impressionsPerView: [1, 1],
    videoShare: [0.3, 0.6],
    engagement: [0.02, 0.06],
    split: { likes: 0.9, comments: 0.06, shares: 0.04 },
    postsPerDay: 1.0,
    weekday: [1.06, 0.96, 0.98, 1.0, 1.0, 0.98, 1.04],
    monetisedChance: 0.3,
    rpm: [0.05, 0.3],
    postTypes: [postType('REELS', 4, 1.8), postType('IMAGE', 3), postType('CAROUSEL_ALBUM', 2, 1.2), postType('STORY', 3, 0.35)],
  },
  tk: {
    followers: [5_000, 5_000_000],
    dailyGrowth: [0.0005, 0.004],
    viewsPerFollower: [0.1, 1.0],
    reachPerView: [1, 1],
    impressionsPerView: [1, 1],
    videoShare: [0.92, 0.99],
    engagement: [0.04, 0.09],
    split: { likes: 0.86, comments: 0.05, shares: 0.09 },
    postsPerDay: 1.2,
    weekday: [1.15, 0.9, 0.9, 0.94, 0.96, 1.02, 1.13],
    monetisedChance: 0.35,
    rpm: [0.02, 0.06],
    postTypes: [postType('video', 1)],
  },
  yt: {
    followers: [10_000, 10_000_000],
    dailyGrowth: [0.0002, 0.0015],
    viewsPerFollower: [0.05, 0.5],
    reachPerView: [1, 1],
    impressionsPerView: [1, 1],
    videoShare: [0.97, 1],
    engagement: [0.02, 0.05],
    split: { likes: 0.9, comments: 0.07, shares: 0.03 },
    postsPerDay: 0.35,
    weekday: [1.15, 0.92, 0.92, 0.93, 0.95, 1.0, 1.13],
    monetisedChance: 0.75,
    rpm: [1.5, 6.0],
    postTypes: [postType('video', 3, 1.5), postType('short', 2, 0.8)],
  },
  li: {
    followers: [1_000, 300_000],
    dailyGrowth: [0.0003, 0.002],
    viewsPerFollower: [0.005, 0.05],
    reachPerView: [0.5, 0.75],
    impressionsPerView: [1.2, 1.8],
    videoShare: [0.05, 0.25],
    engagement: [0.01, 0.04],
    split: { likes: 0.82, comments: 0.1, shares: 0.08 },
    postsPerDay: 0.5,
    weekday: [0.45, 1.15, 1.25, 1.25, 1.2, 1.0, 0.5],
    monetisedChance: 0,
    rpm: [0, 0],
    postTypes: [postType('article', 2, 0.7), postType('document', 1, 1.3), postType('image', 3), postType('video', 1, 1.2)],
  },
  th: {
    followers: [1_000, 500_000],
    dailyGrowth: [0.0005, 0.003],
    viewsPerFollower: [0.02, 0.2],
    reachPerView: [1, 1],
    impressionsPerView: [1, 1],
    videoShare: [0.05, 0.2],
    engagement: [0.02, 0.06],
    split: { likes: 0.8, comments: 0.12, shares: 0.08 },
    postsPerDay: 1.2,
    weekday: [0.95, 1.0, 1.04, 1.05, 1.02, 0.98, 0.96],
    monetisedChance: 0,
    rpm: [0, 0],
    postTypes: [postType('text', 3, 0.8, false), postType('image', 2, 1.2)],
  },
  sc: {
    followers: [1_000, 1_000_000],
    dailyGrowth: [0.0002, 0.002],
    viewsPerFollower: [0.05, 0.4],
    reachPerView: [0.6, 0.85],
    impressionsPerView: [1, 1],
    videoShare: [0.6, 0.85],
    engagement: [0.004, 0.015],
    split: { likes: 0, comments: 0, shares: 1 },
    postsPerDay: 1.5,
    weekday: [1.1, 0.95, 0.95, 0.95, 1.0, 1.05, 1.1],
    monetisedChance: 0.4,
    rpm: [0.2, 0.8],
    postTypes: [postType('story', 4, 0.7), postType('spotlight', 1, 2.2)],
  },
  da: {
    followers: [1_000, 500_000],
    dailyGrowth: [0.0001, 0.001],
    viewsPerFollower: [0.05, 0.5],
    reachPerView: [1, 1],
    impressionsPerView: [2, 4],
    videoShare: [0.95, 1],
    engagement: [0.003, 0.01],
    split: { likes: 1, comments: 0, shares: 0 },
    postsPerDay: 0.6,
    weekday: [1.05, 0.98, 0.98, 0.98, 0.99, 1.0, 1.04],
    monetisedChance: 0.6,
    rpm: [0.5, 1.5],
    postTypes: [postType('video', 1)],
  },
  pi: {
    followers: [1_000, 800_000],
    dailyGrowth: [0.0002, 0.0015],
    viewsPerFollower: [0.2, 2.0],
    reachPerView: [1, 1],
    impressionsPerView: [3, 8],
    videoShare: [0.05, 0.2],
    engagement: [0.003, 0.01],
    split: { likes: 0.92, comments: 0.08, shares: 0 },
    postsPerDay: 2.0,
    weekday: [1.2, 0.95, 0.95, 0.95, 0.95, 0.96, 1.1],
    monetisedChance: 0,
    rpm: [0, 0],
    postTypes: [postType('pin', 4), postType('video_pin', 1, 1.3)],
  },
}
