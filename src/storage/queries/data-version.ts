import type SqliteDatabase from 'better-sqlite3'
import type { Store } from '../db.js'

/**
 * A token that changes whenever the store's data may have: what a cached answer is keyed by, so
 * that no cached answer outlives an import or any other write (src/services/analytics/report-cache.ts).
 *
 * SQLite: the connection's `data_version` (it moves when another connection — an import, a
 * second instance — commits) with its `total_changes()` (it moves with this connection's own
 * writes: a test fixture, a rebuild). About 3 µs, no I/O.
 *
 * PostgreSQL: undefined — nothing is cached. Knowing that nothing was committed since would cost
 * a round trip per request, as much as most answers themselves.
 */
export function dataVersionReader (store: Store): (() => string) | undefined {
  if (store.dialect !== 'sqlite') return undefined
  // Two statements: the pragma alone is half the cost of reading it as a table in a SELECT.
  const dataVersion: SqliteDatabase.Statement = store.sqlite.prepare('pragma data_version').pluck()
  const changes: SqliteDatabase.Statement = store.sqlite.prepare('select total_changes()').pluck()
  return () => `${dataVersion.get() as number}.${changes.get() as number}`
}
