/**
 * `npm run bench:import-curve -- [--scales S,M,3M,10M] [--stores sqlite,postgres] [--dir DIR]`:
 * the import's cost as the store grows (docs/benchmarks.md "Import: the curve"), in one run.
 *
 *   scales  S = 100 brands × 10 accounts × 365 days (365,000 daily rows); M = 1,000 × 10 × 730
 *           (7.3 M); 3M = 3,000 × 10 × 730 (21.9 M); 10M = 10,000 × 10 × 730 (73 M, 100,000
 *           accounts). Each is generated on the fly by bench/generate.ts (seeded, the same rows
 *           every run) and piped into `node bin/partner-analytics.js import -`: never on disk.
 *   stores  each scale into a fresh store: a SQLite file in DIR (default the system's temporary
 *           directory; 10 × M needs ~30 GB there) or a fresh PostgreSQL schema on
 *           BENCH_DATABASE_URL (default the test server), dropped afterwards.
 *
 * Per scale and store: daily rows per second of wall time (from spawn to exit, start-up and
 * commit included), the import's own records/s (its summary line), peak RSS of the import process
 * (VmHWM), and the rate against the first scale of the run's (the target: 10 × M within 20 % of M).
 * The generator runs beside the import on the other core; it is not the bottleneck (it writes M
 * in about a minute alone).
 */
import { execFileSync, spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createStore } from '../src/storage/db.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { createSchema, dropSchema } from '../test/helpers/stores.js'
import { timeChild } from './import-support.js'
import { BENCH_POSTGRES_URL } from './support.js'

const SCALES = {
  S: { brands: 100, accountsPerBrand: 10, days: 365 },
  M: { brands: 1000, accountsPerBrand: 10, days: 730 },
  '3M': { brands: 3000, accountsPerBrand: 10, days: 730 },
  '10M': { brands: 10_000, accountsPerBrand: 10, days: 730 },
} as const
type Scale = keyof typeof SCALES

const { values: args } = parseArgs({
  options: {
    scales: { type: 'string', default: 'S,M,3M,10M' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    dir: { type: 'string', default: tmpdir() },
  },
})
const scales = args.scales.split(',')
const stores = args.stores.split(',')
if (!scales.every((scale): scale is Scale => scale in SCALES) || !stores.every((store) => store === 'sqlite' || store === 'postgres')) {
  console.error('usage: npm run bench:import-curve -- [--scales S,M,3M,10M] [--stores sqlite,postgres] [--dir DIR]')
  process.exit(2)
}
const BIN = join(import.meta.dirname, '..', 'bin', 'partner-analytics.js')
const GENERATE = join(import.meta.dirname, 'generate.ts')
const ENV = { JWT_SECRET: 'bench-import-curve-0123456789abcdef0123', LOG_LEVEL: 'silent' }

/** A fresh migrated store for the import command: its DATABASE_URL and how to drop it. */
async function freshStore (store: string, dir: string): Promise<{ url: string, drop: () => Promise<void> }> {
  if (store === 'sqlite') {
    const file = join(dir, 'curve.sqlite')
    const remove = (): void => { for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true }) }
    remove()
    const migrated = createStore({ kind: 'sqlite', file })
    await migrateToLatest(migrated)
    await migrated.destroy()
    return { url: `sqlite:${file}`, drop: async () => { remove() } }
  }
  const { schema, databaseUrl } = await createSchema(BENCH_POSTGRES_URL, 'bench_curve')
  const migrated = createStore({ kind: 'postgres', url: BENCH_POSTGRES_URL, schema })
  await migrateToLatest(migrated)
  await migrated.destroy()
  return { url: databaseUrl, drop: async () => { await dropSchema(BENCH_POSTGRES_URL, schema) } }
}

/**
 * Generates the scale into a FIFO the import reads as its standard input (a real pipe: the
 * generator cannot open /dev/stdout on the socket Node gives a child); the import's wall seconds,
 * peak RSS and summary.
 */
async function importScale (scale: Scale, url: string, dir: string): Promise<Awaited<ReturnType<typeof timeChild>>> {
  const { brands, accountsPerBrand, days } = SCALES[scale]
  const fifo = join(dir, 'rows.fifo')
  rmSync(fifo, { force: true })
  execFileSync('mkfifo', [fifo])
  const generator = spawn(process.execPath, ['--import', 'tsx', GENERATE, '--brands', String(brands), '--accounts-per-brand', String(accountsPerBrand),
    '--days', String(days), '--out', fifo], { stdio: 'ignore' })
  // Blocks until the generator opens its end: it was started just above.
  const fd = openSync(fifo, 'r')
  try {
    return await timeChild(process.execPath, [BIN, 'import', '-'], { ...ENV, DATABASE_URL: url }, fd)
  } finally {
    closeSync(fd)
    generator.kill()
    rmSync(fifo, { force: true })
  }
}

async function main (): Promise<void> {
  const dir = mkdtempSync(join(args.dir, 'pa-bench-curve-'))
  const first = new Map<string, number>()
  console.log(`import curve, ${new Date().toISOString().slice(0, 16)}Z; node ${process.version}`)
  console.log('store      scale   daily rows   wall s   daily rows/s   ÷ first   records/s (inner)   peak RSS')
  try {
    for (const scale of scales as Scale[]) {
      for (const store of stores) {
        const { url, drop } = await freshStore(store, dir)
        try {
          const { brands, accountsPerBrand, days } = SCALES[scale]
          const rows = brands * accountsPerBrand * days
          const result = await importScale(scale, url, dir)
          const rate = rows / result.seconds
          if (!first.has(store)) first.set(store, rate)
          const inner = [...result.stderr.matchAll(/, (\d+) records\/s/g)].at(-1)?.[1]
          if (inner === undefined) console.error(`(no summary line in the import's stderr: …${result.stderr.slice(-300)})`)
          console.log(`${store.padEnd(10)}${scale.padStart(6)}${rows.toLocaleString('en').padStart(13)}${result.seconds.toFixed(1).padStart(9)}` +
            `${Math.round(rate).toLocaleString('en').padStart(15)}${(rate / (first.get(store) ?? rate)).toFixed(2).padStart(10)}` +
            `${(inner === undefined ? '?' : Number(inner).toLocaleString('en')).padStart(20)}${`${result.peakRssMb} MB`.padStart(11)}`)
        } finally {
          await drop()
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
