import { sql, type Kysely } from 'kysely'

/**
 * brand_daily.entry_json: each brand-day's daily entry as the API writes it (docs/storage.md "Read
 * model"). A daily entry of a brand over every platform depends on nothing but that brand-day's
 * sums, so the import renders it once, in the transaction that writes the sums, and a daily page
 * is its rows' texts joined. Rows written before this migration stay NULL: the page renders
 * those from their sums, as it did before (the next import touching their months, or a rebuild,
 * fills them in).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>

export async function up (db: AnyDb): Promise<void> {
  await sql`alter table brand_daily add column entry_json text`.execute(db)
}

export async function down (db: AnyDb): Promise<void> {
  await sql`alter table brand_daily drop column entry_json`.execute(db)
}
