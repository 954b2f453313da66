import { Piscina } from 'piscina'
import type { ReadTask } from '../heavy-reads.js'
import { workerLoading } from './worker-loading.js'

/**
 * SQLite reads in worker threads (src/storage/heavy-reads.ts decides which): a piscina pool whose
 * workers each hold a read-only connection to the store's file (sqlite-read-worker.ts).
 * better-sqlite3 is synchronous, so a 50 ms report run on the event loop holds every other
 * request for 50 ms; run here it holds one worker while the main thread keeps answering.
 * The pool never queues: the lane in front of it (heavy-reads.ts) admits at most one task per
 * worker and bounds the wait.
 *
 * No worker failure ends the process or strands a read (docs/storage.md "Heavy reads"): a worker
 * that crashes, exits or cannot load retires its whole pool — tasks running on its other workers
 * finish, no new task is sent to it — and the next read starts a new one. Retiring the pool rather
 * than waiting for piscina to replace the worker is deliberate: piscina stops replacing workers
 * once one has failed while loading, and a task then waits for a worker that never comes.
 */

export interface PoolWorkerData {
  file: string
  busyMs: number
  /** Page cache of each worker's connection, KiB. */
  cacheKiB: number
}

export interface SqliteReadPoolOptions {
  workers: number
  busyMs: number
  /**
   * Tests only: a module each worker imports before its own (`--import`); one that throws makes
   * the worker fail while loading, as a loader that cannot be found did.
   */
  preload?: URL | undefined
  /**
   * Told of a worker failure that no read carried (a worker failing with no task of its own), once
   * per pool. A failure that a read carried reaches that read's caller as ReadWorkerFailedError.
   */
  onFailure?: (error: ReadWorkerFailedError) => void
}

export interface SqliteReadPool {
  run: (task: ReadTask) => Promise<unknown[]>
  close: () => Promise<void>
}

/** A read that failed because its worker did (crashed, exited, or could not load), not its statement. */
export class ReadWorkerFailedError extends Error {
  constructor (cause: unknown) {
    // The logger appends the cause's message and stack ("…: Cannot find package 'x'").
    super('a heavy-read worker failed', { cause })
    this.name = 'ReadWorkerFailedError'
  }
}

/** One pool of workers, used until one of them fails. */
interface Generation {
  pool: Piscina
  /** One of its workers failed: its reads that fail are the worker's failure, not their statement's. */
  failed: boolean
  /** No new read goes to it; it is closing. */
  retired: boolean
  /** Its failure was logged (through a read, or through onFailure). */
  reported: boolean
}

export function createSqliteReadPool (file: string, options: SqliteReadPoolOptions): SqliteReadPool {
  const { filename, execArgv } = workerLoading(options.preload)
  const workerData: PoolWorkerData = { file, busyMs: options.busyMs, cacheKiB: 32 * 1024 }
  let current: Generation | undefined
  const retiring = new Set<Generation>()
  let closed = false

  const retire = (generation: Generation): void => {
    if (generation.retired) return
    generation.retired = true
    if (current === generation) current = undefined
    retiring.add(generation)
    // Synchronously, so piscina (still inside its failure handling) starts no replacement in it.
    // Reads running on its healthy workers finish (within piscina's close timeout).
    generation.pool.close().catch(() => {}).finally(() => retiring.delete(generation))
  }

  const start = (): Generation => {
    const pool = new Piscina({
      filename,
      execArgv,
      workerData,
      minThreads: options.workers,
      maxThreads: options.workers,
      idleTimeout: Number.POSITIVE_INFINITY,
    })
    const generation: Generation = { pool, failed: false, retired: false, reported: false }
    // Workers leave this pool only by failing, or when it is closed (then it is already retired).
    pool.on('workerDestroy', () => {
      if (generation.retired) return
      generation.failed = true
      retire(generation)
    })
    // A worker that failed with no task of its own. Unhandled, this event would end the process.
    pool.on('error', (error: unknown) => {
      generation.failed = true
      retire(generation)
      if (generation.reported || closed) return
      generation.reported = true
      options.onFailure?.(new ReadWorkerFailedError(error))
    })
    return generation
  }

  return {
    run: async (task) => {
      if (closed) throw new Error('the SQLite read pool is closed')
      const generation = current ??= start()
      try {
        return await (generation.pool.run(task) as Promise<unknown[]>)
      } catch (error) {
        // A healthy worker's failure is its statement's (e.g. SQLITE_BUSY): the caller's to map.
        if (!generation.failed || closed) throw error
        generation.reported = true
        throw new ReadWorkerFailedError(error)
      }
    },
    close: async () => {
      closed = true
      const generation = current
      current = undefined
      if (generation !== undefined) generation.retired = true
      // Pools retired after a failure stop at once; the current one lets a running read finish.
      await Promise.allSettled([
        ...[...retiring].map(async (retired) => { await retired.pool.destroy() }),
        ...(generation === undefined ? [] : [generation.pool.close({ force: true })]),
      ])
    },
  }
}
