/**
 * `npm run bench:import-loaders -- FILE [--rounds N] [--stores sqlite,postgres]`: the
 * `partner-analytics import` command against each store's own bulk loader, on the same rows, in
 * one run (issue 23, target 1; docs/benchmarks.md "Import against the stores' bulk loaders").
 *
 *   FILE      an NDJSON import file, e.g. from `npm run bench:generate` (scale S or M).
 *   loader    the file's daily rows written once as CSV (the stored columns: revenue in micros),
 *             then, in a fresh store each round:
 *               SQLite      `sqlite3 DB ".import --csv --skip 1 CSV daily_metrics"`: the real table,
 *                           its key and indexes (the sqlite3 shell does not enforce foreign keys);
 *               PostgreSQL  `COPY … FROM STDIN (format csv)` of the same file (pg-copy-streams, in
 *                           one transaction) into `create table … (like daily_metrics including all)`:
 *                           the same columns, key and indexes, no foreign keys (no accounts loaded).
 *   import    `node bin/partner-analytics.js import FILE` in a child process, into a fresh
 *             migrated store: every record of the file (brands and accounts too), validated,
 *             upserted, read model and sync written, in one transaction. Wall time from spawn to
 *             exit (start-up included) and peak RSS (/proc, sampled every 50 ms).
 *
 * Rates are daily rows per second of wall time; the ratio is import / loader, measured back to
 * back in each round (the target: ≥ 0.5). PostgreSQL: BENCH_DATABASE_URL, default the test server.
 */
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { pipeline } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { DAILY_COUNT_METRICS } from '../src/domain/metrics.js'
import { createStore } from '../src/storage/db.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { createSchema, dropSchema } from '../test/helpers/stores.js'

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '1' }, stores: { type: 'string', default: 'sqlite,postgres' } },
})
const FILE = positionals[0]
const ROUNDS = Number(args.rounds)
const STORES = args.stores.split(',')
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const COLUMNS = ['platform', 'account_id', 'date', 'revenue_micros', ...DAILY_COUNT_METRICS]
const BIN = join(import.meta.dirname, '..', 'bin', 'partner-analytics.js')

if (FILE === undefined || !Number.isSafeInteger(ROUNDS) || ROUNDS < 1) {
  console.error('usage: npm run bench:import-loaders -- FILE [--rounds N] [--stores sqlite,postgres]')
  process.exit(2)
}

/** The file's daily rows as CSV with the stored columns; returns how many. */
async function writeCsv (ndjson: string, csv: string): Promise<number> {
  const out = createWriteStream(csv)
  const write = async (text: string): Promise<void> => { if (!out.write(text)) await once(out, 'drain') }
  await write(COLUMNS.join(',') + '\n')
  let rows = 0
  let chunk = ''
  for await (const line of createInterface({ input: createReadStream(ndjson, { encoding: 'utf8' }), crlfDelay: Infinity })) {
    if (!line.includes('"kind":"daily"')) continue
    const record = JSON.parse(line) as Record<string, unknown>
    const revenue = record.revenue as number | undefined
    chunk += COLUMNS.map((column) => column === 'revenue_micros'
      ? (revenue === undefined ? '' : String(Math.round(revenue * 1e6)))
      : String(record[column] ?? '')).join(',') + '\n'
    rows += 1
    if (chunk.length > 1 << 20) {
      await write(chunk)
      chunk = ''
    }
  }
  await write(chunk)
  out.end()
  await once(out, 'finish')
  return rows
}

/** Runs a command; wall seconds and peak RSS of the process (sampled from /proc). */
async function timeChild (command: string, argv: string[], env: Record<string, string>): Promise<{ seconds: number, peakRssMb: number, stderr: string }> {
  const started = performance.now()
  const child = spawn(command, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (text: string) => { stderr += text })
  let peak = 0
  const sample = (): void => {
    try {
      const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid ?? 0}/status`, 'utf8'))?.[1]
      if (kb !== undefined) peak = Math.max(peak, Number(kb))
    } catch { /* gone */ }
  }
  const timer = setInterval(sample, 50)
  const [code] = await once(child, 'close') as [number | null]
  clearInterval(timer)
  const seconds = (performance.now() - started) / 1000
  if (code !== 0) throw new Error(`${command} ${argv.join(' ')} exited ${String(code)}: ${stderr}`)
  return { seconds, peakRssMb: Math.round(peak / 1024), stderr }
}

async function sqliteRound (dir: string, csv: string): Promise<{ loader: number, imported: Awaited<ReturnType<typeof timeChild>> }> {
  const loaderDb = join(dir, 'loader.sqlite')
  const importDb = join(dir, 'import.sqlite')
  for (const file of [loaderDb, importDb]) {
    rmSync(file, { force: true })
    const store = createStore({ kind: 'sqlite', file })
    await migrateToLatest(store)
    await store.destroy()
  }
  const started = performance.now()
  execFileSync('sqlite3', [loaderDb, `.import --csv --skip 1 ${csv} daily_metrics`])
  const loader = (performance.now() - started) / 1000
  const imported = await timeChild(process.execPath, [BIN, 'import', FILE ?? ''], { DATABASE_URL: `sqlite:${importDb}`, JWT_SECRET: 'bench-import-loaders-0123456789abcdef', LOG_LEVEL: 'silent' })
  for (const file of [loaderDb, importDb]) for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true })
  return { loader, imported }
}

async function postgresRound (csv: string): Promise<{ loader: number, imported: Awaited<ReturnType<typeof timeChild>> }> {
  const loaderSchema = await createSchema(PG_URL, 'bench_loader')
  const importSchema = await createSchema(PG_URL, 'bench_import')
  try {
    for (const schema of [loaderSchema.schema, importSchema.schema]) {
      const store = createStore({ kind: 'postgres', url: PG_URL, schema })
      await migrateToLatest(store)
      await store.destroy()
    }
    const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${loaderSchema.schema}` })
    await client.connect()
    let loader: number
    try {
      await client.query('create table bench_daily (like daily_metrics including all)')
      const started = performance.now()
      await client.query('begin')
      await pipeline(createReadStream(csv), client.query(copyFrom(`copy bench_daily (${COLUMNS.join(', ')}) from stdin (format csv, header)`)))
      await client.query('commit')
      loader = (performance.now() - started) / 1000
    } finally {
      await client.end()
    }
    const imported = await timeChild(process.execPath, [BIN, 'import', FILE ?? ''], { DATABASE_URL: importSchema.databaseUrl, JWT_SECRET: 'bench-import-loaders-0123456789abcdef', LOG_LEVEL: 'silent' })
    return { loader, imported }
  } finally {
    await dropSchema(PG_URL, loaderSchema.schema)
    await dropSchema(PG_URL, importSchema.schema)
  }
}

async function main (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pa-bench-loaders-'))
  try {
    const csv = join(dir, 'daily.csv')
    const rows = await writeCsv(FILE ?? '', csv)
    console.log(`${FILE ?? ''}: ${rows} daily rows; ${ROUNDS} round(s); node ${process.version}; ${execFileSync('sqlite3', ['--version']).toString().split(' ')[0] ?? ''} sqlite3`)
    console.log('store       round  loader rows/s   import rows/s  (import s, inner s)   import/loader   import peak RSS')
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const store of STORES) {
        const { loader, imported } = store === 'sqlite' ? await sqliteRound(dir, csv) : await postgresRound(csv)
        const inner = /in (\d+\.\d+) s/.exec(imported.stderr)?.[1] ?? '?'
        const loaderRate = rows / loader
        const importRate = rows / imported.seconds
        console.log(`${store.padEnd(12)}${String(round).padStart(5)}${Math.round(loaderRate).toLocaleString('en').padStart(15)}${Math.round(importRate).toLocaleString('en').padStart(16)}  (${imported.seconds.toFixed(1)} s, ${inner} s)`.padEnd(80) +
          `${(importRate / loaderRate).toFixed(2)} ×`.padStart(8) + `${imported.peakRssMb} MB`.padStart(14))
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
