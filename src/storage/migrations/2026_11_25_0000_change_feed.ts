import { sql, type Kysely } from 'kysely'

/**
 * What changed and when (docs/storage.md "Syncs and the change feed"):
 * - `syncs`: one row per committed import, written in the import's own transaction;
 * - `change_events`: the change feed, one row per event, in commit order;
 * - `change_clock`: the one row that numbers syncs and events. A writer takes its numbers with
 *   one UPDATE … RETURNING just before it commits; in PostgreSQL the row lock is held until
 *   commit, so numbers are handed out in commit order (a reader that has seen number N has seen
 *   every number below it), and SQLite has one writer at a time;
 * - `account_coverage`: per account, the first and last day with a row and when an import last
 *   changed its data (GET /data-status).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>

export async function up (db: AnyDb): Promise<void> {
  await db.schema.createTable('change_clock')
    .addColumn('singleton', 'integer', (col) => col.primaryKey())
    .addColumn('last_sync_id', 'bigint', (col) => col.notNull())
    .addColumn('last_event_id', 'bigint', (col) => col.notNull())
    /** Events up to this id have been removed by the retention: a cursor before it has expired. */
    .addColumn('purged_through_event_id', 'bigint', (col) => col.notNull())
    .execute()
  await db.insertInto('change_clock').values({ singleton: 1, last_sync_id: 0, last_event_id: 0, purged_through_event_id: 0 }).execute()

  await db.schema.createTable('syncs')
    .addColumn('sync_id', 'bigint', (col) => col.primaryKey())
    .addColumn('started_at', 'timestamptz', (col) => col.notNull())
    .addColumn('committed_at', 'timestamptz', (col) => col.notNull())
    /** JSON array of the source names, as given to the import. */
    .addColumn('source_files', 'text', (col) => col.notNull())
    /** JSON object: records read and rows changed, by kind (docs/import.md "Syncs"). */
    .addColumn('counts', 'text', (col) => col.notNull())
    /** JSON arrays: the brands ([id, …]) and accounts ([[platform, id], …]) whose data it changed. */
    .addColumn('brand_ids', 'text', (col) => col.notNull())
    .addColumn('accounts', 'text', (col) => col.notNull())
    .execute()

  await db.schema.createTable('change_events')
    .addColumn('event_id', 'bigint', (col) => col.primaryKey())
    .addColumn('type', 'text', (col) => col.notNull())
    /** Every event is about one brand. */
    .addColumn('brand_id', 'bigint', (col) => col.notNull())
    /** Set on access.* events: only this user sees them. */
    .addColumn('user_id', 'text')
    .addColumn('sync_id', 'bigint')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    /** The event's `data` member as JSON text, written verbatim by the feed and the webhooks. */
    .addColumn('data', 'text', (col) => col.notNull())
    .execute()
  // The feed reads "after this id, of these brands" and "after this id, for this user".
  await db.schema.createIndex('change_events_brand_idx').on('change_events').columns(['brand_id', 'event_id']).execute()
  await db.schema.createIndex('change_events_user_idx').on('change_events').columns(['user_id', 'event_id']).execute()
  // The retention deletes by age.
  await db.schema.createIndex('change_events_created_idx').on('change_events').columns(['created_at', 'event_id']).execute()

  await db.schema.createTable('account_coverage')
    .addColumn('platform', 'text', (col) => col.notNull())
    .addColumn('account_id', 'bigint', (col) => col.notNull())
    .addColumn('first_date', 'date', (col) => col.notNull())
    .addColumn('last_date', 'date', (col) => col.notNull())
    /** When an import last changed this account's daily rows; null for rows loaded before syncs were recorded. */
    .addColumn('synced_at', 'timestamptz')
    .addColumn('sync_id', 'bigint')
    .addPrimaryKeyConstraint('account_coverage_pk', ['platform', 'account_id'])
    .execute()
  // Data loaded before this migration: its coverage, without a sync.
  await sql`insert into account_coverage (platform, account_id, first_date, last_date)
    select platform, account_id, min(date), max(date) from daily_metrics group by platform, account_id`.execute(db)
}

export async function down (db: AnyDb): Promise<void> {
  for (const table of ['account_coverage', 'change_events', 'syncs', 'change_clock']) await db.schema.dropTable(table).execute()
}
