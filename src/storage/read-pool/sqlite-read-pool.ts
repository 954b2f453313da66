import { Piscina } from 'piscina'
import type { ReadTask } from '../heavy-reads.js'

/**
 * SQLite reads in worker threads (src/storage/heavy-reads.ts decides which): a piscina pool whose
 * workers each hold a read-only connection to the store's file (sqlite-read-worker.ts).
 * better-sqlite3 is synchronous, so a 50 ms report run on the event loop holds every other
 * request for 50 ms; run here it holds one worker while the main thread keeps answering.
 * The pool never queues: the lane in front of it (heavy-reads.ts) admits at most one task per
 * worker and bounds the wait.
 */

export interface PoolWorkerData {
  file: string
  busyMs: number
  /** Page cache of each worker's connection, KiB. */
  cacheKiB: number
}

export interface SqliteReadPool {
  run: (task: ReadTask) => Promise<unknown[]>
  close: () => Promise<void>
}

/** The worker module next to this one: TypeScript under tsx (tests, a checkout), JavaScript in dist/. */
function workerFile (): { filename: string, execArgv: string[] } {
  const fromSources = import.meta.url.endsWith('.ts')
  const filename = new URL(`./sqlite-read-worker.${fromSources ? 'ts' : 'js'}`, import.meta.url).href
  // A worker does not inherit a loader registered in code (bin/partner-analytics.js): ask for it.
  const tsx = fromSources && !process.execArgv.some((arg) => arg.includes('tsx')) ? ['--import', 'tsx'] : []
  return { filename, execArgv: [...process.execArgv, ...tsx] }
}

export function createSqliteReadPool (file: string, options: { workers: number, busyMs: number }): SqliteReadPool {
  const { filename, execArgv } = workerFile()
  const workerData: PoolWorkerData = { file, busyMs: options.busyMs, cacheKiB: 32 * 1024 }
  const pool = new Piscina({
    filename,
    execArgv,
    workerData,
    minThreads: options.workers,
    maxThreads: options.workers,
    idleTimeout: Number.POSITIVE_INFINITY,
  })
  return {
    run: async (task) => await (pool.run(task) as Promise<unknown[]>),
    close: async () => { await pool.close({ force: true }) },
  }
}
