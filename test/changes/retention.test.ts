import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createChangeRetention, type PurgeRun } from '../../src/services/changes/change-retention.js'
import { readChangeClock } from '../../src/storage/changes/change-log.repository.js'
import { wallClock } from '../helpers/app.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type ApiResponse, type PartnerApi, type Query } from '../helpers/partner-api.js'
import { bearer, loginToken } from '../helpers/partners.js'
import { waitFor } from '../helpers/processes.js'
import { DIALECTS } from '../helpers/stores.js'
import { recordSyncs, wire, type FeedPageBody } from './feed-fixtures.js'

/**
 * Retention (CHANGES_RETENTION_DAYS): a cursor issued longer ago than the retention, or pointing
 * before events the purge removed, is 410 CURSOR_EXPIRED with the standard body; the purge
 * deletes the oldest events in bounded batches, advances the watermark with them, and a failing
 * run is reported and followed by the next one. The wall clock is injected (ServiceDeps.now).
 */

const DAY = 86_400_000
const NOW = '2026-11-25T12:00:00Z'
const at = (offsetDays: number): string => new Date(Date.parse(NOW) + offsetDays * DAY).toISOString().replace('.000', '')

for (const dialect of DIALECTS) {
  describe(`change feed retention (${dialect})`, () => {
    let api: PartnerApi
    const clock = wallClock(NOW)
    // Tokens live an hour of the wall clock this test moves by days: each call logs in at the clock's time.
    const feed = async (query: Query = {}): Promise<ApiResponse<FeedPageBody>> => await api.get<FeedPageBody>('/changes', query, bearer(await loginToken(api.app, api.partner)))
    const expectExpired = async (query: Query, detail: RegExp): Promise<void> => {
      const response = await feed(query)
      assert.equal(response.status, 410, JSON.stringify(response.body))
      assert.deepEqual(Object.keys(response.body).sort(), ['detail', 'error_code', 'request_id', 'status', 'status_code', 'timestamp'])
      assert.deepEqual([response.body.error_code, response.body.status_code, response.body.status], ['CURSOR_EXPIRED', 410, 'error'])
      assert.match(String(response.body.detail), detail)
      assert.match(String(response.body.detail), /Resynchronise: read the data you keep again, then follow the feed from start=latest$/)
    }

    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, brandRange(1, 2, 1)) },
        brandIds: [1, 2],
        env: { CHANGES_RETENTION_DAYS: '30' },
        now: clock.now,
      })
    })
    after(async () => { await api.close() })

    it('answers a cursor issued more than the retention ago with 410 CURSOR_EXPIRED; one issued exactly the retention ago still works', async () => {
      clock.set(NOW)
      const cursor = (await feed({ start: 'latest' })).body.next_cursor
      clock.set(at(30))
      assert.equal((await feed({ cursor })).status, 200)
      clock.set(new Date(Date.parse(at(30)) + 1000).toISOString())
      await expectExpired({ cursor }, /^This cursor was issued more than 30 days ago, longer than the change feed keeps events\./)
      // Every answer issues a fresh cursor: a partner that keeps calling never expires.
      clock.set(NOW)
      let current = cursor
      for (let day = 10; day <= 100; day += 10) {
        clock.set(at(day))
        const page = await feed({ cursor: current })
        assert.equal(page.status, 200, `day ${day}`)
        current = page.body.next_cursor
      }
      clock.set(NOW)
    })

    it('purges expired events oldest first in bounded batches, advancing the watermark; a cursor before it is 410, the oldest start skips to what is kept', async () => {
      const db = api.test.store.db
      const before = await readChangeClock(db)
      const stale = (await feed({ start: 'latest' })).body.next_cursor
      const old = await recordSyncs(db, { count: 7, perSync: 1, brandIds: [1, 2], createdAt: at(-40) })
      const kept = await recordSyncs(db, { count: 3, perSync: 1, brandIds: [2, 1], createdAt: at(-10) })
      const retention = createChangeRetention({ store: api.test.store, retentionDays: 30, now: clock.now, batchSize: 3, maxBatches: 2 })
      assert.deepEqual(await retention.runOnce(), { deleted: 6, batches: 2 })
      assert.equal((await readChangeClock(db)).purgedThroughEventId, before.lastEventId + 6)
      assert.deepEqual(await retention.runOnce(), { deleted: 1, batches: 1 })
      assert.deepEqual(await retention.runOnce(), { deleted: 0, batches: 1 })
      const clockAfter = await readChangeClock(db)
      assert.equal(clockAfter.purgedThroughEventId, before.lastEventId + old.length)
      const left = await db.selectFrom('change_events').select('event_id').orderBy('event_id').execute()
      assert.deepEqual(left.map((row) => `evt_${Number(row.event_id)}`), kept.map((event) => event.id))

      await expectExpired({ cursor: stale }, /^Events after this cursor have been removed by the retention\./)
      const oldest = await feed()
      assert.deepEqual([oldest.status, oldest.body.data], [200, kept.map(wire)])
      assert.equal((await feed({ cursor: oldest.body.next_cursor })).status, 200)
    })

    it('stops at the first event not expired yet, even when later ones are older', async () => {
      const db = api.test.store.db
      const fresh = await recordSyncs(db, { count: 1, perSync: 1, brandIds: [1], createdAt: at(-1) })
      const older = await recordSyncs(db, { count: 1, perSync: 1, brandIds: [1], createdAt: at(-45) })
      clock.set(at(21))
      const retention = createChangeRetention({ store: api.test.store, retentionDays: 30, now: clock.now })
      // The three kept above are now 31 days old; the fresh one (22 days) stops the purge before the older one behind it.
      assert.deepEqual(await retention.runOnce(), { deleted: 3, batches: 1 })
      const left = await db.selectFrom('change_events').select('event_id').orderBy('event_id').execute()
      assert.deepEqual(left.map((row) => `evt_${Number(row.event_id)}`), [...fresh, ...older].map((event) => event.id))
      clock.set(NOW)
    })

    it('a failing run is reported and the timer carries on; stop() ends it', async () => {
      const db = api.test.store.db
      const expired = await recordSyncs(db, { count: 2, perSync: 2, brandIds: [2], createdAt: at(-60) })
      clock.set(at(60))
      const errors: unknown[] = []
      const runs: PurgeRun[] = []
      const retention = createChangeRetention({ store: api.test.store, retentionDays: 30, now: clock.now, intervalMs: 20, firstRunMs: 0 })
      await db.schema.alterTable('change_events').renameTo('change_events_away').execute()
      try {
        retention.start({ onError: (error) => errors.push(error), onPurged: (run) => runs.push(run) })
        retention.start({ onError: () => { throw new Error('a second start must not add a second timer') } })
        await waitFor('two failed runs', () => errors.length >= 2, 5000)
      } finally {
        await db.schema.alterTable('change_events_away').renameTo('change_events').execute()
      }
      await waitFor('a run after the store recovered', () => runs.length >= 1, 5000)
      await retention.stop()
      const count = runs.length
      await new Promise((resolve) => setTimeout(resolve, 100))
      assert.equal(runs.length, count, 'no run after stop()')
      assert.ok(errors.every((error) => error instanceof Error))
      assert.ok(runs[0] !== undefined && runs[0].deleted >= expired.length)
      const left = await db.selectFrom('change_events').select('created_at').execute()
      assert.ok(left.every((row) => Date.parse(row.created_at) >= Date.parse(at(30))), 'every expired event is gone')
      clock.set(NOW)
    })
  })
}
