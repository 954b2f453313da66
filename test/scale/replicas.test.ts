import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startServer, type RunningServer } from '../../src/cli/commands/serve.js'
import { importSources } from '../../src/services/import/import.service.js'
import type { RecordSource } from '../../src/services/import/source.js'
import { createStore, type Store } from '../../src/storage/db.js'
import { FRESH_CHECKS, VISIBILITY_MARGIN_MS } from '../../src/storage/replicas/replica-routing.js'
import { migrateToLatest } from '../../src/storage/migrate.js'
import { accountRow, brandRow, dailyRow, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { TEST_JWT_SECRET } from '../helpers/app.js'
import { call } from '../helpers/http-calls.js'
import { createPartner } from '../helpers/partners.js'
import { findPostgresBinDir, freePort, waitFor } from '../helpers/processes.js'
import { parseScrape, sampleSum } from '../helpers/prometheus.js'
import { startStreamingPair, type StreamingPair } from '../helpers/replication.js'

/**
 * Read replicas (docs/operations.md "Read replicas"), against a real streaming replica: a primary
 * and a `pg_basebackup -R` standby of it, both this test's own. Two instances of `serve` (in this
 * process, as `serve` wires them) read through it. What is proven, from the servers' side and from
 * the replica's own statistics:
 * - partner reads run on the replica, not the primary (pg_stat_statements on each server counts the reports);
 * - with the replica's replay paused, an import on the primary: once its sync is visible (the
 *   hook the feed and the webhooks hold events back by), no instance answers the old numbers, and
 *   reads go to the primary within the bound; the replica still holds the old ones;
 * - replay resumed: reads go back to the replica;
 * - the replica stopped: no request fails; /health and /metrics show each state.
 * Nothing is timed: every wait is for its condition, with a generous bound (CI runs the suite on a
 * busy 2-core machine, where a check can be late, time out, and show the replica down until the
 * next one); what routing did is read from the servers' own counters and states, not from a clock.
 */

const BIN = findPostgresBinDir()
const CHECK_MS = 500
const MAX_LAG_MS = 1500
const DATE = '2026-11-02'
/** The bound of every wait: a state the product reaches in about a second on a quiet machine, awaited on a loaded one. */
const BOUND_MS = 60_000
const REPORT = `/analytics/?type=agg&brand_id=1&since=${DATE}&until=${DATE}`

interface HealthReplica { id: number, state: string, lag_ms: number | null, skipped: boolean }
interface HealthReport { status: number, body: { status: string, replicas: HealthReplica[] } }

function dailySource (views: number): RecordSource {
  return {
    name: `views-${views}.ndjson`,
    read: async function * () {
      yield { line: 1, value: { kind: 'daily', platform: 'fb', account_id: 10, date: DATE, views, reach: 100 } }
    },
  }
}

describe('read replicas: a real streaming replica', { skip: BIN === undefined ? 'no PostgreSQL binaries on this machine (initdb, postgres, pg_basebackup): set TEST_PG_BINDIR' : false }, () => {
  let pair: StreamingPair
  let store: Store
  let instances: RunningServer[]
  let metricsUrl: string
  let metricsUrls: string[]
  const headers: Record<string, string> = {}

  /** Executions of report statements (those reading the brand read model) on one server, as pg_stat_statements counts them there. */
  const reportReads = async (on: 'onReplica' | 'onPrimary'): Promise<number> => {
    const [row] = await pair[on]<{ n: number }>("select coalesce(sum(calls), 0)::int as n from pg_stat_statements where query like '%brand_monthly%' or query like '%brand_daily%'")
    return row?.n ?? 0
  }
  /**
   * Waits, with a bound, until a server's report counter reaches `atLeast`. A server's statistics
   * are not all current the moment a statement's answer arrives (PostgreSQL 15 flushes a backend's
   * cumulative statistics when it goes idle, at most once a second, and otherwise within 10 s), so
   * a counter is read until it shows the work or the bound passes, never once right after the reads.
   */
  const countersReach = async (on: 'onReplica' | 'onPrimary', atLeast: number, what: string): Promise<void> => {
    let seen = 0
    try {
      await waitFor(what, async () => (seen = await reportReads(on)) >= atLeast, BOUND_MS)
    } catch {
      assert.fail(`${what}: its counter reached ${seen}, not ${atLeast}, within ${BOUND_MS} ms`)
    }
  }
  const viewsVia = async (server: RunningServer): Promise<number> => {
    const answer = await call(`${server.url}${REPORT}`, { headers })
    assert.equal(answer.status, 200, answer.body)
    return answer.json<{ data: Array<{ views: number }> }>().data[0]?.views ?? -1
  }
  const health = async (server: RunningServer): Promise<HealthReport> => {
    const answer = await call(`${server.url}/health`)
    return { status: answer.status, body: answer.json<HealthReport['body']>() }
  }
  /** An import: its data and its sync, committed together; the sync's id. */
  const importViews = async (views: number): Promise<number> => {
    const summary = await importSources(store, [dailySource(views)])
    assert.ok(summary.sync !== null && summary.sync.counts.changed.daily.changed === 1, 'the import changed the day')
    return summary.sync.syncId
  }

  /** Reads both instances sent to the primary: no replica check was current (a loaded machine can delay one past its window), or the replica failed. */
  const readsRoutedToPrimary = async (): Promise<number> => {
    let sum = 0
    for (const url of metricsUrls) {
      const metrics = parseScrape((await call(url)).body)
      sum += sampleSum(metrics, 'pa_store_reads_total', { target: 'primary' }) + sampleSum(metrics, 'pa_store_reads_total', { target: 'primary_after_replica_error' })
    }
    return sum
  }
  /** Reads both instances ran on the replica, by their own counters. */
  const readsRoutedToReplica = async (): Promise<number> => {
    let sum = 0
    for (const url of metricsUrls) sum += sampleSum(parseScrape((await call(url)).body), 'pa_store_reads_total', { target: 'replica' })
    return sum
  }
  /** Waits until `server`'s /health shows the replica as `accept` says, and returns that report. */
  const healthShows = async (server: RunningServer, what: string, accept: (replica: HealthReplica) => boolean): Promise<HealthReport> => {
    let report: HealthReport | undefined
    await waitFor(what, async () => {
      report = await health(server)
      return report.body.replicas[0] !== undefined && accept(report.body.replicas[0])
    }, BOUND_MS)
    return report as HealthReport
  }
  /** Waits until instance 0's scrape satisfies `accept`, and returns that scrape. */
  const scrapeShows = async (what: string, accept: (metrics: ReturnType<typeof parseScrape>) => boolean): Promise<ReturnType<typeof parseScrape>> => {
    let metrics: ReturnType<typeof parseScrape> | undefined
    await waitFor(what, async () => accept(metrics = parseScrape((await call(metricsUrl)).body)), BOUND_MS)
    return metrics as ReturnType<typeof parseScrape>
  }
  /**
   * Five reports through each instance, all answering `views`: the replica's statement counters
   * move by at least ten, the primary's not at all. A round in which an instance routed a read to
   * the primary (its own counters say so: a check late on a loaded machine) is repeated, for up to
   * BOUND_MS; on a quiet machine the first one counts.
   */
  const readTenFromTheReplica = async (views: number): Promise<void> => {
    const deadline = Date.now() + BOUND_MS
    for (;;) {
      const [replicaBefore, primaryBefore, routedBefore] = [await reportReads('onReplica'), await reportReads('onPrimary'), await readsRoutedToPrimary()]
      for (const server of instances) {
        for (let i = 0; i < 5; i++) assert.equal(await viewsVia(server), views)
      }
      if (await readsRoutedToPrimary() !== routedBefore && Date.now() < deadline) continue
      assert.equal(await readsRoutedToPrimary(), routedBefore, `every round for ${BOUND_MS} ms had a read routed to the primary`)
      await countersReach('onReplica', replicaBefore + 10, 'the replica ran the reports')
      assert.equal(await reportReads('onPrimary'), primaryBefore, 'the primary ran none of them')
      return
    }
  }

  before(async () => {
    pair = await startStreamingPair()
    store = createStore({ kind: 'postgres', url: pair.primaryUrl })
    await migrateToLatest(store)
    await insertDatasetAndReadModel(store, {
      brands: [brandRow(1)],
      accounts: [accountRow('fb', 10, 1)],
      daily: [dailyRow('fb', 10, DATE, { views: 1000, reach: 100 }), dailyRow('fb', 10, '2026-11-03', { views: 5, reach: 1 })],
    })
    const partner = await createPartner(store, { brandIds: [1] })
    const metricsPorts = [await freePort(), await freePort()]
    metricsUrls = metricsPorts.map((port) => `http://127.0.0.1:${port}/metrics`)
    metricsUrl = metricsUrls[0] as string
    const env = (extra: Record<string, string>) => ({
      DATABASE_URL: pair.primaryUrl,
      DATABASE_REPLICA_URLS: pair.replicaUrl,
      REPLICA_CHECK_INTERVAL_MS: String(CHECK_MS),
      REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
      JWT_SECRET: TEST_JWT_SECRET,
      PORT: '0',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_PER_HOUR: '0',
      ...extra,
    })
    const quiet = { write: () => true }
    instances = [
      await startServer({ stdout: quiet, stderr: quiet, env: env({ METRICS_PORT: String(metricsPorts[0]) }) }),
      await startServer({ stdout: quiet, stderr: quiet, env: env({ METRICS_PORT: String(metricsPorts[1]) }) }),
    ]
    const login = await call(`${instances[0]?.url ?? ''}/auth/login`, { method: 'POST', body: { api_client_key: partner.clientKey, api_secret_key: partner.secretKey } })
    headers.authorization = `Bearer ${login.json<{ access_token: string }>().access_token}`
    for (const server of instances) {
      await healthShows(server, 'the replica is in use', (replica) => !replica.skipped)
    }
  })
  after(async () => {
    // Each step runs whatever the one before did: the clusters, above all, are never left behind.
    try {
      await Promise.allSettled((instances ?? []).map(async (server) => { await server.close() }))
      await store?.destroy()
    } finally {
      await pair?.close()
    }
  })

  it('serves partner reads from the replica: its own statement counters move, the primary\'s do not', async () => {
    await readTenFromTheReplica(1000)
    const metrics = parseScrape((await call(metricsUrl)).body)
    assert.ok(sampleSum(metrics, 'pa_store_reads_total', { target: 'replica' }) >= 5, 'replica reads counted')
    // State and skipped are judged at the scrape: a check late or timed out on a loaded machine shows
    // the replica skipped (or down) until the next one, so each is awaited, then shown together.
    const scraped = await scrapeShows('the scrape shows the replica ok and in use', (scrape) => sampleSum(scrape, 'pa_replica_state', { replica: '1', state: 'ok' }) === 1 && sampleSum(scrape, 'pa_replica_skipped', { replica: '1' }) === 0)
    assert.equal(sampleSum(scraped, 'pa_replica_state', { replica: '1', state: 'down' }), 0)
    const report = await healthShows(instances[0] as RunningServer, '/health shows the replica ok and in use', (replica) => replica.state === 'ok' && !replica.skipped)
    assert.equal(report.status, 200)
    assert.deepEqual(report.body.replicas.map((replica) => [replica.id, replica.state, replica.skipped]), [[1, 'ok', false]])
  })

  it('replay paused, an import on the primary: once its sync is visible no instance answers the old numbers, and reads move to the primary', async () => {
    await pair.onReplica('select pg_wal_replay_pause()')
    await waitFor('replay paused', async () => (await pair.onReplica<{ state: string }>('select pg_get_wal_replay_pause_state() as state'))[0]?.state === 'paused', BOUND_MS)
    // The product's rule, on its own clock (this process's monotonic one): a sync is visible no
    // sooner than FRESH_CHECKS intervals and the margin after a check saw it, so after the commit,
    // so after the import began. Whenever it is first seen visible, that much has passed since the
    // import began; measured after the sighting, so a slow machine only makes the margin larger —
    // a correct product cannot fail this, one that shows the sync as soon as a check sees it does.
    const importBegan = performance.now()
    const syncId = await importViews(2000)
    const [first] = instances as [RunningServer, RunningServer]
    const visibleOn = (): boolean[] => instances.map((server) => (server.app.services.visibleThroughSyncId() ?? 0) >= syncId)

    // Until it is visible, either number may be read. From then on, only the new one, on both
    // instances; and each already reads around the replica: the sync is shown only after the checks
    // that found the replica holding less than the primary (it is paused) have made it skipped —
    // an ordering, not a time. Visibility is polled on both instances, at each turn of the event
    // loop, so both are asked the moment the first shows it; then nine more polls of both.
    const deadline = Date.now() + BOUND_MS
    while (!visibleOn().some(Boolean)) {
      assert.ok(Date.now() < deadline, `the sync did not become visible within ${BOUND_MS} ms although the replica is paused`)
      await new Promise((resolve) => setImmediate(resolve))
    }
    const sinceImportBegan = performance.now() - importBegan
    assert.ok(sinceImportBegan > FRESH_CHECKS * CHECK_MS + VISIBILITY_MARGIN_MS, `the sync was visible ${Math.round(sinceImportBegan)} ms after the import began, sooner than its checks allow`)
    for (let poll = 0; poll < 10; poll++) {
      const [skipped, views] = await Promise.all([
        Promise.all(instances.map(async (server) => (await health(server)).body.replicas[0]?.skipped)),
        Promise.all(instances.map(viewsVia)),
      ])
      assert.deepEqual(skipped, [true, true], 'the sync was visible while an instance could still read the paused replica')
      assert.deepEqual(views, [2000, 2000], 'an instance answered the old numbers after the event was visible')
    }
    // The replica itself still has the old numbers: the instances read around it.
    const [onReplica] = await pair.onReplica<{ views: number }>(`select views from daily_metrics where account_id = 10 and date = '${DATE}'`)
    assert.equal(Number(onReplica?.views), 1000)
    for (const server of instances) {
      // Behind or lagging (a check timed out on a loaded machine shows it down until the next one).
      const report = await healthShows(server, 'the replica behind or lagging, skipped', (replica) => ['behind', 'lagging'].includes(replica.state))
      assert.equal(report.status, 200)
      assert.equal(report.body.replicas[0]?.skipped, true)
    }
    // Reads run on the primary now: its statement counters move.
    const primaryBefore = await reportReads('onPrimary')
    for (let i = 0; i < 5; i++) await viewsVia(first)
    await countersReach('onPrimary', primaryBefore + 5, 'the primary ran the reports')
    // Further behind than REPLICA_MAX_LAG_MS: lagging, its lag shown (on the report that says lagging).
    const lagging = (await healthShows(first, 'lagging', (replica) => replica.state === 'lagging')).body.replicas[0]
    assert.ok((lagging?.lag_ms ?? 0) > MAX_LAG_MS, `lag ${lagging?.lag_ms}`)
    assert.equal(lagging?.skipped, true)
    const metrics = await scrapeShows('the scrape shows the replica lagging', (scrape) => sampleSum(scrape, 'pa_replica_state', { replica: '1', state: 'lagging' }) === 1)
    assert.equal(sampleSum(metrics, 'pa_replica_skipped', { replica: '1' }), 1)
    assert.ok(sampleSum(metrics, 'pa_replica_lag_seconds', { replica: '1' }) > MAX_LAG_MS / 1000, 'lag in seconds')
    assert.ok(sampleSum(metrics, 'pa_store_reads_total', { target: 'primary' }) >= 5, 'primary reads counted')
  })

  it('replay resumed: the replica catches up and serves the reads again', async () => {
    await pair.onReplica('select pg_wal_replay_resume()')
    for (const server of instances) await healthShows(server, 'the replica is used again', (replica) => replica.state === 'ok' && !replica.skipped)
    await readTenFromTheReplica(2000)
  })

  it('the replica stopped: no request fails, reads go to the primary, /health stays 200 and names it down', async () => {
    const failures: string[] = []
    let answered = 0
    const load = { stop: false }
    const running = Promise.all(instances.map(async (server) => {
      while (!load.stop) {
        const answer = await call(`${server.url}${REPORT}`, { headers })
        if (answer.status !== 200) failures.push(`${answer.status} ${answer.body}`)
        answered += 1
      }
    }))
    try {
      // The replica is killed while the load's reads run on it …
      const onReplicaBefore = await readsRoutedToReplica()
      await waitFor('the replica serves the load', async () => await readsRoutedToReplica() >= onReplicaBefore + 10, BOUND_MS)
      await pair.stopReplica()
      for (const server of instances) await healthShows(server, 'the replica is down', (replica) => replica.state === 'down')
      // … and the load goes on, on the primary, once both instances know it down.
      const onPrimaryAtDown = await readsRoutedToPrimary()
      await waitFor('the load\'s reads go to the primary', async () => await readsRoutedToPrimary() >= onPrimaryAtDown + 10, BOUND_MS)
    } finally {
      load.stop = true
      await running
    }
    assert.deepEqual(failures, [])
    assert.ok(answered > 10, `${answered} answered`)
    const report = await health(instances[0] as RunningServer)
    assert.equal(report.status, 200)
    assert.equal(report.body.status, 'ok')
    assert.deepEqual(report.body.replicas.map((replica) => [replica.state, replica.skipped]), [['down', true]])
    const metrics = parseScrape((await call(metricsUrl)).body)
    assert.equal(sampleSum(metrics, 'pa_replica_state', { replica: '1', state: 'down' }), 1)
    assert.equal(sampleSum(metrics, 'pa_replica_lag_seconds', { replica: '1' }), -1)

    await pair.startReplica()
    for (const server of instances) await healthShows(server, 'the restarted replica is used again', (replica) => replica.state === 'ok' && !replica.skipped)
  })
})
