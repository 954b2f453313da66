import type SqliteDatabase from 'better-sqlite3'
import { changedTablesOf } from './changed-tables.js'

/**
 * What an import changed, recorded by SQLite itself while the import writes (docs/import.md
 * "Syncs"), into the connection's temporary tables (changed-tables.ts). The upserts only update a
 * row when a data column differs (import-writer.tables.ts), so an identical record fires nothing.
 * - posts, accounts, brands: TEMP triggers put the key of every row inserted or updated, the first
 *   write of a key winning (a post added then changed stays "added"; an account or brand keeps the
 *   values it had before the import);
 * - daily rows: the writer turns the rows its upsert wrote into runs of days (day-runs.ts: a
 *   trigger per row would cost a tenth of the import), and a trigger counts the updates among them.
 *
 * TEMP objects belong to this connection only and live in the import's transaction: created
 * after BEGIN, dropped before COMMIT (a rollback undoes them too). Nothing else on the connection
 * writes those tables meanwhile.
 */

const TRIGGERS = {
  capture_daily_update: `after update on daily_metrics begin
    update changed_counts set daily_updates = daily_updates + 1; end`,
  capture_posts_insert: `after insert on posts begin
    insert into changed_posts values (new.platform, new.id, 1) on conflict do nothing; end`,
  // The post snapshot triggers stamp `revision` with an UPDATE of their own: not a change of data.
  capture_posts_update: `after update on posts when new.revision = old.revision begin
    insert into changed_posts values (new.platform, new.id, 0) on conflict do nothing; end`,
  capture_accounts_insert: `after insert on accounts begin
    insert into changed_accounts (platform, account_id, created) values (new.platform, new.account_id, 1) on conflict do nothing; end`,
  capture_accounts_update: `after update on accounts begin
    insert into changed_accounts values (new.platform, new.account_id, 0, old.brand_id, old.account_name, old.network_id, old.storage_avatar, old.permalink) on conflict do nothing; end`,
  capture_brands_insert: `after insert on brands begin
    insert into changed_brands (brand_id, created) values (new.brand_id, 1) on conflict do nothing; end`,
  capture_brands_update: `after update on brands begin
    insert into changed_brands values (new.brand_id, 0, old.brand_name) on conflict do nothing; end`,
} as const

/** Creates the temporary tables and triggers; call inside the import's transaction. */
export function startSqliteCapture (sqlite: SqliteDatabase.Database): void {
  // Keyed tables without a rowid; the append-only ones with one.
  for (const [name, columns] of changedTablesOf('sqlite')) sqlite.exec(`create temp table ${name} (${columns})${columns.includes('primary key') ? ' without rowid' : ''}`)
  sqlite.exec('insert into changed_counts values (0, 0)')
  for (const [name, body] of Object.entries(TRIGGERS)) sqlite.exec(`create temp trigger ${name} ${body}`)
}

/** Drops the triggers and tables (before COMMIT; after a ROLLBACK, which normally undid them already). */
export function stopSqliteCapture (sqlite: SqliteDatabase.Database): void {
  for (const name of Object.keys(TRIGGERS)) sqlite.exec(`drop trigger if exists temp.${name}`)
  for (const [name] of changedTablesOf('sqlite')) sqlite.exec(`drop table if exists temp.${name}`)
}
