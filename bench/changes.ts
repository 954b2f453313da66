/**
 * `npm run bench:changes -- [--store sqlite|postgres] [--brands 100] [--accounts-per-brand 10] [--syncs 365] [--duration 5] [--connections 10] [--explain | --compare]`
 *
 * GET /changes at scale S (100 brands × 10 accounts, a year of daily imports): a fresh store gets
 * the brands and accounts and a change log shaped like a year of daily syncs — each sync one
 * `analytics.updated` (every account, that day) and one `posts.updated` (every account) per brand,
 * 73,000 events of about 0.3 to 0.8 KB — written through the change log's own storage API (the
 * import's events are not on this branch yet). The real app listens on a local port in this
 * process; the load comes from another process (bench/load.ts, autocannon: --connections for
 * --duration seconds per case), as `npm run bench` does. Each case repeats one request:
 *
 * - a page of 50 from the middle of the log for a partner granted 10 of the 100 brands
 *   (a tenth of the events are visible), for one granted all 100, and for one granted 1 (sparse:
 *   the page scans about 5,000 event numbers);
 * - the same for 10 brands with `type=analytics.updated`;
 * - a caught-up partner: its cursor at the head, an empty page (what polling costs).
 *
 * First, the ceiling on this machine at this moment: a bare Fastify route of this process answering
 * the first case's body as a fixed text. Prints requests/s, p50 and p99 (ms) and the size of one answer. --explain prints the plans of
 * the page statement instead (SQLite EXPLAIN QUERY PLAN; PostgreSQL EXPLAIN ANALYZE of a warm run);
 * --compare times the page statement of each case both ways (walk, per brand) in this process.
 * PostgreSQL: BENCH_DATABASE_URL, default the test server; a private schema is dropped afterwards.
 */
import { parseArgs } from 'node:util'
import Fastify, { type FastifyInstance } from 'fastify'
import { loadConfig } from '../src/config/load.js'
import type { NewChangeEvent } from '../src/domain/changes.js'
import { PLATFORM_CODES, type PlatformCode } from '../src/domain/platforms.js'
import { buildApp } from '../src/http/app.js'
import { CursorCodec } from '../src/http/cursors/codec.js'
import { encodeChangesCursor } from '../src/http/cursors/changes-cursor.js'
import { FEED_WINDOW, PER_BRAND_MAX, readsPerBrand } from '../src/services/changes/changes.service.js'
import { createServices } from '../src/services/index.js'
import { createUser } from '../src/services/users/users.service.js'
import { insertEvents, takeChangeNumbers } from '../src/storage/changes/change-log.repository.js'
import { feedPageStatement, readFeedPage, type FeedPageQuery } from '../src/storage/changes/change-feed.query.js'
import { MemoryCounterStore } from '../src/storage/counters/memory-counter-store.js'
import type { Store } from '../src/storage/db.js'
import { brandRange, insertBrandsWithAccounts } from '../test/helpers/fixtures.js'
import { runLoad } from './run-load.js'
import { openFreshBenchStore, positiveOption, storeOption } from './support.js'

const { values: args } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    brands: { type: 'string', default: '100' },
    'accounts-per-brand': { type: 'string', default: '10' },
    syncs: { type: 'string', default: '365' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    explain: { type: 'boolean', default: false },
    compare: { type: 'boolean', default: false },
  },
})
const STORE = storeOption(args.store)
const BRANDS = positiveOption('brands', args.brands)
const ACCOUNTS = positiveOption('accounts-per-brand', args['accounts-per-brand'])
const SYNCS = positiveOption('syncs', args.syncs)
const DURATION = positiveOption('duration', args.duration)
const CONNECTIONS = positiveOption('connections', args.connections)
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123'
const DAY = 86_400_000

/** A year of daily syncs: per sync and brand, what changed that day in every account. */
async function writeChangeLog (store: Store): Promise<number> {
  const accounts = (brand: number) => Array.from({ length: ACCOUNTS }, (_, k) => ({ platform: PLATFORM_CODES[k % PLATFORM_CODES.length] as PlatformCode, account_id: brand * 1000 + k }))
  const start = Date.now() - SYNCS * DAY
  let events = 0
  for (let sync = 0; sync < SYNCS; sync++) {
    const day = new Date(start + sync * DAY).toISOString().slice(0, 10)
    const batch: NewChangeEvent[] = []
    for (let brand = 1; brand <= BRANDS; brand++) {
      batch.push({ type: 'analytics.updated', data: { brand_id: brand, accounts: accounts(brand).map((account) => ({ ...account, dates: [{ since: day, until: day }] })) } })
      batch.push({ type: 'posts.updated', data: { brand_id: brand, accounts: accounts(brand).map((account) => ({ ...account, posts_added: 3, posts_changed: 12 })) } })
    }
    await store.db.transaction().execute(async (trx) => {
      const numbers = await takeChangeNumbers(trx, { sync: true, eventCount: batch.length })
      await insertEvents(trx, { ...numbers, createdAt: new Date(start + sync * DAY + 3_600_000).toISOString().slice(0, 19) + 'Z' }, batch)
    })
    events += batch.length
  }
  return events
}

interface Case { name: string, userId: string, token: string, grants: number[], query: Record<string, string>, position: number }

async function explain (store: Store, cases: Case[]): Promise<void> {
  for (const item of cases) {
    // The strategy the service picks for this partner (src/services/changes/changes.service.ts).
    const strategy: FeedPageQuery['strategy'] = readsPerBrand(item.grants.length, BRANDS) ? { kind: 'brands', brandIds: item.grants } : { kind: 'walk' }
    const query: FeedPageQuery = { userId: item.userId, after: item.position, window: FEED_WINDOW, strategy, types: item.query.type === undefined ? undefined : [item.query.type], rows: 51 }
    const compiled = feedPageStatement(store.db, query).compile()
    console.log(`\n### ${item.name} (${store.dialect}, ${strategy.kind})\n`)
    if (store.dialect === 'sqlite') {
      for (const row of store.sqlite.prepare(`explain query plan ${compiled.sql}`).all(...compiled.parameters as unknown[]) as Array<{ detail: string }>) console.log(row.detail)
    } else {
      // As served: `serve` plans every statement generically (plan_cache_mode, src/storage/db.ts).
      const client = await store.pool.connect()
      try {
        await client.query('set plan_cache_mode = force_generic_plan')
        await client.query(`prepare feed_page as ${compiled.sql}`)
        const execute = `execute feed_page(${compiled.parameters.map((value) => typeof value === 'number' ? String(value) : `'${String(value)}'`).join(', ')})`
        await client.query(execute)
        const plan = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers, costs off) ${execute}`)
        for (const row of plan.rows) console.log(row['QUERY PLAN'])
      } finally {
        await client.query('deallocate all').catch(() => {})
        client.release()
      }
    }
  }
}

/**
 * The page statement of each case both ways (walk, per brand), timed in this process: 20 warm-up
 * runs, then the median of 200, interleaved so that both ways see the same machine.
 */
async function compareStrategies (store: Store, cases: Case[]): Promise<void> {
  console.log(`\nstore=${STORE} brands=${BRANDS} page statement, median of 200 runs (µs), node=${process.version}`)
  console.log('| case | walk | per brand | the service reads |')
  console.log('|---|---:|---:|---|')
  for (const item of cases) {
    const base = { userId: item.userId, after: item.position, window: FEED_WINDOW, types: item.query.type === undefined ? undefined : [item.query.type], rows: 51 }
    // Per brand is never chosen beyond PER_BRAND_MAX brands (and SQLite refuses 500 branches).
    const perBrand = item.grants.length <= PER_BRAND_MAX
    const ways: FeedPageQuery[] = [{ ...base, strategy: { kind: 'walk' } }, ...(perBrand ? [{ ...base, strategy: { kind: 'brands' as const, brandIds: item.grants } }] : [])]
    const times: number[][] = [[], []]
    for (let run = 0; run < 220; run++) {
      for (const [index, query] of ways.entries()) {
        const started = process.hrtime.bigint()
        await readFeedPage(store.db, query)
        if (run >= 20) times[index]?.push(Number(process.hrtime.bigint() - started) / 1000)
      }
    }
    const median = (values: number[]) => Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0)
    console.log(`| ${item.name} | ${median(times[0] ?? [])} | ${perBrand ? median(times[1] ?? []) : '—'} | ${readsPerBrand(item.grants.length, BRANDS) ? 'per brand' : 'walk'} |`)
  }
}

async function main (): Promise<void> {
  const { store, databaseUrl, cleanup } = await openFreshBenchStore(STORE)
  let app: Awaited<ReturnType<typeof buildApp>> | undefined
  let bare: FastifyInstance | undefined
  try {
    await insertBrandsWithAccounts(store.db, brandRange(1, BRANDS, ACCOUNTS))
    const started = Date.now()
    const events = await writeChangeLog(store)
    console.error(`${STORE}: wrote ${events} events (${SYNCS} syncs × ${BRANDS} brands × 2) in ${((Date.now() - started) / 1000).toFixed(1)} s`)

    const config = { ...loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', JWT_SECRET, RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', CHANGES_RETENTION_DAYS: '3650' }), jwtSecret: JWT_SECRET }
    app = await buildApp(config, { services: createServices({ config, store, counters: new MemoryCounterStore() }), logger: false })
    const base = await app.listen({ host: '127.0.0.1', port: 0 })
    const partner = async (count: number): Promise<{ userId: string, token: string, grants: number[] }> => {
      const user = await createUser(store.db, { name: `Feed ${count}`, brandIds: Array.from({ length: count }, (_, i) => i + 1) })
      const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_client_key: user.api_client_key, api_secret_key: user.api_secret_key }) })
      return { userId: user.user_id, token: ((await login.json()) as { access_token: string }).access_token, grants: user.brand_ids }
    }
    const [ten, all, one] = [await partner(Math.min(10, BRANDS)), await partner(BRANDS), await partner(1)]
    const middle = Math.floor(events / 2)
    const cursors = new CursorCodec(JWT_SECRET, 'changes')
    const cursorAt = (userId: string, position: number, types?: ['analytics.updated']) =>
      encodeChangesCursor(cursors, { userId, brandIds: undefined, types }, { eventNumber: position, issuedAt: Date.now() })
    const cases: Case[] = [
      { name: `page of 50, 10 of ${BRANDS} brands`, ...ten, position: middle, query: { limit: '50', cursor: cursorAt(ten.userId, middle) } },
      { name: `page of 50, all ${BRANDS} brands`, ...all, position: middle, query: { limit: '50', cursor: cursorAt(all.userId, middle) } },
      { name: 'page of 50, 1 brand (sparse)', ...one, position: middle, query: { limit: '50', cursor: cursorAt(one.userId, middle) } },
      { name: 'page of 50, 10 brands, type=analytics.updated', ...ten, position: middle, query: { limit: '50', type: 'analytics.updated', cursor: cursorAt(ten.userId, middle, ['analytics.updated']) } },
      { name: 'caught up: empty page at the head, 10 brands', ...ten, position: events, query: { limit: '50', cursor: cursorAt(ten.userId, events) } },
    ]
    if (args.explain) return await explain(store, cases)
    if (args.compare) return await compareStrategies(store, cases)

    const rows: string[] = []
    // The ceiling on this machine now: a bare Fastify route answering the first case's body as a fixed text.
    const sample = await (await fetch(`${base}/changes?${new URLSearchParams(cases[0]?.query).toString()}`, { headers: { authorization: `Bearer ${cases[0]?.token ?? ''}` } })).text()
    bare = Fastify({ logger: false })
    bare.get('/bare', async (_request, reply) => await reply.type('application/json; charset=utf-8').send(sample))
    const bareUrl = `${await bare.listen({ host: '127.0.0.1', port: 0 })}/bare`
    const ceiling = await runLoad({ url: bareUrl, connections: CONNECTIONS, duration: DURATION })
    rows.push(`| bare Fastify route, the same ${(Buffer.byteLength(sample) / 1024).toFixed(1)} KB as a fixed text (ceiling) | — | ${(Buffer.byteLength(sample) / 1024).toFixed(1)} | ${Math.round(ceiling.rps)} | ${ceiling.p50} | ${ceiling.p99} |`)
    for (const item of cases) {
      const url = `${base}/changes?${new URLSearchParams(item.query).toString()}`
      const headers = { authorization: `Bearer ${item.token}` }
      const check = await fetch(url, { headers })
      const body = await check.text()
      if (check.status !== 200) throw new Error(`${item.name}: ${check.status} ${body}`)
      const page = JSON.parse(body) as { data: unknown[] }
      const result = await runLoad({ url, headers, connections: CONNECTIONS, duration: DURATION })
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${item.name}: ${result.non2xx} non-2xx, ${result.errors} errors`)
      rows.push(`| ${item.name} | ${page.data.length} | ${(Buffer.byteLength(body) / 1024).toFixed(1)} | ${Math.round(result.rps)} | ${result.p50} | ${result.p99} |`)
    }
    console.log(`\nstore=${STORE} brands=${BRANDS} accounts/brand=${ACCOUNTS} syncs=${SYNCS} events=${events} connections=${CONNECTIONS} duration=${DURATION}s node=${process.version}`)
    console.log('| request | events | KB | req/s | p50 ms | p99 ms |')
    console.log('|---|---:|---:|---:|---:|---:|')
    for (const row of rows) console.log(row)
  } finally {
    await bare?.close()
    await app?.close()
    await cleanup()
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
