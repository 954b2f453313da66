import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import type { Transaction } from 'kysely'
import { formatUtcSeconds } from '../../domain/dates.js'
import type { ExportRequest } from '../../domain/exports.js'
import type { Database } from '../../storage/database.js'
import type { Store } from '../../storage/db.js'
import {
  claimExportJob, findExpiredExportJobs, findExportJobById, finishExportJob, markExportExpired, recordExportSnapshot, releaseExportJob, renewExportLease, type ExportJobRow,
} from '../../storage/exports/export-jobs.repository.js'
import type { ExportFileStore } from '../../storage/exports/file-store.js'
import type { ParquetEngineOptions } from '../../storage/exports/file-writers.js'
import { exportSourceOf, SnapshotUnsupportedError } from '../../storage/exports/snapshot.js'
import type { ForegroundLoad } from '../foreground-load.js'
import { runExportProcess } from './export-process-runner.js'
import { ExportFailure } from './run-export.js'

/**
 * The export worker (docs/exports.md "Jobs"): wired once with the services, started by `serve`
 * and stopped with it, never from a route. It claims jobs from the database with a lease (the
 * claim applies EXPORT_CONCURRENCY over every instance and EXPORT_CONCURRENCY_PER_PARTNER), runs
 * each in an export process of its own (export-process.ts: off the serving event loop, at a lower
 * priority; its crash fails the job, not the server), renews the lease while it runs (a third of the lease at a time) and
 * stops the job as soon as a renewal finds it cancelled or claimed by another instance. A killed
 * instance's lease runs out and the job is claimed again and run from the start; a stopping one
 * gives its jobs back queued. Every minute it removes the files of jobs past their retention.
 */

export interface ExportLog {
  info: (fields: Record<string, unknown>, message: string) => void
  warn: (fields: Record<string, unknown>, message: string) => void
  error: (fields: Record<string, unknown>, message: string) => void
}

export interface ExportWorkerOptions {
  store: Store
  files: ExportFileStore
  /** DuckDB's settings in each export process; its temp directory gets a folder per job. */
  parquet: ParquetEngineOptions
  /** The nice value of the export processes' threads (10 by default; 0: none). */
  nice?: number
  /** The serving process's API load: while it is busy, export processes read at a trickle. */
  foreground?: Pick<ForegroundLoad, 'busy'>
  concurrency: number
  concurrencyPerPartner: number
  maxRowsPerFile: number
  maxRows: number
  timeLimitMs: number
  retentionHours: number
  now: () => number
  /** How long a claim holds a job without renewal (30 s). */
  leaseMs?: number
  /** How often the worker looks for queued jobs (1 s; a new job wakes it at once). */
  pollMs?: number
  /**
   * Called in the transaction that marks a job succeeded, with the job as it is then (the
   * export.completed notification is written there: it exists exactly when the success does).
   * A failure rolls the success back; the job then fails INTERNAL.
   */
  onSucceeded?: (trx: Transaction<Database>, job: ExportJobRow) => Promise<void>
}

export interface ExportWorker {
  start: (log: ExportLog) => void
  /** Stops claiming; running jobs are cut and given back queued (within `graceMs`). */
  stop: (graceMs?: number) => Promise<void>
  wake: () => void
  /** Jobs this instance runs now. */
  running: () => number
  /** Removes the files of jobs past their retention; returns how many jobs expired. */
  purgeExpired: () => Promise<number>
}

/** Export processes yield the CPU to the serving process (nice 10 of 19). */
const DEFAULT_NICE = 10
const SILENT: ExportLog = { info: () => {}, warn: () => {}, error: () => {} }
const PURGE_EVERY_MS = 60_000

export function createExportWorker (options: ExportWorkerOptions): ExportWorker {
  const leaseMs = options.leaseMs ?? 30_000
  const pollMs = options.pollMs ?? 1000
  const { store, now } = options
  const jobs = new Map<string, { abort: AbortController, done: Promise<void> }>()
  let log = SILENT
  let started = false
  let stopping = false
  let timer: NodeJS.Timeout | undefined
  let purgeTimer: NodeJS.Timeout | undefined
  let passing = false
  let again = false
  // A closure's flags, read through a call: loops test them while awaits let stop() change them.
  const isRunning = (): boolean => started && !stopping
  /** Runs work in the background; its own handlers catch what they expect, this reports anything else. */
  const background = (work: Promise<void>): void => {
    work.catch((error: unknown) => log.error({ err: error }, 'export worker: unexpected failure'))
  }

  const schedule = (delayMs: number): void => {
    if (!started || stopping) return
    clearTimeout(timer)
    timer = setTimeout(() => { background(pass()) }, delayMs)
    timer.unref()
  }

  async function pass (): Promise<void> {
    if (passing) { again = true; return }
    passing = true
    try {
      do {
        again = false
        while (isRunning() && jobs.size < options.concurrency) {
          const token = randomUUID()
          const job = await claimExportJob(store.db, store.dialect, {
            nowMs: now(), startedAt: formatUtcSeconds(now()), token, leaseMs, perPartner: options.concurrencyPerPartner, global: options.concurrency,
          })
          if (job === undefined) break
          launch(job, token)
        }
      } while (again && isRunning())
    } catch (error) {
      log.error({ err: error }, 'export worker: claiming a job failed; trying again at the next poll')
    } finally {
      passing = false
      schedule(pollMs)
    }
  }

  function launch (job: ExportJobRow, token: string): void {
    const abort = new AbortController()
    const done = run(job, token, abort).catch((error: unknown) => {
      log.error({ err: error, export_id: job.export_id }, 'export worker: unexpected failure')
    }).finally(() => {
      jobs.delete(job.export_id)
      if (!stopping) background(pass())
    })
    jobs.set(job.export_id, { abort, done })
  }

  async function run (job: ExportJobRow, token: string, abort: AbortController): Promise<void> {
    const exportId = job.export_id
    let rowsWritten = 0
    let rowsEstimate: number | undefined
    log.info({ export_id: exportId, attempt: job.attempts }, 'export started')
    const renew = async (): Promise<void> => {
      try {
        const held = await renewExportLease(store.db, exportId, token, now() + leaseMs, { rowsWritten, rowsEstimate })
        if (!held) abort.abort('lost')
      } catch (error) {
        log.warn({ err: error, export_id: exportId }, 'export worker: renewing a lease failed; trying again')
      }
    }
    const heartbeat = setInterval(() => { background(renew()) }, Math.max(50, Math.floor(leaseMs / 3)))
    const deadline = setTimeout(() => abort.abort('timeout'), Math.max(0, options.timeLimitMs))
    const finish = async (outcome: Parameters<typeof finishExportJob>[3]): Promise<boolean> => await finishExportJob(store.db, exportId, token, outcome)
    const times = (): { finishedAt: string, expiresAt: string } => ({
      finishedAt: formatUtcSeconds(now()),
      expiresAt: formatUtcSeconds(now() + options.retentionHours * 3_600_000),
    })
    try {
      const request = JSON.parse(job.request) as ExportRequest
      let source
      try {
        source = exportSourceOf(store)
      } catch (error) {
        if (error instanceof SnapshotUnsupportedError) throw new ExportFailure('STORE_UNSUPPORTED', error.message)
        throw error
      }
      await options.files.removeAll(exportId)
      const result = await runExportProcess({
        source,
        stagingDir: options.files.stagingDir,
        maxRowsPerFile: options.maxRowsPerFile,
        maxRows: options.maxRows,
        parquet: { ...options.parquet, tempDirectory: join(options.parquet.tempDirectory, exportId) },
        nice: options.nice ?? DEFAULT_NICE,
        busy: options.foreground === undefined ? undefined : () => options.foreground?.busy() === true,
        signal: abort.signal,
        onSnapshot: async (snapshot) => {
          rowsEstimate = snapshot.rowsEstimate
          await recordExportSnapshot(store.db, exportId, token, { syncId: snapshot.syncId, eventId: snapshot.eventId })
          await renew()
        },
        onRows: (rows) => { rowsWritten = rows },
        onFile: async (file, path) => { await options.files.put(`${exportId}/${file.name}`, path) },
      }, { exportId, userId: job.user_id, request })
      const finished = await store.db.transaction().execute(async (trx) => {
        if (!await finishExportJob(trx, exportId, token, { status: 'succeeded', ...times(), rowsWritten: result.rows, files: JSON.stringify(result.files) })) return false
        const succeeded = await findExportJobById(trx, exportId)
        if (succeeded !== undefined) await options.onSucceeded?.(trx, succeeded)
        return true
      })
      if (!finished) {
        // Cancelled meanwhile (or the lease went to another instance, which writes its own files).
        if (await stillOurs(exportId)) await options.files.removeAll(exportId).catch(() => {})
        return
      }
      log.info({ export_id: exportId, rows: result.rows, files: result.files.length, process_peak_rss_mb: result.peakRssMb }, 'export succeeded')
    } catch (error) {
      const reason = abort.signal.aborted ? abort.signal.reason as string : undefined
      if (reason === 'lost' || reason === 'stopping') {
        log.info({ export_id: exportId, reason }, reason === 'lost' ? 'export stopped: cancelled, or claimed by another instance' : 'export given back: the instance is stopping')
        if (reason === 'stopping') await giveBack(exportId, token)
        return
      }
      const failure = reason === 'timeout'
        ? new ExportFailure('TIMEOUT', `The export ran longer than ${Math.round(options.timeLimitMs / 1000)} seconds (EXPORT_TIME_LIMIT_SECONDS): narrow it by brand_id, platform or period`)
        : error instanceof ExportFailure ? error : undefined
      if (failure === undefined) log.error({ err: error, export_id: exportId }, 'export failed')
      await options.files.removeAll(exportId).catch(() => {})
      await finish({
        status: 'failed',
        ...times(),
        rowsWritten,
        error: failure === undefined ? { code: 'INTERNAL', message: 'The export failed on the server; create it again' } : { code: failure.code, message: failure.message },
      })
    } finally {
      clearInterval(heartbeat)
      clearTimeout(deadline)
    }
  }

  /** True unless another instance holds the job now (then its files are that instance's). */
  async function stillOurs (exportId: string): Promise<boolean> {
    const job = await findExportJobById(store.db, exportId)
    return job === undefined || job.status !== 'running'
  }

  async function giveBack (exportId: string, token: string): Promise<void> {
    await releaseExportJob(store.db, exportId, token).catch(() => {})
  }

  async function purgeExpired (): Promise<number> {
    let removed = 0
    for (;;) {
      const expired = await findExpiredExportJobs(store.db, formatUtcSeconds(now()), 100)
      for (const exportId of expired) {
        await options.files.removeAll(exportId)
        await markExportExpired(store.db, exportId)
        removed += 1
      }
      if (expired.length < 100) return removed
    }
  }

  return {
    start (workerLog) {
      if (started) return
      started = true
      stopping = false
      log = workerLog
      schedule(0)
      const runPurge = (): void => {
        purgeExpired().then((removed) => {
          if (removed > 0) log.info({ removed }, 'export files past their retention removed')
        }, (error: unknown) => log.error({ err: error }, 'export worker: removing expired files failed; trying again'))
        purgeTimer = setTimeout(runPurge, PURGE_EVERY_MS)
        purgeTimer.unref()
      }
      purgeTimer = setTimeout(runPurge, 1000)
      purgeTimer.unref()
    },
    async stop (graceMs = 5000) {
      if (!started) return
      stopping = true
      clearTimeout(timer)
      clearTimeout(purgeTimer)
      for (const job of jobs.values()) job.abort.abort('stopping')
      const all = Promise.all([...jobs.values()].map(async (job) => await job.done))
      await Promise.race([all, new Promise((resolve) => setTimeout(resolve, graceMs).unref())])
      started = false
    },
    wake () {
      if (started && !stopping) background(pass())
    },
    running: () => jobs.size,
    purgeExpired,
  }
}
