import type { Kysely, Selectable, Transaction } from 'kysely'
import { formatUtcSeconds } from '../../domain/dates.js'
import type { PlatformCode } from '../../domain/platforms.js'
import type { Sync, SyncCounts } from '../../domain/syncs.js'
import type { Database, SyncsTable } from '../database.js'

type Db = Kysely<Database> | Transaction<Database>

/**
 * The recorded syncs (written by src/storage/changes/sync-recorder.ts), read for operators
 * (`imports list`, `imports show`: newest first, a page is "before this sync id") and by /metrics.
 */

/** Up to `limit` syncs with an id below `before` (all when undefined), newest first. */
export async function listSyncs (db: Db, limit: number, before: number | undefined): Promise<Sync[]> {
  let query = db.selectFrom('syncs').selectAll()
  if (before !== undefined) query = query.where('sync_id', '<', before)
  return (await query.orderBy('sync_id', 'desc').limit(limit).execute()).map(syncOf)
}

/** Up to `limit` syncs with an id above `after`, oldest first (/metrics reads new ones as they come). */
export async function listSyncsAfter (db: Db, after: number, limit: number): Promise<Sync[]> {
  return (await db.selectFrom('syncs').selectAll().where('sync_id', '>', after).orderBy('sync_id').limit(limit).execute()).map(syncOf)
}

export async function findSync (db: Db, syncId: number): Promise<Sync | undefined> {
  const row = await db.selectFrom('syncs').selectAll().where('sync_id', '=', syncId).executeTakeFirst()
  return row === undefined ? undefined : syncOf(row)
}

function syncOf (row: Selectable<SyncsTable>): Sync {
  const eventCount = Number(row.event_count)
  return {
    syncId: Number(row.sync_id),
    startedAt: formatUtcSeconds(row.started_at),
    committedAt: formatUtcSeconds(row.committed_at),
    sourceFiles: JSON.parse(row.source_files) as string[],
    counts: JSON.parse(row.counts) as SyncCounts,
    brandIds: JSON.parse(row.brand_ids) as number[],
    accounts: (JSON.parse(row.accounts) as Array<[PlatformCode, number]>).map(([platform, accountId]) => ({ platform, account_id: accountId })),
    firstEventNumber: row.first_event_id === null || eventCount === 0 ? null : Number(row.first_event_id),
    eventCount,
  }
}
