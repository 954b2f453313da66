/**
 * `npm run bench:exports -- [--scales S,M] [--stores sqlite,postgres] [--cache DIR] [--wrk-seconds N] [--light-scales M] [--no-gzip] [--drop-postgres]`
 *
 * Issue 29's measurements (docs/benchmarks.md "Exports"), in one run per store and scale, against
 * the built server (`npm run build` first) over the scale's data, imported once into --cache
 * (default /tmp/bench-2930; bench/bench-served.ts):
 *
 * 1. **The service's export.** A partner granted every brand of the scale; `POST /exports`
 *    `{"dataset": "daily", "format": "parquet"}` (zstd, the default) for S: a year (2025-11-01 …
 *    2026-10-31) of its 100 brands, 365,000 rows; for M: two years (2024-11-02 … 2026-10-31) of its
 *    1,000 brands, 7,300,000 rows. Timed from the POST to the first `GET /exports/{id}` (polled
 *    every 200 ms) that says `succeeded`: rows ÷ seconds. The serving process's peak RSS (VmHWM,
 *    /proc) is read when the export has finished; each store and scale has a server of its own,
 *    started fresh, so the peak is the start-up's and this export's, nothing else's. The job runs in
 *    an export process, a child of the server: its peak (VmHWM) is sampled at every poll while it
 *    lives, and the largest is reported beside the server's.
 * 2. **The hand-written pipeline, same rows.** `bash -o pipefail -c "DUMP | node
 *    bench/csv-to-parquet.mjs OUT COLUMNS"`, timed from spawn to exit, where DUMP is the store's
 *    own CSV dump of the same select (the same join to accounts for brand_id, the same period,
 *    brands and order; revenue formatted by the store as an exact decimal text):
 *      SQLite      `sqlite3 -csv -header FILE "select …"`
 *      PostgreSQL  `psql URL -c "copy (select …) to stdout (format csv, header)"`
 *    and csv-to-parquet.mjs is DuckDB (@duckdb/node-api, default settings) running `COPY (select *
 *    from read_csv('/dev/stdin', header = true, columns = {…the export's types…})) TO OUT (FORMAT
 *    parquet, COMPRESSION zstd)`: one file instead of the export's one per month.
 *    Before anything is reported, DuckDB reads both outputs back and the row count, the column
 *    types and the sums of views, followers, interactions and revenue must be equal.
 * 3. **Sizes.** The export's bytes (all its files) against the same dump gzipped (`gzip -c`, level 6;
 *    --no-gzip skips it: minutes at M, and the same bytes on either store).
 * 4. **Light requests during an M export** (M only; --light-scales S,M for S too): wrk (1 thread, 32 connections, 3 s warm-up,
 *    then --wrk-seconds, default 10) of daily7 (`type=daily`, brand 1, the 7 days to 2026-10-31:
 *    the reference harness's request, answered from the report cache after its second asking) and
 *    daily7v (a random brand of the partner's and a random 7-day window of the last year on each
 *    request, a wrk Lua script): without an export, during an export of the same M rows (one
 *    export per request: started, loaded once it has written rows, cancelled with DELETE after),
 *    and without again. The ratio is during ÷ the mean of the two without (the target: within 15 %).
 *
 * --drop-postgres drops the bench's PostgreSQL databases at the end (they are otherwise kept for the
 * next run, as the SQLite files are). Every wait is bounded: an export over 20 minutes fails the run.
 */
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { DuckDBInstance } from '@duckdb/node-api'
import { addDays } from '../src/domain/dates.js'
import { datasetColumns } from '../src/domain/exports.js'
import {
  createPartner, DATA_END, dropPostgresStores, ensureStore, loadAverage, log, login, memoryOf, requireBuild, ROOT, SCALES, startServer, stopServer,
  type BenchStore, type Scale, type Server,
} from './bench-served.js'
import { positiveOption } from './support.js'

const USAGE = 'usage: npm run bench:exports -- [--scales S,M] [--stores sqlite,postgres] [--cache DIR] [--wrk-seconds N] [--light-scales M] [--no-gzip] [--drop-postgres]'
const { values: args } = parseArgs({
  options: {
    scales: { type: 'string', default: 'S,M' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    cache: { type: 'string', default: '/tmp/bench-2930' },
    'wrk-seconds': { type: 'string', default: '10' },
    'light-scales': { type: 'string', default: 'M' },
    'drop-postgres': { type: 'boolean', default: false },
    'no-gzip': { type: 'boolean', default: false },
  },
})
const SCALE_LIST = args.scales.split(',') as Scale[]
const STORE_LIST = args.stores.split(',') as BenchStore[]
const LIGHT_SCALES = args['light-scales'].split(',') as Scale[]
if (SCALE_LIST.some((scale) => SCALES[scale] === undefined) || STORE_LIST.some((store) => store !== 'sqlite' && store !== 'postgres')) {
  console.error(USAGE)
  process.exit(2)
}
const WRK_SECONDS = positiveOption('wrk-seconds', args['wrk-seconds'])
if (WRK_SECONDS > 60) {
  console.error('--wrk-seconds must be at most 60')
  process.exit(2)
}
const EXPORT_TIMEOUT_MS = 20 * 60_000

/** What each scale exports: its period and its brands (S names its 100; M all 1,000 the partner has). */
const PERIODS: Record<Scale, { since: string, until: string, brandIds: number[] | undefined }> = {
  S: { since: addDays(DATA_END, -364), until: DATA_END, brandIds: Array.from({ length: 100 }, (_, i) => i + 1) },
  M: { since: addDays(DATA_END, -729), until: DATA_END, brandIds: undefined },
}

const COLUMNS = datasetColumns('daily')

// ---------------------------------------------------------------- the service's export

interface Job {
  id: string
  status: string
  progress: { rows_written: number, rows_estimate: number | null }
  files: Array<{ name: string, rows: number, bytes: number }> | null
  error: { code: string, message: string } | null
}

async function call (server: Server, token: string, method: string, path: string, body?: unknown): Promise<{ status: number, json: unknown }> {
  const answer = await fetch(new URL(path, server.base), {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const textBody = await answer.text()
  return { status: answer.status, json: textBody === '' ? undefined : JSON.parse(textBody) as unknown }
}

async function createExport (server: Server, token: string, scale: Scale): Promise<string> {
  const { since, until, brandIds } = PERIODS[scale]
  const created = await call(server, token, 'POST', '/exports', { dataset: 'daily', format: 'parquet', since, until, ...(brandIds === undefined ? {} : { brand_id: brandIds }) })
  if (created.status !== 202) throw new Error(`POST /exports: ${created.status} ${JSON.stringify(created.json)}`)
  return (created.json as Job).id
}

async function job (server: Server, token: string, id: string): Promise<Job> {
  const answer = await call(server, token, 'GET', `/exports/${id}`)
  if (answer.status !== 200) throw new Error(`GET /exports/${id}: ${answer.status} ${JSON.stringify(answer.json)}`)
  return answer.json as Job
}

/** Polls the job every 200 ms until `done` says so (bounded). */
async function waitJob (server: Server, token: string, id: string, done: (job: Job) => boolean): Promise<Job> {
  const deadline = Date.now() + EXPORT_TIMEOUT_MS
  while (Date.now() < deadline) {
    const current = await job(server, token, id)
    if (current.status === 'failed' || current.status === 'cancelled') throw new Error(`export ${id} ${current.status}: ${JSON.stringify(current.error)}`)
    if (done(current)) return current
    await sleep(200)
  }
  throw new Error(`export ${id} did not finish within ${EXPORT_TIMEOUT_MS / 60_000} minutes`)
}

/** The largest peak RSS (VmHWM, MB) among the process's children now (the export processes); 0 if none. */
function childrenPeakMb (pid: number): number {
  let peak = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== pid) continue
      peak = Math.max(peak, memoryOf(Number(entry))?.peakMb ?? 0)
    } catch {
      // Ended meanwhile.
    }
  }
  return peak
}

// ---------------------------------------------------------------- the reference pipeline

function referenceSelect (store: BenchStore, scale: Scale): string {
  const { since, until, brandIds } = PERIODS[scale]
  const revenue = store === 'sqlite'
    ? 'case when d.revenue_micros is null then null else printf(\'%d.%06d\', d.revenue_micros / 1000000, d.revenue_micros % 1000000) end'
    : '(d.revenue_micros::numeric / 1000000)::numeric(18,6)'
  const metrics = COLUMNS.slice(4).map((column) => column.name === 'revenue' ? `${revenue} as revenue` : `d.${column.name}`)
  return `select d.date, a.brand_id, d.platform, d.account_id, ${metrics.join(', ')} ` +
    'from daily_metrics d join accounts a on a.platform = d.platform and a.account_id = d.account_id ' +
    `where d.date between '${since}' and '${until}'${brandIds === undefined ? '' : ` and a.brand_id in (${brandIds.join(',')})`} ` +
    'order by d.date, a.brand_id, d.platform, d.account_id'
}

function shellQuote (text: string): string {
  return `'${text.replaceAll('\'', '\'\\\'\'')}'`
}

function dumpCommand (store: BenchStore, databaseUrl: string, scale: Scale): string {
  const select = referenceSelect(store, scale)
  return store === 'sqlite'
    ? `sqlite3 -csv -header ${shellQuote(databaseUrl.slice('sqlite:'.length))} ${shellQuote(select)}`
    : `psql -X -q -v ON_ERROR_STOP=1 ${shellQuote(databaseUrl)} -c ${shellQuote(`copy (${select}) to stdout (format csv, header)`)}`
}

async function bash (command: string): Promise<{ seconds: number, stdout: string }> {
  const started = performance.now()
  const child = spawn('bash', ['-o', 'pipefail', '-c', command], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const [code] = await once(child, 'close') as [number | null]
  if (code !== 0) throw new Error(`${command.slice(0, 200)}… exited ${String(code)}: ${stderr.slice(0, 500)}`)
  return { seconds: (performance.now() - started) / 1000, stdout }
}

/** Row count, column types and sums of the Parquet files: what must be equal between the two outputs. */
async function fingerprint (files: string[]): Promise<string> {
  const instance = await DuckDBInstance.create(':memory:')
  const connection = await instance.connect()
  try {
    const list = `[${files.map((file) => `'${file}'`).join(', ')}]`
    const types = (await connection.runAndReadAll(`describe select * from read_parquet(${list})`)).getRows().map((row) => `${String(row[0])} ${String(row[1])}`).join(', ')
    const sums = (await connection.runAndReadAll(`select count(*), sum(views), sum(followers), sum(interactions), sum(revenue), count(revenue), min(date), max(date) from read_parquet(${list})`)).getRows()[0] ?? []
    return `${sums.map(String).join(' ')} | ${types}`
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

// ---------------------------------------------------------------- wrk

interface WrkResult { rps: number, p99: string, errors: string }

async function wrk (base: URL, token: string, seconds: number, script: string | undefined, path: string): Promise<WrkResult> {
  const argv = ['-t1', '-c32', `-d${seconds}s`, '--latency', '-H', `Authorization: Bearer ${token}`, ...(script === undefined ? [] : ['-s', script]), new URL(path, base).href]
  const child = spawn('wrk', argv, { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
  const [code] = await once(child, 'close') as [number | null]
  if (code !== 0) throw new Error(`wrk exited ${String(code)}`)
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN)
  const p99 = /\s99%\s+(\S+)/.exec(out)?.[1] ?? '?'
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1]
  const socket = /Socket errors: (.*)/.exec(out)?.[1]
  return { rps, p99, errors: [non2xx === undefined ? '' : `${non2xx} non-2xx`, socket ?? ''].filter((part) => part !== '').join(', ') || 'none' }
}

function variedScript (dir: string, brands: number): string {
  const file = join(dir, 'daily7v.lua')
  writeFileSync(file, `math.randomseed(2930)
local function day (offset)
  return os.date('!%Y-%m-%d', os.time({ year = 2026, month = 10, day = 31, hour = 12 }) - offset * 86400)
end
local windows = {}
for back = 0, 357 do windows[#windows + 1] = { day(back + 6), day(back) } end
request = function ()
  local window = windows[math.random(1, #windows)]
  return wrk.format('GET', '/analytics/?type=daily&brand_id=' .. math.random(1, ${brands}) .. '&since=' .. window[1] .. '&until=' .. window[2])
end
`)
  return file
}

const DAILY7 = `/analytics/?type=daily&brand_id=1&since=${addDays(DATA_END, -6)}&until=${DATA_END}`

async function lightPair (server: Server, token: string, script: string): Promise<{ daily7: WrkResult, daily7v: WrkResult }> {
  await wrk(server.base, token, 3, undefined, DAILY7)
  const daily7 = await wrk(server.base, token, WRK_SECONDS, undefined, DAILY7)
  await wrk(server.base, token, 3, script, '/')
  const daily7v = await wrk(server.base, token, WRK_SECONDS, script, '/')
  return { daily7, daily7v }
}

// ---------------------------------------------------------------- one store and scale

async function measure (store: BenchStore, scale: Scale, dir: string): Promise<string[]> {
  const databaseUrl = await ensureStore(args.cache, scale, store)
  const exportDir = join(dir, `out-${store}-${scale}`)
  const keys = await createPartner(databaseUrl, SCALES[scale].brands, 'bench-exports')
  const server = await startServer(databaseUrl, { EXPORT_DIR: exportDir, EXPORT_TIME_LIMIT_SECONDS: String(EXPORT_TIMEOUT_MS / 1000) })
  const lines: string[] = []
  try {
    const token = await login(server.base, keys)
    const idle = memoryOf(server.pid)
    log(`${store} ${scale}: exporting through POST /exports (server pid ${server.pid}, RSS ${idle?.rssMb ?? '?'} MB)`)
    const started = performance.now()
    const id = await createExport(server, token, scale)
    let processPeak = 0
    const finished = await waitJob(server, token, id, (current) => {
      processPeak = Math.max(processPeak, childrenPeakMb(server.pid))
      return current.status === 'succeeded'
    })
    const exportSeconds = (performance.now() - started) / 1000
    const memory = memoryOf(server.pid)
    const rows = finished.progress.rows_written
    const files = (finished.files ?? []).map((file) => join(exportDir, id, file.name))
    const exportBytes = (finished.files ?? []).reduce((total, file) => total + file.bytes, 0)

    log(`${store} ${scale}: the hand-written pipeline`)
    const referenceFile = join(dir, `reference-${store}-${scale}.parquet`)
    const columns = JSON.stringify(Object.fromEntries(COLUMNS.map((column) => [column.name, column.type])))
    const reference = await bash(`${dumpCommand(store, databaseUrl, scale)} | ${shellQuote(process.execPath)} ${shellQuote(join(ROOT, 'bench', 'csv-to-parquet.mjs'))} ${shellQuote(referenceFile)} ${shellQuote(columns)} zstd`)
    const referenceRows = Number(reference.stdout.trim())
    const [ours, theirs] = [await fingerprint(files), await fingerprint([referenceFile])]
    if (ours !== theirs || referenceRows !== rows) throw new Error(`the export and the reference differ:\n  export:    ${ours}\n  reference: ${theirs}`)
    const referenceBytes = Number(execFileSync('stat', ['-c', '%s', referenceFile]).toString().trim())
    log(`${store} ${scale}: the same dump gzipped`)
    const gzipBytes = args['no-gzip'] ? Number.NaN : Number((await bash(`${dumpCommand(store, databaseUrl, scale)} | gzip -c | wc -c`)).stdout.trim())
    rmSync(referenceFile, { force: true })

    const exportRate = rows / exportSeconds
    const referenceRate = rows / reference.seconds
    lines.push(`| ${store} | ${scale} | ${rows.toLocaleString('en')} | ${exportSeconds.toFixed(1)} s, ${Math.round(exportRate).toLocaleString('en')} rows/s (${files.length} files) | ` +
      `${reference.seconds.toFixed(1)} s, ${Math.round(referenceRate).toLocaleString('en')} rows/s | **${(exportRate / referenceRate).toFixed(2)} ×** | ` +
      `${memory?.peakMb ?? '?'} MB (idle ${idle?.rssMb ?? '?'} MB) | ${processPeak} MB | ${(exportBytes / 1048576).toFixed(1)} MB | ${(referenceBytes / 1048576).toFixed(1)} MB | ${(gzipBytes / 1048576).toFixed(1)} MB (${(exportBytes / gzipBytes).toFixed(2)} ×) | ${loadAverage()} |`)
    await call(server, token, 'DELETE', `/exports/${id}`)

    if (LIGHT_SCALES.includes(scale)) {
      log(`${store} ${scale}: daily7 without, during and after an export`)
      const script = variedScript(dir, SCALES[scale].brands)
      const before = await lightPair(server, token, script)
      // Each request's load runs during an export of its own, so that the whole measured window
      // falls inside an export even when one export is shorter than both loads together.
      const during = {} as Record<'daily7' | 'daily7v', WrkResult>
      const notes: string[] = []
      for (const name of ['daily7', 'daily7v'] as const) {
        const second = await createExport(server, token, scale)
        await waitJob(server, token, second, (current) => current.status === 'running' && current.progress.rows_written > 0)
        log(`${store} ${scale}: an export is writing; ${name} during it`)
        const [path, lua] = name === 'daily7' ? [DAILY7, undefined] : ['/', script]
        await wrk(server.base, token, 3, lua, path)
        during[name] = await wrk(server.base, token, WRK_SECONDS, lua, path)
        const still = await job(server, token, second)
        const cancelled = await call(server, token, 'DELETE', `/exports/${second}`)
        notes.push(still.status === 'running'
          ? `export still running at the end (${still.progress.rows_written.toLocaleString('en')} of ${(still.progress.rows_estimate ?? 0).toLocaleString('en')} rows), then cancelled (${cancelled.status})`
          : `**the export ended (${still.status}) before the load did**`)
      }
      const after = await lightPair(server, token, script)
      for (const [index, name] of (['daily7', 'daily7v'] as const).entries()) {
        const without = (before[name].rps + after[name].rps) / 2
        lines.push(`| ${store} | ${name} | ${Math.round(before[name].rps)} (p99 ${before[name].p99}) | ${Math.round(during[name].rps)} (p99 ${during[name].p99}) | ${Math.round(after[name].rps)} (p99 ${after[name].p99}) | ` +
          `**${(during[name].rps / without).toFixed(2)} ×** | errors ${[before, during, after].map((phase) => phase[name].errors).join(' / ')} | ${notes[index] ?? ''} | ${loadAverage()} |`)
      }
    }
    lines.push(`<!-- ${store} ${scale}: server ${server.logged.warn} warn, ${server.logged.error} error log lines -->`)
    return lines
  } finally {
    await stopServer(server)
    rmSync(exportDir, { recursive: true, force: true })
  }
}

async function main (): Promise<void> {
  requireBuild()
  mkdirSync(args.cache, { recursive: true })
  const dir = mkdtempSync(join(args.cache, 'run-'))
  const results: string[] = []
  try {
    for (const scale of SCALE_LIST) {
      for (const store of STORE_LIST) {
        const lines = await measure(store, scale, dir)
        for (const line of lines) console.log(line)
        results.push(...lines)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
    if (args['drop-postgres']) await dropPostgresStores(args.cache)
  }
  console.log(`\n### Exports (${new Date().toISOString().slice(0, 16)}Z, node ${process.version}, load average at the end ${loadAverage()})\n`)
  console.log('| store | scale | rows | POST /exports → succeeded | sqlite3/psql CSV → DuckDB Parquet | export ÷ reference | server peak RSS | export process peak RSS | export bytes | reference bytes | gzip CSV bytes (export ÷ gzip) | load |')
  console.log('|---|---|---:|---|---|---:|---:|---:|---:|---:|---|---|')
  for (const line of results.filter((row) => / [SM] \| [\d,]+ \|/.test(row))) console.log(line)
  console.log('\n| store | request | without (before) req/s | during an M export | without (after) | during ÷ without | wrk errors | the export | load |')
  console.log('|---|---|---:|---:|---:|---:|---|---|---|')
  for (const line of results.filter((row) => / daily7v? \|/.test(row))) console.log(line)
  for (const line of results.filter((row) => row.startsWith('<!--'))) console.log(line)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
