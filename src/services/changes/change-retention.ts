import { purgeExpiredBatch } from '../../storage/changes/change-retention.repository.js'
import type { Store } from '../../storage/db.js'

/**
 * The change feed's retention (CHANGES_RETENTION_DAYS; docs/api-reference.md "Change feed"):
 * events older than the retention are deleted in the background, oldest first. Wired once with
 * the services and started only by `serve` (never by a route or a CLI command); several
 * instances may each run it (the storage side tolerates that).
 *
 * Bounded: a run deletes at most `maxBatches` batches of `batchSize` events, each batch its own
 * short transaction, and runs follow one another `intervalMs` apart (never overlapping). A run
 * that fails — the store down, a lock timeout — is reported and the next one tries again: a
 * failure never ends the process.
 */

export const PURGE_BATCH_SIZE = 1000
export const PURGE_MAX_BATCHES = 20
export const PURGE_INTERVAL_MS = 5 * 60_000
/** The first run, soon after start (a server restarted often still purges). */
export const PURGE_FIRST_RUN_MS = 1000

const DAY_MS = 86_400_000

export interface PurgeRun {
  deleted: number
  batches: number
}

export interface RetentionListener {
  /** After a run that deleted something. */
  onPurged?: (run: PurgeRun) => void
  /** A run failed; the next one is still scheduled. */
  onError?: (error: unknown) => void
}

export interface ChangeRetention {
  /** One run now (what the timer does). */
  runOnce: () => Promise<PurgeRun>
  /** Starts the timer; a second call does nothing. */
  start: (listener?: RetentionListener) => void
  /** Stops the timer and waits for a run in progress (each of its statements is bounded by the store's deadlines). */
  stop: () => Promise<void>
}

export interface ChangeRetentionDeps {
  store: Store
  retentionDays: number
  now: () => number
  batchSize?: number
  maxBatches?: number
  intervalMs?: number
  firstRunMs?: number
}

export function createChangeRetention (deps: ChangeRetentionDeps): ChangeRetention {
  const batchSize = deps.batchSize ?? PURGE_BATCH_SIZE
  const maxBatches = deps.maxBatches ?? PURGE_MAX_BATCHES
  const intervalMs = deps.intervalMs ?? PURGE_INTERVAL_MS
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let stopped = true

  const runOnce = async (): Promise<PurgeRun> => {
    const cutoff = deps.now() - deps.retentionDays * DAY_MS
    const run: PurgeRun = { deleted: 0, batches: 0 }
    while (run.batches < maxBatches) {
      const batch = await purgeExpiredBatch(deps.store.db, cutoff, batchSize)
      run.batches++
      run.deleted += batch.deleted
      if (batch.done) break
    }
    return run
  }

  /** One timed run; never rejects (a failure, even of a listener, must not become an unhandled rejection). */
  const tick = async (listener: RetentionListener): Promise<void> => {
    try {
      const run = await runOnce()
      if (run.deleted > 0) listener.onPurged?.(run)
    } catch (error) {
      try {
        listener.onError?.(error)
      } catch {
        // Nothing left to tell: the next run is scheduled all the same.
      }
    }
  }

  const schedule = (delayMs: number, listener: RetentionListener): void => {
    if (stopped) return
    timer = setTimeout(() => {
      running = tick(listener).finally(() => {
        running = undefined
        schedule(intervalMs, listener)
      })
    }, delayMs)
    // The purge never keeps a process alive by itself.
    timer.unref()
  }

  return {
    runOnce,
    start: (listener = {}) => {
      if (!stopped) return
      stopped = false
      schedule(deps.firstRunMs ?? PURGE_FIRST_RUN_MS, listener)
    },
    stop: async () => {
      stopped = true
      clearTimeout(timer)
      await running
    },
  }
}
