/**
 * `npm run bench:data-status -- --database-url URL [options]`
 *
 * GET /data-status and /analytics/?include=status against the real server in a process of its
 * own, over a store already imported at scale S (100 brands × 10 accounts × 365 days), e.g.
 *
 *   npm run build
 *   npm run bench:generate -- --brands 100 --accounts-per-brand 10 --days 365 --end 2026-10-31 --out /tmp/pa-s/s.ndjson
 *   DATABASE_URL=sqlite:/tmp/pa-s/db.sqlite node dist/cli/main.js import /tmp/pa-s/s.ndjson
 *   npm run bench:data-status -- --database-url sqlite:/tmp/pa-s/db.sqlite --punch-gaps 37
 *
 * 1. With --punch-gaps N, first deletes the account-days whose (account_id + day number) is a
 *    multiple of N — about 1/N of the rows, in runs of one day, none of an account's first or last
 *    day — and sums the read model again, so that accounts have gaps to find (bench:generate
 *    writes none). It changes the store: use a copy made for this.
 * 2. Creates a partner granted brands 1..--brands (`users create --json`), spawns
 *    `node dist/cli/main.js serve` (NODE_ENV=production, rate limits off, a random JWT_SECRET),
 *    waits for /health and logs in.
 * 3. Sequential latency, one request at a time over keep-alive HTTP, --warmup (3) then --runs (20)
 *    of each: the first page (100 accounts) of /data-status over 7, 90 and 365 days ending
 *    --until for every brand; the walk of every page of it (365 days); the daily page of brand 1
 *    and the agg of every brand over 28 days, without and with include=status.
 * 4. Throughput: autocannon in a separate process (bench/load.ts), --connections (10) for
 *    --duration seconds (10) on the first page of /data-status over 7 days, then over 365 days.
 * The server is stopped at the end; every request has a 60 s timeout.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { loadavg } from 'node:os'
import { text } from 'node:stream/consumers'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { addDays, isCalendarDate } from '../src/domain/dates.js'
import { rebuildReadModel } from '../src/services/analytics/read-model.js'
import { createStore } from '../src/storage/db.js'
import { freePort } from '../test/helpers/processes.js'
import type { LoadResult } from './load.js'
import { positiveOption } from './support.js'

const USAGE = 'usage: npm run bench:data-status -- --database-url URL [--until YYYY-MM-DD] [--brands N] [--punch-gaps N] [--runs N] [--warmup N] [--connections C] [--duration S]'
const { values: args } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    until: { type: 'string', default: '2026-10-31' },
    brands: { type: 'string', default: '100' },
    'punch-gaps': { type: 'string' },
    runs: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    duration: { type: 'string', default: '10' },
  },
})

function fail (message: string): never {
  console.error(`${message}\n${USAGE}`)
  process.exit(2)
}

const DATABASE_URL = args['database-url'] ?? fail('--database-url is required')
const UNTIL = args.until
if (!isCalendarDate(UNTIL)) fail(`--until must be a date YYYY-MM-DD (got "${UNTIL}")`)
const BRANDS = positiveOption('brands', args.brands)
if (BRANDS > 100) fail('--brands must be at most 100')
const RUNS = positiveOption('runs', args.runs)
const WARMUP = Number(args.warmup)
const CONNECTIONS = positiveOption('connections', args.connections)
const DURATION = positiveOption('duration', args.duration)
if (DURATION > 60) fail('--duration must be at most 60 seconds')
const GAPS = args['punch-gaps'] === undefined ? undefined : positiveOption('punch-gaps', args['punch-gaps'])
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))
const LOAD = fileURLToPath(new URL('./load.ts', import.meta.url))
const ALL = Array.from({ length: BRANDS }, (_, i) => i + 1).join(',')
if (!existsSync(CLI)) fail('dist/cli/main.js is missing: run `npm run build` first')

/**
 * Deletes about 1/n of the account-days, never an account's first or last day, then sums the
 * read model again (account_monthly's row counts are what tells a month with gaps from one without).
 */
async function punchGaps (n: number): Promise<number> {
  const store = createStore(DATABASE_URL.startsWith('sqlite:')
    ? { kind: 'sqlite', file: DATABASE_URL.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '') }
    : { kind: 'postgres', url: DATABASE_URL })
  try {
    const dayNumber = store.dialect === 'sqlite' ? 'cast(julianday(d.date) as integer)' : "(d.date - date '2000-01-01')"
    const deleted = await sql.raw(`delete from daily_metrics where (platform, account_id, date) in (
      select d.platform, d.account_id, d.date from daily_metrics d join account_coverage c on c.platform = d.platform and c.account_id = d.account_id
      where d.date > c.first_date and d.date < c.last_date and (d.account_id + ${dayNumber}) % ${n} = 0)`).execute(store.db)
    await rebuildReadModel(store)
    return Number(deleted.numAffectedRows ?? 0)
  } finally {
    await store.destroy()
  }
}

async function cli (argv: string[]): Promise<string> {
  const child = spawn(process.execPath, [CLI, ...argv], { cwd: ROOT, env: { ...process.env, DATABASE_URL }, stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = once(child, 'exit') as Promise<[number | null]>
  const [stdout, stderr] = await Promise.all([text(child.stdout), text(child.stderr)])
  const [code] = await exited
  if (code !== 0) throw new Error(`partner-analytics ${argv.slice(0, 2).join(' ')} exited ${code}: ${stderr.trim()}`)
  return stdout
}

async function startServer (): Promise<{ child: ChildProcess, base: string }> {
  const port = await freePort()
  const env = { ...process.env, DATABASE_URL, HOST: '127.0.0.1', PORT: String(port), JWT_SECRET: randomBytes(32).toString('hex'), NODE_ENV: 'production', RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', LOG_LEVEL: 'warn' }
  const child = spawn(process.execPath, [CLI, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] })
  const base = `http://127.0.0.1:${port}`
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(250)) {
    if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}`)
    try {
      if ((await fetch(`${base}/health`)).status === 200) return { child, base }
    } catch { /* not listening yet */ }
  }
  child.kill('SIGTERM')
  throw new Error('the server did not answer GET /health within 60 s')
}

async function timed (url: string, token: string): Promise<{ ms: number, body: { next_cursor?: string | null, data?: unknown[] } }> {
  const started = performance.now()
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(60_000) })
  const body = await response.text()
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body.slice(0, 300)}`)
  return { ms: performance.now() - started, body: JSON.parse(body) as { next_cursor?: string | null } }
}

const percentile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN
const ms = (value: number): string => value < 10 ? value.toFixed(1) : String(Math.round(value))

async function sequential (name: string, run: () => Promise<number>): Promise<string> {
  const times: number[] = []
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const took = await run()
    if (i >= WARMUP) times.push(took)
  }
  times.sort((a, b) => a - b)
  return `| ${name} | ${times.length} | ${ms(percentile(times, 0.5))} | ${ms(percentile(times, 0.9))} | ${ms(times.at(-1) ?? Number.NaN)} |`
}

async function load (url: string, token: string): Promise<LoadResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', LOAD], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] })
  child.stdin.end(JSON.stringify({ url, headers: { authorization: `Bearer ${token}` }, connections: CONNECTIONS, duration: DURATION }))
  const [output, [code]] = await Promise.all([text(child.stdout), once(child, 'exit') as Promise<[number | null]>])
  if (code !== 0) throw new Error(`bench/load.ts exited ${code}`)
  return JSON.parse(output) as LoadResult
}

async function main (): Promise<void> {
  if (GAPS !== undefined) console.error(`punched ${await punchGaps(GAPS)} account-days out (every ${GAPS}th)`)
  const keys = JSON.parse(await cli(['users', 'create', '--name', `bench-data-status ${new Date().toISOString()}`, '--brands', ALL, '--json'])) as { api_client_key: string, api_secret_key: string }
  const server = await startServer()
  try {
    const login = await fetch(`${server.base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(keys) })
    const token = (await login.json() as { access_token: string }).access_token
    const status = (days: number) => `${server.base}/data-status?brand_id=${ALL}&since=${addDays(UNTIL, 1 - days)}&until=${UNTIL}`
    const analytics = (query: string) => `${server.base}/analytics/?since=${addDays(UNTIL, -27)}&until=${UNTIL}&${query}`
    const one = (url: string) => async () => (await timed(url, token)).ms
    const rows = [
      await sequential('/data-status, 100 accounts, 7 days', one(status(7))),
      await sequential('/data-status, 100 accounts, 90 days', one(status(90))),
      await sequential('/data-status, 100 accounts, 365 days', one(status(365))),
      await sequential(`/data-status, every page (${BRANDS * 10} accounts), 365 days`, async () => {
        let total = 0
        let cursor: string | null | undefined
        for (let pages = 0; pages < 100; pages++) {
          const page = await timed(cursor === undefined || cursor === null ? status(365) : `${status(365)}&cursor=${encodeURIComponent(cursor)}`, token)
          total += page.ms
          cursor = page.body.next_cursor
          if (cursor === null || cursor === undefined) break
        }
        return total
      }),
      await sequential('daily page, brand 1, 28 days', one(analytics('brand_id=1'))),
      await sequential('daily page, brand 1, 28 days, include=status', one(analytics('brand_id=1&include=status'))),
      await sequential(`agg, ${BRANDS} brands, 28 days`, one(analytics(`type=agg&brand_id=${ALL}`))),
      await sequential(`agg, ${BRANDS} brands, 28 days, include=status`, one(analytics(`type=agg&brand_id=${ALL}&include=status`))),
      await sequential(`monthly, ${BRANDS} brands, 28 days, include=status`, one(analytics(`type=monthly&brand_id=${ALL}&include=status`))),
    ]
    console.log(`\nstore=${DATABASE_URL.replace(/\/\/[^@/]*@/, '//…@')} until=${UNTIL} brands=${BRANDS} gaps=${GAPS === undefined ? 'none' : `1/${GAPS}`} warmup=${WARMUP} runs=${RUNS}; load average ${loadavg().map((value) => value.toFixed(1)).join(' ')}\n`)
    console.log('| request (sequential, keep-alive) | n | p50 ms | p90 ms | max ms |\n|---|---:|---:|---:|---:|')
    for (const row of rows) console.log(row)
    console.log(`\n| autocannon, ${CONNECTIONS} connections, ${DURATION} s | req/s | p50 ms | p99 ms | non-2xx |\n|---|---:|---:|---:|---:|`)
    for (const days of [7, 365]) {
      const result = await load(status(days), token)
      console.log(`| /data-status first page, ${days} days | ${Math.round(result.rps)} | ${result.p50} | ${result.p99} | ${result.non2xx + result.errors} |`)
    }
  } finally {
    server.child.kill('SIGTERM')
    await once(server.child, 'exit')
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
