import { BoundedLane, type LaneStats } from './overload.js'

/**
 * Heavy reads (docs/storage.md "Heavy reads"): reports over many brand-days. Two parts:
 * - `admit` is the lane a whole heavy report takes — its statement and the shaping of its
 *   hundreds of entries on the main thread — at most `concurrency` at once and `queue` waiting;
 *   one more is refused at once with StoreOverloadedError (503 with Retry-After). Bounding the
 *   shaping too is what keeps light requests fast: measured, a lane around the statement alone let
 *   32 finished 100-brand reports queue for the event loop, and a daily page waited ~1 s behind them.
 * - `rows` is where a heavy statement runs:
 *   - SQLite file: worker threads with read-only connections (read-pool/), so the event loop keeps
 *     answering daily pages while a 100-brand year is summed;
 *   - SQLite in memory (tests, `serve` with `:memory:`): the main connection; workers cannot see it;
 *   - PostgreSQL: the pool (the lane keeps heavy statements to `concurrency` of its connections).
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
  /** Heavy reports at once (SQLite: worker threads): default the cores less one, at least 1, at most 4. */
  concurrency?: number
  /** Heavy reads waiting for a slot, at most (default 32). */
  queue?: number
  /** A monthly or agg report covering more brand-days than this is heavy (default HEAVY_BRAND_DAYS). */
  brandDays?: number
}

export interface HeavyReads {
  /** Reports covering more brand-days than this take the lane. */
  brandDays: number
  /** Runs a heavy report's work in the lane, or refuses it (StoreOverloadedError) when the lane is full. */
  admit: <T>(work: () => Promise<T>) => Promise<T>
  /** Runs one heavy statement where heavy statements run (call it from inside `admit`). */
  rows: (task: ReadTask) => Promise<unknown[]>
  /**
   * Calls `listener` on each failure of where heavy statements run that no read carried (SQLite:
   * a worker failing with no task of its own), for the log. A failure a read carried fails that read.
   */
  watchFailures: (listener: (error: Error) => void) => void
  /** The lane's running, queued and refused reports (/metrics). */
  stats: () => LaneStats
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
  /** See HeavyReads.watchFailures; absent where nothing fails outside a read. */
  watchFailures?: (listener: (error: Error) => void) => void
  close: () => Promise<void>
}

/**
 * @param sharedLane the lane of another store to admit through instead of a new one: a read
 *   replica's heavy reports share the primary's lane, since the shaping they bound happens on this
 *   process's one main thread wherever the rows come from.
 */
export function createHeavyReads (executor: ReadExecutor, concurrency: number, options: HeavyReadOptions = {}, sharedLane?: HeavyReads): HeavyReads {
  const lane = sharedLane === undefined ? new BoundedLane(concurrency, options.queue ?? HEAVY_QUEUE) : undefined
  return {
    brandDays: options.brandDays ?? HEAVY_BRAND_DAYS,
    admit: lane === undefined ? (sharedLane as HeavyReads).admit : async (work) => await lane.run(work),
    stats: lane === undefined ? (sharedLane as HeavyReads).stats : () => lane.stats(),
    rows: async (task) => await executor.run(task),
    watchFailures: (listener) => { executor.watchFailures?.(listener) },
    close: async () => { await executor.close() },
  }
}
