import type { Kysely } from 'kysely'
import type { Database } from '../database.js'

/**
 * The change feed's retention (docs/storage.md "Syncs and the change feed"): the oldest events
 * are deleted in numbered order, a bounded batch per transaction, and `purged_through_event_id`
 * advances with them in the same transaction. The purge removes a prefix of the log and never
 * skips an event: it stops at the first event that is not expired yet, so "purged through N"
 * means exactly "every event up to N is gone, every later one is kept" — what GET /changes
 * compares a cursor with (410 CURSOR_EXPIRED).
 */

export interface PurgeBatch {
  /** Events deleted by this batch. */
  deleted: number
  /** True when the batch stopped at an event that is not expired yet (or at the end of the log). */
  done: boolean
}

/** Deletes up to `batchSize` of the oldest events created before `cutoff` (ms since the epoch). */
export async function purgeExpiredBatch (db: Kysely<Database>, cutoff: number, batchSize: number): Promise<PurgeBatch> {
  return await db.transaction().execute(async (trx) => {
    const clock = await trx.selectFrom('change_clock').select('purged_through_event_id').where('singleton', '=', 1).executeTakeFirstOrThrow()
    const purgedThrough = Number(clock.purged_through_event_id)
    const oldest = await trx.selectFrom('change_events')
      .select(['event_id', 'created_at'])
      .where('event_id', '>', purgedThrough)
      .orderBy('event_id')
      .limit(batchSize)
      .execute()
    let through = purgedThrough
    for (const row of oldest) {
      if (Date.parse(row.created_at) >= cutoff) break
      through = Number(row.event_id)
    }
    const expired = oldest.filter((row) => Number(row.event_id) <= through).length
    if (expired === 0) return { deleted: 0, done: true }
    const result = await trx.deleteFrom('change_events').where('event_id', '>', purgedThrough).where('event_id', '<=', through).executeTakeFirst()
    // Last, so the clock row (which writers of new events also lock) is held only until the commit.
    // Conditional: a second instance purging the same batch at once cannot move it back.
    await trx.updateTable('change_clock')
      .set({ purged_through_event_id: through })
      .where('singleton', '=', 1)
      .where('purged_through_event_id', '<', through)
      .execute()
    // Counted from the DELETE: another instance may have removed the same rows meanwhile.
    return { deleted: Number(result.numDeletedRows), done: expired < oldest.length || oldest.length < batchSize }
  })
}
