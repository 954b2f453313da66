/**
 * `npm run bench -- [--store sqlite|postgres] [--brands N] [--days N] [--duration S] [--connections N]`
 *
 * Loads the demo data (src/demo, seed 42) at the given scale into a fresh store, starts the real
 * app on a local port, logs a partner in (granted brands 1..min(N, 10)), and measures with
 * autocannon, one after another: a daily page (last 30 days, all granted brands), a monthly year
 * and an agg year — plus a bare Fastify JSON route in the same process and run, the ceiling.
 * Prints requests/s, p50 and p99 latency (ms) and each figure's ratio to the ceiling.
 * PostgreSQL: BENCH_DATABASE_URL, default the test server; a private schema is dropped afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import Fastify from 'fastify'
import pg from 'pg'
import { loadConfig } from '../src/config/load.js'
import { resolveDemoOptions } from '../src/demo/generator.js'
import { demoSource } from '../src/demo/source.js'
import { buildApp } from '../src/http/app.js'
import { addDays } from '../src/http/params.js'
import { importSources } from '../src/import/import.service.js'
import { createStore, type Store } from '../src/storage/db.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { createUser } from '../src/users/users.service.js'

const { values: args } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    brands: { type: 'string', default: '50' },
    days: { type: 'string', default: '400' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
  },
})
const positive = (name: string, value: string): number => {
  const number = Number(value)
  if (!Number.isSafeInteger(number) || number < 1) {
    console.error(`--${name} must be a positive integer (got "${value}")`)
    process.exit(2)
  }
  return number
}
const BRANDS = positive('brands', args.brands)
const DAYS = positive('days', args.days)
const DURATION = positive('duration', args.duration)
const CONNECTIONS = positive('connections', args.connections)
if (args.store !== 'sqlite' && args.store !== 'postgres') {
  console.error('--store must be sqlite or postgres')
  process.exit(2)
}
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123'

async function openStore (): Promise<{ store: Store, databaseUrl: string, cleanup: () => Promise<void> }> {
  if (args.store === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'pa-bench-'))
    const file = join(dir, 'bench.sqlite')
    const store = createStore({ kind: 'sqlite', file })
    return { store, databaseUrl: `sqlite:${file}`, cleanup: async () => { await store.destroy(); rmSync(dir, { recursive: true, force: true }) } }
  }
  const schema = `bench_${process.pid}`
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  await admin.query(`create schema ${schema}`)
  await admin.end()
  const store = createStore({ kind: 'postgres', url: PG_URL, schema })
  return {
    store,
    databaseUrl: PG_URL,
    cleanup: async () => {
      await store.destroy()
      const dropper = new pg.Client({ connectionString: PG_URL })
      await dropper.connect()
      await dropper.query(`drop schema if exists ${schema} cascade`)
      await dropper.end()
    },
  }
}

interface Row { name: string, url: string, rps: number, p50: number, p99: number }

async function measure (name: string, url: string, headers: Record<string, string>): Promise<Row> {
  const check = await fetch(url, { headers })
  if (check.status !== 200) throw new Error(`${name}: ${check.status} ${await check.text()}`)
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { name, url, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 }
}

async function main (): Promise<void> {
  const { store, databaseUrl, cleanup } = await openStore()
  const bare = Fastify({ logger: false })
  bare.get('/bare', async () => ({ data: [], total: 0, since: '2026-01-01', until: '2026-01-31' }))
  let app: Awaited<ReturnType<typeof buildApp>> | undefined
  try {
    await migrateToLatest(store)
    const demo = resolveDemoOptions({ brands: BRANDS, days: DAYS, seed: 42 })
    const loaded = await importSources(store, [demoSource(demo)])
    console.error(`${args.store}: loaded ${loaded.counts.daily} daily rows (${loaded.counts.account} accounts, ${BRANDS} brands, ${DAYS} days to ${demo.until}) in ${loaded.seconds} s`)

    const granted = Array.from({ length: Math.min(BRANDS, 10) }, (_, i) => i + 1)
    const user = await createUser(store.db, { name: 'Bench Partner', brandIds: granted })
    const config = { ...loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', JWT_SECRET, RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' }), jwtSecret: JWT_SECRET }
    app = await buildApp(config, { store, logger: false })
    const base = await app.listen({ host: '127.0.0.1', port: 0 })
    const bareBase = await bare.listen({ host: '127.0.0.1', port: 0 })
    const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_client_key: user.api_client_key, api_secret_key: user.api_secret_key }) })
    const { access_token: token } = await login.json() as { access_token: string }
    const auth = { authorization: `Bearer ${token}` }

    const until = demo.until
    const yearAgo = addDays(until, -364)
    const rows = [await measure('bare Fastify JSON (ceiling)', `${bareBase}/bare`, {})]
    rows.push(await measure('daily page (30 days, first 20)', `${base}/analytics/?type=daily&since=${addDays(until, -29)}&until=${until}`, auth))
    rows.push(await measure('monthly year', `${base}/analytics/?type=monthly&since=${yearAgo}&until=${until}`, auth))
    rows.push(await measure('agg year', `${base}/analytics/?type=agg&since=${yearAgo}&until=${until}`, auth))

    const ceiling = rows[0] as Row
    console.log(`\nstore=${args.store} brands=${BRANDS} days=${DAYS} granted=${granted.length} connections=${CONNECTIONS} duration=${DURATION}s node=${process.version}`)
    console.log('| request | req/s | p50 ms | p99 ms | req/s vs ceiling |')
    console.log('|---|---:|---:|---:|---:|')
    for (const row of rows) {
      console.log(`| ${row.name} | ${Math.round(row.rps)} | ${row.p50} | ${row.p99} | ${(row.rps / ceiling.rps * 100).toFixed(1)} % |`)
    }
  } finally {
    await bare.close()
    await app?.close()
    await cleanup()
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
