import { POSTS_WALK_MAX_AGE_SECONDS, type PostsRequest, type PostsWalk } from '../../domain/posts.js'
import type { CursorCodec } from './codec.js'

/**
 * The /posts cursor: everything the next page needs to continue the same walk — the snapshot
 * revision of the first page, when it started, the period it resolved (so a walk that crosses
 * midnight keeps its default period), and the last record's sort value as served plus its key.
 * It is bound to every parameter but `limit` and `cursor`, after parsing (so `05`/`5`,
 * `FB`/`facebook`, `Reels`/`reel` bind alike), with since/until as given.
 */

export interface PostsCursorBinding {
  request: PostsRequest
  /** since and until exactly as the query gave them (undefined when defaulted). */
  givenSince: string | undefined
  givenUntil: string | undefined
}

function binding ({ request, givenSince, givenUntil }: PostsCursorBinding): unknown {
  return {
    since: givenSince ?? null,
    until: givenUntil ?? null,
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

export function encodePostsCursor (codec: CursorCodec, bound: PostsCursorBinding, walk: PostsWalk): string {
  const { snapshot, startedAt, period, after } = walk
  return codec.encode([snapshot, startedAt, period.since, period.until, after.value, after.id, after.platformRank], binding(bound))
}

const DATE = /^\d{4}-\d{2}-\d{2}$/

export type DecodedWalk = { ok: true, walk: PostsWalk } | { ok: false, reason: 'invalid' | 'expired' }

/** The walk a cursor continues; `expired` once the walk is older than a day. */
export function decodePostsCursor (codec: CursorCodec, bound: PostsCursorBinding, cursor: string, nowSeconds: number): DecodedWalk {
  const payload = codec.decode(cursor, binding(bound))
  if (!Array.isArray(payload) || payload.length !== 7) return { ok: false, reason: 'invalid' }
  const [snapshot, startedAt, since, until, value, id, platformRank] = payload as unknown[]
  if (!Number.isSafeInteger(snapshot) || !Number.isSafeInteger(startedAt) || !Number.isSafeInteger(platformRank)) return { ok: false, reason: 'invalid' }
  if (typeof since !== 'string' || !DATE.test(since) || typeof until !== 'string' || !DATE.test(until)) return { ok: false, reason: 'invalid' }
  if (typeof id !== 'string') return { ok: false, reason: 'invalid' }
  if (value !== null && typeof value !== 'string' && !Number.isSafeInteger(value)) return { ok: false, reason: 'invalid' }
  if (nowSeconds - (startedAt as number) > POSTS_WALK_MAX_AGE_SECONDS) return { ok: false, reason: 'expired' }
  return {
    ok: true,
    walk: {
      snapshot: snapshot as number,
      startedAt: startedAt as number,
      period: { since, until },
      after: { value: value as string | number | null, id, platformRank: platformRank as number },
    },
  }
}
