import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { after, afterEach, before, describe, it } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { createStore, type Store } from '../../src/storage/db.js'
import { withoutTsxLoaders, workerLoading } from '../../src/storage/read-pool/worker-loading.js'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { buildTestApp, captureLogs, type CapturedLogs } from '../helpers/app.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'

/**
 * The SQLite read pool when its workers fail (src/storage/read-pool/sqlite-read-pool.ts): a worker
 * that throws while loading — as every worker did when its loader could not be found — costs the
 * heavy report it was given the contract's 500 and nothing more. The process lives (an unhandled
 * pool `error` event used to end it), no request waits for a worker that never comes, the next
 * heavy report starts new workers, light requests and /health answer throughout, and each failure
 * is logged once with its cause. The failing worker is injected through the store's test-only
 * `readWorkerPreload` (test/fixtures/read-workers/failing-preload.mjs), never through production code.
 */

const FAILING_PRELOAD = new URL('../fixtures/read-workers/failing-preload.mjs', import.meta.url)
const DATASET = generateDataset({ seed: 4242, start: '2025-12-01', days: 120 })
const AGG = { type: 'agg', since: '2025-12-01', until: '2026-03-30' }
const MONTHLY = { type: 'monthly', since: '2025-12-01', until: '2026-03-30' }
const DAILY = { type: 'daily', since: '2025-12-01', until: '2026-03-30' }
/** A bound on every answer here, so a read stranded in the pool fails the test instead of hanging it. */
const ANSWER_WITHIN_MS = 15_000

/** What the failing preload does for the database `file`: every worker, only the first thread, or none fails. */
function failingWorkers (file: string, mode: 'all' | 'first' | 'none'): void {
  writeFileSync(`${file}.fail`, mode)
}

async function within (what: string, answer: Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ANSWER_WITHIN_MS} ms`)), ANSWER_WITHIN_MS)
  })
  try {
    return await Promise.race([answer, timeout])
  } finally {
    clearTimeout(timer)
  }
}

function assertContract500 (response: LightMyRequestResponse): void {
  assert.equal(response.statusCode, 500, response.body)
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  assert.equal(response.headers['x-content-type-options'], 'nosniff')
  const body = response.json() as Record<string, unknown>
  assert.match(String(body.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  assert.deepEqual({ ...body, timestamp: undefined }, {
    detail: 'Error fetching analytics',
    error_code: 'INTERNAL_SERVER_ERROR',
    status_code: 500,
    status: 'error',
    timestamp: undefined,
    request_id: response.headers['x-request-id'],
  })
}

describe('SQLite read pool: a worker that fails while loading', () => {
  let api: PartnerApi
  let file: string
  let failing: { store: Store, app: FastifyInstance } | undefined
  const logs: CapturedLogs = captureLogs()

  before(async () => {
    api = await openPartnerApi('sqlite', { seed: async (test) => { await insertDatasetAndReadModel(test.store, DATASET) }, brandIds: [1, 2, 3] })
    file = api.test.databaseUrl.slice('sqlite:'.length)
  })
  after(async () => { await api.close() })
  afterEach(async () => {
    await failing?.app.close()
    await failing?.store.destroy()
    failing = undefined
  })

  /**
   * The production app on a second store over the same file whose workers import the failing preload;
   * every monthly and agg report is heavy there (threshold 0), so each goes to the workers.
   */
  const openFailing = async (workers: number): Promise<FastifyInstance> => {
    failingWorkers(file, 'none')
    logs.lines.length = 0
    const store = createStore({ kind: 'sqlite', file }, { heavyReads: { brandDays: 0, concurrency: workers }, readWorkerPreload: FAILING_PRELOAD })
    const app = await buildTestApp(store, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', LOG_LEVEL: 'error' }, { logs })
    failing = { store, app }
    return app
  }

  const get = async (target: FastifyInstance, query: Record<string, string>) =>
    await within(`GET /analytics/ ${query.type ?? ''}`, target.inject({ method: 'GET', url: '/analytics/', query, headers: api.auth }))

  it('the worker given the report fails: that report is the contract\'s 500, the next one 200 exactly as the main thread answers', async () => {
    const app = await openFailing(1)
    failingWorkers(file, 'first')
    const failed = await get(app, AGG)
    assertContract500(failed)

    const next = await get(app, AGG)
    assert.equal(next.statusCode, 200, next.body)
    assert.equal(next.body, (await get(api.app, AGG)).body)
    const monthly = await get(app, MONTHLY)
    assert.equal(monthly.statusCode, 200, monthly.body)
    assert.equal(monthly.body, (await get(api.app, MONTHLY)).body)

    // Logged once, with the request, naming the worker's own error.
    const errors = logs.records().filter((record) => record.level === 50)
    assert.equal(errors.length, 1, logs.lines.join(''))
    assert.equal(errors[0]?.request_id, failed.headers['x-request-id'])
    const err = errors[0]?.err as { type: string, message: string, stack: string }
    assert.equal(err.type, 'ReadWorkerFailedError')
    assert.match(err.message, /^a heavy-read worker failed: injected: read worker \d+ fails while loading$/)
    assert.match(err.stack, /caused by: Error: injected: read worker \d+ fails while loading/)
  })

  it('no worker loads: every heavy report is a 500, answered at once; light requests and /health answer; once workers load again, reports are 200', async () => {
    // Two workers: one carries a report, the other fails with no task of its own (the pool's
    // `error` event, which ended the process when unhandled).
    const app = await openFailing(2)
    failingWorkers(file, 'all')
    const failures: LightMyRequestResponse[] = []
    for (const query of [AGG, MONTHLY, AGG, { ...AGG, split_by_platform: 'true' }]) failures.push(await get(app, query))
    // At once, too: two heavy reports while no worker loads (one per worker of the lane).
    failures.push(...await Promise.all([get(app, AGG), get(app, MONTHLY)]))
    for (const failure of failures) assertContract500(failure)

    const daily = await get(app, DAILY)
    assert.equal(daily.statusCode, 200, daily.body)
    const health = await within('GET /health', app.inject({ method: 'GET', url: '/health' }))
    assert.equal(health.statusCode, 200, health.body)
    assert.equal((health.json() as { database: string }).database, 'ok')

    // Each failed report logged once with its request; a worker that failed with no report on it,
    // at most once per pool (one pool per failed report here), never as an unhandled error.
    const errors = logs.records().filter((record) => record.level === 50)
    const withRequest = errors.filter((record) => record.msg === 'request failed')
    assert.deepEqual(withRequest.map((record) => record.request_id).sort(), failures.map((failure) => failure.headers['x-request-id']).sort())
    const outside = errors.filter((record) => record.msg !== 'request failed')
    assert.ok(outside.length <= failures.length, logs.lines.join(''))
    for (const record of outside) {
      assert.equal(record.msg, 'heavy-read worker failed outside any request: the next heavy read starts new workers')
      assert.match((record.err as { message: string }).message, /^a heavy-read worker failed: injected: read worker \d+ fails while loading$/)
    }
    for (const record of withRequest) assert.match((record.err as { message: string }).message, /^a heavy-read worker failed: injected/)

    failingWorkers(file, 'none')
    const repaired = await get(app, AGG)
    assert.equal(repaired.statusCode, 200, repaired.body)
    assert.equal(repaired.body, (await get(api.app, AGG)).body)
  })
})

describe('SQLite read pool: how a worker loads', () => {
  it('from the sources: the TypeScript worker with tsx\'s loader by its absolute URL inside this package, never a bare name', () => {
    const { filename, execArgv } = workerLoading()
    assert.equal(filename, new URL('../../src/storage/read-pool/sqlite-read-worker.ts', import.meta.url).href)
    const tsx = new URL('../../node_modules/tsx/', import.meta.url).href
    const loaders = execArgv.flatMap((arg, index) => arg === '--import' ? [execArgv[index + 1] ?? ''] : [])
    assert.deepEqual(loaders.filter((loader) => loader.includes('tsx')), [`${tsx}dist/loader.mjs`])
    assert.ok(!execArgv.includes('tsx'), execArgv.join(' '))
  })

  it('drops every flag loading tsx from the main thread\'s, in each spelling, and keeps the others', () => {
    assert.deepEqual(withoutTsxLoaders([
      '--import', 'tsx', '--import=tsx', '--loader', 'tsx/esm', '--experimental-loader=tsx', '--require', 'tsx/cjs', '-r', 'tsx/cjs',
      '--import', '/srv/app/node_modules/tsx/dist/loader.mjs', '--enable-source-maps', '--import', './telemetry.mjs',
      '--require=dotenv/config', '--test', '--import',
    ]), ['--enable-source-maps', '--import', './telemetry.mjs', '--require=dotenv/config', '--test', '--import'])
  })
})
