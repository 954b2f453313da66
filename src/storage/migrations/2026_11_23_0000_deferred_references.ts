import { PostgresAdapter, sql, type Kysely } from 'kysely'

/**
 * An import is one transaction in which a daily row or post may come before the account it names,
 * and an account before its brand (docs/import.md). PostgreSQL checks a foreign key at each
 * statement unless it is deferrable; these are now checked at commit instead (the import has
 * already refused unknown references by then, with their lines). SQLite defers per transaction
 * (`PRAGMA defer_foreign_keys`), so it needs no schema change.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>

// daily_metrics loses its foreign key in 2026_11_23_0100_read_model (the import checks it).
const DEFERRED = [
  ['posts', 'posts_account_fk'],
  ['accounts', 'accounts_brand_id_fkey'],
] as const

export async function up (db: AnyDb): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  for (const [table, constraint] of DEFERRED) {
    await sql.raw(`alter table ${table} alter constraint ${constraint} deferrable initially deferred`).execute(db)
  }
}

export async function down (db: AnyDb): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  for (const [table, constraint] of DEFERRED) {
    await sql.raw(`alter table ${table} alter constraint ${constraint} not deferrable`).execute(db)
  }
}
