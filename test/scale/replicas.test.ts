import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startServer, type RunningServer } from '../../src/cli/commands/serve.js'
import { importSources } from '../../src/services/import/import.service.js'
import type { RecordSource } from '../../src/services/import/source.js'
import { createStore, type Store } from '../../src/storage/db.js'
import { migrateToLatest } from '../../src/storage/migrate.js'
import { accountRow, brandRow, dailyRow, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { TEST_JWT_SECRET } from '../helpers/app.js'
import { call } from '../helpers/http-calls.js'
import { createPartner } from '../helpers/partners.js'
import { findPostgresBinDir, freePort, sleep, waitFor } from '../helpers/processes.js'
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
 */

const BIN = findPostgresBinDir()
const CHECK_MS = 200
const MAX_LAG_MS = 1500
/** A check serves 2 intervals (FRESH_CHECKS); one more interval for the next check to finish. */
const ROUTING_BOUND_MS = 3 * CHECK_MS + 500
const DATE = '2026-11-02'
/** How long a server's statistics may take to show statements that ran (PGSTAT_IDLE_INTERVAL is 10 s). */
const STATS_BOUND_MS = 15_000
const REPORT = `/analytics/?type=agg&brand_id=1&since=${DATE}&until=${DATE}`

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
      await waitFor(what, async () => (seen = await reportReads(on)) >= atLeast, STATS_BOUND_MS)
    } catch {
      assert.fail(`${what}: its counter reached ${seen}, not ${atLeast}, within ${STATS_BOUND_MS} ms`)
    }
  }
  const viewsVia = async (server: RunningServer): Promise<number> => {
    const answer = await call(`${server.url}${REPORT}`, { headers })
    assert.equal(answer.status, 200, answer.body)
    return answer.json<{ data: Array<{ views: number }> }>().data[0]?.views ?? -1
  }
  const health = async (server: RunningServer) => {
    const answer = await call(`${server.url}/health`)
    return { status: answer.status, body: answer.json<{ status: string, replicas: Array<{ id: number, state: string, lag_ms: number | null, skipped: boolean }> }>() }
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
  /**
   * Five reports through each instance, all answering `views`: the replica's statement counters
   * move by at least ten, the primary's not at all. A round in which an instance routed a read to
   * the primary (its own counters say so) is repeated; on a quiet machine the first one counts.
   */
  const readTenFromTheReplica = async (views: number): Promise<void> => {
    for (let round = 1; ; round++) {
      const [replicaBefore, primaryBefore, routedBefore] = [await reportReads('onReplica'), await reportReads('onPrimary'), await readsRoutedToPrimary()]
      for (const server of instances) {
        for (let i = 0; i < 5; i++) assert.equal(await viewsVia(server), views)
      }
      if (await readsRoutedToPrimary() !== routedBefore && round < 10) continue
      assert.equal(await readsRoutedToPrimary(), routedBefore, 'ten rounds in a row had a read routed to the primary')
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
      await waitFor('the replica is in use', async () => (await health(server)).body.replicas[0]?.skipped === false, 10_000)
    }
  })
  after(async () => {
    for (const server of instances ?? []) await server.close()
    await store?.destroy()
    await pair?.close()
  })

  it('serves partner reads from the replica: its own statement counters move, the primary\'s do not', async () => {
    await readTenFromTheReplica(1000)
    const metrics = parseScrape((await call(metricsUrl)).body)
    assert.ok(sampleSum(metrics, 'pa_store_reads_total', { target: 'replica' }) >= 5, 'replica reads counted')
    // State and skipped are judged at the scrape: a check late or timed out on a loaded machine shows
    // the replica skipped (or down) until the next one, so each is awaited, then shown together.
    let scraped = metrics
    await waitFor('the scrape shows the replica ok and in use', async () => {
      scraped = parseScrape((await call(metricsUrl)).body)
      return sampleSum(scraped, 'pa_replica_state', { replica: '1', state: 'ok' }) === 1 && sampleSum(scraped, 'pa_replica_skipped', { replica: '1' }) === 0
    }, 5000)
    assert.equal(sampleSum(scraped, 'pa_replica_state', { replica: '1', state: 'down' }), 0)
    let report = await health(instances[0] as RunningServer)
    await waitFor('/health shows the replica ok and in use', async () => {
      report = await health(instances[0] as RunningServer)
      return report.body.replicas[0]?.state === 'ok' && report.body.replicas[0]?.skipped === false
    }, 5000)
    assert.equal(report.status, 200)
    assert.deepEqual(report.body.replicas.map((replica) => [replica.id, replica.state, replica.skipped]), [[1, 'ok', false]])
  })

  it('replay paused, an import on the primary: once its sync is visible no instance answers the old numbers, and reads move to the primary', async () => {
    await pair.onReplica('select pg_wal_replay_pause()')
    await waitFor('replay paused', async () => (await pair.onReplica<{ state: string }>('select pg_get_wal_replay_pause_state() as state'))[0]?.state === 'paused', 5000)
    const syncId = await importViews(2000)
    const committedAt = performance.now()
    const [first] = instances as [RunningServer, RunningServer]
    assert.ok((first.app.services.visibleThroughSyncId() ?? 0) < syncId, 'not visible the moment it commits')

    // Until it is visible, either number may be read; from then on, only the new one, on both instances.
    let visibleAt: number | undefined
    while (performance.now() - committedAt < 10_000) {
      const visible = (first.app.services.visibleThroughSyncId() ?? 0) >= syncId
      const views = await Promise.all(instances.map(viewsVia))
      if (visible) {
        visibleAt ??= performance.now()
        assert.deepEqual(views, [2000, 2000], 'an instance answered the old numbers after the event was visible')
        if (performance.now() - visibleAt > 1000) break
      }
      await sleep(20)
    }
    assert.ok(visibleAt !== undefined, 'the sync became visible although the replica is paused')
    // The replica itself still has the old numbers: the instances read around it.
    const [onReplica] = await pair.onReplica<{ views: number }>(`select views from daily_metrics where account_id = 10 and date = '${DATE}'`)
    assert.equal(Number(onReplica?.views), 1000)
    for (const server of instances) {
      const report = await health(server)
      assert.equal(report.status, 200)
      assert.ok(['behind', 'lagging'].includes(report.body.replicas[0]?.state ?? ''), `state ${report.body.replicas[0]?.state}`)
      assert.equal(report.body.replicas[0]?.skipped, true)
    }
    // Reads run on the primary now: its statement counters move.
    const primaryBefore = await reportReads('onPrimary')
    for (let i = 0; i < 5; i++) await viewsVia(first)
    await countersReach('onPrimary', primaryBefore + 5, 'the primary ran the reports')
    // Further behind than REPLICA_MAX_LAG_MS: lagging, its lag shown.
    await waitFor('lagging', async () => (await health(first)).body.replicas[0]?.state === 'lagging', MAX_LAG_MS + ROUTING_BOUND_MS + 2000)
    const lagging = (await health(first)).body.replicas[0]
    assert.ok((lagging?.lag_ms ?? 0) > MAX_LAG_MS, `lag ${lagging?.lag_ms}`)
    const metrics = parseScrape((await call(metricsUrl)).body)
    assert.equal(sampleSum(metrics, 'pa_replica_state', { replica: '1', state: 'lagging' }), 1)
    assert.equal(sampleSum(metrics, 'pa_replica_skipped', { replica: '1' }), 1)
    assert.ok(sampleSum(metrics, 'pa_replica_lag_seconds', { replica: '1' }) > MAX_LAG_MS / 1000, 'lag in seconds')
    assert.ok(sampleSum(metrics, 'pa_store_reads_total', { target: 'primary' }) >= 5, 'primary reads counted')
  })

  it('replay resumed: the replica catches up and serves the reads again', async () => {
    await pair.onReplica('select pg_wal_replay_resume()')
    for (const server of instances) {
      await waitFor('the replica is used again', async () => (await health(server)).body.replicas[0]?.state === 'ok', MAX_LAG_MS + ROUTING_BOUND_MS + 2000)
    }
    await sleep(ROUTING_BOUND_MS)
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
    await sleep(300)
    await pair.stopReplica()
    try {
      for (const server of instances) {
        await waitFor('the replica is down', async () => (await health(server)).body.replicas[0]?.state === 'down', ROUTING_BOUND_MS + 3000)
      }
      await sleep(500)
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
    await waitFor('the restarted replica is used again', async () => (await health(instances[0] as RunningServer)).body.replicas[0]?.state === 'ok', 20_000)
  })
})
