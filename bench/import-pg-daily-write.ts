/**
 * `npm run bench:import-pg-daily-write -- FILE [--rounds N]`: the server's side of the PostgreSQL
 * import's daily batches alone (docs/benchmarks.md "Import: PostgreSQL's side"). The file's daily
 * rows, as the import stages them (COPY text, the stored columns), go in batches of 20,000 into a
 * fresh schema's daily_metrics inside one transaction, each way in turn, rounds alternating:
 *
 *   upsert   COPY into the staging table, then the import's upsert with its change capture
 *            (capturingUpsert: every batch through ON CONFLICT DO UPDATE … WHERE … RETURNING);
 *   plain    the same with capturingDailyWrite: batches with no stored day in their range
 *            inserted without ON CONFLICT (what the import does now);
 *   insert   COPY into the staging table, then a bare INSERT … SELECT (no capture): the floor of
 *            moving staged rows;
 *   copy     COPY straight into daily_metrics: the loader's floor.
 *
 * Printed per way: wall seconds, CPU seconds of the server backend (from /proc: the server must
 * run on this machine), and WAL bytes per row (pg_current_wal_lsn before and after, the commit
 * included; other sessions' WAL counts too). PostgreSQL: BENCH_DATABASE_URL, default the test server.
 */
import { createReadStream, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { capturingDailyWrite, capturingUpsert, startPostgresCapture } from '../src/storage/changes/capture.postgres.js'
import { copyText, copyValue } from '../src/storage/copy-text.js'
import { DAILY_TABLE } from '../src/storage/repositories/import-writer.tables.js'
import { createStore } from '../src/storage/db.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { createSchema, dropSchema } from '../test/helpers/stores.js'
import { BENCH_POSTGRES_URL, positiveOption } from './support.js'

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string', default: '2' } } })
const FILE = positionals[0]
if (FILE === undefined) {
  console.error('usage: npm run bench:import-pg-daily-write -- FILE [--rounds N]')
  process.exit(2)
}
const ROUNDS = positiveOption('rounds', args.rounds)
const BATCH_ROWS = 20_000
const WAYS = ['upsert', 'plain', 'insert', 'copy'] as const
const COLUMNS = DAILY_TABLE.columns.join(', ')

/** The file's daily rows as COPY text, in batches of BATCH_ROWS (revenue in micros, as validated). */
async function batchesOf (file: string): Promise<{ batches: string[], rows: number }> {
  const batches: string[] = []
  let text = ''
  let inBatch = 0
  let rows = 0
  for await (const line of createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })) {
    if (!line.includes('"kind":"daily"')) continue
    const record = JSON.parse(line) as Record<string, unknown>
    const revenue = record.revenue as number | undefined
    text += DAILY_TABLE.columns.map((column) => copyValue(column === 'revenue_micros' ? (revenue === undefined ? null : Math.round(revenue * 1e6)) : record[column])).join('\t') + '\n'
    rows += 1
    inBatch += 1
    if (inBatch === BATCH_ROWS) {
      batches.push(text)
      text = ''
      inBatch = 0
    }
  }
  if (text !== '') batches.push(text)
  return { batches, rows }
}

function cpuSeconds (pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

async function run (way: typeof WAYS[number], batches: string[], rows: number): Promise<string> {
  const { schema } = await createSchema(BENCH_POSTGRES_URL, 'bench_daily_write')
  try {
    const store = createStore({ kind: 'postgres', url: BENCH_POSTGRES_URL, schema })
    await migrateToLatest(store)
    await store.destroy()
    const client = new pg.Client({ connectionString: BENCH_POSTGRES_URL, options: `-c search_path=${schema}` })
    await client.connect()
    try {
      const poolClient = client as unknown as pg.PoolClient
      const pid = Number((await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid)
      const lsn = (await client.query<{ lsn: string }>('select pg_current_wal_lsn() as lsn')).rows[0]?.lsn ?? '0/0'
      const cpu = cpuSeconds(pid)
      const started = performance.now()
      await client.query('begin')
      await startPostgresCapture(poolClient)
      await client.query(`create temp table stage on commit drop as select ${COLUMNS} from daily_metrics with no data`)
      let plainly = 0
      for (const text of batches) {
        if (way === 'copy') {
          await copyText(poolClient, 'daily_metrics', COLUMNS, text)
          continue
        }
        await copyText(poolClient, 'stage', COLUMNS, text)
        if (way === 'upsert') await client.query(capturingUpsert(DAILY_TABLE, 'stage', DAILY_TABLE.columns))
        else if (way === 'insert') await client.query(`insert into daily_metrics (${COLUMNS}) select ${COLUMNS} from stage`)
        else plainly += Number((await client.query<{ plain: number }>(capturingDailyWrite('stage', DAILY_TABLE.columns))).rows[0]?.plain ?? 0)
        await client.query('truncate stage')
      }
      await client.query('commit')
      const seconds = (performance.now() - started) / 1000
      const used = cpuSeconds(pid) - cpu
      const wal = Number((await client.query<{ bytes: string }>('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1) as bytes', [lsn])).rows[0]?.bytes)
      return `${way.padEnd(8)}${seconds.toFixed(2).padStart(8)} s${used.toFixed(2).padStart(9)} CPU s${Math.round(wal / rows).toString().padStart(7)} WAL B/row` +
        (way === 'plain' ? `   (${plainly} of ${rows} rows inserted plainly)` : '')
    } finally {
      await client.end()
    }
  } finally {
    await dropSchema(BENCH_POSTGRES_URL, schema)
  }
}

const { batches, rows } = await batchesOf(FILE)
console.log(`${FILE}: ${rows} daily rows in ${batches.length} batches; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
for (let round = 1; round <= ROUNDS; round += 1) {
  for (const way of round % 2 === 1 ? WAYS : [...WAYS].reverse()) console.log(`round ${round}  ${await run(way, batches, rows)}`)
}
