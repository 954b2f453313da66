import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { createStore, type Dialect, type Store, type StoreOptions } from '../../src/storage/db.js'
import { BoundedLane, StoreOverloadedError } from '../../src/storage/overload.js'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { buildTestApp } from '../helpers/app.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS, TEST_POSTGRES_URL } from '../helpers/stores.js'

/**
 * Heavy reads (src/storage/heavy-reads.ts): monthly and agg reports over many brand-days run in
 * a lane of their own — SQLite worker threads with connections of their own, a bounded share of
 * PostgreSQL's pool — and a full lane answers 503 with Retry-After. Here a second store over the
 * same data sends every report to the lane (threshold 0), and its answers must be byte for byte
 * those of the main thread.
 */

const DATASET = generateDataset({ seed: 777, start: '2025-12-01', days: 120 })

const REPORTS: Array<Record<string, string>> = [
  { type: 'agg', since: '2025-12-01', until: '2026-03-30' },
  { type: 'agg', brand_id: '1', since: '2025-12-15', until: '2026-02-10' },
  { type: 'agg', split_by_platform: 'true', since: '2025-12-01', until: '2026-03-30' },
  { type: 'agg', platform: 'fb,ig', since: '2026-01-03', until: '2026-03-07' },
  { type: 'agg', platform: 'ig', account_id: '100,101', since: '2025-12-01', until: '2026-03-30' },
  { type: 'monthly', since: '2025-12-01', until: '2026-03-30' },
  { type: 'monthly', brand_id: '1,2', since: '2025-12-20', until: '2026-03-11' },
  { type: 'monthly', split_by_platform: 'true', since: '2025-12-01', until: '2026-03-30' },
  { type: 'monthly', brand_id: '2', platform: 'li,sc,pi', since: '2025-12-10', until: '2026-02-27' },
]

/** Another store over the test store's data (same SQLite file, same PostgreSQL schema). */
function sameDataStore (dialect: Dialect, api: PartnerApi, options: StoreOptions): Store {
  if (dialect === 'sqlite') return createStore({ kind: 'sqlite', file: api.test.databaseUrl.slice('sqlite:'.length) }, options)
  return createStore({ kind: 'postgres', url: TEST_POSTGRES_URL, schema: api.test.schema }, options)
}

for (const dialect of DIALECTS) {
  describe(`heavy reads (${dialect})`, () => {
    let api: PartnerApi
    let heavyStore: Store
    let heavyApp: FastifyInstance

    before(async () => {
      api = await openPartnerApi(dialect, { seed: async (test) => { await insertDatasetAndReadModel(test.store, DATASET) }, brandIds: [1, 2, 3] })
      heavyStore = sameDataStore(dialect, api, { heavyReads: { brandDays: 0 } })
      heavyApp = await buildTestApp(heavyStore, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
    })
    after(async () => {
      await heavyApp.close()
      await heavyStore.destroy()
      await api.close()
    })

    const get = async (app: FastifyInstance, query: Record<string, string>) =>
      await app.inject({ method: 'GET', url: '/analytics/', query, headers: api.auth })

    it('answers include=status and /data-status in the lane exactly as on the main thread', async () => {
      let compared = 0
      for (const report of REPORTS) {
        const [light, heavy] = await Promise.all([get(api.app, { ...report, include: 'status' }), get(heavyApp, { ...report, include: 'status' })])
        assert.equal(heavy.statusCode, 200, heavy.body)
        assert.equal(heavy.body, light.body, JSON.stringify(report))
        compared += (JSON.parse(light.body) as { data: unknown[] }).data.length
      }
      const queries: Array<Record<string, string>> = [{ since: '2025-12-01', until: '2026-03-30' }, { since: '2026-01-01', until: '2026-01-31', platform: 'ig' }]
      for (const query of queries) {
        const [light, heavy] = await Promise.all([
          api.app.inject({ method: 'GET', url: '/data-status', query, headers: api.auth }),
          heavyApp.inject({ method: 'GET', url: '/data-status', query, headers: api.auth }),
        ])
        assert.equal(heavy.statusCode, 200, heavy.body)
        assert.equal(heavy.body, light.body)
        compared += (JSON.parse(light.body) as { data: unknown[] }).data.length
      }
      assert.ok(compared > 30, `only ${compared} entries compared`)
    })

    it('answers every monthly and agg report in the lane exactly as on the main thread', async () => {
      let entries = 0
      for (const query of REPORTS) {
        const [light, heavy] = await Promise.all([get(api.app, query), get(heavyApp, query)])
        assert.equal(light.statusCode, 200, light.body)
        assert.equal(heavy.statusCode, 200, heavy.body)
        assert.equal(heavy.body, light.body, JSON.stringify(query))
        entries += (light.json() as { data: unknown[] }).data.length
      }
      assert.ok(entries >= 60, `only ${entries} entries were compared`)
    })

    it('runs several heavy reports at once and answers each its own', async () => {
      const answers = await Promise.all(REPORTS.map(async (query) => (await get(heavyApp, query)).body))
      for (const [index, query] of REPORTS.entries()) assert.equal(answers[index], (await get(api.app, query)).body)
    })

    if (dialect === 'sqlite') {
      it('reads with connections of its own: a write the main connection has not committed is not seen there', async () => {
        const query = { type: 'agg', since: '2025-12-01', until: '2026-03-30' }
        const committed = (await get(api.app, query)).body
        assert.equal(heavyStore.dialect, 'sqlite')
        const main = heavyStore.sqlite
        // The heavy store's main connection empties every table it reads from, uncommitted.
        main.exec('begin')
        try {
          for (const table of ['brand_daily', 'brand_monthly', 'account_monthly', 'daily_metrics']) main.exec(`delete from ${table}`)
          const daily = await get(heavyApp, { type: 'daily', since: '2025-12-01', until: '2026-03-30' })
          assert.deepEqual((daily.json() as { data: unknown[] }).data, [], 'the main connection sees its own deletes')
          assert.equal((await get(heavyApp, query)).body, committed, 'the workers see the committed data')
        } finally {
          main.exec('rollback')
        }
      })
    }

    it('answers 503 SERVICE_UNAVAILABLE with Retry-After when the lane is full, and light requests as usual', async () => {
      const full = sameDataStore(dialect, api, { heavyReads: { brandDays: 0, concurrency: 0, queue: 0 } })
      const app = await buildTestApp(full, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
      try {
        const refused = await get(app, { type: 'agg', since: '2025-12-01', until: '2026-03-30' })
        assert.equal(refused.statusCode, 503)
        assert.equal(refused.headers['retry-after'], '1')
        const body = refused.json() as Record<string, unknown>
        assert.deepEqual({ ...body, timestamp: undefined }, {
          detail: 'Too many large reports are being computed. Please retry in 1 second.',
          error_code: 'SERVICE_UNAVAILABLE',
          status_code: 503,
          status: 'error',
          timestamp: undefined,
          request_id: refused.headers['x-request-id'],
        })
        const daily = await get(app, { type: 'daily', since: '2025-12-01', until: '2026-03-30' })
        assert.equal(daily.statusCode, 200)
        assert.equal(daily.body, (await get(api.app, { type: 'daily', since: '2025-12-01', until: '2026-03-30' })).body)
      } finally {
        await app.close()
        await full.destroy()
      }
    })
  })
}

describe('BoundedLane', () => {
  /** A task that runs until released, recording when it started. */
  function gate (started: string[], name: string) {
    let release!: () => void
    const done = new Promise<void>((resolve) => { release = resolve })
    return { task: async () => { started.push(name); await done; return name }, release }
  }

  it('runs `limit` at once, queues `queue` more in arrival order, refuses the next at once', async () => {
    const lane = new BoundedLane(1, 2)
    const started: string[] = []
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => gate(started, name)) as [ReturnType<typeof gate>, ReturnType<typeof gate>, ReturnType<typeof gate>, ReturnType<typeof gate>]
    const ran = [lane.run(a.task), lane.run(b.task), lane.run(c.task)]
    await assert.rejects(lane.run(d.task), StoreOverloadedError)
    await Promise.resolve()
    assert.deepEqual(started, ['a'])
    a.release()
    assert.equal(await ran[0], 'a')
    // b was next in line; a newcomer now waits behind c rather than overtaking it.
    const late = gate(started, 'late')
    const lateRun = lane.run(late.task)
    b.release()
    assert.equal(await ran[1], 'b')
    c.release()
    assert.equal(await ran[2], 'c')
    late.release()
    assert.equal(await lateRun, 'late')
    assert.deepEqual(started, ['a', 'b', 'c', 'late'])
  })

  it('frees the slot of a task that fails', async () => {
    const lane = new BoundedLane(1, 0)
    await assert.rejects(lane.run(async () => { throw new Error('boom') }), /boom/)
    assert.equal(await lane.run(async () => 'next'), 'next')
  })
})
