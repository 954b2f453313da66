import type pg from 'pg'
import { capturingDailyWrite, capturingUpsert, IMPORT_LOCK_CLASS, NEW_DAYS_LOCK_CLASS, SCHEMA_LOCK_KEY, startPostgresCapture } from '../changes/capture.postgres.js'
import { CHANGED_READ_MODEL } from '../changes/changed-tables.js'
import { prepareSync } from '../changes/sync-recorder.js'
import { kyselyOnClient } from '../client-kysely.js'
import { copyText, copyValue } from '../copy-text.js'
import { refreshPostgresReadModel } from '../read-model/refresh.js'
import type { BrandDayRenderer } from '../read-model/group-rows.js'
import type { ImportWriter } from './import-writer.types.js'
import { postHistoryCutoff } from './post-history.js'
import { ACCOUNTS_TABLE, BRANDS_TABLE, DAILY_TABLE, POSTS_TABLE, type ImportTable } from './import-writer.tables.js'

type Row = Record<string, unknown>

/** Rows per batch: large enough to amortise round trips, small enough to stay a few MB. */
const BATCH_ROWS = 20_000

/** The buffering key of a row: its key columns' values joined by NUL. */
function keyOf (spec: ImportTable): (row: Row) => string {
  const [first, ...rest] = spec.key as [string, ...string[]]
  if (rest.length === 0) return (row) => String(row[first])
  return (row) => {
    let key = String(row[first])
    for (const column of rest) key += '\u0000' + String(row[column])
    return key
  }
}

/**
 * Upserts through a staging table: each batch is streamed with COPY (the fastest way into
 * PostgreSQL) into a temporary table shaped like the target, then moved over with one
 * INSERT … SELECT … ON CONFLICT DO UPDATE … WHERE <changed> that also records the keys it inserted
 * or changed (src/storage/changes/capture.postgres.ts). Rows are keyed by identity while buffered, so a later
 * row with the same key replaces an earlier one: ON CONFLICT cannot touch a row twice in one
 * statement, and the last record must win.
 *
 * A full batch is written while the import reads and validates the next one: at most one batch
 * per table is in flight (the next full batch waits for it), so the server's upsert overlaps the
 * process's parsing instead of following it. A write that fails is reported at the next batch or
 * at commit; `settle` waits for the one in flight before a rollback.
 */
class StagedUpsert {
  private readonly lines = new Map<string, string>()
  private readonly columns: string[]
  private readonly stage: string
  private readonly key: (row: Row) => string
  private created = false
  private inFlight: Promise<void> = Promise.resolve()
  /** Rows handed to the store so far (each key once per batch). */
  written = 0
  /** Of them, rows inserted plainly (daily rows of accounts with none stored in the batch's days: capturingDailyWrite). */
  insertedPlainly = 0

  /** `plainNewDays`: daily rows of accounts with none stored in the batch's days are inserted without ON CONFLICT. */
  constructor (private readonly client: pg.PoolClient, private readonly spec: ImportTable, private readonly now: string, private readonly plainNewDays = false) {
    this.columns = [...spec.columns, ...(spec.stamped ? ['updated_at'] : [])]
    this.stage = `import_stage_${spec.table}`
    this.key = keyOf(spec)
  }

  add (row: Row): Promise<void> | undefined {
    const key = this.key(row)
    let line = ''
    for (const column of this.spec.columns) line += copyValue(row[column]) + '\t'
    line = this.spec.stamped ? line + this.now + '\n' : line.slice(0, -1) + '\n'
    // delete + set: a replaced key moves to the end, so the Map keeps last-seen order.
    this.lines.delete(key)
    this.lines.set(key, line)
    return this.lines.size >= BATCH_ROWS ? this.send() : undefined
  }

  /** Waits for the batch in flight, then starts writing the buffered one without waiting for it. */
  private async send (): Promise<void> {
    await this.inFlight
    if (this.lines.size === 0) return
    const text = [...this.lines.values()].join('')
    this.written += this.lines.size
    this.lines.clear()
    this.inFlight = this.write(text)
    // Handled here so that a failure waits, unreported, for the next send, flush or settle.
    this.inFlight.catch(() => {})
  }

  /** Writes everything buffered and waits until it is written. */
  async flush (): Promise<void> {
    await this.send()
    await this.inFlight
  }

  /** Waits until no write is in flight, whatever its outcome (before a rollback). */
  async settle (): Promise<void> {
    await this.inFlight.catch(() => {})
  }

  private async write (text: string): Promise<void> {
    const columns = this.columns.join(', ')
    if (!this.created) {
      // Temporary and dropped at commit or rollback: invisible to other sessions, never left
      // behind. Only the columns we write, with their types and no constraints or defaults.
      await this.client.query(`create temp table ${this.stage} on commit drop as select ${columns} from ${this.spec.table} with no data`)
      this.created = true
    }
    await copyText(this.client, this.stage, columns, text)
    if (this.plainNewDays) {
      // The lock is the session's, taken and released around the one statement (capturingDailyWrite
      // says why); one that a failed statement leaves held is released by the rollback.
      const key = `${NEW_DAYS_LOCK_CLASS}, ${SCHEMA_LOCK_KEY}`
      const results = await this.client.query(`select pg_advisory_lock(${key}); ${capturingDailyWrite(this.stage, this.columns)}; select pg_advisory_unlock(${key})`) as unknown as Array<pg.QueryResult<{ plain: number }>>
      this.insertedPlainly += Number(results[1]?.rows[0]?.plain ?? 0)
    } else {
      await this.client.query(capturingUpsert(this.spec, this.stage, this.columns))
    }
    await this.client.query(`truncate ${this.stage}`)
  }
}

/** The PostgreSQL writer, with what it can tell about how it wrote. */
export interface PostgresImportWriter extends ImportWriter {
  /** Daily rows inserted without ON CONFLICT so far (capturingDailyWrite). */
  dailyRowsInsertedPlainly: () => number
}

export interface PostgresImportWriterOptions {
  /**
   * Daily rows of accounts with no stored row in a batch's days are inserted without ON CONFLICT
   * (capturingDailyWrite); default true. False: every batch through the upsert.
   */
  plainNewDays?: boolean
}

export async function openPostgresImportWriter (pool: pg.Pool, now: string, render: BrandDayRenderer, options: PostgresImportWriterOptions = {}): Promise<PostgresImportWriter> {
  const client = await pool.connect()
  try {
    await client.query('begin')
    await startPostgresCapture(client)
    // Held until commit or rollback: tells other imports of this schema that this one is open.
    // Then waits for a plain insert of another import that is running now to end, so that
    // whatever this import writes comes after it (capturingDailyWrite).
    const key = `${IMPORT_LOCK_CLASS}, ${SCHEMA_LOCK_KEY}`
    const newDays = `${NEW_DAYS_LOCK_CLASS}, ${SCHEMA_LOCK_KEY}`
    await client.query(`select pg_advisory_xact_lock_shared(${key}); select pg_advisory_lock_shared(${newDays}); select pg_advisory_unlock_shared(${newDays})`)
  } catch (error) {
    await client.query('rollback').catch(() => {})
    client.release(error as Error)
    throw error
  }
  // Flushed in this order, so most references resolve at once; the rest are checked at commit
  // (the foreign keys are deferred, migration 2026_11_23_0000_deferred_references).
  const staged = {
    brand: new StagedUpsert(client, BRANDS_TABLE, now),
    account: new StagedUpsert(client, ACCOUNTS_TABLE, now),
    daily: new StagedUpsert(client, DAILY_TABLE, now, options.plainNewDays ?? true),
    post: new StagedUpsert(client, POSTS_TABLE, now),
  }
  let released = false
  const release = (error?: Error): void => {
    if (released) return
    released = true
    client.release(error)
  }
  return {
    dailyRowsInsertedPlainly: () => staged.daily.insertedPlainly,
    add: (row) => staged[row.kind].add(row as unknown as Row),
    commit: async (sources) => {
      for (const table of Object.values(staged)) await table.flush()
      const prepared = await prepareSync(kyselyOnClient(client), 'postgres', { startedAt: now, ...sources })
      await refreshPostgresReadModel(client, CHANGED_READ_MODEL.postgres, render)
      await client.query('delete from post_history where superseded_at < $1', [postHistoryCutoff(now)])
      const sync = await prepared.write()
      await client.query('commit')
      try {
        await refreshPlannerStatistics(pool, client, staged.daily.written)
      } catch (error) {
        // The import is committed; the statistics wait for autovacuum. The connection may be
        // broken: dropped rather than reused.
        release(error as Error)
        return sync
      }
      release()
      return sync
    },
    rollback: async () => {
      if (released) return
      // No statement of a batch may follow the rollback (it would run outside the transaction).
      for (const table of Object.values(staged)) await table.settle()
      try {
        await client.query('rollback')
        // A batch that failed inside its plain insert left its session lock held.
        await client.query('select pg_advisory_unlock_all()')
        release()
      } catch (error) {
        // A connection that cannot even roll back is broken: drop it rather than reuse it.
        release(error as Error)
      }
    },
  }
}

/**
 * The tables an import changes that reports and analytics plan their reads on: the daily table,
 * by far the largest, on the import's own connection and the others beside it on a second one, so
 * that the two samples are read on two cores at once.
 */
const PLANNED_TABLES = [['daily_metrics'], ['brands', 'accounts', 'posts', 'brand_daily', 'brand_daily_running', 'brand_monthly', 'account_monthly', 'account_coverage']] as const

/**
 * After an import that wrote a tenth or more of the daily table's rows (a first import, a
 * backfill) — autovacuum's own analyze rule — the planner's statistics of the tables it changed
 * are taken at once rather than whenever autovacuum comes (never, where it is off). Planned without
 * them, a report reads whole tables: the top 10 accounts of a quarter at scale M took 77 ms p50
 * before an ANALYZE and 24 ms after. ANALYZE reads a fixed-size sample of each table, so its cost
 * does not grow with the store (1.2 s for the whole database at M). `reltuples` is what the last
 * ANALYZE or VACUUM counted (-1: never), so it still says the size before this import.
 */
async function refreshPlannerStatistics (pool: pg.Pool, client: pg.PoolClient, dailyRowsWritten: number): Promise<void> {
  if (dailyRowsWritten === 0) return
  const { rows } = await client.query<{ reltuples: number }>("select reltuples from pg_class where oid = 'daily_metrics'::regclass")
  const counted = Number(rows[0]?.reltuples ?? -1)
  if (counted >= 0 && dailyRowsWritten < counted / 10) return
  const [daily, others] = PLANNED_TABLES
  const beside = pool.query(`analyze ${others.join(', ')}`)
  // Both are waited for, whichever fails first.
  const outcomes = await Promise.allSettled([client.query(`analyze ${daily.join(', ')}`), beside])
  for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason
}
