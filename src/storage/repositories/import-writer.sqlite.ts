import type SqliteDatabase from 'better-sqlite3'
import { accountKey, type PlatformCode } from '../../domain/platforms.js'
import { refreshSqliteReadModel } from '../read-model/refresh.js'
import type { BrandDayRenderer } from '../read-model/group-rows.js'
import { TouchedKeys } from '../read-model/touched.js'
import type { ImportWriter } from './import-writer.types.js'
import { postHistoryCutoff } from './post-history.js'
import { ACCOUNTS_TABLE, BRANDS_TABLE, DAILY_TABLE, POSTS_TABLE, updateAssignments, type ImportTable } from './import-writer.tables.js'

type Row = Record<string, unknown>

/** Prepares `INSERT … ON CONFLICT DO UPDATE` for one table and returns a row writer. */
function prepareUpsert (sqlite: SqliteDatabase.Database, spec: ImportTable, now: string): (row: Row) => void {
  const columns = [...spec.columns, ...(spec.stamped ? ['updated_at'] : [])]
  const statement = sqlite.prepare(
    `insert into ${spec.table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')}) ` +
    `on conflict (${spec.key.join(', ')}) do update set ${updateAssignments(spec)}`,
  )
  const values: unknown[] = new Array(columns.length)
  return (row) => {
    for (let index = 0; index < spec.columns.length; index += 1) values[index] = row[spec.columns[index] as string]
    if (spec.stamped) values[spec.columns.length] = now
    statement.run(values)
  }
}

/**
 * better-sqlite3 is synchronous and in-process: each row is written at once inside one explicit
 * transaction (a prepared statement per table), which is what its bulk loading looks like anyway.
 * BEGIN IMMEDIATE takes the write lock up front, so a concurrent writer fails fast, not mid-way.
 */
export function openSqliteImportWriter (sqlite: SqliteDatabase.Database, now: string, render: BrandDayRenderer): ImportWriter {
  const upsertBrand = prepareUpsert(sqlite, BRANDS_TABLE, now)
  const upsertAccount = prepareUpsert(sqlite, ACCOUNTS_TABLE, now)
  const upsertDaily = prepareUpsert(sqlite, DAILY_TABLE, now)
  const upsertPost = prepareUpsert(sqlite, POSTS_TABLE, now)
  const upsert = { brand: upsertBrand, account: upsertAccount, daily: upsertDaily, post: upsertPost }
  // Which brand each account had before the import: a move refreshes both brands' months.
  const brandBefore = new Map((sqlite.prepare('select platform, account_id, brand_id from accounts').raw().all() as Array<[PlatformCode, number, number]>)
    .map(([platform, accountId, brandId]) => [accountKey(platform, accountId), brandId]))
  const touched = new TouchedKeys()
  sqlite.exec('begin immediate')
  // A row may name an account or brand declared later in the import: check references at commit.
  sqlite.pragma('defer_foreign_keys = on')
  return {
    add: (row) => {
      upsert[row.kind](row as unknown as Row)
      if (row.kind === 'daily') touched.day(row.platform, row.account_id, row.date)
      else if (row.kind === 'account') touched.account(row.platform, row.account_id, row.brand_id, brandBefore.get(accountKey(row.platform, row.account_id)))
      return undefined
    },
    commit: async () => {
      refreshSqliteReadModel(sqlite, touched, render)
      sqlite.prepare('delete from post_history where superseded_at < ?').run(postHistoryCutoff(now))
      sqlite.exec('commit')
    },
    rollback: async () => { if (sqlite.inTransaction) sqlite.exec('rollback') },
  }
}
