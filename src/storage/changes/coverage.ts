import { sql, type Kysely } from 'kysely'
import type { Database } from '../database.js'
import type { Dialect } from '../db.js'

/**
 * `account_coverage` (docs/storage.md "Syncs and the change feed"): for each account whose daily
 * rows a sync inserted or changed (the accounts of its ranges, sync-recorder.ts), its first and
 * last day with a row are read again from daily_metrics (one index seek each) and `synced_at` and
 * `sync_id` set to that sync's, inside the import's transaction. Accounts whose days it did not
 * change keep theirs, so `synced_at` is when an import last changed the account's data. An import
 * only adds or replaces rows, so a coverage never shrinks.
 */
export async function updateCoverage (db: Kysely<Database>, dialect: Dialect, sync: { syncId: number, committedAt: string }): Promise<void> {
  // PostgreSQL cannot infer a parameter's type from INSERT … SELECT's target; SQLite needs no cast.
  const at = dialect === 'postgres' ? sql`cast(${sync.committedAt} as timestamptz)` : sql`${sync.committedAt}`
  const id = dialect === 'postgres' ? sql`cast(${sync.syncId} as bigint)` : sql`${sync.syncId}`
  // `where true`: SQLite would otherwise read ON CONFLICT as a join constraint.
  await sql`insert into account_coverage (platform, account_id, first_date, last_date, synced_at, sync_id)
    select c.platform, c.account_id,
      (select min(d.date) from daily_metrics d where d.platform = c.platform and d.account_id = c.account_id),
      (select max(d.date) from daily_metrics d where d.platform = c.platform and d.account_id = c.account_id),
      ${at}, ${id}
    from (select distinct platform, account_id from sync_ranges) c where true
    on conflict (platform, account_id) do update set first_date = excluded.first_date, last_date = excluded.last_date,
      synced_at = excluded.synced_at, sync_id = excluded.sync_id`.execute(db)
}
