import { sql, type Kysely } from 'kysely'

/**
 * brand_monthly.entry_json: each brand-month's monthly entry as the API writes it, for a period
 * that covers the whole month (docs/storage.md "Read model"). Like brand_daily.entry_json: such an
 * entry depends on nothing but that brand-month's sums and the month's length, so the import
 * renders it in the transaction that writes the sums, and a monthly report's whole months are
 * their rows' texts joined (100 brands over a year: 1,200 entries not shaped per request). Rows
 * written before this migration stay NULL and are shaped from their sums, as before, until the
 * next import touching their month or a rebuild fills them in.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>

export async function up (db: AnyDb): Promise<void> {
  await sql`alter table brand_monthly add column entry_json text`.execute(db)
}

export async function down (db: AnyDb): Promise<void> {
  await sql`alter table brand_monthly drop column entry_json`.execute(db)
}
