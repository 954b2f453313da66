import { Migrator, sql, type MigrationResultSet } from 'kysely'
import { MIGRATIONS } from './migrations/index.js'
import type { Store } from './db.js'

export interface MigrationReport {
  /** Names applied by this run, in order (empty when the schema was already current). */
  applied: string[]
}

/** Brings the schema up to date; run by `partner-analytics migrate` and at `serve` start. */
export async function migrateToLatest (store: Store): Promise<MigrationReport> {
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
