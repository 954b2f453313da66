import type SqliteDatabase from 'better-sqlite3'
import { LRUCache } from 'lru-cache'
import type { ReadTask } from '../heavy-reads.js'

/** Distinct statements kept prepared per reading connection. */
const STATEMENTS_KEPT = 200

/**
 * Runs read tasks on one SQLite connection, each distinct statement (and row shape) prepared once.
 * Its statements are its own: `.raw()` switches a statement's row shape, so they are not shared
 * with Kysely's.
 */
export function readStatementsOf (sqlite: SqliteDatabase.Database): (task: ReadTask) => unknown[] {
  const statements = new LRUCache<string, SqliteDatabase.Statement>({ max: STATEMENTS_KEPT })
  return (task) => {
    const key = `${task.arrays ? 'a' : 'o'}:${task.sql}`
    let statement = statements.get(key)
    if (statement === undefined) {
      statement = sqlite.prepare(task.sql).raw(task.arrays)
      statements.set(key, statement)
    }
    return Array.isArray(task.parameters) ? statement.all(...task.parameters) : statement.all(task.parameters)
  }
}
