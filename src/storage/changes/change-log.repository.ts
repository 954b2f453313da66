import type { Kysely, Transaction } from 'kysely'
import type { NewChangeEvent } from '../../domain/changes.js'
import type { Database } from '../database.js'
import { fanOutEvents } from '../webhooks/fan-out.js'

/**
 * The one writer of the change feed (docs/storage.md "Syncs and the change feed"). Numbers come
 * from `change_clock` and are taken last, just before the writer commits: in PostgreSQL the
 * clock's row lock is then held only until that commit, and numbers are handed out in commit
 * order, so a reader that sees event N has every event below N (a cursor never skips one).
 */

type Db = Kysely<Database> | Transaction<Database>

export interface ChangeNumbers {
  /** The new sync's id, when one was asked for. */
  syncId: number | null
  /** The first of the event numbers taken (the next `count` are the caller's). */
  firstEventId: number
}

/** Takes a sync id (if asked) and `eventCount` event numbers, in one step; call it inside the transaction, last. */
export async function takeChangeNumbers (db: Db, options: { sync: boolean, eventCount: number }): Promise<ChangeNumbers> {
  const row = await db.updateTable('change_clock')
    .set((eb) => ({
      last_sync_id: eb('last_sync_id', '+', options.sync ? 1 : 0),
      last_event_id: eb('last_event_id', '+', options.eventCount),
    }))
    .where('singleton', '=', 1)
    .returning(['last_sync_id', 'last_event_id'])
    .executeTakeFirstOrThrow()
  return {
    syncId: options.sync ? Number(row.last_sync_id) : null,
    firstEventId: Number(row.last_event_id) - options.eventCount + 1,
  }
}

/** Rows per INSERT: 7 columns each, far below either store's parameter limit. */
const EVENTS_PER_STATEMENT = 500

/**
 * Writes `events` with the numbers from `firstEventId` on; they share one time and sync. Their webhook
 * deliveries are written with them (src/storage/webhooks/fan-out.ts): call it inside the transaction.
 */
export async function insertEvents (db: Db, at: { firstEventId: number, syncId: number | null, createdAt: string }, events: readonly NewChangeEvent[]): Promise<void> {
  for (let start = 0; start < events.length; start += EVENTS_PER_STATEMENT) {
    const rows = events.slice(start, start + EVENTS_PER_STATEMENT).map((event, index) => ({
      event_id: at.firstEventId + start + index,
      type: event.type,
      brand_id: event.data.brand_id,
      user_id: event.userId ?? null,
      sync_id: at.syncId,
      created_at: at.createdAt,
      data: JSON.stringify(event.data),
    }))
    await db.insertInto('change_events').values(rows).execute()
  }
  // The webhook outbox, in the same transaction: one delivery per subscribed endpoint that sees the event.
  if (events.length > 0) await fanOutEvents(db, { firstEventId: at.firstEventId, lastEventId: at.firstEventId + events.length - 1, dueMs: Date.now() })
}

/** Takes numbers for `events` and writes them (events not caused by an import: access changes). */
export async function recordEvents (db: Db, events: readonly NewChangeEvent[], createdAt: string): Promise<void> {
  if (events.length === 0) return
  const numbers = await takeChangeNumbers(db, { sync: false, eventCount: events.length })
  await insertEvents(db, { firstEventId: numbers.firstEventId, syncId: null, createdAt }, events)
}

/** The newest sync and event numbers handed out (what a reader, or a replica, must have seen). */
export async function readChangeClock (db: Db): Promise<{ lastSyncId: number, lastEventId: number, purgedThroughEventId: number }> {
  const row = await db.selectFrom('change_clock')
    .select(['last_sync_id', 'last_event_id', 'purged_through_event_id'])
    .where('singleton', '=', 1)
    .executeTakeFirstOrThrow()
  return { lastSyncId: Number(row.last_sync_id), lastEventId: Number(row.last_event_id), purgedThroughEventId: Number(row.purged_through_event_id) }
}
