import type { Kysely } from 'kysely'
import type { FeedPage, FeedRequest } from '../../domain/change-feed.js'
import { renderChangeEvent } from '../../domain/changes.js'
import { formatUtcSeconds } from '../../domain/dates.js'
import { AppError } from '../../domain/errors.js'
import { readChangeClock } from '../../storage/changes/change-log.repository.js'
import { findFirstEventAfterSync, readFeedPage, type FeedPageQuery, type FeedRow } from '../../storage/changes/change-feed.query.js'
import type { Database } from '../../storage/database.js'
import type { Store } from '../../storage/db.js'
import { countBrands } from '../../storage/repositories/brands.repository.js'
import { listGrantedBrandIds } from '../../storage/repositories/users.repository.js'

/**
 * GET /changes (docs/api-reference.md "Change feed"): one page of the events a user may see now,
 * after a position. Each page is one statement (storage/changes/change-feed.query.ts) that
 * examines at most FEED_WINDOW event numbers, so its work is bounded whatever the log holds; a
 * page can therefore be short, even empty, while `hasMore` is true. Within the window, a user
 * with a small share of the brands is read by one ordered index seek per brand (at most
 * limit + 1 events each, only its own), others by a walk of the log in event order.
 *
 * Grants are read fresh, not through the access service's 2 s cache, and checked again inside
 * that statement: the feed promises that a user never sees an event of a brand it cannot see at
 * the time of the request, and a user that has just read its own `access.revoked` must not be
 * shown events of that brand committed after it.
 */

/** Event numbers one page may examine after its position, either way it reads. */
export const FEED_WINDOW = 10_000

/**
 * A page reads each brand's events through its index and merges them (reading only those brands'
 * events) when the brands (granted, or named by brand_id) are at most PER_BRAND_MAX and at most
 * one in PER_BRAND_SHARE of all brands: their events are then sparse in the log, and a walk would
 * pass over many others' events for each of theirs. Otherwise the walk is cheaper (measured in
 * docs/benchmarks.md "GET /changes"). The count of all brands is read at most every
 * BRAND_COUNT_TTL_MS: it only chooses between two correct plans.
 */
export const PER_BRAND_MAX = 20
export const PER_BRAND_SHARE = 20
const BRAND_COUNT_TTL_MS = 60_000

/** Whether a page of a user with `brands` brands, of `allBrands` in the store, reads each brand by its index. */
export function readsPerBrand (brands: number, allBrands: number): boolean {
  return brands <= PER_BRAND_MAX && brands * PER_BRAND_SHARE <= allBrands
}

const DAY_MS = 86_400_000

export interface ChangesService {
  /**
   * @throws AppError FORBIDDEN (a brand_id not accessible), CURSOR_EXPIRED (a position older
   * than the retention or before the purged events)
   */
  page: (userId: string, request: FeedRequest) => Promise<FeedPage>
}

export interface ChangesServiceDeps {
  store: Store
  retentionDays: number
  /** The wall clock, ms since the epoch. */
  now: () => number
  /**
   * The newest sync every reader can see (undefined: no limit). Events of later syncs are held
   * back — the page ends before the first of them — until it moves past them. Events without a
   * sync (access changes) are never held back for themselves, only wait behind a held-back event
   * (the order is kept, the cursor never skips). Supplied where the read replicas are known.
   */
  visibleThroughSyncId?: () => number | undefined
}

export function createChangesService (deps: ChangesServiceDeps): ChangesService {
  const retentionMs = deps.retentionDays * DAY_MS
  let brandCount: { value: number, readAt: number } | undefined
  const allBrands = async (): Promise<number> => {
    const at = deps.now()
    if (brandCount === undefined || at - brandCount.readAt > BRAND_COUNT_TTL_MS || at < brandCount.readAt) brandCount = { value: await countBrands(deps.store.db), readAt: at }
    return brandCount.value
  }
  const strategyFor = async (brands: readonly number[]): Promise<FeedPageQuery['strategy']> =>
    readsPerBrand(brands.length, brands.length <= PER_BRAND_MAX ? await allBrands() : 0) ? { kind: 'brands', brandIds: brands } : { kind: 'walk' }
  return {
    // Read where partner reads go: a current read replica (it holds every sync and event that was
    // committed when it was last checked, and the grants and events read there are one consistent
    // state), or the primary (src/storage/replicas/).
    page: async (userId, request) => await deps.store.reads.run(async ({ db }) => {
      const granted = await listGrantedBrandIds(db, userId)
      if (request.brandIds !== undefined) requireAccessible(granted, request.brandIds)
      const visibleThrough = deps.visibleThroughSyncId?.()
      const { from } = request
      if (from.kind === 'latest') return { eventsJson: [], hasMore: false, position: await latestPosition(db, visibleThrough) }
      if (from.kind === 'after' && deps.now() - from.issuedAt > retentionMs) {
        throw cursorExpired(`This cursor was issued more than ${deps.retentionDays} days ago, longer than the change feed keeps events`)
      }
      const strategy = await strategyFor(request.brandIds ?? granted)
      const read = await readFeedPage(db, {
        userId,
        after: from.kind === 'after' ? from.eventNumber : 'purged',
        window: FEED_WINDOW,
        strategy,
        brandIds: request.brandIds,
        types: request.types,
        rows: request.limit + 1,
      })
      const after = from.kind === 'after' ? from.eventNumber : read.purgedThroughEventId
      if (after < read.purgedThroughEventId) throw cursorExpired('Events after this cursor have been removed by the retention')
      return pageOf(read.events, { after, windowEnd: after + FEED_WINDOW, head: read.lastEventId, limit: request.limit, visibleThrough })
    }),
  }
}

/**
 * The page among `events` (visible events after `after`, ascending, at most limit + 1 of them,
 * none beyond `windowEnd`): it ends before the first event held back, and its position is as far
 * as the read proves nothing visible was left behind.
 */
function pageOf (events: FeedRow[], at: { after: number, windowEnd: number, head: number, limit: number, visibleThrough: number | undefined }): FeedPage {
  const { after, windowEnd, head, limit, visibleThrough } = at
  const heldBack = visibleThrough === undefined ? -1 : events.findIndex((event) => event.syncId !== null && event.syncId > visibleThrough)
  if (heldBack !== -1) {
    // Everything before the held-back event was read; it and what follows wait for the next call.
    const shown = events.slice(0, heldBack)
    return { eventsJson: shown.map(render), hasMore: false, position: Math.max(after, (events[heldBack] as FeedRow).eventNumber - 1) }
  }
  if (events.length > limit) {
    const shown = events.slice(0, limit)
    return { eventsJson: shown.map(render), hasMore: true, position: (shown[shown.length - 1] as FeedRow).eventNumber }
  }
  // Fewer than a full page: every visible event up to the end of the window (or the head, if that
  // comes first) was read, so the position moves there (a quiet user keeps up with the log).
  return { eventsJson: events.map(render), hasMore: windowEnd < head, position: Math.max(after, Math.min(windowEnd, head)) }
}

function render (event: FeedRow): string {
  return renderChangeEvent({ ...event, createdAt: formatUtcSeconds(event.createdAt) })
}

/** The head of the log, or just before the first event of a sync not every reader has yet. */
async function latestPosition (db: Kysely<Database>, visibleThrough: number | undefined): Promise<number> {
  const { lastEventId } = await readChangeClock(db)
  if (visibleThrough === undefined) return lastEventId
  const firstHeldBack = await findFirstEventAfterSync(db, visibleThrough)
  return firstHeldBack === undefined ? lastEventId : Math.min(lastEventId, firstHeldBack - 1)
}

function requireAccessible (grants: readonly number[], brandIds: readonly number[]): void {
  const granted = new Set(grants)
  const forbidden = brandIds.filter((id) => !granted.has(id))
  if (forbidden.length > 0) throw new AppError('FORBIDDEN', `You do not have access to brand_id ${forbidden.join(', ')}`)
}

function cursorExpired (why: string): AppError {
  return new AppError('CURSOR_EXPIRED', `${why}. Resynchronise: read the data you keep again, then follow the feed from start=latest`)
}
