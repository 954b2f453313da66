import type SqliteDatabase from 'better-sqlite3'
import type { Kysely } from 'kysely'
import { CORE_COUNT_METRICS, platformMetricsOf } from '../../domain/metrics.js'
import { PLATFORM_CODES, type PlatformCode } from '../../domain/platforms.js'
import { startSqliteCapture, stopSqliteCapture } from '../changes/capture.sqlite.js'
import { CHANGED_READ_MODEL } from '../changes/changed-tables.js'
import { DayRuns } from '../changes/day-runs.js'
import { prepareSync } from '../changes/sync-recorder.js'
import type { Database } from '../database.js'
import { refreshSqliteReadModel, refreshSqliteReadModelRenderingElsewhere } from '../read-model/refresh.js'
import type { BrandDayRenderer } from '../read-model/group-rows.js'
import { DAILY_VALUE_COLUMNS, type DailyColumns, type ImportWriter } from './import-writer.types.js'
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
 * The daily upsert, one prepared statement per platform: the platform a literal and only the
 * columns the platform reports bound (the import refuses a platform-specific metric on a platform
 * that lacks it, src/domain/metrics.ts, so the others are always null: set to null, compared with
 * null). A third to a half fewer values to bind per row than the whole row; the same rows written,
 * the same rows left alone.
 */
interface DailyUpsert {
  /** Writes one row object; true when written. */
  row: (row: Row) => boolean
  /** Writes row `index` of the columns (its platform is this upsert's); true when written. */
  column: (columns: DailyColumns, index: number) => boolean
}

function prepareDailyUpsert (sqlite: SqliteDatabase.Database): { row: (row: Row) => boolean, byPlatform: DailyUpsert[] } {
  const byPlatform = PLATFORM_CODES.map((platform) => prepareDailyUpsertOf(sqlite, platform))
  const writers = new Map<string, (row: Row) => boolean>(PLATFORM_CODES.map((platform, index) => [platform, (byPlatform[index] as DailyUpsert).row]))
  return {
    row: (row) => {
      const write = writers.get(row.platform as string)
      if (write === undefined) throw new Error(`no daily upsert for platform ${String(row.platform)}`)
      return write(row)
    },
    byPlatform,
  }
}

function prepareDailyUpsertOf (sqlite: SqliteDatabase.Database, platform: PlatformCode): DailyUpsert {
  const bound = ['account_id', 'date', 'revenue_micros', ...CORE_COUNT_METRICS, ...platformMetricsOf(platform)]
  const data = bound.filter((column) => !DAILY_TABLE.key.includes(column))
  const absent = DAILY_TABLE.columns.filter((column) => column !== 'platform' && !bound.includes(column))
  const table = DAILY_TABLE.table
  const statement = sqlite.prepare(`insert into ${table} (platform, ${bound.join(', ')}) values ('${platform}', ${bound.map(() => '?').join(', ')})
    on conflict (${DAILY_TABLE.key.join(', ')}) do update set ${[...data.map((column) => `${column} = excluded.${column}`), ...absent.map((column) => `${column} = null`)].join(', ')}
    where ${[...data.map((column) => `${table}.${column} is not excluded.${column}`), ...absent.map((column) => `${table}.${column} is not null`)].join(' or ')}`)
  const values: unknown[] = new Array(bound.length)
  // Where each bound value after the key (account_id, date) sits in a row of DailyColumns.
  const width = DAILY_VALUE_COLUMNS.length
  const offsets = bound.slice(2).map((column) => (DAILY_VALUE_COLUMNS as readonly string[]).indexOf(column))
  return {
    row: (row) => {
      for (let index = 0; index < bound.length; index += 1) values[index] = row[bound[index] as string]
      return statement.run(values).changes > 0
    },
    column: (columns, row) => {
      values[0] = columns.accounts[row]
      values[1] = columns.dateTable[columns.dates[row] as number]
      const base = row * width
      for (let index = 0; index < offsets.length; index += 1) {
        const value = columns.values[base + (offsets[index] as number)] as number
        values[index + 2] = Number.isNaN(value) ? null : value
      }
      return statement.run(values).changes > 0
    },
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
  let daily: ReturnType<typeof prepareDailyUpsert>
  const prepareAll = () => ({
    brand: prepareUpsert(sqlite, BRANDS_TABLE, now),
    account: prepareUpsert(sqlite, ACCOUNTS_TABLE, now),
    daily: daily.row,
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
    daily = prepareDailyUpsert(sqlite)
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
    addDailyColumns: (columns) => {
      for (let row = 0; row < columns.length; row += 1) {
        const platform = columns.platforms[row] as number
        if ((daily.byPlatform[platform] as DailyUpsert).column(columns, row)) {
          days.written(PLATFORM_CODES[platform] as PlatformCode, columns.accounts[row] as number, columns.dateTable[columns.dates[row] as number] as string)
        }
      }
      return undefined
    },
    commit: async (sources, renderBatch) => {
      days.finish()
      const prepared = await prepareSync(db, 'sqlite', { startedAt: now, ...sources })
      if (renderBatch === undefined) refreshSqliteReadModel(sqlite, CHANGED_READ_MODEL.sqlite, render)
      else await refreshSqliteReadModelRenderingElsewhere(sqlite, CHANGED_READ_MODEL.sqlite, render, renderBatch)
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
