import type { Scope } from '../access/scope.js'
import type { PlatformCode } from '../domain/platforms.js'
import type { CursorCodec } from '../http/cursor.js'
import type { Period } from '../http/params.js'
import type { Store } from '../storage/db.js'
import { decodePostsCursor, encodePostsCursor, unixSeconds, type PostsWalk } from './cursor.js'
import type { PostsRequest } from './params.js'
import { buildPostsPageQuery, readPostClock } from './posts.query.js'
import { toPostRecord, type PostRecord } from './record.js'

/**
 * GET /posts below HTTP: given a parsed request and its resolved scope, read one page of the
 * walk (a new one, or the one its cursor continues) and shape the envelope of DECISIONS.md §7.
 */

export interface PostsEnvelope {
  data: PostRecord[]
  total: number
  since: string
  until: string
  platforms: PlatformCode[] | 'all'
  brand_ids: number[]
  brand_id?: number
  next_cursor: string | null
}

/**
 * The walk a request continues, or undefined for a first page. Run before access checks: a bad
 * cursor is a 422, and 422 comes before 400/403/404 (DECISIONS.md §3).
 * @throws AppError VALIDATION_ERROR on `cursor`
 */
export function continuedWalk (request: PostsRequest, cursors: CursorCodec): PostsWalk | undefined {
  return request.cursor === undefined ? undefined : decodePostsCursor(cursors, request, request.cursor)
}

/** One page: of a new walk (continued undefined) or of the walk a cursor continues. */
export async function fetchPosts (store: Store, request: PostsRequest, scope: Scope, cursors: CursorCodec, continued: PostsWalk | undefined): Promise<PostsEnvelope> {
  const period: Period = continued?.period ?? request.period
  const snapshot = continued?.snapshot ?? await readPostClock(store.db)
  const startedAt = continued?.startedAt ?? unixSeconds()

  // A user with no brands has nothing to read (and `in ()` is not valid SQL).
  const rows = scope.brandIds.length === 0
    ? []
    : await buildPostsPageQuery(store.db, {
      dialect: store.dialect,
      scope,
      period,
      postTypes: request.postTypes,
      orderBy: request.orderBy,
      order: request.order,
      fetch: request.limit + 1,
      snapshot,
      after: continued?.after,
    }).execute()

  const page = rows.slice(0, request.limit)
  const last = page.at(-1)
  const walk: PostsWalk | undefined = rows.length > request.limit && last !== undefined
    ? { snapshot, startedAt, period, after: { value: last.sort_value, id: last.id, platformRank: Number(last.platform_rank) } }
    : undefined
  const envelope: PostsEnvelope = {
    data: page.map((row) => toPostRecord(row, request)),
    total: page.length,
    since: period.since,
    until: period.until,
    platforms: request.platforms ?? 'all',
    brand_ids: scope.brandIds,
    next_cursor: walk === undefined ? null : encodePostsCursor(cursors, request, walk),
  }
  if (scope.singleBrandId !== undefined) envelope.brand_id = scope.singleBrandId
  return envelope
}
