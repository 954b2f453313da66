import type { Store } from '../db.js'
import type { BrandDayRenderer } from '../read-model/group-rows.js'
import { openPostgresImportWriter } from './import-writer.postgres.js'
import { openSqliteImportWriter } from './import-writer.sqlite.js'
import type { ImportWriter } from './import-writer.types.js'

export { DAILY_VALUE_COLUMNS, type DailyColumns, type ImportWriter, type SyncSources } from './import-writer.types.js'

/**
 * Opens the transaction. `now` (ISO-8601) stamps `updated_at` on every row written and is the
 * sync's start; `render` writes the daily entries of the brand-days the import sums again (the
 * read model's entry_json).
 */
export async function openImportWriter (store: Store, now: string, render: BrandDayRenderer): Promise<ImportWriter> {
  return store.dialect === 'sqlite'
    ? openSqliteImportWriter(store.sqlite, store.db, now, render)
    : await openPostgresImportWriter(store.pool, now, render)
}
