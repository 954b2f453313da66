import type { Writable } from 'node:stream'
import { SingleBar } from 'cli-progress'
import { PartnerAnalyticsClient } from '../client.js'
import { CursorExpiredError, NetworkError, PartnerAnalyticsError } from '../errors.js'
import { readExportEnvironment } from './environment.js'
import type { ExportJob } from './jobs.js'
import { InterruptedError, OutputError, writeToFile, writeToStream } from './output.js'
import type { Progress } from './sources.js'

export interface ExportIo {
  env: Record<string, string | undefined>
  stdout: Writable
  /** Messages and the progress bar; the bar is drawn only when this is a terminal. */
  stderr: Writable & { isTTY?: boolean }
  /** Injected in tests; global fetch by default. */
  fetch?: typeof fetch
  /** Aborted on SIGINT/SIGTERM: the export stops, removes its partial file and exits 130. */
  signal?: AbortSignal
}

/**
 * Exit codes (docs/client.md). 3: the change feed's cursor expired (the caller must resynchronise,
 * which a script needs to tell from other failures). 130 = 128 + SIGINT, what shells report for Ctrl-C.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, cursorExpired: 3, interrupted: 130 } as const

export interface OutputOptions {
  /** File to write; undefined or "-" for standard output. */
  out?: string
  /** Seconds one request may take; 0 waits forever. */
  timeout: number
}

/** Runs one export and reports it on stderr: a summary line, or exactly one `error: …` line. */
export async function executeExport (job: ExportJob, options: OutputOptions, io: ExportIo): Promise<number> {
  const say = (line: string) => { io.stderr.write(line + '\n') }
  const environment = readExportEnvironment(io.env)
  if (!environment.ok) {
    for (const problem of environment.problems) say(`error: ${problem}`)
    return EXIT.usage
  }
  const client = new PartnerAnalyticsClient({
    ...environment.value,
    fetch: io.fetch,
    timeoutMs: options.timeout * 1000,
    // Ctrl-C also aborts the request in flight, so nothing keeps running after the export stopped.
    signal: io.signal,
    onRetry: ({ delayMs, error }) => { say(`${error.errorCode}: retrying in ${(delayMs / 1000).toFixed(1)} s`) },
  })
  const progress = createProgress(io.stderr)
  const file = options.out !== undefined && options.out !== '-' ? options.out : undefined
  try {
    const text = job.text(client, progress)
    if (file === undefined) await writeToStream(io.stdout, text, io.signal)
    else await writeToFile(file, text, io.signal)
    await job.afterWrite?.()
  } catch (error) {
    progress.stop()
    say(`error: ${describeFailure(error, file)}`)
    return error instanceof InterruptedError ? EXIT.interrupted : error instanceof CursorExpiredError ? EXIT.cursorExpired : EXIT.failed
  }
  say(`exported ${job.summary()} to ${file ?? 'standard output'}`)
  for (const line of job.epilogue?.() ?? []) say(line)
  return EXIT.ok
}

/** One line saying what failed and why; the partial file is already gone when this is printed. */
export function describeFailure (error: unknown, file: string | undefined): string {
  if (error instanceof CursorExpiredError) {
    return `${error.errorCode} (${error.status}): ${error.message}${error.requestId === undefined ? '' : ` [request_id ${error.requestId}]`}; ` +
      'export your data again, then follow the feed from --start latest (with --cursor-file, delete that file first)'
  }
  if (error instanceof PartnerAnalyticsError) {
    return `${error.errorCode} (${error.status}): ${error.message}${error.requestId === undefined ? '' : ` [request_id ${error.requestId}]`}`
  }
  // The base URL is the usual culprit when nothing answers: say which variable to look at.
  if (error instanceof NetworkError) return `${error.message}; check PA_BASE_URL`
  if (error instanceof InterruptedError) return file === undefined ? 'export interrupted' : `export interrupted; ${file} was not written`
  if (error instanceof OutputError) return error.message
  return error instanceof Error ? error.message : String(error)
}

/** A cli-progress bar on a terminal; silent otherwise (pipes, CI logs). */
function createProgress (stderr: ExportIo['stderr']): Progress {
  if (stderr.isTTY !== true) return { start: () => {}, update: () => {}, stop: () => {} }
  const bar = new SingleBar({
    stream: stderr as NodeJS.WriteStream,
    format: 'exporting [{bar}] {percentage}% | {value}/{total} days | {rows} rows',
    hideCursor: true,
    clearOnComplete: false,
    noTTYOutput: false,
  })
  let total = 0
  let running = false
  return {
    start: (totalDays) => { total = totalDays; running = true; bar.start(totalDays, 0, { rows: 0 }) },
    update: (days, rows) => {
      bar.update(Math.min(days, total), { rows })
      if (days >= total && running) { running = false; bar.stop() }
    },
    stop: () => { if (running) { running = false; bar.stop() } },
  }
}
