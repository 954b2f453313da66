/**
 * `npm run bench:import-compare -- BEFORE_DIR AFTER_DIR [ROUNDS] [ROWS] [POSTS]` (defaults 5, 365000, 0):
 * the import of two checkouts of this repository in ONE run, rounds alternating which goes first,
 * on the same NDJSON file (bench/import-support.ts: ROWS daily rows, then POSTS posts over its 200 accounts): into a fresh store, then the same file again
 * (identical rows), on SQLite and on PostgreSQL (BENCH_DATABASE_URL, default the test server).
 *
 * Each import reports wall seconds and CPU seconds — this process plus the PostgreSQL backends its
 * pool opened (/proc). On a shared machine the wall times swing with the load; CPU seconds much
 * less, and the medians over rounds less still: compare those. A checkout is a directory with
 * `src/` and `node_modules/` (e.g. `git archive PARENT | tar -x -C /tmp/before` and a symlink to
 * this checkout's node_modules); its sources are imported as they are (tsx).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import pg from 'pg'
import { measure, watchBackends, writeFixture } from './import-support.js'

const [beforeDir, afterDir] = [process.argv[2], process.argv[3]]
const ROUNDS = Number(process.argv[4] ?? 5)
const ROWS = Number(process.argv[5] ?? 365_000)
const POSTS = Number(process.argv[6] ?? 0)
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

if (beforeDir === undefined || afterDir === undefined || !Number.isSafeInteger(ROUNDS) || ROUNDS < 1 || !Number.isSafeInteger(ROWS) || ROWS < 1 || !Number.isSafeInteger(POSTS) || POSTS < 0) {
  console.error('usage: npm run bench:import-compare -- BEFORE_DIR AFTER_DIR [ROUNDS] [ROWS] [POSTS]')
  process.exit(2)
}

/** What a checkout's import is made of, loaded from its own sources. */
interface Checkout {
  name: string
  importFile: (store: unknown, file: string) => Promise<unknown>
  createStore: (config: unknown) => { dialect: string, destroy: () => Promise<void> }
  migrateToLatest: (store: unknown) => Promise<void>
}

async function load (name: string, dir: string): Promise<Checkout> {
  const at = (path: string): string => resolve(dir, 'src', path)
  const service = await import(at('services/import/import.service.ts')) as { importSources: (store: unknown, sources: unknown[]) => Promise<unknown> }
  const files = await import(at('services/import/file-source.ts')) as { fileSource: (path: string) => unknown }
  const db = await import(at('storage/db.ts')) as { createStore: Checkout['createStore'] }
  const migrate = await import(at('storage/migrate.ts')) as { migrateToLatest: Checkout['migrateToLatest'] }
  return {
    name,
    importFile: async (store, file) => await service.importSources(store, [files.fileSource(file)]),
    createStore: db.createStore,
    migrateToLatest: migrate.migrateToLatest,
  }
}

type Timings = Record<string, number[]>

async function round (checkout: Checkout, dir: string, file: string, admin: pg.Client, timings: Timings): Promise<void> {
  const record = (key: string, run: Awaited<ReturnType<typeof measure>>): void => {
    (timings[`${key} wall ${checkout.name}`] ??= []).push(run.seconds)
    if (run.cpuSeconds !== undefined) (timings[`${key} cpu ${checkout.name}`] ??= []).push(run.cpuSeconds)
  }
  const sqliteFile = join(dir, `${checkout.name}.sqlite`)
  const sqlite = checkout.createStore({ kind: 'sqlite', file: sqliteFile })
  await checkout.migrateToLatest(sqlite)
  record('sqlite import', await measure(async () => await checkout.importFile(sqlite, file)))
  record('sqlite again', await measure(async () => await checkout.importFile(sqlite, file)))
  await sqlite.destroy()
  rmSync(sqliteFile, { force: true })

  const schema = `bench_compare_${process.pid}_${checkout.name}`
  await admin.query(`create schema ${schema}`)
  try {
    const postgres = checkout.createStore({ kind: 'postgres', url: PG_URL, schema })
    const backends = watchBackends(postgres as never)
    await checkout.migrateToLatest(postgres)
    record('postgres import', await measure(async () => await checkout.importFile(postgres, file), backends))
    record('postgres again', await measure(async () => await checkout.importFile(postgres, file), backends))
    await postgres.destroy()
  } finally {
    await admin.query(`drop schema if exists ${schema} cascade`)
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] ?? 0 : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

async function main (): Promise<void> {
  const checkouts = [await load('before', beforeDir ?? ''), await load('after', afterDir ?? '')]
  const dir = mkdtempSync(join(tmpdir(), 'pa-bench-compare-'))
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  const timings: Timings = {}
  try {
    const file = join(dir, 'daily.ndjson')
    await writeFixture(file, ROWS, POSTS)
    console.log(`${ROWS} daily rows, ${POSTS} posts; before = ${beforeDir ?? ''}, after = ${afterDir ?? ''}; ${ROUNDS} rounds; node ${process.version}`)
    for (let index = 0; index < ROUNDS; index += 1) {
      for (const checkout of index % 2 === 0 ? checkouts : [...checkouts].reverse()) await round(checkout, dir, file, admin, timings)
      console.log(`round ${index + 1} done`)
    }
  } finally {
    await admin.end()
    rmSync(dir, { recursive: true, force: true })
  }
  const cell = (values: number[] | undefined): string => values === undefined ? 'n/a'.padStart(16) : `${median(values).toFixed(2)} (${Math.min(...values).toFixed(2)})`.padStart(16)
  console.log(`${''.padEnd(24)}${'before'.padStart(16)}${'after'.padStart(16)}   after/before (medians; min in brackets)`)
  for (const store of ['sqlite', 'postgres']) {
    for (const kind of ['import', 'again']) {
      for (const metric of ['cpu', 'wall']) {
        const key = `${store} ${kind} ${metric}`
        const before = timings[`${key} before`]
        const after = timings[`${key} after`]
        const ratio = before === undefined || after === undefined ? 'n/a' : (median(after) / median(before)).toFixed(3)
        console.log(`${key.padEnd(24)}${cell(before)}${cell(after)}   ${ratio}`)
      }
    }
  }
}

await main()
