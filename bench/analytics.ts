/**
 * `npm run bench -- [--store sqlite|postgres] [--brands N] [--days N] [--duration S] [--connections N]`
 *
 * Loads the demo data (src/demo, seed 42) at the given scale into a fresh store, starts the real
 * app on a local port in this process, logs a partner in (granted brands 1..min(N, 10)), and
 * measures, one after another: a daily page (last 30 days, all granted brands), a monthly year
 * and an agg year — plus a bare Fastify JSON route, also served by this process, the ceiling.
 * The load comes from another process: for each route a child `node --import tsx bench/load.ts`
 * runs autocannon (--connections connections for --duration seconds) and reports back as JSON,
 * so the load generator never shares the server's event loop (it still shares the machine's
 * cores). Prints requests/s, p50 and p99 latency (ms) and each figure's ratio to the ceiling.
 * PostgreSQL: BENCH_DATABASE_URL, default the test server; a private schema is dropped afterwards.
 */
import { parseArgs } from 'node:util'
import Fastify from 'fastify'
import { loadConfig } from '../src/config/load.js'
import { resolveDemoOptions } from '../src/services/demo/generator.js'
import { demoSource } from '../src/services/demo/source.js'
import { buildApp } from '../src/http/app.js'
import { createServices } from '../src/services/index.js'
import { MemoryCounterStore } from '../src/storage/counters/memory-counter-store.js'
import { addDays } from '../src/domain/dates.js'
import { importSources } from '../src/services/import/import.service.js'
import { createUser } from '../src/services/users/users.service.js'
import { runLoad } from './run-load.js'
import { openFreshBenchStore, positiveOption, storeOption } from './support.js'

const { values: args } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    brands: { type: 'string', default: '50' },
    days: { type: 'string', default: '400' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
  },
})
const BRANDS = positiveOption('brands', args.brands)
const DAYS = positiveOption('days', args.days)
const DURATION = positiveOption('duration', args.duration)
const CONNECTIONS = positiveOption('connections', args.connections)
const STORE = storeOption(args.store)
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123'

interface Row { name: string, url: string, rps: number, p50: number, p99: number }

async function measure (name: string, url: string, headers: Record<string, string>): Promise<Row> {
  const check = await fetch(url, { headers })
  if (check.status !== 200) throw new Error(`${name}: ${check.status} ${await check.text()}`)
  const result = await runLoad({ url, connections: CONNECTIONS, duration: DURATION, headers })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { name, url, rps: result.rps, p50: result.p50, p99: result.p99 }
}

async function main (): Promise<void> {
  const { store, databaseUrl, cleanup } = await openFreshBenchStore(STORE)
  const bare = Fastify({ logger: false })
  bare.get('/bare', async () => ({ data: [], total: 0, since: '2026-01-01', until: '2026-01-31' }))
  let app: Awaited<ReturnType<typeof buildApp>> | undefined
  try {
    const demo = resolveDemoOptions({ brands: BRANDS, days: DAYS, seed: 42 })
    const loaded = await importSources(store, [demoSource(demo)])
    console.error(`${STORE}: loaded ${loaded.counts.daily} daily rows (${loaded.counts.account} accounts, ${BRANDS} brands, ${DAYS} days to ${demo.until}) in ${loaded.seconds} s`)

    const granted = Array.from({ length: Math.min(BRANDS, 10) }, (_, i) => i + 1)
    const user = await createUser(store.db, { name: 'Bench Partner', brandIds: granted })
    const config = { ...loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', JWT_SECRET, RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' }), jwtSecret: JWT_SECRET }
    app = await buildApp(config, { services: createServices({ config, store, counters: new MemoryCounterStore() }), logger: false })
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
    console.log(`\nstore=${STORE} brands=${BRANDS} days=${DAYS} granted=${granted.length} connections=${CONNECTIONS} duration=${DURATION}s node=${process.version}`)
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
