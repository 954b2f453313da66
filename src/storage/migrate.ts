import { Migrator, sql, type MigrationResultSet } from 'kysely'
import { MIGRATIONS } from './migrations/index.js'
import type { Store } from './db.js'

export interface MigrationReport {
  /** Names applied by this run, in order (empty when the schema was already current). */
  applied: string[]
}

/**
 * The PostgreSQL advisory lock held while migrating (session level, the whole run). Kysely locks
 * only while applying migrations; before that it reads the catalog of *every* schema in the
 * database, which fails ("schema … does not exist") if another schema is dropped meanwhile. A
 * database's schemas are dropped by holding this same lock (the test suite does), so a drop and a
 * migration never overlap, and two processes never migrate one database at once.
 */
export const MIGRATION_LOCK_KEY = 7_270_113_001

/** Brings the schema up to date; run by `partner-analytics migrate`, every CLI command, and at `serve` start. */
export async function migrateToLatest (store: Store): Promise<MigrationReport> {
  if (store.dialect === 'sqlite') return await migrate(store)
  const holder = await store.pool.connect()
  try {
    await holder.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
    try {
      return await migrate(store)
    } finally {
      await holder.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
    }
  } finally {
    holder.release()
  }
}

async function migrate (store: Store): Promise<MigrationReport> {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => MIGRATIONS },
    // Kysely looks for its bookkeeping tables in every schema; pin them to the one we write to,
    // so databases holding several schemas (tests, shared servers) never see each other's.
    ...(store.dialect === 'postgres' ? { migrationTableSchema: await currentSchema(store) } : {}),
  })
  const result: MigrationResultSet = await migrator.migrateToLatest()
  if (result.error !== undefined) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`migration ${failed} failed: ${String((result.error as Error).message ?? result.error)}`)
  }
  return { applied: (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) }
}

async function currentSchema (store: Store): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)
  const schema = rows[0]?.schema
  if (schema === undefined || schema === null) throw new Error('the PostgreSQL search_path names no existing schema')
  return schema
}
