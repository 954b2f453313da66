/**
 * `npm run bench:import -- [ROWS]` (default 200000): the import against each store's own bulk
 * loader, on the same NDJSON file of daily rows.
 *
 *   import    partner-analytics' importSources(fileSource(file)): validate pass + write pass, one
 *             transaction, upserts.
 *   baseline  the same file read and JSON-parsed line by line, then
 *             SQLite: a bare prepared INSERT per row in one transaction;
 *             PostgreSQL: COPY FROM STDIN (pg-copy-streams) into an identical table.
 *
 *   again     the same import once more into the same store: every record equal to its row, so
 *             nothing is written (docs/import.md "Syncs").
 *
 * Prints rows/s, the ratio, and the peak RSS sampled during each run (memory must stay flat
 * whatever the file size: try 1000000). PostgreSQL: BENCH_DATABASE_URL, default the test server.
 *
 * Each import also reports the CPU time it used: this process's (SQLite runs in it) plus, for
 * PostgreSQL, that of the server backends the store's pool opened (read from /proc, so the server
 * must run on this machine; "n/a" otherwise). On a shared machine wall times swing with the load;
 * CPU seconds much less, so compare those between checkouts (bench/import-compare.ts does it in
 * one run, alternating them).
 */
import { once } from 'node:events'
import { createReadStream, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { DAILY_COUNT_METRICS } from '../src/domain/metrics.js'
import { fileSource } from '../src/services/import/file-source.js'
import { importSources } from '../src/services/import/import.service.js'
import { createStore, type Store } from '../src/storage/db.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { ACCOUNTS, measure, watchBackends, writeFixture } from './import-support.js'

const ROWS = Number(process.argv[2] ?? 200_000)
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const COLUMNS = ['platform', 'account_id', 'date', 'revenue_micros', ...DAILY_COUNT_METRICS]

if (!Number.isSafeInteger(ROWS) || ROWS < 1) {
  console.error('usage: npm run bench:import -- [ROWS]   (a positive integer, default 200000)')
  process.exit(2)
}

/** The file's daily rows as column arrays, for the baselines (same parse work as the import's). */
async function * dailyValues (path: string): AsyncIterable<unknown[]> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity })
  for await (const line of lines) {
    const record = JSON.parse(line) as Record<string, unknown>
    if (record.kind !== 'daily') continue
    const revenue = record.revenue as number | undefined
    yield COLUMNS.map((column) => column === 'revenue_micros'
      ? (revenue === undefined ? null : Math.round(revenue * 1e6))
      : record[column] ?? null)
  }
}

async function timeImport (store: Store, file: string, backends: ReadonlySet<number>) {
  return await measure(async () => await importSources(store, [fileSource(file)]), backends)
}

async function sqliteBaseline (dir: string, file: string) {
  const store = createStore({ kind: 'sqlite', file: join(dir, 'baseline.sqlite') })
  await migrateToLatest(store)
  if (store.dialect !== 'sqlite') throw new Error('unreachable')
  const { sqlite } = store
  // The real table without its foreign key (accounts are not loaded): a plain bulk load.
  sqlite.exec('create table bench_daily as select * from daily_metrics where 0')
  sqlite.exec('create unique index bench_daily_pk on bench_daily (platform, account_id, date)')
  const insert = sqlite.prepare(`insert into bench_daily (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`)
  const run = await measure(async () => {
    sqlite.exec('begin')
    for await (const values of dailyValues(file)) insert.run(values)
    sqlite.exec('commit')
  })
  await store.destroy()
  return run
}

function copyText (values: unknown[]): string {
  return values.map((value) => (value === null ? '\\N' : String(value))).join('\t') + '\n'
}

async function postgresBaseline (schema: string, file: string) {
  const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema}` })
  await client.connect()
  try {
    await client.query('create table bench_daily (like daily_metrics including all)')
    return await measure(async () => {
      await client.query('begin')
      const stream = client.query(copyFrom(`copy bench_daily (${COLUMNS.join(', ')}) from stdin`))
      for await (const values of dailyValues(file)) {
        if (!stream.write(copyText(values))) await once(stream, 'drain')
      }
      stream.end()
      await once(stream, 'finish')
      await client.query('commit')
    })
  } finally {
    await client.end()
  }
}

type Timed = Awaited<ReturnType<typeof timeImport>>

function report (store: string, imported: Timed, again: Timed, baseline: { seconds: number, peakRssMb: number }): void {
  const importRate = Math.round(ROWS / imported.seconds)
  const baseRate = Math.round(ROWS / baseline.seconds)
  const cpu = (timed: Timed): string => timed.cpuSeconds === undefined ? 'n/a' : `${timed.cpuSeconds.toFixed(2)} s`
  console.log(`${store.padEnd(10)} import   ${imported.seconds.toFixed(2).padStart(7)} s  ${String(importRate).padStart(8)} rows/s  peak RSS ${imported.peakRssMb} MB  CPU ${cpu(imported)}`)
  console.log(`${''.padEnd(10)} again    ${again.seconds.toFixed(2).padStart(7)} s  ${String(Math.round(ROWS / again.seconds)).padStart(8)} rows/s  peak RSS ${again.peakRssMb} MB  CPU ${cpu(again)}  (identical re-import)`)
  console.log(`${''.padEnd(10)} baseline ${baseline.seconds.toFixed(2).padStart(7)} s  ${String(baseRate).padStart(8)} rows/s  peak RSS ${baseline.peakRssMb} MB`)
  console.log(`${''.padEnd(10)} ratio    baseline is ${(baseRate / importRate).toFixed(2)}x faster than the import`)
}

async function main (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pa-bench-import-'))
  const schema = `bench_${process.pid}`
  const admin = new pg.Client({ connectionString: PG_URL })
  try {
    const file = join(dir, 'daily.ndjson')
    await writeFixture(file, ROWS)
    console.log(`${ROWS} daily rows (+${ACCOUNTS} accounts, 1 brand) in ${file}; node ${process.version}; RSS before: ${Math.round(process.memoryUsage.rss() / 1048576)} MB`)

    const sqlite = createStore({ kind: 'sqlite', file: join(dir, 'import.sqlite') })
    await migrateToLatest(sqlite)
    const sqliteImport = await timeImport(sqlite, file, new Set())
    const sqliteAgain = await timeImport(sqlite, file, new Set())
    await sqlite.destroy()
    report('sqlite', sqliteImport, sqliteAgain, await sqliteBaseline(dir, file))

    await admin.connect()
    await admin.query(`create schema ${schema}`)
    const postgres = createStore({ kind: 'postgres', url: PG_URL, schema })
    const backends = watchBackends(postgres)
    await migrateToLatest(postgres)
    const postgresImport = await timeImport(postgres, file, backends)
    const postgresAgain = await timeImport(postgres, file, backends)
    await postgres.destroy()
    report('postgres', postgresImport, postgresAgain, await postgresBaseline(schema, file))
  } finally {
    if (admin.database !== undefined) await admin.query(`drop schema if exists ${schema} cascade`).catch(() => {})
    await admin.end().catch(() => {})
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
