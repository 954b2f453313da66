import { sql, type Expression, type Kysely } from 'kysely'
import type { Database } from '../database.js'

/**
 * The reads of GET /changes (docs/api-reference.md "Change feed"; docs/storage.md "Syncs and the
 * change feed"). A page is ONE statement: the clock row (newest event number, purge watermark)
 * left-joined with the page's events. One statement is one snapshot in both stores, so the
 * watermark, the head and the events agree: every event up to the head that the snapshot does not
 * show was purged (and the watermark says so), and since numbers are handed out in commit order
 * (change-log.repository.ts), none can still be on its way below the head.
 *
 * Visibility is read in the same statement from `user_brands` (never from a cache): an event of a
 * brand is shown only while the user holds a grant on it, old events included; an `access.*`
 * event only to the user it is addressed to.
 */

export interface FeedPageQuery {
  userId: string
  /** Events after this number; 'purged': after the purge watermark (the oldest event still kept). */
  after: number | 'purged'
  /**
   * Only events up to after + window are examined: the work of a page is bounded whatever the
   * log holds and whatever share of it the user sees.
   */
  window: number
  /**
   * How the visible events are found:
   * - `walk`: the log in event order from `after`, keeping the events of the brands the user holds
   *   now (for many brands, whose events are dense in the log);
   * - `brands`: one ordered index seek per brand (each at most `rows` events, only while the user
   *   holds it), merged (for few brands: only their events are read).
   */
  strategy: { kind: 'walk' } | { kind: 'brands', brandIds: readonly number[] }
  /** Only events of these brands (`walk`; `brands` names its own). */
  brandIds?: readonly number[]
  types?: readonly string[]
  /** Rows to return at most: the page size + 1, to know whether more follow. */
  rows: number
}

export interface FeedRow {
  eventNumber: number
  type: string
  createdAt: string
  syncId: number | null
  /** The event's `data` as JSON text. */
  data: string
}

export interface FeedPageRead {
  /** The newest event number handed out (committed, as this snapshot sees it). */
  lastEventId: number
  /** Every event up to this number has been purged. */
  purgedThroughEventId: number
  /** Visible events in (after, after + window], ascending, at most `rows`. */
  events: FeedRow[]
}

const PURGE_WATERMARK = sql<number>`(select purged_through_event_id from change_clock where singleton = 1)`
const COLUMNS = ['event_id', 'type', 'created_at', 'sync_id', 'data'] as const

/** Events in the query's window, of its types, unordered. */
function eventsInRange (db: Kysely<Database>, query: FeedPageQuery) {
  const { after, window, types } = query
  const lower: Expression<number> = after === 'purged' ? PURGE_WATERMARK : sql<number>`${after}`
  const upper: Expression<number> = after === 'purged' ? sql<number>`${PURGE_WATERMARK} + ${window}` : sql<number>`${after + window}`
  return db.selectFrom('change_events').select(COLUMNS)
    .where('event_id', '>', lower)
    .where('event_id', '<=', upper)
    .$if(types !== undefined, (qb) => qb.where('type', 'in', types as string[]))
}

type EventsQuery = ReturnType<typeof eventsInRange>

/** `walk`: the log in event order from the position, the user's brands kept, up to `rows`. */
function walkedEvents (db: Kysely<Database>, query: FeedPageQuery): EventsQuery {
  const { brandIds, userId } = query
  return eventsInRange(db, query)
    // A CASE rather than an OR, on purpose: no index serves it, so both stores walk the primary
    // key from the cursor in event order and stop at the page's last row (an OR lets SQLite read
    // and sort the whole window through change_events_user_idx).
    .where(sql<boolean>`case when user_id is null then brand_id in (select brand_id from user_brands where user_id = ${userId}) else user_id = ${userId} end`)
    .$if(brandIds !== undefined, (qb) => qb.where('brand_id', 'in', brandIds as number[]))
    .orderBy('event_id')
    .limit(query.rows)
}

/**
 * `brands`: the user's own access events (of the named brands only), and one branch per brand —
 * its events in order through change_events_brand_idx, while the user holds it (checked in this
 * statement, so a revocation committed since the caller listed the brands applies here too) —
 * merged in event order, up to `rows`.
 */
function perBrandEvents (db: Kysely<Database>, query: FeedPageQuery, brandIds: readonly number[]): EventsQuery {
  const { userId } = query
  let union = db.selectFrom(eventsInRange(db, query)
    .where('user_id', '=', userId)
    .$if(query.brandIds !== undefined, (qb) => qb.where('brand_id', 'in', query.brandIds as number[]))
    .orderBy('event_id').limit(query.rows).as('own')).selectAll()
  for (const [index, brandId] of brandIds.entries()) {
    const branch = eventsInRange(db, query)
      .where('brand_id', '=', brandId)
      // Not `user_id is null`, which SQLite would serve from change_events_user_idx instead of the brand's index.
      .where(sql<boolean>`coalesce(user_id, '') = ''`)
      .where((eb) => eb.exists(eb.selectFrom('user_brands').select('brand_id').where('user_id', '=', userId).where('brand_id', '=', brandId)))
      .orderBy('event_id').limit(query.rows)
    union = union.unionAll(db.selectFrom(branch.as(`b${index}`)).selectAll())
  }
  // The merged rows have the columns of one branch: typed as such.
  return db.selectFrom(union.as('merged')).selectAll().orderBy('event_id').limit(query.rows) as unknown as EventsQuery
}

/** The page's one statement, built without running it (bench/changes.ts prints its plans). */
export function feedPageStatement (db: Kysely<Database>, query: FeedPageQuery) {
  const events = query.strategy.kind === 'walk' ? walkedEvents(db, query) : perBrandEvents(db, query, query.strategy.brandIds)
  return db.selectFrom('change_clock as c')
    .leftJoin(events.as('e'), (join) => join.onTrue())
    .select(['c.last_event_id', 'c.purged_through_event_id', 'e.event_id', 'e.type', 'e.created_at', 'e.sync_id', 'e.data'])
    .where('c.singleton', '=', 1)
    .orderBy('e.event_id')
}

export async function readFeedPage (db: Kysely<Database>, query: FeedPageQuery): Promise<FeedPageRead> {
  const rows = await feedPageStatement(db, query).execute()
  const first = rows[0]
  if (first === undefined) throw new Error('change_clock has no row: the change-feed migration did not run')
  return {
    lastEventId: Number(first.last_event_id),
    purgedThroughEventId: Number(first.purged_through_event_id),
    events: rows.filter((row) => row.event_id !== null).map((row) => ({
      eventNumber: Number(row.event_id),
      type: row.type as string,
      createdAt: row.created_at as string,
      syncId: row.sync_id === null ? null : Number(row.sync_id),
      data: row.data as string,
    })),
  }
}

/** The first event of a sync after `syncId`, if any (one seek on change_events_sync_idx). */
export async function findFirstEventAfterSync (db: Kysely<Database>, syncId: number): Promise<number | undefined> {
  const row = await db.selectFrom('change_events')
    .select('event_id')
    .where('sync_id', '>', syncId)
    .orderBy('sync_id')
    .orderBy('event_id')
    .limit(1)
    .executeTakeFirst()
  return row === undefined ? undefined : Number(row.event_id)
}
