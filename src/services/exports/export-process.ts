import { readdirSync } from 'node:fs'
import { setPriority } from 'node:os'
import type { ExportFile, ExportRequest } from '../../domain/exports.js'
import { createParquetEngine, type ParquetEngineOptions } from '../../storage/exports/file-writers.js'
import type { ExportSource } from '../../storage/exports/snapshot.js'
import { ExportFailure, runExport } from './run-export.js'

/**
 * The export process: one child process per running export job (export-process-runner.ts starts
 * it, docs/exports.md "Running"). It opens the job's snapshot on a connection of its own, reads
 * and writes every file, and reports over the IPC channel; the serving process only records
 * progress, stores the finished files and ends the job. Every thread of the process runs at a
 * lower priority (`nice`), DuckDB's included, so that requests keep the CPU they need; a crash
 * here fails the job, never the server. The process ends itself when its parent goes away.
 */

export interface ExportProcessStart {
  type: 'start'
  job: { exportId: string, userId: string, request: ExportRequest }
  source: ExportSource
  stagingDir: string
  maxRowsPerFile: number
  maxRows: number
  parquet: ParquetEngineOptions
  /** The nice value every thread of the process gets (0: none). */
  nice: number
  /** Whether the API is busy as the process starts (later changes come as `pace` commands). */
  busy: boolean
}

/** What the process tells its parent. */
export type ExportProcessMessage =
  | { type: 'snapshot', syncId: number, eventId: number, rowsEstimate: number }
  | { type: 'rows', rows: number }
  | { type: 'file', file: ExportFile, path: string }
  | { type: 'done', rows: number, files: ExportFile[], peakRssMb: number }
  | { type: 'failed', code?: string, message: string }

/**
 * What the parent tells the process: start; go on once the snapshot is recorded; whether the API
 * of the serving process is busy now (sent when that changes).
 */
export type ExportProcessCommand = ExportProcessStart | { type: 'go' } | { type: 'pace', busy: boolean }

/**
 * While the API is busy the export reads a chunk of rows (a batch, or a chunk of the store's CSV)
 * at most this often, so that it still ends under a sustained load; otherwise at full speed.
 * Pausing the reading also pauses PostgreSQL's side of a COPY, which no nice value reaches.
 */
export const BUSY_CHUNK_INTERVAL_MS = 1000

/** Whether the serving process's API is busy, as last told, and who waits for that to end. */
const pace = { busy: false, waiting: new Set<() => void>() }

/** Waits while the API is busy, at most BUSY_CHUNK_INTERVAL_MS. */
async function paced (): Promise<void> {
  if (!pace.busy) return
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      pace.waiting.delete(done)
      resolve()
    }
    const timer = setTimeout(done, BUSY_CHUNK_INTERVAL_MS)
    pace.waiting.add(done)
  })
}

/** Lowers the priority of every thread the process has (Linux: nice is per thread; new threads inherit their creator's). */
function lowerPriority (nice: number): void {
  if (nice === 0) return
  let threads: string[]
  try {
    threads = readdirSync('/proc/self/task')
  } catch {
    threads = [String(process.pid)]
  }
  for (const thread of threads) {
    try {
      setPriority(Number(thread), nice)
    } catch {
      // A thread that ended meanwhile, or a system without per-thread priorities.
    }
  }
}

async function send (message: ExportProcessMessage): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    process.send?.(message, undefined, {}, (error) => { if (error === null) resolve(); else reject(error) })
  })
}

let go: (() => void) | undefined

async function run (start: ExportProcessStart): Promise<void> {
  lowerPriority(start.nice)
  pace.busy = start.busy
  const parquet = createParquetEngine(start.parquet)
  try {
    let lastRows = -1
    const result = await runExport({
      source: start.source,
      stagingDir: start.stagingDir,
      parquet,
      maxRowsPerFile: start.maxRowsPerFile,
      maxRows: start.maxRows,
      signal: new AbortController().signal,
      onSnapshot: async (snapshot) => {
        const recorded = new Promise<void>((resolve) => { go = resolve })
        await send({ type: 'snapshot', ...snapshot })
        await recorded
        // Threads started while the snapshot opened (a connection's) get the same priority.
        lowerPriority(start.nice)
      },
      paced,
      onRows: (rows) => {
        if (rows === lastRows) return
        lastRows = rows
        process.send?.({ type: 'rows', rows } satisfies ExportProcessMessage)
      },
      onFile: async (file, path) => { await send({ type: 'file', file, path }) },
    }, start.job)
    await send({ type: 'done', rows: result.rows, files: result.files, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) })
  } catch (error) {
    const failure = error instanceof ExportFailure ? { code: error.code, message: error.message } : { message: error instanceof Error ? (error.stack ?? error.message) : String(error) }
    await send({ type: 'failed', ...failure }).catch(() => {})
  }
}

// The parent went away (it stopped, or was killed): nothing would store these files.
process.on('disconnect', () => { process.exit(1) })
process.on('message', (command: ExportProcessCommand) => {
  if (command.type === 'go') {
    go?.()
    return
  }
  if (command.type === 'pace') {
    pace.busy = command.busy
    if (!command.busy) for (const done of [...pace.waiting]) done()
    return
  }
  run(command).then(() => { process.exit(0) }, () => { process.exit(1) })
})
