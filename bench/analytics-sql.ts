/**
 * `npm run bench:sql -- [--store sqlite|postgres] [--database-url URL] [--brands N] [--days N] [--granted N] [--runs N]`
 *
 * Times the analytics statements alone, without HTTP: each report's query is built by the real
 * builders (src/analytics/daily.ts, monthly.ts, agg.ts), compiled with Kysely, and executed
 * through the driver itself (better-sqlite3 `all()`, or pg `query()` on one pooled client),
 * so the figure is the store's work plus the driver's, nothing else.
 *
 * What it loads: with --database-url (`sqlite:FILE` or `postgres://…`), that store as it is,
 * read only, e.g. one made by `DATABASE_URL=sqlite:/tmp/g/a.sqlite npx tsx src/cli/main.ts demo
 * --brands 100 --days 365`. Without it, the demo data (seed 42, --brands, --days; default 100 and
 * 365, the profile's database) loaded into a fresh temporary SQLite file, or a private schema on
 * BENCH_DATABASE_URL (default the test PostgreSQL) that is dropped afterwards.
 *
 * What it runs: brands 1..--granted (default 10) in scope, every platform, the period ending at
 * the newest date in the store: a daily first page (30 days), the daily page after it (cursor
 * position), a monthly year and an agg year by brand, the same two split by platform, and the
 * year by account for every fb account in scope. Each statement runs twice to warm up, then
 * --runs times (default 20).
 *
 * What it prints: one table row per statement: the entries it returns, median and mean ms per
 * execution; on PostgreSQL also the server's own median "Execution Time" from
 * `EXPLAIN (ANALYZE, TIMING OFF)` (no network, no parsing of the result).
 */
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import type { CompiledQuery } from 'kysely'
import type { DailyPosition, Grouping } from '../src/domain/analytics.js'
import type { Period } from '../src/domain/period.js'
import type { Scope } from '../src/domain/scope.js'
import { buildAggQuery } from '../src/storage/queries/analytics-agg.query.js'
import { buildDailyQuery, runDailyQuery } from '../src/storage/queries/analytics-daily.query.js'
import { buildMonthlyQuery } from '../src/storage/queries/analytics-monthly.query.js'
import { parseDatabaseUrl } from '../src/config/load.js'
import { resolveDemoOptions } from '../src/services/demo/generator.js'
import { demoSource } from '../src/services/demo/source.js'
import { addDays } from '../src/domain/dates.js'
import { importSources } from '../src/services/import/import.service.js'
import { createStore, type Store } from '../src/storage/db.js'
import { openFreshBenchStore, positiveOption, storeOption } from './support.js'

const { values: args } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string' },
    brands: { type: 'string', default: '100' },
    days: { type: 'string', default: '365' },
    granted: { type: 'string', default: '10' },
    runs: { type: 'string', default: '20' },
  },
})
const BRANDS = positiveOption('brands', args.brands)
const DAYS = positiveOption('days', args.days)
const GRANTED = positiveOption('granted', args.granted)
const RUNS = positiveOption('runs', args.runs)

interface Opened { store: Store, label: string, cleanup: () => Promise<void> }

async function openStore (): Promise<Opened> {
  const given = args['database-url']
  if (given !== undefined) {
    const config = parseDatabaseUrl(given)
    if (typeof config === 'string') throw new Error(`--database-url: ${config}`)
    const store = createStore(config)
    return { store, label: given, cleanup: async () => { await store.destroy() } }
  }
  const fresh = await openFreshBenchStore(storeOption(args.store))
  const opened: Opened = { store: fresh.store, label: fresh.schema === undefined ? 'fresh SQLite file' : `fresh schema ${fresh.schema}`, cleanup: fresh.cleanup }
  const loaded = await importSources(opened.store, [demoSource(resolveDemoOptions({ brands: BRANDS, days: DAYS, seed: 42 }))])
  console.error(`loaded ${loaded.counts.daily} daily rows (${loaded.counts.account} accounts, ${BRANDS} brands, ${DAYS} days) in ${loaded.seconds} s`)
  // Fresh PostgreSQL tables have no statistics yet; the server would otherwise plan blind.
  if (opened.store.dialect === 'postgres') await opened.store.pool.query('analyze')
  return opened
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] as number : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}
const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length

interface Timing { rows: number, median: number, mean: number, server?: number }

/** Runs one compiled statement through the bare driver: warm-up, then RUNS timed executions. */
async function time (store: Store, query: CompiledQuery): Promise<Timing> {
  const parameters = [...query.parameters]
  if (store.dialect === 'sqlite') {
    const statement = store.sqlite.prepare(query.sql)
    const run = () => statement.all(...parameters).length
    run()
    run()
    const samples: number[] = []
    let rows = 0
    for (let i = 0; i < RUNS; i++) {
      const start = performance.now()
      rows = run()
      samples.push(performance.now() - start)
    }
    return { rows, median: median(samples), mean: mean(samples) }
  }
  const client = await store.pool.connect()
  try {
    const run = async () => (await client.query(query.sql, parameters)).rowCount ?? 0
    await run()
    await run()
    const samples: number[] = []
    let rows = 0
    for (let i = 0; i < RUNS; i++) {
      const start = performance.now()
      rows = await run()
      samples.push(performance.now() - start)
    }
    const server: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const explained = await client.query(`explain (analyze, timing off, format json) ${query.sql}`, parameters)
      const [plan] = (explained.rows[0] as { 'QUERY PLAN': [{ 'Execution Time': number }] })['QUERY PLAN']
      server.push(plan['Execution Time'])
    }
    return { rows, median: median(samples), mean: mean(samples), server: median(server) }
  } finally {
    client.release()
  }
}

async function main (): Promise<void> {
  const { store, label, cleanup } = await openStore()
  try {
    const { db, dialect } = store
    const newest = await db.selectFrom('daily_metrics').select((eb) => eb.fn.max('date').as('until')).executeTakeFirstOrThrow()
    const until = String(newest.until)
    const year: Period = { since: addDays(until, -364), until }
    const month: Period = { since: addDays(until, -29), until }
    const brandIds = Array.from({ length: GRANTED }, (_, i) => i + 1)
    const brands: Scope = { kind: 'brands', brandIds, platforms: undefined, singleBrandId: undefined }
    const fbAccounts = await db.selectFrom('accounts').selectAll().where('platform', '=', 'fb').where('brand_id', 'in', brandIds).orderBy('account_id').execute()
    const accounts: Scope = { kind: 'accounts', brandIds, platform: 'fb', accounts: fbAccounts, singleBrandId: undefined }
    const byBrand: Omit<Grouping, 'bucket'> = { by: 'brand', byPlatform: false }
    const split: Omit<Grouping, 'bucket'> = { by: 'none', byPlatform: true }
    const byAccount: Omit<Grouping, 'bucket'> = { by: 'account', byPlatform: true }

    const firstPage = { dialect, scope: brands, period: month, grouping: byBrand }
    const after: DailyPosition | undefined = (await runDailyQuery(db, firstPage)).next
    const scoped = await db.selectFrom('daily_metrics as d')
      .innerJoin('accounts as a', (join) => join.onRef('a.platform', '=', 'd.platform').onRef('a.account_id', '=', 'd.account_id'))
      .select((eb) => eb.fn.countAll().as('n'))
      .where('a.brand_id', 'in', brandIds).where('d.date', '>=', year.since).where('d.date', '<=', year.until)
      .executeTakeFirstOrThrow()

    const statements: Array<[string, CompiledQuery]> = [
      ['daily first page (30 days)', buildDailyQuery(db, firstPage).compile()],
      ['daily second page (30 days, after the cursor)', buildDailyQuery(db, { ...firstPage, after }).compile()],
      ['monthly year by brand', buildMonthlyQuery(db, { dialect, scope: brands, period: year, grouping: byBrand }).compile()],
      ['agg year by brand', buildAggQuery(db, { dialect, scope: brands, period: year, grouping: byBrand }).compile()],
      ['monthly year split by platform', buildMonthlyQuery(db, { dialect, scope: brands, period: year, grouping: split }).compile()],
      ['agg year split by platform', buildAggQuery(db, { dialect, scope: brands, period: year, grouping: split }).compile()],
      [`monthly year by account (${fbAccounts.length} fb accounts)`, buildMonthlyQuery(db, { dialect, scope: accounts, period: year, grouping: byAccount }).compile()],
    ]

    console.log(`\nstore=${dialect} (${label}) brands in scope=${GRANTED} year=${year.since}..${year.until} account-days in the year=${Number(scoped.n)} runs=${RUNS} node=${process.version}`)
    console.log(dialect === 'postgres'
      ? '| statement | entries | median ms | mean ms | server median ms |\n|---|---:|---:|---:|---:|'
      : '| statement | entries | median ms | mean ms |\n|---|---:|---:|---:|')
    for (const [name, query] of statements) {
      const timing = await time(store, query)
      const server = timing.server === undefined ? '' : ` ${timing.server.toFixed(1)} |`
      console.log(`| ${name} | ${timing.rows} | ${timing.median.toFixed(1)} | ${timing.mean.toFixed(1)} |${server}`)
    }
  } finally {
    await cleanup()
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
