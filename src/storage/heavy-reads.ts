import { BoundedLane } from './overload.js'

/**
 * The lane heavy reads take (docs/storage.md "Heavy reads"): reports over many brand-days, which
 * the report reader sends here rather than running them where light requests run.
 * - SQLite file: worker threads with read-only connections (read-pool/), so the event loop keeps
 *   answering daily pages while a 100-brand year is summed, and both cores work.
 * - SQLite in memory (tests, `serve` with `:memory:`): the main connection; workers cannot see it.
 * - PostgreSQL: the pool, at most `concurrency` heavy statements at once, so light requests always
 *   find a free connection.
 * In every case at most `queue` heavy reads wait; one more is refused at once with
 * StoreOverloadedError (503 with Retry-After) instead of making every caller wait longer.
 */

/** One read statement, as the driver takes it. */
export interface ReadTask {
  sql: string
  /** Positional (both stores) or named (SQLite only). */
  parameters: readonly unknown[] | Readonly<Record<string, unknown>>
  /** Rows as arrays of column values, else as objects. */
  arrays: boolean
  /** PostgreSQL: the prepared statement's name, when it has one. */
  name?: string | undefined
}

export interface HeavyReadOptions {
  /** Heavy reads running at once: SQLite worker threads (default 2, at most the cores), PostgreSQL connections (default 4 of 10). */
  concurrency?: number
  /** Heavy reads waiting for a slot, at most (default 32). */
  queue?: number
  /** A monthly or agg report covering more brand-days than this is heavy (default HEAVY_BRAND_DAYS). */
  brandDays?: number
}

export interface HeavyReads {
  /** Reports covering more brand-days than this take the lane. */
  brandDays: number
  rows: (task: ReadTask) => Promise<unknown[]>
  close: () => Promise<void>
}

export const HEAVY_QUEUE = 32

/**
 * Ten brand-years. Below it a report costs less on the main thread than the trip to a worker
 * (a year of one brand reads twelve months per account in well under a millisecond); above it,
 * the cost grows with every brand and the event loop is better off without it.
 */
export const HEAVY_BRAND_DAYS = 10 * 366

/** Runs a task, on whatever the store reads heavy statements with. */
export interface ReadExecutor {
  run: (task: ReadTask) => Promise<unknown[]>
  close: () => Promise<void>
}

export function createHeavyReads (executor: ReadExecutor, concurrency: number, options: HeavyReadOptions = {}): HeavyReads {
  const lane = new BoundedLane(concurrency, options.queue ?? HEAVY_QUEUE)
  return {
    brandDays: options.brandDays ?? HEAVY_BRAND_DAYS,
    rows: async (task) => await lane.run(async () => await executor.run(task)),
    close: async () => { await executor.close() },
  }
}
