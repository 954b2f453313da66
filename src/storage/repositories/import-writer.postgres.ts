import type pg from 'pg'
import type { ImportWriter } from './import-writer.js'
import { ACCOUNTS_TABLE, BRANDS_TABLE, DAILY_TABLE, POSTS_TABLE, updateAssignments, type ImportTable } from './import-writer.tables.js'

type Row = Record<string, unknown>

/** Rows per statement: large enough to amortise round trips, small enough to stay a few MB. */
const BATCH_ROWS = 5000

/**
 * One statement upserts a whole batch: each column travels as one array parameter and
 * `unnest` turns them back into rows, so the statement text (and its parameter count) does
 * not grow with the batch, unlike `VALUES ($1, …), (…)`.
 */
function upsertSql (spec: ImportTable): string {
  const arrays = spec.columns.map((column, index) => `$${index + 1}::${spec.pgTypes[index] as string}[]`)
  const stamp = spec.stamped ? `, $${spec.columns.length + 1}::timestamptz` : ''
  const columns = [...spec.columns, ...(spec.stamped ? ['updated_at'] : [])]
  return `insert into ${spec.table} (${columns.join(', ')}) ` +
    `select *${stamp} from unnest(${arrays.join(', ')}) ` +
    `on conflict (${spec.key.join(', ')}) do update set ${updateAssignments(spec)}`
}

/**
 * A batch buffer for one table. Rows are keyed by their identity, so a later row with the same
 * key replaces an earlier one in the same batch: PostgreSQL's ON CONFLICT cannot touch one row
 * twice in a statement, and the last record must win.
 */
class BatchUpsert {
  private readonly rows = new Map<string, Row>()
  private readonly sql: string

  constructor (private readonly client: pg.PoolClient, private readonly spec: ImportTable, private readonly now: string) {
    this.sql = upsertSql(spec)
  }

  add (row: Row): Promise<void> | undefined {
    const key = this.spec.key.map((column) => String(row[column])).join('\u0000')
    // delete + set moves a replaced key to the end, keeping Map order = last-seen order.
    this.rows.delete(key)
    this.rows.set(key, row)
    return this.rows.size >= BATCH_ROWS ? this.flush() : undefined
  }

  async flush (): Promise<void> {
    if (this.rows.size === 0) return
    const columns = this.spec.columns.map(() => [] as unknown[])
    for (const row of this.rows.values()) {
      for (let index = 0; index < columns.length; index += 1) (columns[index] as unknown[]).push(row[this.spec.columns[index] as string])
    }
    this.rows.clear()
    await this.client.query(this.sql, this.spec.stamped ? [...columns, this.now] : columns)
  }
}

export async function openPostgresImportWriter (pool: pg.Pool, now: string): Promise<ImportWriter> {
  const client = await pool.connect()
  try {
    await client.query('begin')
  } catch (error) {
    client.release(error as Error)
    throw error
  }
  const daily = new BatchUpsert(client, DAILY_TABLE, now)
  const posts = new BatchUpsert(client, POSTS_TABLE, now)
  let released = false
  const release = (error?: Error): void => {
    if (released) return
    released = true
    client.release(error)
  }
  const upsertAll = async (spec: ImportTable, rows: Iterable<Row>): Promise<void> => {
    const batch = new BatchUpsert(client, spec, now)
    for (const row of rows) await batch.add(row)
    await batch.flush()
  }
  return {
    upsertBrands: async (rows) => { await upsertAll(BRANDS_TABLE, rows) },
    upsertAccounts: async (rows) => { await upsertAll(ACCOUNTS_TABLE, rows) },
    addDaily: (row) => daily.add(row as unknown as Row),
    addPost: (row) => posts.add(row),
    commit: async () => {
      await daily.flush()
      await posts.flush()
      await client.query('commit')
      release()
    },
    rollback: async () => {
      if (released) return
      try {
        await client.query('rollback')
        release()
      } catch (error) {
        // A connection that cannot even roll back is broken: drop it rather than reuse it.
        release(error as Error)
      }
    },
  }
}
