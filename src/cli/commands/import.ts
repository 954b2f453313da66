import { accessSync, constants, statSync } from 'node:fs'
import type { Command } from 'commander'
import { AppError } from '../../domain/errors.js'
import { fileSource } from '../../services/import/file-source.js'
import { ImportRejectedError, type ImportSummary } from '../../services/import/import.service.js'
import { withServices } from '../context.js'
import { countOf, describeRecordCounts } from '../counts.js'
import { CommandError } from '../errors.js'
import { EXIT, printJson, say, type CliIo } from '../io.js'
import { createImportProgress } from './import-progress.js'

/**
 * `import FILE... [--dry-run] [--json]` (README.md "Operator CLI"). Errors go to stderr one per line as
 * `FILE:LINE: message` and the command exits 1 with nothing written (with `--json`, stdout gets
 * `{"error": {"code": "IMPORT_REJECTED", …, "errors": [those lines]}}`); the summary line goes to
 * stderr, and `--json` also prints the summary object on stdout.
 */
export function registerImportCommand (program: Command, io: CliIo): void {
  program.command('import')
    .description('Import brands, accounts, daily metrics and posts from NDJSON files, or daily rows from CSV files; all or nothing')
    .argument('<files...>', 'NDJSON files, or CSV files of daily rows (the format is read from the content)')
    .option('--dry-run', 'validate everything and write nothing')
    .option('--json', 'print the summary as one JSON object on stdout')
    .action(async (files: string[], options: { dryRun?: boolean, json?: boolean }) => {
      for (const file of files) requireReadableFile(file)
      const progress = createImportProgress(io)
      const errors: string[] = []
      let summary: ImportSummary
      try {
        summary = await withServices(io, ({ services }) => services.imports.run(files.map(fileSource), {
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
        printJson(io, { counts: summary.counts, records: summary.records, seconds: summary.seconds, rows_per_second: summary.rowsPerSecond, dry_run: summary.dryRun })
      }
    })
}

/** A missing or unreadable file is a usage error (exit 2), found before anything is read. */
function requireReadableFile (file: string): void {
  try {
    if (!statSync(file).isFile()) throw new Error('not a regular file')
    accessSync(file, constants.R_OK)
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message
    throw new AppError('VALIDATION_ERROR', `cannot read ${file}: ${reason}`)
  }
}

export function summaryLine (summary: ImportSummary): string {
  const head = summary.dryRun ? 'Dry run, nothing written: validated' : 'Imported'
  return `${head} ${countOf(summary.records, 'record')} (${describeRecordCounts(summary.counts)}) in ${summary.seconds.toFixed(3)} s, ${summary.rowsPerSecond} records/s`
}
