import { Command, InvalidArgumentError, Option } from 'commander'
import { DEFAULT_TIMEOUT_MS } from '../client.js'
import { EXIT, executeExport, type ExportIo } from './execute.js'
import { FORMATS, type Format } from './formats.js'
import type { AnalyticsQuery, PostsQuery } from '../types.js'
import { analyticsJob, postsJob, type ExportJob } from './jobs.js'
import { changesJob } from './changes-job.js'
import type { ChangesQuery } from '../types.js'

/**
 * partner-analytics-export: every page of an analytics or posts query, to CSV, NDJSON or JSON.
 * Settings that are secrets or per-installation (key pair, PA_BASE_URL) come from the environment
 * (environment.ts); what to export comes from the options.
 */

export { EXIT, type ExportIo } from './execute.js'

const ids = (value: string): number[] => {
  const items = value.split(',').map((item) => item.trim())
  if (items.some((item) => !/^\d+$/.test(item))) throw new InvalidArgumentError('expected comma-separated positive integers')
  return items.map(Number)
}
const date = (value: string): string => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new InvalidArgumentError('expected YYYY-MM-DD')
  return value
}
const pageSize = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 50) throw new InvalidArgumentError('expected an integer from 1 to 50')
  return Number(value)
}
const feedPageSize = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 100) throw new InvalidArgumentError('expected an integer from 1 to 100')
  return Number(value)
}
const seconds = (value: string): number => {
  const parsed = Number(value)
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0) throw new InvalidArgumentError('expected a number of seconds, 0 for no limit')
  return parsed
}

interface CommonOptions { since?: string, until?: string, brandId?: number[], accountId?: number[], platform?: string, format: Format, out?: string, timeout: number }

export async function runExport (argv: string[], io: ExportIo): Promise<number> {
  let exitCode: number = EXIT.ok
  const run = async (job: ExportJob, options: CommonOptions) => {
    exitCode = await executeExport(job, { out: options.out, timeout: options.timeout }, io)
  }

  const program = new Command('partner-analytics-export')
    .description('Export Partner Analytics data, walking every page. Server from PA_BASE_URL, key pair from PA_API_CLIENT_KEY / PA_API_SECRET_KEY.')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stderr.write(text), writeErr: (text) => io.stderr.write(text) })

  const common = (command: Command) => command
    .option('--since <date>', 'first day, YYYY-MM-DD (default: server default, today minus 7 days)', date)
    .option('--until <date>', 'last day, YYYY-MM-DD (default: today)', date)
    .option('--brand-id <ids>', 'comma-separated brand ids (default: every accessible brand)', ids)
    .option('--account-id <ids>', 'comma-separated account ids (needs exactly one --platform)', ids)
    .option('--platform <codes>', 'comma-separated platform codes or names')
    .addOption(new Option('--format <format>', 'output format').choices(FORMATS).default('csv'))
    .option('--out <file>', 'output file, written as FILE.partial and renamed when complete (default: standard output)')
    .option('--timeout <seconds>', 'seconds one request may take, 0 for no limit', seconds, DEFAULT_TIMEOUT_MS / 1000)

  common(program.command('analytics').description('daily, monthly or agg analytics (agg also writes the total and average)'))
    .addOption(new Option('--type <type>', 'report type').choices(['daily', 'monthly', 'agg']).default('daily'))
    .option('--split-by-platform', 'group by platform only, across brands')
    .addOption(new Option('--gaps <mode>', 'a day an account did not report: zero (the default answers) or carry (stocks carried, rates over the account-days reporting both parts)').choices(['zero', 'carry']))
    .action(async (options: CommonOptions & { type: 'daily' | 'monthly' | 'agg', splitByPlatform?: boolean, gaps?: 'zero' | 'carry' }) => {
      await run(analyticsJob(options.format, {
        type: options.type,
        since: options.since,
        until: options.until,
        brand_id: options.brandId,
        account_id: options.accountId,
        platform: listOption(options.platform) as AnalyticsQuery['platform'],
        split_by_platform: options.splitByPlatform,
        gaps: options.gaps,
      }), options)
    })

  common(program.command('posts').description('unified posts of every platform'))
    .option('--post-type <types>', 'comma-separated categories (video, image, reel, …)')
    .addOption(new Option('--order-by <field>', 'sort field').choices(['created_time', 'interactions', 'revenue', 'reach', 'views', 'engagement_rate']))
    .addOption(new Option('--order <order>', 'sort direction').choices(['desc', 'asc']))
    .option('--page-size <n>', 'records per request, 1 to 50', pageSize)
    .action(async (options: CommonOptions & { postType?: string, orderBy?: 'created_time', order?: 'asc' | 'desc', pageSize?: number }) => {
      await run(postsJob(options.format, {
        since: options.since,
        until: options.until,
        brand_id: options.brandId,
        account_id: options.accountId,
        platform: listOption(options.platform) as PostsQuery['platform'],
        post_type: listOption(options.postType) as PostsQuery['post_type'],
        order_by: options.orderBy,
        order: options.order,
        limit: options.pageSize ?? 50,
      }), options)
    })

  program.command('changes')
    .description('the change feed as NDJSON, one event per line, up to now; prints the cursor to continue from (last line of standard error)')
    // Where to begin is said once: the API refuses start with cursor, and a cursor file is a cursor.
    .addOption(new Option('--cursor <cursor>', 'continue after this cursor (a next_cursor printed or stored by a previous run)').conflicts(['start', 'cursorFile']))
    .addOption(new Option('--start <where>', 'without a cursor: latest = no events, just the cursor at the head (default: from the oldest event kept)').choices(['latest']))
    .option('--cursor-file <file>', 'read the cursor from FILE when it exists (then --start is ignored) and store the new one there once every event is written')
    .option('--brand-id <ids>', 'comma-separated brand ids (default: every accessible brand)', ids)
    .option('--type <types>', 'comma-separated event types, e.g. analytics.updated,access.granted')
    .option('--page-size <n>', 'events per request, 1 to 100', feedPageSize, 100)
    .option('--out <file>', 'output file, written as FILE.partial and renamed when complete (default: standard output)')
    .option('--timeout <seconds>', 'seconds one request may take, 0 for no limit', seconds, DEFAULT_TIMEOUT_MS / 1000)
    .action(async (options: { cursor?: string, start?: 'latest', cursorFile?: string, brandId?: number[], type?: string, pageSize: number, out?: string, timeout: number }) => {
      const query = { brand_id: options.brandId, type: listOption(options.type) as ChangesQuery['type'], limit: options.pageSize }
      exitCode = await executeExport(changesJob({ query, cursor: options.cursor, start: options.start, cursorFile: options.cursorFile }), { out: options.out, timeout: options.timeout }, io)
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

/** A comma-separated option as the list the query carries; the service judges each item (422 when unknown). */
function listOption (value: string | undefined): string[] | undefined {
  return value?.split(',').map((item) => item.trim())
}
