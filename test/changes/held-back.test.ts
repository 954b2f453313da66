import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helpers/app.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { bearer, createPartner, loginToken, type TestPartner } from '../helpers/partners.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { seedExtraBrands, grantsFor, importEvent, recordSync, recordUnsynced, STRATEGIES, wire, type WrittenEvent, type FeedPageBody } from './feed-fixtures.js'

/**
 * The replicas' hook (ServiceDeps.visibleThroughSyncId): GET /changes never shows an event of a
 * sync above the limit — the page ends before the first one — and once the limit moves, the same
 * cursor brings exactly those events: none is skipped. Events without a sync are not held back
 * by the hook, only kept in order behind a held-back one.
 */

for (const dialect of DIALECTS) {
  for (const strategy of STRATEGIES) {
    describe(`GET /changes holds back syncs not every reader has (${dialect}, ${strategy})`, () => {
      let test: TestStore
      let app: FastifyInstance
      let partner: TestPartner
      let visibleThrough: number | undefined
      const events: WrittenEvent[] = []

      before(async () => {
        test = await createTestStore(dialect)
        await insertBrandsWithAccounts(test.store.db, brandRange(1, 2, 1))
        await seedExtraBrands(test.store.db)
        partner = await createPartner(test.store, { brandIds: grantsFor(strategy, [1, 2], 2) })
        app = await buildTestApp(test.store, {}, { visibleThroughSyncId: () => visibleThrough })
        const db = test.store.db
        events.push(...await recordSync(db, [importEvent(1, 0), importEvent(2, 1)], '2026-11-25T10:00:00Z')) // sync 1: evt 1, 2
        events.push(...await recordUnsynced(db, [{ type: 'access.granted', userId: partner.userId, data: { brand_id: 2 } }], '2026-11-25T10:00:01Z')) // evt 3
        events.push(...await recordSync(db, [importEvent(1, 2), importEvent(2, 3)], '2026-11-25T10:00:02Z')) // sync 2: evt 4, 5
        events.push(...await recordUnsynced(db, [{ type: 'access.revoked', userId: partner.userId, data: { brand_id: 3 } }], '2026-11-25T10:00:03Z')) // evt 6
        events.push(...await recordSync(db, [importEvent(2, 4)], '2026-11-25T10:00:04Z')) // sync 3: evt 7
      })
      after(async () => {
        await app.close()
        await test.cleanup()
      })

      async function page (query: Record<string, string>): Promise<FeedPageBody> {
        const response = await app.inject({ method: 'GET', url: '/changes', query, headers: bearer(await loginToken(app, partner)) })
        assert.equal(response.statusCode, 200, response.body)
        return response.json()
      }
      const ids = (body: FeedPageBody): string[] => body.data.map((event) => event.id)

      it('ends the page before the first held-back event and continues there once the limit moves', async () => {
        visibleThrough = 1
        const first = await page({})
        assert.deepEqual(ids(first), ['evt_1', 'evt_2', 'evt_3'])
        assert.equal(first.has_more, false)
        // Still held back: the same cursor gives nothing, and says so without moving past them.
        const still = await page({ cursor: first.next_cursor })
        assert.deepEqual([ids(still), still.has_more], [[], false])
        visibleThrough = 2
        const second = await page({ cursor: still.next_cursor })
        assert.deepEqual(ids(second), ['evt_4', 'evt_5', 'evt_6'])
        visibleThrough = undefined
        const third = await page({ cursor: second.next_cursor })
        assert.deepEqual(third.data, [wire(events[6] as WrittenEvent)])
        assert.deepEqual([...first.data, ...second.data, ...third.data], events.map(wire))
      })

      it('holds back in small pages too: has_more is false when the next event is held back', async () => {
        visibleThrough = 1
        const one = await page({ limit: '2' })
        assert.deepEqual([ids(one), one.has_more], [['evt_1', 'evt_2'], true])
        const two = await page({ limit: '2', cursor: one.next_cursor })
        assert.deepEqual([ids(two), two.has_more], [['evt_3'], false])
        visibleThrough = 3
        const three = await page({ limit: '3', cursor: two.next_cursor })
        assert.deepEqual([ids(three), three.has_more], [['evt_4', 'evt_5', 'evt_6'], true])
      })

      it('start=latest points before the first held-back event, so following from it misses none', async () => {
        visibleThrough = 1
        const latest = await page({ start: 'latest' })
        visibleThrough = undefined
        const next = await page({ cursor: latest.next_cursor })
        assert.deepEqual(ids(next), ['evt_4', 'evt_5', 'evt_6', 'evt_7'])
        visibleThrough = 3
        const head = await page({ start: 'latest' })
        assert.deepEqual(ids(await page({ cursor: head.next_cursor })), [])
      })
    })
  }
}
