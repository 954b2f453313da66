import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import type { Command } from 'commander'
import { AppError } from '../../domain/errors.js'
import { fileSource, streamSource } from '../../services/import/file-source.js'
import type { RecordSource } from '../../services/import/source.js'
import { ImportRejectedError, type ImportSummary } from '../../services/import/import.service.js'
import { withServices } from '../context.js'
import { countOf } from '../../domain/plural.js'
import { describeRecordCounts } from '../counts.js'
import { CommandError } from '../errors.js'
import { EXIT, printJson, say, type CliIo } from '../io.js'
import { describeChanges } from '../sync-format.js'
import { createImportProgress } from './import-progress.js'

/**
 * `import FILE... [--dry-run] [--json]` (README.md "Operator CLI"); FILE `-` is standard input, streamed. Errors go to stderr one per line as
 * `FILE:LINE: message` and the command exits 1 with nothing written (with `--json`, stdout gets
 * `{"error": {"code": "IMPORT_REJECTED", …, "errors": [those lines]}}`); the summary line, which
 * names the sync the import committed as, goes to stderr, and `--json` also prints the summary
 * object on stdout.
 */
export function registerImportCommand (program: Command, io: CliIo): void {
  program.command('import')
    .description('Import brands, accounts, daily metrics and posts from NDJSON files, or daily rows from CSV files; all or nothing')
    .argument('<files...>', 'NDJSON files, or CSV files of daily rows (the format is read from the content); - reads standard input')
    .option('--dry-run', 'validate everything and write nothing')
    .option('--json', 'print the summary as one JSON object on stdout')
    .action(async (files: string[], options: { dryRun?: boolean, json?: boolean }) => {
      keepImportHeapFlat()
      if (files.filter((file) => file === STDIN).length > 1) throw new AppError('VALIDATION_ERROR', 'standard input (-) can be given only once')
      for (const file of files) if (file !== STDIN) requireReadableFile(file, io)
      const sources: RecordSource[] = files.map((file) => file === STDIN ? streamSource(io.stdin ?? process.stdin) : fileSource(file))
      const progress = createImportProgress(io)
      const errors: string[] = []
      let summary: ImportSummary
      try {
        summary = await withServices(io, ({ services }) => services.imports.run(sources, {
          dryRun: options.dryRun === true,
          onError: (message) => {
            progress.stop()
            say(io, message)
            // Kept only for the JSON error object; without --json they are streamed and forgotten.
            if (options.json === true) errors.push(message)
          },
          onProgress: progress.update,
        }))
      } catch (error) {
        // The `FILE:LINE: message` lines, already on stderr, become the JSON error's `errors`.
        if (error instanceof ImportRejectedError) throw new CommandError('IMPORT_REJECTED', error.message, EXIT.FAILURE, { errors })
        throw error
      } finally {
        progress.stop()
      }
      say(io, summaryLine(summary))
      // snake_case on the wire, like every other --json object and the API itself.
      if (options.json === true) {
        printJson(io, {
          counts: summary.counts,
          records: summary.records,
          seconds: summary.seconds,
          rows_per_second: summary.rowsPerSecond,
          dry_run: summary.dryRun,
          // The sync it committed as (`imports show ID`); null for a dry run.
          sync_id: summary.sync?.syncId ?? null,
          changed: summary.sync?.counts.changed ?? null,
        })
      }
    })
}

/**
 * Peak memory that does not depend on the import's size or on when the GC happens to run: an
 * import's live heap is ~30–40 MB (keys, one batch, one page of the read model), but by default
 * V8 let it reach 130–185 MB of garbage between mark-compacts, so peak RSS swung 205–305 MB
 * (SQLite) and 295–400 MB (PostgreSQL) with the size and the timing. Two causes, two flags:
 * - allocation-site pretenuring: the records, seen to survive a scavenge now and then (a batch
 *   awaiting its write), were allocated straight into the old generation, ~100 MB of garbage
 *   between collections; without it they die young;
 * - the old generation's growing factor (up to 4 × the live size when the GC is cheap): 1.5 ×
 *   keeps the next collection near the live size; the CPU it costs was not measurable at S.
 * Both are read whenever the GC runs, so setting them here, before the first record, works (they
 * only affect this process, which does nothing but the import). Figures: docs/benchmarks.md
 * "Import memory".
 */
function keepImportHeapFlat (): void {
  setFlagsFromString('--no-allocation-site-pretenuring')
  setFlagsFromString('--heap-growing-percent=50')
}

/** The file name that means standard input: `import -` reads a stream (e.g. a generator piped in). */
const STDIN = '-'

/**
 * A missing or unreadable file is a usage error (exit 2), found before anything is read. A relative
 * name is shown with the absolute path it was looked for at: under `npm run cli`, npm starts the
 * command in the package root, not in the folder npm was typed in (INIT_CWD), and says so.
 */
function requireReadableFile (file: string, io: CliIo): void {
  try {
    if (!statSync(file).isFile()) throw new Error('not a regular file')
    accessSync(file, constants.R_OK)
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message
    const tried = isAbsolute(file) ? '' : ` (looked for ${resolve(file)})`
    throw new AppError('VALIDATION_ERROR', `cannot read ${file}${tried}: ${reason}${npmFolderHint(file, io)}`)
  }
}

/** When npm ran the command from another folder than the one it was typed in, say so, and where the file is if it is there. */
function npmFolderHint (file: string, io: CliIo): string {
  const typedIn = io.env.INIT_CWD
  if (typedIn === undefined || isAbsolute(file) || resolve(typedIn) === process.cwd()) return ''
  const there = resolve(typedIn, file)
  return `; npm runs scripts from the package root (${process.cwd()}), not from ${resolve(typedIn)} where npm was started: ` +
    (existsSync(there) ? `give the path ${there}` : 'give a path from the package root, or an absolute one')
}

export function summaryLine (summary: ImportSummary): string {
  const head = summary.dryRun ? 'Dry run, nothing written: validated' : 'Imported'
  const sync = summary.sync === null ? '' : ` as sync ${summary.sync.syncId}: ${describeChanges(summary.sync.counts.changed)}`
  return `${head} ${countOf(summary.records, 'record')} (${describeRecordCounts(summary.counts)}) in ${summary.seconds.toFixed(3)} s, ${summary.rowsPerSecond} records/s${sync}`
}
