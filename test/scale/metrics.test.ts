import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startServer, type RunningServer } from '../../src/cli/commands/serve.js'
import { takeChangeNumbers } from '../../src/storage/changes/change-log.repository.js'
import { insertDatasetAndReadModel, workedExampleDataset } from '../helpers/analytics-fixtures.js'
import { TEST_JWT_SECRET } from '../helpers/app.js'
import { call } from '../helpers/http-calls.js'
import { createPartner, type TestPartner } from '../helpers/partners.js'
import { freePort, waitFor } from '../helpers/processes.js'
import { parseScrape, sampleSum, type Scrape } from '../helpers/prometheus.js'
import { TEST_REDIS_URL, deleteRedisKeys, inOneClockWindow, uniqueRedisPrefix } from '../helpers/redis.js'
import { createTestStore, type TestStore } from '../helpers/stores.js'
import { startReceiver } from '../helpers/webhook-receiver.js'

/**
 * /metrics as `serve` wires it (in this process, on PostgreSQL and Redis): a separate listener
 * only, every metric of docs/operations.md "Metrics" present after a short mixed load, each scrape
 * parsed by a real Prometheus text-format parser, and label values bounded whatever URLs arrive.
 */

const EVERY_METRIC = [
  'pa_http_requests_total', 'pa_http_request_duration_seconds', 'pa_http_requests_in_flight',
  'pa_heavy_reports_running', 'pa_heavy_reports_queued', 'pa_heavy_reports_refused_total',
  'pa_rate_limit_refusals_total', 'pa_login_lockout_refusals_total', 'pa_logins_total',
  'pa_cache_lookups_total', 'pa_cache_misses_total', 'pa_cache_hit_ratio',
  'pa_imports_committed', 'pa_import_rows_committed', 'pa_import_last_sync_id', 'pa_import_last_sync_age_seconds', 'pa_import_last_duration_seconds', 'pa_import_last_rows',
  'pa_store_pool_connections', 'pa_store_reads_total', 'pa_replica_state', 'pa_replica_lag_seconds', 'pa_replica_skipped',
  'pa_redis_fallback',
  'pa_webhook_delivery_attempts_total', 'pa_webhook_queue_depth', 'pa_webhook_oldest_pending_age_seconds',
  'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_gc_duration_seconds', 'process_cpu_seconds_total',
]

describe('metrics on a listener of their own (serve, PostgreSQL, Redis)', () => {
  let test: TestStore
  let server: RunningServer
  let partner: TestPartner
  /** When the import written in `before` committed, ms. */
  let committedMs = 0
  let metricsUrl: string
  const prefix = uniqueRedisPrefix('metrics')
  const scrape = async (): Promise<Scrape> => {
    const answer = await call(metricsUrl)
    assert.equal(answer.status, 200)
    assert.equal(answer.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
    return parseScrape(answer.body)
  }
  const login = async (pair: Pick<TestPartner, 'clientKey' | 'secretKey'>) =>
    await call(`${server.url}/auth/login`, { method: 'POST', body: { api_client_key: pair.clientKey, api_secret_key: pair.secretKey } })

  before(async () => {
    test = await createTestStore('postgres')
    await insertDatasetAndReadModel(test.store, workedExampleDataset())
    partner = await createPartner(test.store, { brandIds: [1, 2] })
    // A committed import as the import records it: its sync row and the clock, in one transaction.
    // Whole seconds, so the store keeps it exactly whatever its timestamp precision.
    committedMs = Math.floor((Date.now() - 1000) / 1000) * 1000
    await test.store.db.transaction().execute(async (trx) => {
      const { syncId } = await takeChangeNumbers(trx, { sync: true, eventCount: 0 })
      await trx.insertInto('syncs').values({
        sync_id: syncId ?? 0,
        started_at: new Date(committedMs - 3000).toISOString(),
        committed_at: new Date(committedMs).toISOString(),
        source_files: '["a.ndjson"]',
        counts: '{"read":{"brand":0,"account":0,"daily":12,"post":2},"changed":{"brand":{"created":0,"renamed":0},"account":{"created":0,"updated":0,"moved":0},"daily":{"inserted":8,"changed":2},"post":{"added":2,"changed":0}}}',
        brand_ids: '[1]',
        accounts: '[]',
        first_event_id: null,
        event_count: 0,
      }).execute()
    })
    const metricsPort = await freePort()
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
    server = await startServer({
      stdout: { write: () => true },
      stderr: { write: () => true },
      env: {
        DATABASE_URL: test.databaseUrl,
        PORT: '0',
        METRICS_PORT: String(metricsPort),
        JWT_SECRET: TEST_JWT_SECRET,
        LOG_LEVEL: 'silent',
        REDIS_URL: TEST_REDIS_URL,
        REDIS_KEY_PREFIX: prefix,
        RATE_LIMIT_PER_MINUTE: '30',
        RATE_LIMIT_PER_HOUR: '0',
        LOGIN_MAX_FAILURES: '2',
        // The webhook test's receiver listens on 127.0.0.1; a failed attempt is retried only after a minute.
        WEBHOOK_ALLOW_PRIVATE: '1',
        WEBHOOK_RETRY_SCHEDULE: '1m',
      },
    })
  })
  after(async () => {
    await server?.close()
    await test?.cleanup()
    await deleteRedisKeys(prefix)
  })

  it('is not served on the public port', async () => {
    assert.equal((await call(`${server.url}/metrics`)).status, 404)
    // And the metrics listener serves nothing else.
    assert.equal((await call(metricsUrl.replace('/metrics', '/health'))).status, 404)
  })

  it('shows every metric after a short mixed load, with the numbers of that load', async () => {
    const token = (await login(partner)).json<{ access_token: string }>().access_token
    const auth = { authorization: `Bearer ${token}` }
    for (const type of ['daily', 'monthly', 'agg']) {
      assert.equal((await call(`${server.url}/analytics/?type=${type}&since=2026-11-01&until=2026-11-03`, { headers: auth })).status, 200)
    }
    assert.equal((await call(`${server.url}/analytics/?type=daily&since=2026-11-01&until=2026-11-03`, { headers: auth })).status, 200)
    assert.equal((await call(`${server.url}/posts`, { headers: auth })).status, 200)
    assert.equal((await call(`${server.url}/me`, { headers: auth })).status, 200)
    assert.equal((await call(`${server.url}/me`)).status, 401)
    // Two wrong logins lock the key: the third, right or wrong, is refused.
    const locked = await createPartner(test.store, { brandIds: [1] })
    const wrong = { clientKey: locked.clientKey, secretKey: `pas_${'y'.repeat(43)}` }
    assert.deepEqual([(await login(wrong)).status, (await login(wrong)).status], [401, 401])
    assert.equal((await login(locked)).json().error_code, 'TOO_MANY_ATTEMPTS')
    // A partner spending the minute (30): the 31st is refused — all 31 in one clock minute. A run
    // the minute turned under (a busy machine; the next minute counts from 0) goes again with a
    // partner of its own (test/helpers/redis.ts); what every run sent is in the numbers below.
    const busy = { logins: 0, sent: [] as number[] }
    await inOneClockWindow(60_000, 10_000, async () => {
      const partner = await createPartner(test.store, { brandIds: [1] })
      const busyAuth = { authorization: `Bearer ${(await login(partner)).json<{ access_token: string }>().access_token}` }
      busy.logins += 1
      const statuses: number[] = []
      for (let i = 0; i < 31; i++) {
        const status = (await call(`${server.url}/me`, { headers: busyAuth })).status
        statuses.push(status)
        busy.sent.push(status)
      }
      assert.equal(statuses.filter((status) => status === 429).length, 1)
    })
    const busyRefused = busy.sent.filter((status) => status === 429).length

    const text = (await call(metricsUrl)).body
    // The histogram as written (the parser below reads labelled histograms' series as one).
    assert.match(text, /^pa_http_request_duration_seconds_count\{route="\/analytics\/",method="GET",status="200"\} 4$/m)
    assert.match(text, /^pa_http_request_duration_seconds_bucket\{le="\+Inf",route="\/analytics\/",method="GET",status="200"\} 4$/m)
    assert.match(text, /^pa_http_request_duration_seconds_bucket\{le="0\.001",route="\/analytics\/",method="GET",status="200"\} [0-4]$/m)
    const scrapedFrom = Date.now()
    const metrics = await scrape()
    const scrapedTo = Date.now()
    for (const name of EVERY_METRIC) assert.ok(metrics.has(name), `${name} missing`)
    assert.equal(sampleSum(metrics, 'pa_http_requests_total', { route: '/analytics/', method: 'GET', status: '200' }), 4)
    // The parser reads labelled histograms' series as one (it follows an early client_python parser): the type is checked here, the counts by the counter.
    assert.equal(metrics.get('pa_http_request_duration_seconds')?.type, 'HISTOGRAM')
    assert.equal(sampleSum(metrics, 'pa_http_requests_total', { route: '/me', status: '401' }), 1)
    assert.equal(sampleSum(metrics, 'pa_http_requests_in_flight'), 0)
    assert.equal(sampleSum(metrics, 'pa_rate_limit_refusals_total', { limit: 'user' }), busyRefused)
    assert.equal(sampleSum(metrics, 'pa_login_lockout_refusals_total'), 1)
    assert.equal(sampleSum(metrics, 'pa_logins_total', { outcome: 'success' }), 1 + busy.logins)
    assert.equal(sampleSum(metrics, 'pa_logins_total', { outcome: 'invalid_credentials' }), 2)
    assert.equal(sampleSum(metrics, 'pa_logins_total', { outcome: 'too_many_attempts' }), 1)
    // Tokens: every partner request looked its token up; all but each token's first were hits.
    assert.equal(sampleSum(metrics, 'pa_cache_lookups_total', { cache: 'tokens' }), 6 + busy.sent.length)
    assert.equal(sampleSum(metrics, 'pa_cache_misses_total', { cache: 'tokens' }), 1 + busy.logins)
    assert.ok(sampleSum(metrics, 'pa_cache_hit_ratio', { cache: 'tokens' }) > 0.9, 'token hit ratio')
    assert.ok(sampleSum(metrics, 'pa_cache_lookups_total', { cache: 'grants' }) >= 5, 'grant lookups')
    assert.equal(sampleSum(metrics, 'pa_imports_committed'), 1)
    assert.equal(sampleSum(metrics, 'pa_import_rows_committed'), 12)
    assert.equal(sampleSum(metrics, 'pa_import_last_rows'), 12)
    assert.equal(sampleSum(metrics, 'pa_import_last_sync_id'), 1)
    assert.equal(sampleSum(metrics, 'pa_import_last_duration_seconds'), 3)
    // The age as the server's clock saw it while answering the scrape, from the commit time written above.
    const age = sampleSum(metrics, 'pa_import_last_sync_age_seconds')
    assert.ok(age >= (scrapedFrom - committedMs) / 1000 && age <= (scrapedTo - committedMs) / 1000, `age ${age}, scraped ${(scrapedFrom - committedMs) / 1000} to ${(scrapedTo - committedMs) / 1000} s after the commit`)
    assert.ok(sampleSum(metrics, 'pa_store_pool_connections', { store: 'primary', state: 'idle' }) >= 1, 'idle connections')
    // No replicas: every partner read ran on the primary (4 reports, posts, /me, the busy partner's answered /me).
    assert.equal(sampleSum(metrics, 'pa_store_reads_total', { target: 'primary' }), 4 + 1 + 1 + busy.sent.length - busyRefused)
    assert.equal(sampleSum(metrics, 'pa_store_reads_total', { target: 'replica' }), 0)
    assert.equal(sampleSum(metrics, 'pa_redis_fallback'), 0)
    assert.equal(sampleSum(metrics, 'pa_heavy_reports_refused_total'), 0)
  })

  it('keeps label values bounded after 1,000 distinct URLs and ids', async () => {
    const before = await scrape()
    const labelSets = (metrics: Scrape): number => metrics.get('pa_http_requests_total')?.metrics.length ?? 0
    const token = (await login(partner)).json<{ access_token: string }>().access_token
    await Promise.all(Array.from({ length: 4 }, async (_, lane) => {
      for (let i = lane; i < 1000; i += 4) {
        const id = 100_000 + i
        const url = i % 4 === 0
          ? `/analytics/?type=daily&brand_id=${id}`
          : i % 4 === 1 ? `/no/such/path/${id}` : i % 4 === 2 ? `/posts?cursor=c${id}&x${id}=1` : `/me/${id}`
        await call(`${server.url}${url}`, { headers: { authorization: `Bearer ${token}` } })
      }
    }))
    const after = await scrape()
    const requests = after.get('pa_http_requests_total')
    assert.ok(requests !== undefined, 'pa_http_requests_total')
    // A few new combinations (403, 404, 422 …), never one per URL.
    assert.ok(labelSets(after) - labelSets(before) <= 6, `${labelSets(after) - labelSets(before)} new label sets`)
    for (const sample of requests.metrics) {
      for (const value of Object.values(sample.labels ?? {})) assert.ok(!/1\d{5}/.test(value), `label value ${value} carries an id`)
    }
    const routes = new Set(requests.metrics.map((sample) => sample.labels?.route))
    assert.ok(routes.has('(unmatched)'), 'unmatched route label')
    // The login and the 1,000.
    assert.equal(sampleSum(after, 'pa_http_requests_total') - sampleSum(before, 'pa_http_requests_total'), 1 + 1000)
  })
  it('counts webhook attempts by outcome and shows the backlog', async () => {
    const receiver = await startReceiver()
    try {
      receiver.on('/failing', { statuses: [500] })
      const hooks = await createPartner(test.store, { brandIds: [1] })
      const auth = { authorization: `Bearer ${(await login(hooks)).json<{ access_token: string }>().access_token}` }
      const before = await scrape()
      for (const path of ['/ok', '/failing']) {
        const created = await call(`${server.url}/webhooks`, { method: 'POST', headers: auth, body: { url: `${receiver.origin}${path}` } })
        assert.equal(created.status, 201, created.body)
        const sent = await call(`${server.url}/webhooks/${created.json<{ id: string }>().id}/test`, { method: 'POST', headers: auth })
        assert.equal(sent.status, 202, sent.body)
      }
      const attempts = (metrics: Scrape, outcome: string): number => sampleSum(metrics, 'pa_webhook_delivery_attempts_total', { outcome })
      let metrics = before
      // An attempt is counted as it ends, a moment before its outcome is written (group commit),
      // and the backlog is read at the scrape within a bound (the last value when the read is
      // late): so the backlog is waited for as well, never read once right after the counts.
      // The failed one waits a minute for its retry: the backlog settles at one delivery.
      await waitFor('both attempts counted and the backlog at one delivery', async () => {
        metrics = await scrape()
        return attempts(metrics, 'succeeded') - attempts(before, 'succeeded') === 1 && attempts(metrics, 'http_error') - attempts(before, 'http_error') === 1 &&
          sampleSum(metrics, 'pa_webhook_queue_depth') === 1
      }, 20_000)
      assert.equal(attempts(metrics, 'no_answer') - attempts(before, 'no_answer'), 0)
      // A few seconds old.
      const age = sampleSum(metrics, 'pa_webhook_oldest_pending_age_seconds')
      assert.ok(age >= 0 && age < 60, `age ${age}`)
    } finally {
      await receiver.close()
    }
  })
})
