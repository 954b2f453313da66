/**
 * `npm run bench:webhooks -- [--store sqlite|postgres] [--brands N] [--partners P] [--endpoints-per-partner E] [--concurrency C] [--per-endpoint K]`
 *
 * The webhook fan-out (docs/benchmarks.md "Webhook fan-out"): one batch of events touching
 * --brands brands (default 1,000: one analytics.updated per brand, as an import writes them)
 * fanned out to --partners × --endpoints-per-partner endpoints (default 10 × 10 = 100), every
 * partner granted every brand, so each event goes to every endpoint (100,000 deliveries by
 * default), delivered by the built server to a receiver on 127.0.0.1 in this process. It needs
 * `npm run build` first (it runs dist/cli/main.js serve, as production does).
 *
 * 1. A fresh store (an SQLite file of its own, or a PostgreSQL schema on BENCH_DATABASE_URL), the
 *    brands, the partners and their endpoints.
 * 2. Records the same batch once before any endpoint exists and once after (each in one
 *    transaction, as the import does): the difference is what the fan-out adds to the writer.
 * 3. Starts `serve` (WEBHOOK_ALLOW_PRIVATE=1, WEBHOOK_CONCURRENCY=--concurrency (32),
 *    WEBHOOK_CONCURRENCY_PER_ENDPOINT=--per-endpoint (4)) before the second batch commits; the
 *    receiver answers 200 at once and notes when each delivery arrives.
 * 4. Prints: events recorded, deliveries, the two transaction times, deliveries per second
 *    (deliveries ÷ time from the commit to the last arrival) and end-to-end latency from the
 *    commit to each arrival (p50, p99, max). Bounded: it gives up after 10 minutes.
 *
 * --api-load SECONDS (default 0: off) also measures what the fan-out costs the API: the store
 * gets 20 demo brands (400 days ending today) first, and the reference harness's daily7 query
 * (`type=daily&brand_id=1`, the last 7 days) is loaded from another process (autocannon, 32
 * connections) for SECONDS three times — before the batch commits, right after it (while the
 * deliveries drain; it says what share had arrived by the end of the window), and once the
 * drain is over — and the middle one is compared with the mean of the other two.
 *
 * BENCH_CPU_PROFILE_DIR=DIR writes a CPU profile of the server (node --cpu-prof) into DIR.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { NewChangeEvent } from '../src/domain/changes.js'
import { addDays, formatUtcSeconds, utcToday } from '../src/domain/dates.js'
import { resolveDemoOptions } from '../src/services/demo/generator.js'
import { demoSource } from '../src/services/demo/source.js'
import { importSources } from '../src/services/import/import.service.js'
import { createUser } from '../src/services/users/users.service.js'
import { recordEvents } from '../src/storage/changes/change-log.repository.js'
import { freePort } from '../test/helpers/processes.js'
import { insertEnabledEndpoint } from '../test/helpers/webhook-endpoints.js'
import type { LoadResult } from './load.js'
import { runLoad } from './run-load.js'
import { openFreshBenchStore, positiveOption, storeOption } from './support.js'

const { values: args } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    brands: { type: 'string', default: '1000' },
    partners: { type: 'string', default: '10' },
    'endpoints-per-partner': { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '32' },
    'per-endpoint': { type: 'string', default: '4' },
    'api-load': { type: 'string', default: '0' },
  },
})
const dialect = storeOption(args.store)
const brands = positiveOption('brands', args.brands)
const partners = positiveOption('partners', args.partners)
const perPartner = Math.min(10, positiveOption('endpoints-per-partner', args['endpoints-per-partner']))
const apiLoadSeconds = args['api-load'] === '0' ? 0 : positiveOption('api-load', args['api-load'])
const DEMO_BRANDS = 20
const API_CONNECTIONS = 32
const MAIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))
if (!existsSync(MAIN)) {
  console.error('dist/cli/main.js is missing: run `npm run build` first')
  process.exit(2)
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0
const batch = (label: string): NewChangeEvent[] => Array.from({ length: brands }, (_, i) => ({
  type: 'analytics.updated' as const,
  data: { brand_id: i + 1, accounts: [{ platform: 'fb' as const, account_id: (i + 1) * 10, dates: [{ since: '2026-11-01', until: label === 'first' ? '2026-11-02' : '2026-11-03' }] }] },
}))

/** The reference harness's daily7 query for `reader`, loaded from another process for --api-load seconds. */
async function daily7Load (base: string, reader: { api_client_key: string, api_secret_key: string }): Promise<{ measure: () => Promise<LoadResult> }> {
  const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_client_key: reader.api_client_key, api_secret_key: reader.api_secret_key }) })
  const { access_token: token } = await login.json() as { access_token: string }
  const today = utcToday()
  const url = `${base}/analytics/?type=daily&brand_id=1&since=${addDays(today, -6)}&until=${today}`
  const headers = { authorization: `Bearer ${token}` }
  const check = await fetch(url, { headers })
  if (check.status !== 200) throw new Error(`daily7: ${check.status} ${await check.text()}`)
  await runLoad({ url, headers, connections: API_CONNECTIONS, duration: 2 })
  return { measure: async () => await runLoad({ url, headers, connections: API_CONNECTIONS, duration: apiLoadSeconds }) }
}

const test = await openFreshBenchStore(dialect)
const db = test.store.db
let arrivals: number[] = []
const receiver = createServer((request, response) => {
  request.resume()
  request.on('end', () => {
    arrivals.push(performance.timeOrigin + performance.now())
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
  })
})
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const receiverPort = (receiver.address() as AddressInfo).port
let server: ReturnType<typeof spawn> | undefined
try {
  const at = formatUtcSeconds()
  // With --api-load, brands 1–20 come with a year of demo data for the daily7 query.
  const firstBareBrand = apiLoadSeconds > 0 ? DEMO_BRANDS + 1 : 1
  if (apiLoadSeconds > 0) await importSources(test.store, [demoSource(resolveDemoOptions({ brands: DEMO_BRANDS, days: 400, seed: 42 }))])
  const reader = apiLoadSeconds > 0 ? await createUser(db, { name: 'Bench reader', brandIds: [1] }) : undefined
  for (let start = firstBareBrand; start <= brands; start += 500) {
    await db.insertInto('brands').values(Array.from({ length: Math.min(500, brands - start + 1) }, (_, i) => ({ brand_id: start + i, brand_name: `Brand ${start + i}`, updated_at: at }))).execute()
  }
  const allBrands = Array.from({ length: brands }, (_, i) => i + 1)
  const users = []
  for (let p = 0; p < partners; p++) users.push((await createUser(db, { name: `Bench partner ${p}`, brandIds: allBrands })).user_id)

  // The batch without any endpoint: the writer's cost of the events alone.
  let began = performance.now()
  await db.transaction().execute(async (trx) => { await recordEvents(trx, batch('first'), at) })
  const alone = performance.now() - began

  for (const userId of users) {
    for (let e = 0; e < perPartner; e++) {
      await insertEnabledEndpoint(db, { userId, url: `http://127.0.0.1:${receiverPort}/${userId}/${e}`, events: ['analytics.updated'] })
    }
  }
  const port = await freePort()
  server = spawn(process.execPath, [...(process.env.BENCH_CPU_PROFILE_DIR === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROFILE_DIR]), MAIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: test.databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_CONCURRENCY: args.concurrency,
      WEBHOOK_CONCURRENCY_PER_ENDPOINT: args['per-endpoint'],
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_PER_HOUR: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  server.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const startDeadline = Date.now() + 60_000
  while (!output.includes('Server listening')) {
    if (Date.now() > startDeadline || server.exitCode !== null) throw new Error(`serve did not start: ${output}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }

  const expected = brands * partners * perPartner
  const daily7 = reader === undefined ? undefined : await daily7Load(`http://127.0.0.1:${port}`, reader)
  const withoutFanOut = daily7 === undefined ? undefined : await daily7.measure()

  arrivals = []
  began = performance.now()
  await db.transaction().execute(async (trx) => { await recordEvents(trx, batch('second'), at) })
  const committed = performance.timeOrigin + performance.now()
  const withFanOut = performance.now() - began
  const duringFanOut = daily7 === undefined ? undefined : await daily7.measure()
  const arrivedDuringLoad = arrivals.length
  const deadline = Date.now() + 600_000
  while (arrivals.length < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  if (arrivals.length < expected) throw new Error(`only ${arrivals.length} of ${expected} deliveries within 10 minutes`)
  const afterFanOut = daily7 === undefined ? undefined : await daily7.measure()
  const latencies = arrivals.map((arrival) => arrival - committed).sort((a, b) => a - b)
  const seconds = (latencies.at(-1) ?? 0) / 1000
  console.log(`store ${dialect}: ${brands} events, ${partners * perPartner} endpoints, ${expected} deliveries (WEBHOOK_CONCURRENCY=${args.concurrency}, per endpoint ${args['per-endpoint']})`)
  console.log(`recording the batch: ${alone.toFixed(0)} ms without endpoints, ${withFanOut.toFixed(0)} ms with the fan-out to ${partners * perPartner} endpoints (one transaction each)`)
  console.log(`delivered in ${seconds.toFixed(1)} s: ${(expected / seconds).toFixed(0)} deliveries/s`)
  console.log(`first delivery ${(latencies[0] ?? 0).toFixed(0)} ms after the commit; machine load average ${loadavg().map((value) => value.toFixed(1)).join(' ')}`)
  console.log(`commit → receipt: p50 ${(percentile(latencies, 0.5) / 1000).toFixed(2)} s, p99 ${(percentile(latencies, 0.99) / 1000).toFixed(2)} s, max ${((latencies.at(-1) ?? 0) / 1000).toFixed(2)} s`)
  if (withoutFanOut !== undefined && duringFanOut !== undefined && afterFanOut !== undefined) {
    const line = (label: string, result: LoadResult): string => `${label} ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`
    console.log(`daily7 (${apiLoadSeconds} s, ${API_CONNECTIONS} connections): ${line('before the fan-out', withoutFanOut)}`)
    console.log(`daily7: ${line('during the fan-out', duringFanOut)}; ${arrivedDuringLoad} of ${expected} deliveries had arrived by its end`)
    console.log(`daily7: ${line('after the fan-out', afterFanOut)}`)
    console.log(`daily7 during ÷ mean(before, after): ${(duringFanOut.rps / ((withoutFanOut.rps + afterFanOut.rps) / 2)).toFixed(2)}`)
  }
} finally {
  server?.kill('SIGTERM')
  if (server !== undefined && server.exitCode === null) await new Promise((resolve) => server?.once('exit', resolve))
  receiver.closeAllConnections()
  receiver.close()
  await test.cleanup()
}
