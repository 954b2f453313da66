/**
 * What bench/exports.ts and bench/reports.ts share: scale S and M data generated and imported once
 * into a cache directory (kept between runs: an M import takes minutes), a partner, and the built
 * server (`node dist/cli/main.js serve`) in a process of its own on 127.0.0.1.
 *
 * Cache layout (default /tmp/bench-2930):
 *   S.ndjson, M.ndjson          bench/generate.ts output (seed 1, ending 2026-10-31)
 *   S.sqlite, M.sqlite          `partner-analytics import` of each into a fresh SQLite file
 *   sqlite-S.done, …            marks that the file holds the finished import
 *   postgres-S.done, …          marks that database bench2930_s (… _m) on BENCH_POSTGRES_ADMIN_URL's
 *                               server holds the finished import
 * A store without its mark is imported again from scratch (the mark is written last).
 * BENCH_POSTGRES_DB_PREFIX (default bench2930) names the databases instead: a run with a cache of
 * its own and a prefix of its own shares no store with another run on the same machine (whose
 * server's export worker would otherwise claim this run's jobs).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { text } from 'node:stream/consumers'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { freePort } from '../test/helpers/processes.js'

export type Scale = 'S' | 'M'
export type BenchStore = 'sqlite' | 'postgres'

/** Brands, accounts per brand, days: the reference harness's scales (docs/benchmarks.md). */
export const SCALES: Record<Scale, { brands: number, accountsPerBrand: number, days: number }> = {
  S: { brands: 100, accountsPerBrand: 10, days: 365 },
  M: { brands: 1000, accountsPerBrand: 10, days: 730 },
}
/** The last day of the generated data. */
export const DATA_END = '2026-10-31'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const CLI = join(ROOT, 'dist', 'cli', 'main.js')
/** A server (maintenance database) where the bench creates and drops its own databases. */
export const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

export function requireBuild (): void {
  if (!existsSync(CLI)) {
    console.error(`${CLI} is missing: run \`npm run build\` first`)
    process.exit(2)
  }
}

export function loadAverage (): string {
  return loadavg().map((value) => value.toFixed(1)).join(' ')
}

export function log (message: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`)
}

function postgresDatabase (scale: Scale): string {
  return `${process.env.BENCH_POSTGRES_DB_PREFIX ?? 'bench2930'}_${scale.toLowerCase()}`
}

export function postgresUrl (database: string): string {
  const url = new URL(POSTGRES_ADMIN_URL)
  url.pathname = `/${database}`
  return url.href
}

/** The NDJSON file of a scale, generated once. */
export function ensureNdjson (cache: string, scale: Scale): string {
  mkdirSync(cache, { recursive: true })
  const file = join(cache, `${scale}.ndjson`)
  if (existsSync(file)) return file
  const { brands, accountsPerBrand, days } = SCALES[scale]
  log(`generating scale ${scale} into ${file}`)
  execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'generate.ts'), '--brands', String(brands), '--accounts-per-brand', String(accountsPerBrand),
    '--days', String(days), '--end', DATA_END, '--out', `${file}.part`], { stdio: ['ignore', 'ignore', 'inherit'] })
  renameSync(`${file}.part`, file)
  return file
}

async function runCli (argv: string[], databaseUrl: string): Promise<string> {
  const child = spawn(process.execPath, [CLI, ...argv], { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  const [stdout, stderr] = await Promise.all([text(child.stdout), text(child.stderr)])
  const [code] = await exited
  if (code !== 0) throw new Error(`partner-analytics ${argv.slice(0, 2).join(' ')} exited ${code}: ${stderr.trim()}`)
  return stdout
}

async function admin<T> (work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/** DATABASE_URL of a store holding the scale's data, imported once with `partner-analytics import`. */
export async function ensureStore (cache: string, scale: Scale, store: BenchStore): Promise<string> {
  const ndjson = ensureNdjson(cache, scale)
  if (store === 'sqlite') {
    const file = join(cache, `${scale}.sqlite`)
    const done = join(cache, `sqlite-${scale}.done`)
    if (existsSync(file) && existsSync(done)) return `sqlite:${file}`
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true })
    log(`importing scale ${scale} into ${file}`)
    await runCli(['migrate'], `sqlite:${file}`)
    await runCli(['import', ndjson], `sqlite:${file}`)
    writeFileSync(done, new Date().toISOString())
    return `sqlite:${file}`
  }
  const database = postgresDatabase(scale)
  const done = join(cache, `postgres-${scale}.done`)
  const exists = await admin(async (client) => (await client.query('select 1 from pg_database where datname = $1', [database])).rowCount === 1)
  if (exists && existsSync(done)) return postgresUrl(database)
  rmSync(done, { force: true })
  await admin(async (client) => {
    await client.query(`drop database if exists ${database}`)
    await client.query(`create database ${database}`)
  })
  log(`importing scale ${scale} into PostgreSQL database ${database}`)
  await runCli(['migrate'], postgresUrl(database))
  await runCli(['import', ndjson], postgresUrl(database))
  writeFileSync(done, new Date().toISOString())
  return postgresUrl(database)
}

/** Drops the PostgreSQL databases this bench created (and their marks). */
export async function dropPostgresStores (cache: string): Promise<void> {
  for (const scale of ['S', 'M'] as Scale[]) {
    await admin(async (client) => { await client.query(`drop database if exists ${postgresDatabase(scale)}`) })
    rmSync(join(cache, `postgres-${scale}.done`), { force: true })
  }
}

/** A new partner granted brands 1..`brands`; its key pair. */
export async function createPartner (databaseUrl: string, brands: number, name: string): Promise<{ api_client_key: string, api_secret_key: string }> {
  const ids = Array.from({ length: brands }, (_, i) => i + 1).join(',')
  return JSON.parse(await runCli(['users', 'create', '--name', `${name} ${new Date().toISOString()}`, '--brands', ids, '--json'], databaseUrl)) as { api_client_key: string, api_secret_key: string }
}

export interface Server { child: ChildProcess, base: URL, pid: number, logged: { warn: number, error: number } }

/**
 * `node dist/cli/main.js serve` on 127.0.0.1 with rate limits off, NODE_ENV=production and `env`
 * added; its warn and error log lines are counted and passed on to stderr. With BENCH_CPU_PROFILE_DIR
 * set, it runs under `node --cpu-prof` and writes its profile there when stopped.
 */
export async function startServer (databaseUrl: string, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort()
  // BENCH_CPU_PROFILE_DIR: the server writes a V8 CPU profile there when it stops (node --cpu-prof).
  const profile = process.env.BENCH_CPU_PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE_DIR}`]
  const child = spawn(process.execPath, [...profile, CLI, 'serve'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      JWT_SECRET: randomBytes(32).toString('hex'),
      NODE_ENV: 'production',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_PER_HOUR: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
  })
  const logged = { warn: 0, error: 0 }
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      const level = /"level":(\d+)/.exec(line)?.[1]
      if (level !== undefined && Number(level) >= 50) logged.error++
      else if (level !== undefined && Number(level) >= 40) logged.warn++
      process.stderr.write(`[server] ${line}\n`)
    })
  }
  const base = new URL(`http://127.0.0.1:${port}`)
  let exited: string | undefined
  child.on('exit', (code, signal) => { exited = `exited ${code ?? signal}` })
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`the server ${exited} before answering /health`)
    try {
      if ((await fetch(new URL('/health', base))).status === 200) return { child, base, pid: child.pid ?? 0, logged }
    } catch { /* not listening yet */ }
    await sleep(250)
  }
  child.kill('SIGTERM')
  throw new Error('the server did not answer GET /health within 90 s')
}

export async function stopServer (server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return
  const exited = once(server.child, 'exit')
  server.child.kill('SIGTERM')
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}

/** An access token for the key pair. */
export async function login (base: URL, keys: { api_client_key: string, api_secret_key: string }): Promise<string> {
  const answer = await fetch(new URL('/auth/login', base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(keys) })
  if (answer.status !== 200) throw new Error(`login: ${answer.status} ${await answer.text()}`)
  return (await answer.json() as { access_token: string }).access_token
}

/** A process's resident memory now and at its peak (VmRSS, VmHWM), MB; undefined off Linux. */
export function memoryOf (pid: number): { rssMb: number, peakMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const rss = /VmRSS:\s+(\d+) kB/.exec(status)?.[1]
    const peak = /VmHWM:\s+(\d+) kB/.exec(status)?.[1]
    if (rss === undefined || peak === undefined) return undefined
    return { rssMb: Math.round(Number(rss) / 1024), peakMb: Math.round(Number(peak) / 1024) }
  } catch {
    return undefined
  }
}

/** Nearest-rank percentile of ascending `sorted`. */
export function percentile (sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number
}

export function formatMs (value: number): string {
  return Number.isNaN(value) ? '–' : value < 10 ? value.toFixed(1) : String(Math.round(value))
}
