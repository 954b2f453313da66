import type SqliteDatabase from 'better-sqlite3'
import type { Kysely } from 'kysely'
import { startSqliteCapture, stopSqliteCapture } from '../changes/capture.sqlite.js'
import { CHANGED_READ_MODEL } from '../changes/changed-tables.js'
import { DayRuns } from '../changes/day-runs.js'
import { prepareSync } from '../changes/sync-recorder.js'
import type { Database } from '../database.js'
import { refreshSqliteReadModel } from '../read-model/refresh.js'
import type { BrandDayRenderer } from '../read-model/group-rows.js'
import type { ImportWriter } from './import-writer.types.js'
import { postHistoryCutoff } from './post-history.js'
import { ACCOUNTS_TABLE, BRANDS_TABLE, DAILY_TABLE, POSTS_TABLE, upsertClause, type ImportTable } from './import-writer.tables.js'

type Row = Record<string, unknown>

/**
 * Prepares `INSERT … ON CONFLICT DO UPDATE … WHERE <changed>` for one table and returns a row
 * writer that says whether it wrote the row (false: equal to the stored one, nothing written).
 */
function prepareUpsert (sqlite: SqliteDatabase.Database, spec: ImportTable, now: string): (row: Row) => boolean {
  const columns = [...spec.columns, ...(spec.stamped ? ['updated_at'] : [])]
  const statement = sqlite.prepare(`insert into ${spec.table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')}) ${upsertClause(spec, 'sqlite')}`)
  const values: unknown[] = new Array(columns.length)
  return (row) => {
    for (let index = 0; index < spec.columns.length; index += 1) values[index] = row[spec.columns[index] as string]
    if (spec.stamped) values[spec.columns.length] = now
    return statement.run(values).changes > 0
  }
}

/**
 * better-sqlite3 is synchronous and in-process: each row is written at once inside one explicit
 * transaction (a prepared statement per table), which is what its bulk loading looks like anyway.
 * BEGIN IMMEDIATE takes the write lock up front, so a concurrent writer fails fast, not mid-way.
 * `db` is the Kysely on this same connection (store.db): the sync is recorded through it, inside
 * the transaction.
 */
export function openSqliteImportWriter (sqlite: SqliteDatabase.Database, db: Kysely<Database>, now: string, render: BrandDayRenderer): ImportWriter {
  const prepareAll = () => ({
    brand: prepareUpsert(sqlite, BRANDS_TABLE, now),
    account: prepareUpsert(sqlite, ACCOUNTS_TABLE, now),
    daily: prepareUpsert(sqlite, DAILY_TABLE, now),
    post: prepareUpsert(sqlite, POSTS_TABLE, now),
  })
  sqlite.exec('begin immediate')
  let upsert: ReturnType<typeof prepareAll>
  let days: DayRuns
  try {
    // A row may name an account or brand declared later in the import: check references at commit.
    sqlite.pragma('defer_foreign_keys = on')
    // The capture's triggers first, so the upserts are prepared with them.
    startSqliteCapture(sqlite)
    upsert = prepareAll()
    days = new DayRuns(sqlite)
  } catch (error) {
    sqlite.exec('rollback')
    throw error
  }
  return {
    add: (row) => {
      const wrote = upsert[row.kind](row as unknown as Row)
      if (wrote && row.kind === 'daily') days.written(row.platform, row.account_id, row.date)
      return undefined
    },
    commit: async (sources) => {
      days.finish()
      const prepared = await prepareSync(db, 'sqlite', { startedAt: now, ...sources })
      refreshSqliteReadModel(sqlite, CHANGED_READ_MODEL.sqlite, render)
      sqlite.prepare('delete from post_history where superseded_at < ?').run(postHistoryCutoff(now))
      const sync = await prepared.write()
      stopSqliteCapture(sqlite)
      sqlite.exec('commit')
      return sync
    },
    rollback: async () => {
      if (sqlite.inTransaction) sqlite.exec('rollback')
      stopSqliteCapture(sqlite)
    },
  }
}
