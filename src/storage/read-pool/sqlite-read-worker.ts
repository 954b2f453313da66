import SqliteDatabase from 'better-sqlite3'
import { workerData } from 'node:worker_threads'
import { readStatementsOf } from './read-statements.js'
import type { PoolWorkerData } from './sqlite-read-pool.js'

/**
 * One worker of the SQLite read pool (sqlite-read-pool.ts): its own read-only connection to the
 * store's file (WAL: it reads the last committed state while an import writes), with a page cache
 * of its own and each distinct statement prepared once.
 */

const { file, busyMs, cacheKiB } = workerData as PoolWorkerData
const sqlite = new SqliteDatabase(file, { readonly: true, fileMustExist: true })
sqlite.pragma(`busy_timeout = ${busyMs}`)
sqlite.pragma(`cache_size = -${cacheKiB}`)

export default readStatementsOf(sqlite)
