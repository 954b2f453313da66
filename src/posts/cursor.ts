import { POSTS_WALK_MAX_AGE_SECONDS } from '../domain/posts-walk.js'
import { issue, validationError } from '../errors.js'
import type { CursorCodec } from '../http/cursor.js'
import type { Period } from '../http/params.js'
import type { PostsRequest } from './params.js'

/**
 * What a /posts cursor carries and what it is bound to. The payload holds everything the next
 * page needs to continue the same walk: the snapshot revision of the first page, the period it
 * resolved (so a walk that crosses midnight keeps its default period), and the position after
 * which to continue — the last record's sort value *as served*, plus its key.
 */

/** Where the previous page ended, in the walk's total order. */
export interface PostPosition {
  /** The last record's sort value as it was served (null sorts last). */
  value: string | number | null
  id: string
  platformRank: number
}

export interface PostsWalk {
  /** Posts are read as of this revision of the post clock (the first page's). */
  snapshot: number
  /** Unix seconds when the first page was served; walks older than a day are refused. */
  startedAt: number
  period: Period
  after: PostPosition
}

/**
 * The normalised query a cursor is valid for: every parameter but `limit` and `cursor`, after
 * parsing (so `05`/`5`, `FB`/`facebook`, `Reels`/`reel` bind alike). since/until are bound as given.
 */
export function cursorBinding (request: PostsRequest): unknown {
  return {
    since: request.givenSince ?? null,
    until: request.givenUntil ?? null,
    brand_id: request.brandIds ?? null,
    account_id: request.accountIds ?? null,
    platform: request.platforms ?? null,
    post_type: request.postTypes ?? null,
    order_by: request.orderBy,
    order: request.order,
    topics: request.topics,
    category: request.category,
  }
}

export function encodePostsCursor (cursors: CursorCodec, request: PostsRequest, walk: PostsWalk): string {
  const { snapshot, startedAt, period, after } = walk
  return cursors.encode([snapshot, startedAt, period.since, period.until, after.value, after.id, after.platformRank], cursorBinding(request))
}

const DATE = /^\d{4}-\d{2}-\d{2}$/

function walkFrom (payload: unknown): PostsWalk | undefined {
  if (!Array.isArray(payload) || payload.length !== 7) return undefined
  const [snapshot, startedAt, since, until, value, id, platformRank] = payload as unknown[]
  if (!Number.isSafeInteger(snapshot) || !Number.isSafeInteger(startedAt) || !Number.isSafeInteger(platformRank)) return undefined
  if (typeof since !== 'string' || !DATE.test(since) || typeof until !== 'string' || !DATE.test(until)) return undefined
  if (typeof id !== 'string') return undefined
  if (value !== null && typeof value !== 'string' && !Number.isSafeInteger(value)) return undefined
  return {
    snapshot: snapshot as number,
    startedAt: startedAt as number,
    period: { since, until },
    after: { value: value as string | number | null, id, platformRank: platformRank as number },
  }
}

/** @throws AppError VALIDATION_ERROR on `cursor` when it is garbage, edited, from another query or too old */
export function decodePostsCursor (cursors: CursorCodec, request: PostsRequest, cursor: string, nowSeconds = unixSeconds()): PostsWalk {
  const walk = walkFrom(cursors.decode(cursor, cursorBinding(request)))
  if (walk === undefined) {
    throw validationError([issue(['query', 'cursor'], 'Invalid cursor: use the next_cursor of a response to this same query', 'cursor_invalid')])
  }
  if (nowSeconds - walk.startedAt > POSTS_WALK_MAX_AGE_SECONDS) {
    throw validationError([issue(['query', 'cursor'], 'Cursor expired: a page walk must finish within 24 hours; start again from the first page', 'cursor_expired', { max_age_seconds: POSTS_WALK_MAX_AGE_SECONDS })])
  }
  return walk
}

export function unixSeconds (): number {
  return Math.floor(Date.now() / 1000)
}
