import type { PlatformCode } from './platforms.js'
import type { Period } from './period.js'
import type { PostType } from './post-types.js'

/**
 * The posts listing as the service sees it (docs/posts.md): what is asked, how a page walk
 * continues, and the page handed back to HTTP (which turns walks into cursors).
 */

export const ORDER_BY_VALUES = ['created_time', 'interactions', 'revenue', 'reach', 'views', 'engagement_rate'] as const
export type OrderBy = (typeof ORDER_BY_VALUES)[number]
export const ORDER_VALUES = ['desc', 'asc'] as const
export type Order = (typeof ORDER_VALUES)[number]

export const POSTS_DEFAULT_LIMIT = 10
export const POSTS_MAX_LIMIT = 50

/**
 * How long a /posts page walk may last, and so how long replaced post versions are kept.
 * A walk reads posts as of its first page (docs/posts.md); the versions it may need live in
 * post_history until the import prunes them. Cursors older than the walk limit are refused (422),
 * so history older than that (plus a margin for clock skew between app and database) is dead.
 */
export const POSTS_WALK_MAX_AGE_SECONDS = 24 * 60 * 60
export const POST_HISTORY_RETENTION_SECONDS = POSTS_WALK_MAX_AGE_SECONDS + 60 * 60

export interface PostsRequest {
  /** The period as resolved now (defaults applied); a continued walk keeps its first page's. */
  period: Period
  brandIds: number[] | undefined
  accountIds: number[] | undefined
  platforms: PlatformCode[] | undefined
  /** Categories, in catalogue order; undefined = every category. */
  postTypes: PostType[] | undefined
  orderBy: OrderBy
  order: Order
  limit: number
  topics: boolean
  category: boolean
}

/** Where the previous page ended, in the walk's total order. */
export interface PostPosition {
  /** The last record's sort value as it was served (null sorts last). */
  value: string | number | null
  id: string
  platformRank: number
}

/** Everything the next page of a walk needs. */
export interface PostsWalk {
  /** Posts are read as of this revision of the post clock (the first page's). */
  snapshot: number
  /** Unix seconds when the first page was served; walks older than a day are refused. */
  startedAt: number
  period: Period
  after: PostPosition
}

/** One post as the API shows it: exactly the fields of docs/posts.md for its platform. */
export type PostRecord = Record<string, string | number | null>

export interface PostsPage {
  records: PostRecord[]
  period: Period
  platforms: PlatformCode[] | undefined
  brandIds: number[]
  singleBrandId: number | undefined
  /** Set when another page exists. */
  next?: PostsWalk | undefined
}
