/**
 * `npm run bench:scale -- [--store sqlite|postgres] [--brands N] [--days N] [--duration S] [--connections N] [--skip workers,metrics,replicas]`
 *
 * What issue 22 asks to measure, in one run, each figure from a separate `serve` process loaded by
 * autocannon in another (bench/load.ts), after a 2 s warm-up:
 * 1. workers: `serve --workers 1` against `--workers 2` (Redis shared, as with workers it must be)
 *    on daily7 (`type=daily&brand_id=1`, the last 7 days) and agg365 (`type=agg&brand_id=1`,
 *    the last 365 days) — the reference harness's two product queries;
 * 2. metrics: the daily page with METRICS_PORT unset against set (one worker), alternated
 *    off, on, off, on, so that the machine's drift falls on both;
 * 3. replicas (PostgreSQL only; a primary and a streaming replica of this run's own, as the
 *    tests start them): daily7 and agg365 against the primary alone, then with the replica.
 * Each part runs --rounds rounds (default 3), its configurations alternated within each round, so
 * that the drift of a shared machine falls on all of them; the table gives each configuration's
 * median and every round's req/s. Demo data (seed 42) at the given scale.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { addDays } from '../src/domain/dates.js'
import { resolveDemoOptions } from '../src/services/demo/generator.js'
import { demoSource } from '../src/services/demo/source.js'
import { importSources } from '../src/services/import/import.service.js'
import { createUser } from '../src/services/users/users.service.js'
import { createStore } from '../src/storage/db.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { readFileSync } from 'node:fs'
import { childrenOf, exitOf, freePort, waitFor } from '../test/helpers/processes.js'
import { TEST_REDIS_URL, deleteRedisKeys, uniqueRedisPrefix } from '../test/helpers/redis.js'
import { startStreamingPair } from '../test/helpers/replication.js'
import { runLoad } from './run-load.js'
import { openFreshBenchStore, positiveOption, storeOption } from './support.js'

const { values: args } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    brands: { type: 'string', default: '50' },
    days: { type: 'string', default: '400' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '32' },
    skip: { type: 'string', default: '' },
    rounds: { type: 'string', default: '3' },
  },
})
const BRANDS = positiveOption('brands', args.brands)
const DAYS = positiveOption('days', args.days)
const DURATION = positiveOption('duration', args.duration)
const CONNECTIONS = positiveOption('connections', args.connections)
const STORE = storeOption(args.store)
const ROUNDS = positiveOption('rounds', args.rounds)
const SKIP = new Set(args.skip.split(',').filter((part) => part !== ''))
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123'
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))
const WARMUP_SECONDS = 2

interface Served { base: string, child: ChildProcess, token: string }

/** `serve` from the sources in a process of its own, logged in as the bench partner. */
async function serve (env: Record<string, string>, args: string[], pair: { clientKey: string, secretKey: string }): Promise<Served> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', JWT_SECRET, PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '10000000', RATE_LIMIT_PER_HOUR: '0', ...env },
  })
  child.stdout?.resume()
  const base = `http://127.0.0.1:${port}`
  await waitFor('serve answers', async () => (await fetch(`${base}/health`)).status === 200, 120_000)
  // Every worker listening: a few more answers on fresh connections.
  for (let i = 0; i < 4; i++) await fetch(`${base}/health`, { headers: { connection: 'close' } })
  const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_client_key: pair.clientKey, api_secret_key: pair.secretKey }) })
  const { access_token: token } = await login.json() as { access_token: string }
  return { base, child, token }
}

async function stop (served: Served): Promise<void> {
  served.child.kill('SIGTERM')
  if (await exitOf(served.child, 15_000) === undefined) served.child.kill('SIGKILL')
}

interface Row { label: string, rps: number, p50: number, p99: number, cpuMsPerK: number }

/** Linux clock ticks per second (USER_HZ), what /proc/PID/stat counts CPU time in. */
const TICKS_PER_SECOND = 100

/**
 * CPU time (ms) used so far by a process and its children (a primary's workers), from
 * /proc/PID/stat (utime + stime): the cost of the requests, which a busy shared machine disturbs
 * far less than it disturbs requests a second.
 */
function cpuMsOf (pid: number): number {
  let total = 0
  for (const id of [pid, ...childrenOf(pid)]) {
    try {
      const stat = readFileSync(`/proc/${id}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      total += (Number(fields[11]) + Number(fields[12])) * 1000 / TICKS_PER_SECOND
    } catch {
      // exited meanwhile
    }
  }
  return total
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] ?? 0 : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

/** Runs every configuration once per round, in order, and gives each load's rows across rounds. */
async function rounds (configs: Array<{ name: string, env: Record<string, string>, args: string[] }>, loads: Array<[string, string]>, partner: { clientKey: string, secretKey: string }): Promise<Map<string, Row[]>> {
  const results = new Map<string, Row[]>()
  for (let round = 0; round < ROUNDS; round++) {
    for (const config of configs) {
      const served = await serve(config.env, config.args, partner)
      try {
        for (const [load, path] of loads) {
          const label = `${load}, ${config.name}`
          const row = await measure(label, served, path)
          results.set(label, [...(results.get(label) ?? []), row])
          console.error(`round ${round + 1}: ${label}: ${Math.round(row.rps)} req/s, p99 ${row.p99} ms, ${row.cpuMsPerK.toFixed(0)} CPU ms per 1,000`)
        }
      } finally {
        await stop(served)
      }
    }
  }
  return results
}

async function measure (label: string, served: Served, path: string): Promise<Row> {
  const headers = { authorization: `Bearer ${served.token}` }
  const check = await fetch(`${served.base}${path}`, { headers })
  if (check.status !== 200) throw new Error(`${label}: ${check.status} ${await check.text()}`)
  await runLoad({ url: `${served.base}${path}`, headers, connections: CONNECTIONS, duration: WARMUP_SECONDS })
  const pid = served.child.pid ?? 0
  const cpuBefore = cpuMsOf(pid)
  const result = await runLoad({ url: `${served.base}${path}`, headers, connections: CONNECTIONS, duration: DURATION })
  const cpuMs = cpuMsOf(pid) - cpuBefore
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { label, rps: result.rps, p50: result.p50, p99: result.p99, cpuMsPerK: result.total === 0 ? 0 : cpuMs / result.total * 1000 }
}

function table (title: string, results: Map<string, Row[]>): void {
  console.log(`\n${title}`)
  console.log('| load | median req/s | median p50 ms | median p99 ms | req/s of each round | median server CPU ms per 1,000 requests | each round |')
  console.log('|---|---:|---:|---:|---|---:|---|')
  for (const [label, rows] of results) {
    const cpu = rows.map((row) => row.cpuMsPerK)
    console.log(`| ${label} | ${Math.round(median(rows.map((row) => row.rps)))} | ${median(rows.map((row) => row.p50))} | ${median(rows.map((row) => row.p99))} | ${rows.map((row) => Math.round(row.rps)).join(', ')} | ${median(cpu).toFixed(0)} | ${cpu.map((value) => value.toFixed(0)).join(', ')} |`)
  }
}

async function load (databaseUrl: string, store: ReturnType<typeof createStore>): Promise<{ clientKey: string, secretKey: string, until: string }> {
  const demo = resolveDemoOptions({ brands: BRANDS, days: DAYS, seed: 42 })
  const loaded = await importSources(store, [demoSource(demo)])
  console.error(`${databaseUrl.split('?')[0]}: loaded ${loaded.counts.daily} daily rows (${BRANDS} brands, ${DAYS} days to ${demo.until}) in ${loaded.seconds} s`)
  const user = await createUser(store.db, { name: 'Bench Partner', brandIds: Array.from({ length: Math.min(BRANDS, 10) }, (_, i) => i + 1) })
  return { clientKey: user.api_client_key, secretKey: user.api_secret_key, until: demo.until }
}

const daily7 = (until: string): string => `/analytics/?type=daily&brand_id=1&since=${addDays(until, -6)}&until=${until}`
const agg365 = (until: string): string => `/analytics/?type=agg&brand_id=1&since=${addDays(until, -364)}&until=${until}`

async function main (): Promise<void> {
  console.log(`store=${STORE} brands=${BRANDS} days=${DAYS} connections=${CONNECTIONS} duration=${DURATION}s (after ${WARMUP_SECONDS}s warm-up) node=${process.version}`)
  const prefix = uniqueRedisPrefix('bench-scale')
  if (!SKIP.has('workers') || !SKIP.has('metrics')) await measureWorkersAndMetrics(prefix)
  if (!SKIP.has('replicas') && STORE === 'postgres') await measureReplicas(prefix)
  await deleteRedisKeys(prefix)
}

/** Parts 1 and 2, on a fresh store of --store. */
async function measureWorkersAndMetrics (prefix: string): Promise<void> {
  const { store, databaseUrl, cleanup } = await openFreshBenchStore(STORE)
  try {
    const partner = await load(databaseUrl, store)
    const base = { DATABASE_URL: databaseUrl, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix }
    const loads: Array<[string, string]> = [['daily7', daily7(partner.until)], ['agg365', agg365(partner.until)]]
    if (!SKIP.has('workers')) {
      const configs = [1, 2].map((workers) => ({ name: `${workers} worker${workers > 1 ? 's' : ''}`, env: base, args: ['--workers', String(workers)] }))
      table('Workers (`serve --workers N`, Redis shared)', await rounds(configs, loads, partner))
    }
    if (!SKIP.has('metrics')) {
      const configs = [
        { name: 'metrics off', env: base, args: [] },
        { name: 'metrics on', env: { ...base, METRICS_PORT: String(await freePort()) }, args: [] },
      ]
      table('Metrics off and on (one worker)', await rounds(configs, [loads[0] as [string, string]], partner))
    }
  } finally {
    await cleanup()
  }
}

/** Daily7 and agg365 against a primary alone, then with a streaming replica of it (both this run's own). */
async function measureReplicas (prefix: string): Promise<void> {
  const pair = await startStreamingPair()
  const store = createStore({ kind: 'postgres', url: pair.primaryUrl })
  try {
    await migrateToLatest(store)
    const partner = await load(pair.primaryUrl, store)
    await waitFor('the replica caught up', async () => (await pair.onReplica<{ n: number }>('select count(*)::int as n from users'))[0]?.n === 1, 60_000)
    const env = { DATABASE_URL: pair.primaryUrl, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix }
    const configs = [
      { name: 'primary only', env, args: ['--workers', '2'] },
      { name: 'primary + 1 replica', env: { ...env, DATABASE_REPLICA_URLS: pair.replicaUrl }, args: ['--workers', '2'] },
    ]
    const results = await rounds(configs, [['daily7', daily7(partner.until)], ['agg365', agg365(partner.until)]], partner)
    table('Read replicas (2 workers; primary and replica on this same machine)', results)
  } finally {
    await store.destroy()
    await pair.close()
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
