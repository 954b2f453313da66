/**
 * `npm run bench:import-pg-profile -- [FILE | --scale S|M] [--explain]`: where a PostgreSQL import
 * spends its time, seen from the server's side (docs/benchmarks.md "Import: PostgreSQL's side").
 *
 * pg_stat_statements needs `shared_preload_libraries` (a server restart); this measures the same
 * thing from the one connection the import uses instead: every statement the import sends is timed
 * from send to reply, grouped by its text (its first 120 characters, literals as they are), and
 * printed with its calls, total seconds and share of the import's wall time. The WAL the import
 * wrote (pg_current_wal_lsn before and after) is given per daily row.
 *
 * `--explain`: the first time each statement of the read-model refresh and of the staged upsert
 * runs, it runs once more before that under `EXPLAIN (ANALYZE, BUFFERS)` inside a savepoint that is
 * rolled back (the temporary tables as they are at that moment, nothing kept); the plans are
 * printed at the end. The timings of those statements then include nothing of the EXPLAIN (it is
 * timed apart), but the import's wall time does.
 *
 * The import runs in this process (importSources over the file, the same service the command
 * runs), into a fresh schema on BENCH_DATABASE_URL (default the test server), dropped afterwards.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { fileSource } from '../src/services/import/file-source.js'
import { importSources } from '../src/services/import/import.service.js'
import { openFreshBenchStore } from './support.js'

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { scale: { type: 'string', default: 'S' }, explain: { type: 'boolean', default: false } },
})
const SCALES: Record<string, string[]> = {
  S: ['--brands', '100', '--accounts-per-brand', '10', '--days', '365'],
  M: ['--brands', '1000', '--accounts-per-brand', '10', '--days', '730'],
}
if (SCALES[args.scale] === undefined) {
  console.error('usage: npm run bench:import-pg-profile -- [FILE | --scale S|M] [--explain]')
  process.exit(2)
}

/** Statements worth a plan: the refresh's and the staged upsert's writes and reads. */
const EXPLAINED = /^\s*(with (written|prior)|insert into (account_monthly|brand_daily|brand_monthly|touched_|sync_|account_coverage)|delete from (account_monthly|brand_daily|brand_monthly)|update (brand_daily|brand_monthly))/i

interface Stat { calls: number, seconds: number }

async function main (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pa-bench-pg-profile-'))
  const test = await openFreshBenchStore('postgres')
  try {
    let file = positionals[0]
    if (file === undefined) {
      file = join(dir, `${args.scale}.ndjson`)
      execFileSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'generate.ts'), ...(SCALES[args.scale] ?? []), '--out', file], { stdio: 'ignore' })
    }
    const store = test.store
    if (store.dialect !== 'postgres') throw new Error('a PostgreSQL store was expected')
    const stats = new Map<string, Stat>()
    const plans = new Map<string, string>()
    const keyOf = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 120)
    const original = pg.Client.prototype.query
    const patched = function (this: pg.Client, ...argv: unknown[]): unknown {
      const first = argv[0]
      const text = typeof first === 'string' ? first : typeof (first as { text?: unknown })?.text === 'string' ? (first as { text: string }).text : undefined
      // A COPY stream (it has `submit`) or a callback call is passed through untimed.
      if (text === undefined || typeof (first as { submit?: unknown }).submit === 'function' || typeof argv.at(-1) === 'function') return (original as (...a: unknown[]) => unknown).apply(this, argv)
      const key = keyOf(text)
      const run = async (): Promise<unknown> => {
        if (args.explain && EXPLAINED.test(text) && !plans.has(key)) {
          plans.set(key, '(running)')
          const values = typeof first === 'string' ? argv[1] : (first as { values?: unknown }).values
          await (original as (...a: unknown[]) => Promise<unknown>).call(this, 'savepoint bench_explain')
          const plan = await (original as (...a: unknown[]) => Promise<{ rows: Array<Record<string, string>> }>).call(this, `explain (analyze, buffers) ${text}`, values)
          await (original as (...a: unknown[]) => Promise<unknown>).call(this, 'rollback to savepoint bench_explain')
          plans.set(key, plan.rows.map((row) => row['QUERY PLAN']).join('\n'))
        }
        const started = performance.now()
        try {
          return await (original as (...a: unknown[]) => Promise<unknown>).apply(this, argv)
        } finally {
          const stat = stats.get(key) ?? { calls: 0, seconds: 0 }
          stat.calls += 1
          stat.seconds += (performance.now() - started) / 1000
          stats.set(key, stat)
        }
      }
      return run()
    }
    const lsn = async (): Promise<string> => String((await store.pool.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]?.lsn)
    const walBefore = await lsn()
    pg.Client.prototype.query = patched as typeof original
    const started = performance.now()
    let summary
    try {
      summary = await importSources(store, [fileSource(file)])
    } finally {
      pg.Client.prototype.query = original
    }
    const wall = (performance.now() - started) / 1000
    const walAfter = await lsn()
    const walBytes = Number((await store.pool.query<{ bytes: string }>('select pg_wal_lsn_diff($1, $2)::text as bytes', [walAfter, walBefore])).rows[0]?.bytes)
    const daily = summary.counts.daily
    console.log(`${file}: ${daily.toLocaleString('en')} daily rows, ${summary.records.toLocaleString('en')} records, ${wall.toFixed(1)} s wall ` +
      `(${Math.round(daily / wall).toLocaleString('en')} daily rows/s); WAL ${(walBytes / 1048576).toFixed(0)} MB, ${Math.round(walBytes / Math.max(daily, 1))} bytes per daily row`)
    const timed = [...stats.values()].reduce((sum, stat) => sum + stat.seconds, 0)
    console.log(`statements: ${timed.toFixed(1)} s of the ${wall.toFixed(1)} s (the rest: reading, parsing, validating, rendering in this process)`)
    console.log('    calls   total s   share   statement (first 120 characters)')
    for (const [key, stat] of [...stats.entries()].sort((a, b) => b[1].seconds - a[1].seconds).slice(0, 25)) {
      console.log(`${String(stat.calls).padStart(9)}${stat.seconds.toFixed(2).padStart(10)}${`${(100 * stat.seconds / wall).toFixed(1)} %`.padStart(8)}   ${key}`)
    }
    for (const [key, plan] of plans) console.log(`\n=== ${key}\n${plan}`)
  } finally {
    await test.cleanup()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
