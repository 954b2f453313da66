import { createWriteStream, renameSync, rmSync } from 'node:fs'
import type { Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { SingleBar } from 'cli-progress'
import { Command, InvalidArgumentError, Option } from 'commander'
import { PartnerAnalyticsClient } from '../client.js'
import { PartnerAnalyticsError } from '../errors.js'
import { createRowWriter, FORMATS, type Format, type Row } from './formats.js'
import type { AnalyticsQuery, PostsQuery } from '../types.js'
import { analyticsRows, postRows, type Progress } from './sources.js'

/**
 * partner-analytics-export: every page of an analytics or posts query, to CSV, NDJSON or JSON.
 * The key pair comes from the environment only (PA_API_CLIENT_KEY, PA_API_SECRET_KEY, plus
 * PA_BASE_URL), never from argv: command lines end up in shell history and `ps`.
 */

export interface ExportIo {
  env: Record<string, string | undefined>
  stdout: Writable
  /** Messages and the progress bar; the bar is drawn only when this is a terminal. */
  stderr: Writable & { isTTY?: boolean }
  /** Injected in tests; global fetch by default. */
  fetch?: typeof fetch
}

export const EXIT = { ok: 0, apiError: 1, usage: 2 } as const

const ids = (value: string): number[] => {
  const items = value.split(',').map((item) => item.trim())
  if (items.some((item) => !/^\d+$/.test(item))) throw new InvalidArgumentError('expected comma-separated positive integers')
  return items.map(Number)
}
const date = (value: string): string => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new InvalidArgumentError('expected YYYY-MM-DD')
  return value
}

interface CommonOptions { since?: string, until?: string, brandId?: number[], accountId?: number[], platform?: string, format: Format, out?: string }

export async function runExport (argv: string[], io: ExportIo): Promise<number> {
  let exitCode: number = EXIT.ok
  const say = (line: string) => { io.stderr.write(line + '\n') }

  const run = async (source: (client: PartnerAnalyticsClient, progress: Progress) => AsyncGenerator<Row>, options: CommonOptions) => {
    const clientKey = io.env.PA_API_CLIENT_KEY
    const secretKey = io.env.PA_API_SECRET_KEY
    if (clientKey === undefined || clientKey === '' || secretKey === undefined || secretKey === '') {
      say('error: set PA_API_CLIENT_KEY and PA_API_SECRET_KEY in the environment (never on the command line)')
      exitCode = EXIT.usage
      return
    }
    const client = new PartnerAnalyticsClient({
      baseUrl: io.env.PA_BASE_URL ?? 'http://localhost:8000',
      clientKey,
      secretKey,
      fetch: io.fetch,
      onRetry: ({ delayMs, error }) => { say(`${error.errorCode}: retrying in ${(delayMs / 1000).toFixed(1)} s`) },
    })
    exitCode = await writeExport(source(client, createProgress(io.stderr)), options, io, say)
  }

  const program = new Command('partner-analytics-export')
    .description('Export Partner Analytics data, walking every page. Key pair from PA_API_CLIENT_KEY / PA_API_SECRET_KEY, server from PA_BASE_URL.')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stderr.write(text), writeErr: (text) => io.stderr.write(text) })

  const common = (command: Command) => command
    .option('--since <date>', 'first day, YYYY-MM-DD (default: server default, today minus 7 days)', date)
    .option('--until <date>', 'last day, YYYY-MM-DD (default: today)', date)
    .option('--brand-id <ids>', 'comma-separated brand ids (default: every accessible brand)', ids)
    .option('--account-id <ids>', 'comma-separated account ids (needs exactly one --platform)', ids)
    .option('--platform <codes>', 'comma-separated platform codes or names')
    .addOption(new Option('--format <format>', 'output format').choices(FORMATS).default('csv'))
    .option('--out <file>', 'output file (default: standard output)')

  common(program.command('analytics').description('daily, monthly or agg analytics'))
    .addOption(new Option('--type <type>', 'report type').choices(['daily', 'monthly', 'agg']).default('daily'))
    .option('--split-by-platform', 'group by platform only, across brands')
    .action(async (options: CommonOptions & { type: 'daily' | 'monthly' | 'agg', splitByPlatform?: boolean }) => {
      await run((client, progress) => analyticsRows(client, {
        type: options.type,
        since: options.since,
        until: options.until,
        brand_id: options.brandId,
        account_id: options.accountId,
        platform: listOption(options.platform) as AnalyticsQuery['platform'],
        split_by_platform: options.splitByPlatform,
      }, progress), options)
    })

  common(program.command('posts').description('unified posts of every platform'))
    .option('--post-type <types>', 'comma-separated categories (video, image, reel, …)')
    .addOption(new Option('--order-by <field>', 'sort field').choices(['created_time', 'interactions', 'revenue', 'reach', 'views', 'engagement_rate']))
    .addOption(new Option('--order <order>', 'sort direction').choices(['desc', 'asc']))
    .option('--page-size <n>', 'records per request, 1 to 50', (value) => Number(value))
    .action(async (options: CommonOptions & { postType?: string, orderBy?: 'created_time', order?: 'asc' | 'desc', pageSize?: number }) => {
      await run((client, progress) => postRows(client, {
        since: options.since,
        until: options.until,
        brand_id: options.brandId,
        account_id: options.accountId,
        platform: listOption(options.platform) as PostsQuery['platform'],
        post_type: listOption(options.postType) as PostsQuery['post_type'],
        order_by: options.orderBy,
        order: options.order,
        limit: options.pageSize ?? 50,
      }, progress), options)
    })

  try {
    await program.parseAsync(argv, { from: 'user' })
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return EXIT.ok
    if (typeof code === 'string' && code.startsWith('commander.')) return EXIT.usage
    throw error
  }
  return exitCode
}

/** Streams the rows to the file (written as FILE.partial, renamed when complete) or stdout. */
async function writeExport (rows: AsyncGenerator<Row>, options: CommonOptions, io: ExportIo, say: (line: string) => void): Promise<number> {
  const toFile = options.out !== undefined && options.out !== '-'
  const partial = `${options.out ?? ''}.partial`
  const out = toFile ? createWriteStream(partial) : io.stdout
  const writer = createRowWriter(options.format, out)
  let count = 0
  try {
    for await (const row of rows) { await writer.write(row); count++ }
    await writer.end()
    if (toFile) {
      out.end()
      await finished(out)
      renameSync(partial, options.out as string)
    }
    say(`exported ${count} rows to ${toFile ? options.out as string : 'standard output'}`)
    return EXIT.ok
  } catch (error) {
    if (toFile) { out.destroy(); rmSync(partial, { force: true }) }
    if (!(error instanceof PartnerAnalyticsError)) {
      say(`error: ${(error as Error).message}`)
      return EXIT.apiError
    }
    say(`error: ${error.errorCode} (${error.status}): ${error.message}${error.requestId === undefined ? '' : ` [request_id ${error.requestId}]`}`)
    return EXIT.apiError
  }
}

/** A cli-progress bar on a terminal; silent otherwise (pipes, CI logs). */
function createProgress (stderr: ExportIo['stderr']): Progress {
  if (stderr.isTTY !== true) return { start: () => {}, update: () => {} }
  const bar = new SingleBar({
    stream: stderr as NodeJS.WriteStream,
    format: 'exporting [{bar}] {percentage}% | {value}/{total} days | {rows} rows',
    hideCursor: true,
    clearOnComplete: false,
    noTTYOutput: false,
  })
  let total = 0
  return {
    start: (totalDays) => { total = totalDays; bar.start(totalDays, 0, { rows: 0 }) },
    update: (days, rows) => {
      bar.update(Math.min(days, total), { rows })
      if (days >= total) bar.stop()
    },
  }
}

/** A comma-separated option as the list the query carries; the service judges each item (422 when unknown). */
function listOption (value: string | undefined): string[] | undefined {
  return value?.split(',').map((item) => item.trim())
}
