import { fork, type ChildProcess } from 'node:child_process'
import { readdir, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { ExportFile, ExportRequest } from '../../domain/exports.js'
import { withoutTsxLoaders } from '../../storage/read-pool/worker-loading.js'
import { FOREGROUND_WINDOW_MS } from '../foreground-load.js'
import type { ExportProcessCommand, ExportProcessMessage, ExportProcessStart } from './export-process.js'
import { ExportFailure, type RunResult } from './run-export.js'

/**
 * Runs one export job in an export process of its own (export-process.ts) and waits for it: the
 * serving process keeps only the job's bookkeeping — recording the snapshot, progress, storing each
 * finished file (moved into EXPORT_DIR or uploaded to S3) while the process writes the next. The
 * signal stops the process at once (SIGKILL: its snapshot's connection closes with it). A process
 * that exits without reporting its result fails the job; its staged files are removed.
 */

/** What the process is started with (all but the job), and the parent's side of the run. */
export interface ProcessRunOptions extends Omit<ExportProcessStart, 'type' | 'job' | 'busy'> {
  signal: AbortSignal
  /** Whether the serving process's API is busy: the export process then gives way (export-process.ts). */
  busy?: () => boolean
  onSnapshot: (snapshot: { syncId: number, eventId: number, rowsEstimate: number }) => Promise<void>
  onRows: (rowsWritten: number) => void
  onFile: (file: ExportFile, path: string) => Promise<void>
}

/**
 * V8's young generation for the process (MB per semi-space; V8's default is 16): an export makes
 * short-lived texts by the million (a SQLite line, a chunk) and keeps few, and at 16 MB the heap
 * grew by 30 MB more over an export of two years of 1,000 brands, for no less garbage-collection
 * time. The server's own flags come after: one it was given wins.
 */
const PROCESS_FLAGS = ['--max-semi-space-size=4']

/** The process's module and flags: its JavaScript when compiled, its TypeScript through tsx from the sources. */
function processLoading (): { file: string, execArgv: string[] } {
  const fromSources = import.meta.url.endsWith('.ts')
  const file = fileURLToPath(new URL(`./export-process.${fromSources ? 'ts' : 'js'}`, import.meta.url))
  if (!fromSources) return { file, execArgv: [...PROCESS_FLAGS, ...process.execArgv] }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  return { file, execArgv: [...PROCESS_FLAGS, ...withoutTsxLoaders(process.execArgv), '--import', tsx] }
}

/**
 * The export process's environment: the instance's, with glibc's malloc arenas held to 2 unless
 * the operator set MALLOC_ARENA_MAX. Each thread that allocates (libuv's pool, DuckDB's) otherwise
 * gets an arena of its own, and memory freed in one is not reused by another: a scale-M export
 * process peaked at 246 MB with the default, 211 MB with 2 (bench:exports, PostgreSQL).
 */
function exportProcessEnv (): NodeJS.ProcessEnv {
  return { MALLOC_ARENA_MAX: '2', ...process.env }
}

/** Why a process ended without a result: its exit code or signal. */
export class ExportProcessExit extends Error {}

export async function runExportProcess (options: ProcessRunOptions, job: { exportId: string, userId: string, request: ExportRequest }): Promise<RunResult & { peakRssMb: number }> {
  options.signal.throwIfAborted()
  const { file, execArgv } = processLoading()
  const child = fork(file, [], { execArgv, env: exportProcessEnv(), stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' })
  let result: (RunResult & { peakRssMb: number }) | undefined
  let failure: unknown
  // Each finished file is stored in order, while the process goes on.
  let storing: Promise<void> = Promise.resolve()
  const fail = (error: unknown): void => {
    failure ??= error
    child.kill('SIGKILL')
  }
  const stop = (): void => { child.kill('SIGKILL') }
  options.signal.addEventListener('abort', stop, { once: true })
  child.on('message', (message: ExportProcessMessage) => {
    if (message.type === 'snapshot') {
      options.onSnapshot(message).then(() => { child.send({ type: 'go' }) }, fail)
    } else if (message.type === 'rows') {
      options.onRows(message.rows)
    } else if (message.type === 'file') {
      storing = storing.then(async () => { await options.onFile(message.file, message.path) })
      storing.catch(fail)
    } else if (message.type === 'done') {
      result = { rows: message.rows, files: message.files, peakRssMb: message.peakRssMb }
    } else {
      failure ??= message.code === undefined ? new Error(message.message) : new ExportFailure(message.code, message.message)
    }
  })
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => { resolve({ code, signal }) })
    child.on('error', (error) => {
      failure ??= error
      if (child.exitCode === null && child.signalCode === null && child.pid === undefined) resolve({ code: null, signal: null })
    })
  })
  // Field by field, not a spread of the options: only these cross to the process (no callbacks).
  const start: ExportProcessStart = {
    type: 'start',
    job,
    source: options.source,
    stagingDir: options.stagingDir,
    maxRowsPerFile: options.maxRowsPerFile,
    maxRows: options.maxRows,
    parquet: options.parquet,
    nice: options.nice,
    busy: options.busy?.() === true,
  }
  child.send(start)
  const pacing = options.busy === undefined ? undefined : watchBusy(child, options.busy, start.busy)
  try {
    const { code, signal } = await exited
    await storing.catch(() => {})
    options.signal.throwIfAborted()
    if (failure !== undefined) throw failure
    if (result === undefined) throw new ExportProcessExit(`the export process exited with ${signal ?? `code ${String(code)}`} before it finished`)
    return result
  } catch (error) {
    await removeStaged(options.stagingDir, job.exportId)
    throw error
  } finally {
    clearInterval(pacing)
    options.signal.removeEventListener('abort', stop)
    await rm(options.parquet.tempDirectory, { recursive: true, force: true }).catch(() => {})
  }
}

/** How often the API's load is looked at for an export process: its window's length. */
const PACE_CHECK_MS = FOREGROUND_WINDOW_MS

/** Tells the process whenever the API becomes busy or stops being busy. */
function watchBusy (child: ChildProcess, busy: () => boolean, toldAtStart: boolean): NodeJS.Timeout {
  let told = toldAtStart
  const timer = setInterval(() => {
    const now = busy()
    if (now === told || !child.connected) return
    told = now
    child.send({ type: 'pace', busy: now } satisfies ExportProcessCommand, (error) => { if (error !== null) told = !now })
  }, PACE_CHECK_MS)
  timer.unref()
  return timer
}

/** The files a stopped process left in the staging directory (named `<export id>-…`). */
async function removeStaged (dir: string, exportId: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[])
  await Promise.all(names.filter((name) => name.startsWith(`${exportId}-`)).map(async (name) => { await rm(join(dir, name), { force: true }) }))
}
