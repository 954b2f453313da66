/**
 * `node --import tsx bench/metrics-cost.ts off|on` — the server CPU time of one daily7 request with
 * metrics off or on, in this process: the app (on a fresh SQLite store with the demo data at 20
 * brands) is loaded by autocannon from a child process (bench/load.ts, 16 connections, 2 s warm-up
 * then 3 × 4 s), and `process.cpuUsage()` of this process over each run is divided by the requests
 * answered. Run it alternately (off, on, off, on) and compare medians: docs/benchmarks.md
 * "Scale: workers, metrics, replicas".
 */
import { loadConfig } from '../src/config/load.js'
import { buildApp } from '../src/http/app.js'
import { createServices } from '../src/services/index.js'
import { createMetricsRegistry } from '../src/services/metrics/index.js'
import { MemoryCounterStore } from '../src/storage/counters/memory-counter-store.js'
import { resolveDemoOptions } from '../src/services/demo/generator.js'
import { demoSource } from '../src/services/demo/source.js'
import { importSources } from '../src/services/import/import.service.js'
import { createUser } from '../src/services/users/users.service.js'
import { addDays } from '../src/domain/dates.js'
import { runLoad } from './run-load.js'
import { openFreshBenchStore } from './support.js'

const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123'
const { store, databaseUrl, cleanup } = await openFreshBenchStore('sqlite')
const demo = resolveDemoOptions({ brands: 20, days: 400, seed: 42 })
await importSources(store, [demoSource(demo)])
const user = await createUser(store.db, { name: 'b', brandIds: [1, 2, 3] })
const config = { ...loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', JWT_SECRET, RATE_LIMIT_PER_MINUTE: '10000000', RATE_LIMIT_PER_HOUR: '0' }), jwtSecret: JWT_SECRET }
const mode = process.argv[2] ?? 'off'
const registry = mode === 'off' ? undefined : createMetricsRegistry()
const app = await buildApp(config, { services: createServices({ config, store, counters: new MemoryCounterStore(), ...(registry === undefined ? {} : { metrics: registry }) }), logger: false })
const base = await app.listen({ host: '127.0.0.1', port: 0 })
const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_client_key: user.api_client_key, api_secret_key: user.api_secret_key }) })
const { access_token: token } = await login.json() as { access_token: string }
const url = `${base}/analytics/?type=daily&brand_id=1&since=${addDays(demo.until, -6)}&until=${demo.until}`
const headers = { authorization: `Bearer ${token}` }
await runLoad({ url, headers, connections: 16, duration: 2 })
const out: string[] = []
for (let i = 0; i < 3; i++) {
  const before = process.cpuUsage()
  const r = await runLoad({ url, headers, connections: 16, duration: 4 })
  const used = process.cpuUsage(before)
  out.push(`${mode}: ${Math.round(r.rps)} rps, ${((used.user + used.system) / r.total).toFixed(1)} µs CPU/request`)
}
console.log(out.join('\n'))
await app.close()
await cleanup()
