import type SqliteDatabase from 'better-sqlite3'
import type { Store } from './db.js'
import type { Statement } from './queries/brand-reports.query.js'

/**
 * Runs a hot statement prepared once per connection and reused: better-sqlite3 statements kept
 * per text, in array mode (one array per row, no object per row); named prepared statements on
 * PostgreSQL (each pooled connection parses and plans it once). Values are named; arrays go to
 * SQLite as JSON text (read there with json_each) and to PostgreSQL as arrays.
 */
export interface StatementRunner {
  rows: (statement: Statement, values: Readonly<Record<string, unknown>>) => Promise<unknown[][]>
  /** The same, through the store's heavy-read lane (src/storage/heavy-reads.ts). */
  heavyRows: (statement: Statement, values: Readonly<Record<string, unknown>>) => Promise<unknown[][]>
}

/** Values by name → what each driver binds: SQLite by name (arrays as JSON text), PostgreSQL in order. */
function bindingsOf (store: Store, statement: Statement, values: Readonly<Record<string, unknown>>): unknown[] | Record<string, unknown> {
  if (store.dialect === 'postgres') return statement.parameters.map((name) => values[name])
  const bound: Record<string, unknown> = {}
  for (const name of statement.parameters) {
    const value = values[name]
    bound[name] = Array.isArray(value) ? JSON.stringify(value) : value
  }
  return bound
}

export function createStatementRunner (store: Store): StatementRunner {
  const heavyRows = async (statement: Statement, values: Readonly<Record<string, unknown>>): Promise<unknown[][]> =>
    await store.heavy.rows({ sql: statement.text, name: statement.name, parameters: bindingsOf(store, statement, values), arrays: true }) as unknown[][]
  if (store.dialect === 'sqlite') {
    const prepared = new Map<string, SqliteDatabase.Statement>()
    return {
      heavyRows,
      rows: async (statement, values) => {
        let compiled = prepared.get(statement.name)
        if (compiled === undefined) {
          compiled = store.sqlite.prepare(statement.text).raw()
          prepared.set(statement.name, compiled)
        }
        return compiled.all(bindingsOf(store, statement, values)) as unknown[][]
      },
    }
  }
  return {
    heavyRows,
    rows: async (statement, values) => {
      const result = await store.pool.query<unknown[]>({ name: statement.name, text: statement.text, values: statement.parameters.map((name) => values[name]), rowMode: 'array' })
      return result.rows
    },
  }
}
