import SqliteDatabase from 'better-sqlite3'
import { workerData } from 'node:worker_threads'
import type { ReadTask } from '../heavy-reads.js'
import { readStatementsOf } from './read-statements.js'
import type { PoolWorkerData } from './sqlite-read-pool.js'

/**
 * One worker of the SQLite read pool (sqlite-read-pool.ts): its own read-only connection to the
 * store's file (WAL: it reads the last committed state while an import writes), with a page cache
 * of its own and each distinct statement prepared once.
 *
 * The connection opens with the first read, not while the module loads: a file that cannot be
 * opened (removed, its permissions changed) is then that read's error, under its own message, and
 * the next read tries again. Thrown while loading, it would kill the worker, and from the sources
 * the cause would be lost: in a worker thread on Node 20 tsx loads TypeScript only through
 * require, and piscina, when require fails, tries import, which reports "Unknown file extension".
 */

function open (): (task: ReadTask) => unknown[] {
  const { file, busyMs, cacheKiB } = workerData as PoolWorkerData
  const sqlite = new SqliteDatabase(file, { readonly: true, fileMustExist: true })
  sqlite.pragma(`busy_timeout = ${busyMs}`)
  sqlite.pragma(`cache_size = -${cacheKiB}`)
  return readStatementsOf(sqlite)
}

let read: ((task: ReadTask) => unknown[]) | undefined

export default function readTask (task: ReadTask): unknown[] {
  read ??= open()
  return read(task)
}
