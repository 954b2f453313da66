import type { Kysely } from 'kysely'

/**
 * GET /changes holds back the events of syncs that not every reader can see yet (the feed's
 * `visibleThroughSyncId`, docs/storage.md "Syncs and the change feed"): `start=latest` must then
 * point just before the first such event, found with one seek on (sync_id, event_id) rather than
 * a scan of the log. Events without a sync (access changes) never match `sync_id > N`.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>

export async function up (db: AnyDb): Promise<void> {
  await db.schema.createIndex('change_events_sync_idx').on('change_events').columns(['sync_id', 'event_id']).execute()
}

export async function down (db: AnyDb): Promise<void> {
  await db.schema.dropIndex('change_events_sync_idx').execute()
}
