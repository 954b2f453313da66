import type { Store } from '../db.js'
import { openPostgresImportWriter } from './import-writer.postgres.js'
import { openSqliteImportWriter } from './import-writer.sqlite.js'
import type { ImportWriter } from './import-writer.types.js'

export type { ImportWriter } from './import-writer.types.js'

/** Opens the transaction. `now` (ISO-8601) stamps `updated_at` on every row written. */
export async function openImportWriter (store: Store, now: string): Promise<ImportWriter> {
  return store.dialect === 'sqlite'
    ? openSqliteImportWriter(store.sqlite, now)
    : await openPostgresImportWriter(store.pool, now)
}
