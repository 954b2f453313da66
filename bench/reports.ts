/**
 * `npm run bench:reports -- [--scales S,M] [--stores sqlite,postgres] [--questions week,top10,month] [--cache DIR] [--runs N] [--warmup N] [--drop-postgres]`
 *
 * Issue 30's measurements (docs/benchmarks.md "Reports: POST /reports against one SQL"): three
 * questions at scale S and M, each asked of the built server (`npm run build` first) through
 * `POST /reports` and answered the FastAPI peer's way — one SQL statement over the raw daily rows
 * (daily_metrics joined to accounts), on the same store (the same SQLite file, the same PostgreSQL
 * database) — in the same run. The data is imported once into --cache (default /tmp/bench-2930;
 * bench/bench-served.ts); the partner is granted brands 1..100 and every question covers them:
 *
 *   week×platform  (`--questions week`) views, interactions, followers, engagement_rate by ISO week and platform, the
 *                  year to 2026-10-31 (53 weeks × 9 platforms);
 *   top10          (`top10`) engagement_rate and interactions by account, 2026-07-01 … 2026-09-30, the 10
 *                  accounts of highest engagement_rate;
 *   month-vs-year  (`month`) views and followers by brand, October 2026 against October 2025
 *                  (`comparison: "previous_year"`). At S the data starts 2025-11-01: October
 *                  2025 has no rows on either side (the service still reads and reports it).
 *
 * The SQL computes each metric by the catalogue's rule as the peer would have to: flows summed;
 * followers the last non-null value of each account inside the bucket (row_number over the
 * account's days, newest first), summed over accounts; engagement_rate Σ interactions / Σ (reach
 * on fb, ig, sc, li, views elsewhere), rounded to 6 decimals by the store.
 *
 * First each question's two answers are compared (every row: integers equal, rates within
 * 0.000001; top10: the same accounts in the same order); a difference stops the run. Then
 * --warmup (3) unmeasured and --runs (100) measured rounds, the service's request and the SQL
 * taking turns, one at a time: the service's time runs from sending the request (keep-alive
 * HTTP, no compression) to the last byte of its answer; the SQL's from the call to the rows in
 * hand (better-sqlite3 on a read-only connection; node-postgres), in this process — no HTTP,
 * JSON or authentication on the peer's side, so its figure is a lower bound of the peer's.
 * Prints p50 and p99 (nearest rank; of 100 runs, p99 is the second slowest) and the ratio of p50s.
 */
import { Agent, request } from 'node:http'
import { parseArgs } from 'node:util'
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import { addDays } from '../src/domain/dates.js'
import {
  createPartner, DATA_END, dropPostgresStores, ensureStore, formatMs, loadAverage, log, login, memoryOf, percentile, requireBuild, SCALES, startServer, stopServer,
  type BenchStore, type Scale,
} from './bench-served.js'
import { positiveOption } from './support.js'

const USAGE = 'usage: npm run bench:reports -- [--scales S,M] [--stores sqlite,postgres] [--questions week,top10,month] [--cache DIR] [--runs N] [--warmup N] [--drop-postgres]'
const { values: args } = parseArgs({
  options: {
    scales: { type: 'string', default: 'S,M' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    questions: { type: 'string', default: 'week,top10,month' },
    cache: { type: 'string', default: '/tmp/bench-2930' },
    runs: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '3' },
    'drop-postgres': { type: 'boolean', default: false },
  },
})
const SCALE_LIST = args.scales.split(',') as Scale[]
const STORE_LIST = args.stores.split(',') as BenchStore[]
if (SCALE_LIST.some((scale) => SCALES[scale] === undefined) || STORE_LIST.some((store) => store !== 'sqlite' && store !== 'postgres')) {
  console.error(USAGE)
  process.exit(2)
}
const RUNS = positiveOption('runs', args.runs)
const WARMUP = Number(args.warmup)
if (!Number.isSafeInteger(WARMUP) || WARMUP < 0 || RUNS > 1000 || WARMUP > 100) {
  console.error(`--runs must be 1..1000 and --warmup 0..100\n${USAGE}`)
  process.exit(2)
}
const REQUEST_TIMEOUT_MS = 60_000

const BRANDS = Array.from({ length: 100 }, (_, i) => i + 1)
const YEAR = { since: addDays(DATA_END, -364), until: DATA_END }
const QUARTER = { since: '2026-07-01', until: '2026-09-30' }
const MONTH = { since: '2026-10-01', until: '2026-10-31', thenSince: '2025-10-01', thenUntil: '2025-10-31' }

/** A row of either answer, reduced to what both give: a key (the dimensions' values) and numbers. */
interface Comparable { key: string, values: Record<string, number> }

interface Question {
  /** Its --questions name. */
  id: string
  name: string
  body: Record<string, unknown>
  /** The peer's one statement (SQLite or PostgreSQL text), rows with a `key` column and numbers. */
  sql: (store: BenchStore) => string
  /** Rows must also come in the same order (a top N). */
  ordered: boolean
  fromService: (rows: Array<Record<string, unknown>>) => Comparable[]
}

const BRAND_LIST = BRANDS.join(',')
const REACH_PLATFORMS = '(\'fb\', \'ig\', \'sc\', \'li\')'
const DENOMINATOR = `case when d.platform in ${REACH_PLATFORMS} then d.reach else d.views end`

function weekOf (store: BenchStore, column: string): string {
  return store === 'sqlite' ? `strftime('%G-W%V', ${column})` : `to_char(${column}::date, 'IYYY-"W"IW')`
}

/** Σ interactions / Σ denominator rounded to 6 decimals, 0 when the denominator is 0. */
function rate (store: BenchStore, interactions: string, denominator: string): string {
  return store === 'sqlite'
    ? `case when ${denominator} > 0 then round(cast(${interactions} as real) / ${denominator}, 6) else 0 end`
    : `case when ${denominator} > 0 then round(${interactions}::numeric / ${denominator}, 6) else 0 end`
}

/** `key` of the SQL: the dimensions' values joined by '|'. */
function concat (store: BenchStore, parts: string[]): string {
  return store === 'sqlite' ? parts.join(' || \'|\' || ') : `concat_ws('|', ${parts.join(', ')})`
}

function numbers (metrics: unknown, prefix = ''): Record<string, number> {
  return Object.fromEntries(Object.entries(metrics as Record<string, number | null>).map(([name, value]) => [`${prefix}${name}`, Number(value ?? 0)]))
}

const QUESTIONS: Question[] = [
  {
    id: 'week',
    name: 'week×platform, 100 brands, a year',
    body: { metrics: ['views', 'interactions', 'followers', 'engagement_rate'], dimensions: ['week', 'platform'], ...YEAR, filters: { brand_id: BRANDS }, limit: 1000 },
    ordered: false,
    sql: (store) => `with r as (
        select ${weekOf(store, 'd.date')} as week, d.platform, d.account_id, d.date, d.views, d.interactions, d.followers, ${DENOMINATOR} as denominator
        from daily_metrics d join accounts a on a.platform = d.platform and a.account_id = d.account_id
        where a.brand_id in (${BRAND_LIST}) and d.date between '${YEAR.since}' and '${YEAR.until}'),
      sums as (select week, platform, sum(views) as views, sum(interactions) as interactions, sum(denominator) as denominator from r group by week, platform),
      lasts as (select week, platform, sum(followers) as followers from (
        select week, platform, followers, row_number() over (partition by week, platform, account_id order by date desc) as n from r where followers is not null) l
        where n = 1 group by week, platform)
      select ${concat(store, ['s.week', 's.platform'])} as key, s.views, s.interactions, coalesce(l.followers, 0) as followers, ${rate(store, 's.interactions', 's.denominator')} as engagement_rate
      from sums s left join lasts l on l.week = s.week and l.platform = s.platform`,
    fromService: (rows) => rows.map((row) => ({ key: `${String(row.week)}|${String(row.platform)}`, values: numbers(row.metrics) })),
  },
  {
    id: 'top10',
    name: 'top 10 accounts by engagement, a quarter',
    body: { metrics: ['engagement_rate', 'interactions'], dimensions: ['account'], ...QUARTER, filters: { brand_id: BRANDS }, order_by: [{ metric: 'engagement_rate', desc: true }], limit: 10 },
    ordered: true,
    sql: (store) => `select ${concat(store, ['d.platform', store === 'sqlite' ? 'd.account_id' : 'd.account_id::text'])} as key, sum(d.interactions) as interactions,
        ${rate(store, 'sum(d.interactions)', `sum(${DENOMINATOR})`)} as engagement_rate
      from daily_metrics d join accounts a on a.platform = d.platform and a.account_id = d.account_id
      where a.brand_id in (${BRAND_LIST}) and d.date between '${QUARTER.since}' and '${QUARTER.until}'
      group by d.platform, d.account_id
      order by engagement_rate desc, d.platform, d.account_id
      limit 10`,
    fromService: (rows) => rows.map((row) => ({ key: `${String(row.platform)}|${String(row.account_id)}`, values: numbers(row.metrics) })),
  },
  {
    id: 'month',
    name: 'month vs the month a year before, 100 brands',
    body: { metrics: ['views', 'followers'], dimensions: ['brand'], since: MONTH.since, until: MONTH.until, filters: { brand_id: BRANDS }, comparison: 'previous_year', limit: 100 },
    ordered: false,
    sql: (store) => `with r as (
        select a.brand_id, d.platform, d.account_id, d.date, d.views, d.followers, case when d.date >= '${MONTH.since}' then 1 else 0 end as now
        from daily_metrics d join accounts a on a.platform = d.platform and a.account_id = d.account_id
        where a.brand_id in (${BRAND_LIST}) and (d.date between '${MONTH.since}' and '${MONTH.until}' or d.date between '${MONTH.thenSince}' and '${MONTH.thenUntil}')),
      lasts as (select brand_id, now, sum(followers) as followers from (
        select brand_id, now, followers, row_number() over (partition by now, platform, account_id order by date desc) as n from r where followers is not null) l
        where n = 1 group by brand_id, now),
      sums as (select brand_id, sum(case when now = 1 then views else 0 end) as views, sum(case when now = 0 then views else 0 end) as then_views, max(now) as here
        from r group by brand_id)
      select ${store === 'sqlite' ? 's.brand_id' : 's.brand_id::text'} as key, s.views, coalesce(h.followers, 0) as followers, s.then_views, coalesce(t.followers, 0) as then_followers
      from sums s left join lasts h on h.brand_id = s.brand_id and h.now = 1 left join lasts t on t.brand_id = s.brand_id and t.now = 0
      where s.here = 1`,
    fromService: (rows) => rows.map((row) => ({
      key: String(row.brand_id),
      values: { ...numbers(row.metrics), ...numbers((row.comparison as { metrics: unknown } | null)?.metrics ?? { views: 0, followers: 0 }, 'then_') },
    })),
  },
]

const QUESTION_IDS = args.questions.split(',')
if (QUESTION_IDS.some((id) => !QUESTIONS.some((question) => question.id === id))) {
  console.error(USAGE)
  process.exit(2)
}

// ---------------------------------------------------------------- the two ways of asking

interface Timed { ms: number, rows: Array<Record<string, unknown>> }

async function post (agent: Agent, base: URL, token: string, body: Record<string, unknown>): Promise<Timed> {
  const payload = JSON.stringify(body)
  const started = performance.now()
  const text = await new Promise<{ status: number, text: string }>((resolve, reject) => {
    const req = request({
      agent,
      host: base.hostname,
      port: base.port,
      path: '/reports',
      method: 'POST',
      timeout: REQUEST_TIMEOUT_MS,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`timeout after ${REQUEST_TIMEOUT_MS} ms`)))
    req.on('error', reject)
    req.end(payload)
  })
  const ms = performance.now() - started
  if (text.status !== 200) throw new Error(`POST /reports ${payload.slice(0, 200)}: ${text.status} ${text.text.slice(0, 500)}`)
  return { ms, rows: (JSON.parse(text.text) as { rows: Array<Record<string, unknown>> }).rows }
}

type Peer = { run: (sql: string) => Promise<Timed>, close: () => Promise<void> }

function sqlitePeer (file: string): Peer {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true })
  return {
    run: async (sql) => {
      const started = performance.now()
      const rows = db.prepare(sql).all() as Array<Record<string, unknown>>
      return { ms: performance.now() - started, rows }
    },
    close: async () => { db.close() },
  }
}

async function postgresPeer (url: string): Promise<Peer> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  return {
    run: async (sql) => {
      const started = performance.now()
      const rows = (await client.query(sql)).rows as Array<Record<string, unknown>>
      return { ms: performance.now() - started, rows }
    },
    close: async () => { await client.end() },
  }
}

function fromPeer (rows: Array<Record<string, unknown>>): Comparable[] {
  return rows.map((row) => ({ key: String(row.key), values: Object.fromEntries(Object.entries(row).filter(([name]) => name !== 'key').map(([name, value]) => [name, Number(value)])) }))
}

/** Throws with the first difference between the two answers. */
function agree (question: Question, service: Comparable[], peer: Comparable[]): void {
  if (service.length !== peer.length) throw new Error(`${question.name}: the service gives ${service.length} rows, the SQL ${peer.length}`)
  const peerByKey = new Map(peer.map((row) => [row.key, row]))
  service.forEach((row, index) => {
    const other = question.ordered ? peer[index] : peerByKey.get(row.key)
    if (other === undefined || other.key !== row.key) throw new Error(`${question.name}: row ${index} ${row.key} is not in the SQL's answer at the same place (${other?.key ?? 'none'})`)
    for (const [name, value] of Object.entries(row.values)) {
      const theirs = other.values[name]
      const equal = name.endsWith('engagement_rate') ? Math.abs((theirs ?? Number.NaN) - value) <= 1.000001e-6 : theirs === value
      if (!equal) throw new Error(`${question.name}: ${row.key} ${name}: the service ${value}, the SQL ${String(theirs)}`)
    }
  })
}

// ---------------------------------------------------------------- one store and scale

async function measure (store: BenchStore, scale: Scale): Promise<string[]> {
  const databaseUrl = await ensureStore(args.cache, scale, store)
  const keys = await createPartner(databaseUrl, BRANDS.length, 'bench-reports')
  const server = await startServer(databaseUrl)
  const peer = store === 'sqlite' ? sqlitePeer(databaseUrl.slice('sqlite:'.length)) : await postgresPeer(databaseUrl)
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const lines: string[] = []
  try {
    const token = await login(server.base, keys)
    for (const question of QUESTIONS.filter((question) => QUESTION_IDS.includes(question.id))) {
      const sql = question.sql(store)
      let first: Timed
      try {
        first = await post(agent, server.base, token, question.body)
      } catch (error) {
        // A refusal or failure of the service is a result too (printed, not timed); the run goes on.
        lines.push(`| ${store} | ${scale} | ${question.name} | – | **failed**: ${(error as Error).message.replace(/^POST \/reports .*?: /, '').slice(0, 160)} | – | – | **no** | ${loadAverage()} |`)
        console.log(lines[lines.length - 1])
        continue
      }
      const answered = await peer.run(sql)
      agree(question, question.fromService(first.rows), fromPeer(answered.rows))
      log(`${store} ${scale} ${question.name}: the answers agree (${first.rows.length} rows); timing`)
      const times = { service: [] as number[], sql: [] as number[] }
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const ours = await post(agent, server.base, token, question.body)
        const theirs = await peer.run(sql)
        if (i >= WARMUP) {
          times.service.push(ours.ms)
          times.sql.push(theirs.ms)
        }
      }
      times.service.sort((a, b) => a - b)
      times.sql.sort((a, b) => a - b)
      const [p50, sqlP50] = [percentile(times.service, 0.5), percentile(times.sql, 0.5)]
      const [p99, sqlP99] = [percentile(times.service, 0.99), percentile(times.sql, 0.99)]
      lines.push(`| ${store} | ${scale} | ${question.name} | ${first.rows.length} | ${formatMs(p50)} / ${formatMs(p99)} | ${formatMs(sqlP50)} / ${formatMs(sqlP99)} | ` +
        `**${(sqlP50 / p50).toFixed(2)} ×** / ${(sqlP99 / p99).toFixed(2)} × | ${p50 < sqlP50 && p99 < sqlP99 ? 'yes' : '**no**'} | ${loadAverage()} |`)
      console.log(lines[lines.length - 1])
    }
    lines.push(`<!-- ${store} ${scale}: server peak RSS ${memoryOf(server.pid)?.peakMb ?? '?'} MB, ${server.logged.warn} warn, ${server.logged.error} error log lines -->`)
    return lines
  } finally {
    agent.destroy()
    await peer.close()
    await stopServer(server)
  }
}

async function main (): Promise<void> {
  requireBuild()
  const results: string[] = []
  try {
    for (const scale of SCALE_LIST) {
      for (const store of STORE_LIST) results.push(...await measure(store, scale))
    }
  } finally {
    if (args['drop-postgres']) await dropPostgresStores(args.cache)
  }
  console.log(`\n### Reports (${new Date().toISOString().slice(0, 16)}Z, node ${process.version}, warmup ${WARMUP}, runs ${RUNS}, taking turns; load average at the end ${loadAverage()})\n`)
  console.log('| store | scale | question | rows | POST /reports p50 / p99 ms | one SQL p50 / p99 ms | SQL ÷ service (p50 / p99) | ahead? | load |')
  console.log('|---|---|---|---:|---:|---:|---:|---|---|')
  for (const line of results) console.log(line)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
