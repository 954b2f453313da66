import { InvalidArgumentError, type Command } from 'commander'
import { isCalendarDate, utcToday } from '../../domain/dates.js'
import { DEMO_DEFAULTS, DEMO_LIMITS, resolveDemoOptions } from '../../services/demo/generator.js'
import { writeDemoNdjson } from '../../services/demo/ndjson.js'
import { demoSource } from '../../services/demo/source.js'
import { withServices } from '../context.js'
import { countOf } from '../../domain/plural.js'
import { describeRecordCounts } from '../counts.js'
import { printJson, say, type CliIo } from '../io.js'

/** `demo`: deterministic synthetic data, imported into the configured database or written to NDJSON. */

function integerOption (name: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const number = Number(value.trim())
    if (!/^\d+$/.test(value.trim()) || number < min || number > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}, got "${value}"`)
    }
    return number
  }
}

function dateOption (value: string): string {
  if (!isCalendarDate(value.trim())) throw new InvalidArgumentError(`expected a date YYYY-MM-DD, got "${value}"`)
  // Data in the future cannot exist (docs/demo-data.md).
  if (value.trim() > utcToday()) throw new InvalidArgumentError(`expected today (${utcToday()}) or an earlier day, got "${value}"`)
  return value.trim()
}

interface DemoCommandOptions {
  brands: number
  days: number
  seed: number
  until?: string
  out?: string
  json?: boolean
}

const HELP_AFTER = `
The data is synthetic but realistic: brands 1..N with about three accounts each (8 brands give
25 accounts on all nine platforms), one row per account and day with platform-typical magnitudes,
weekly rhythm, follower growth, missing days and unreported metrics, revenue on some accounts
only, and posts with each platform's own types. The same options always give the same records.

Without --out the records go through the import (validated, then written in one transaction;
re-running replaces the same rows). With --out they are streamed to an NDJSON file that
\`partner-analytics import FILE\` accepts.

Examples:
  partner-analytics demo                                  8 brands, 400 days to today, seed 42
  partner-analytics demo --brands 20 --days 90 --seed 7
  partner-analytics demo --brands 1000 --days 730 --out /tmp/demo.ndjson
`

function formatBytes (bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`
}

export function registerDemoCommand (program: Command, io: CliIo): void {
  program.command('demo')
    .description('Generate deterministic synthetic data and import it, or write it to an NDJSON file (--out)')
    .option('--brands <n>', 'number of brands (ids 1..n), about 3 accounts each', integerOption('--brands', 1, DEMO_LIMITS.brands), DEMO_DEFAULTS.brands)
    .option('--days <n>', 'days of history per account, ending at --until', integerOption('--days', 1, DEMO_LIMITS.days), DEMO_DEFAULTS.days)
    .option('--seed <n>', 'random seed; the same seed gives the same data', integerOption('--seed', 0, DEMO_LIMITS.seed), DEMO_DEFAULTS.seed)
    .option('--until <date>', 'last day of the history, YYYY-MM-DD UTC, today at the latest (default: today; no post after now)', dateOption)
    .option('--out <file>', 'write NDJSON to this file instead of importing into the database')
    .option('--json', 'print one JSON object on stdout')
    .addHelpText('after', HELP_AFTER)
    .action(async (options: DemoCommandOptions) => {
      // Fix `until` now, so both import passes and the summary agree even across midnight.
      const demo = resolveDemoOptions({ brands: options.brands, days: options.days, seed: options.seed, until: options.until })
      // The JSON output names the moment of generation in the API's style.
      const { asOf, ...shown } = demo
      const started = performance.now()
      const what = `seed ${demo.seed}, ${countOf(demo.brands, 'brand')}, ${countOf(demo.days, 'day')} to ${demo.until}`

      if (options.out !== undefined) {
        const written = await writeDemoNdjson(demo, options.out)
        const seconds = Math.round(performance.now() - started) / 1000
        say(io, `Wrote ${countOf(written.records, 'record')} (${describeRecordCounts(written.counts)}) to ${written.file}: ${formatBytes(written.bytes)} in ${seconds} s (${what}).`)
        if (options.json === true) {
          printJson(io, { ...shown, as_of: asOf, out: written.file, counts: written.counts, records: written.records, bytes: written.bytes, seconds })
        }
        return
      }

      const summary = await withServices(io, ({ services }) => services.imports.run([demoSource(demo)], {
        onError: (message) => say(io, message),
        onProgress: io.stderr.isTTY === true ? (done) => { io.stderr.write(`\rimported: ${countOf(done, 'record')}`) } : undefined,
      }), { create: true })
      if (io.stderr.isTTY === true) io.stderr.write('\n')
      say(io, `Imported ${countOf(summary.records, 'record')} (${describeRecordCounts(summary.counts)}) in ${summary.seconds} s, ${summary.rowsPerSecond} records/s (${what}).`)
      if (options.json === true) {
        printJson(io, { ...shown, as_of: asOf, out: null, counts: summary.counts, records: summary.records, seconds: summary.seconds, rows_per_second: summary.rowsPerSecond })
      }
    })
}
