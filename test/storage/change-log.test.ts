import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { formatUtcSeconds } from '../../src/domain/dates.js'
import { insertEvents, readChangeClock, recordEvents, takeChangeNumbers } from '../../src/storage/changes/change-log.repository.js'
import { DIALECTS, TEST_POSTGRES_URL, createTestStore, type TestStore } from '../helpers/stores.js'

/**
 * The change log's numbers: consecutive, shared by syncs and events, and (PostgreSQL) handed out
 * in commit order — a second writer taking numbers waits for the first one's commit.
 */

for (const dialect of DIALECTS) {
  describe(`change log numbers, ${dialect}`, () => {
    let test: TestStore
    before(async () => { test = await createTestStore(dialect) })
    after(async () => { await test.cleanup() })

    it('numbers events consecutively from 1 and syncs from 1, in one clock', async () => {
      const db = test.store.db
      await recordEvents(db, [
        { type: 'access.granted', userId: 'usr_a', data: { brand_id: 1 } },
        { type: 'access.granted', userId: 'usr_a', data: { brand_id: 2 } },
      ], '2026-11-25T10:00:00Z')
      const numbers = await takeChangeNumbers(db, { sync: true, eventCount: 1 })
      assert.deepEqual(numbers, { syncId: 1, firstEventId: 3 })
      await insertEvents(db, { ...numbers, createdAt: '2026-11-25T10:00:01Z' }, [
        { type: 'brand.updated', data: { brand_id: 2, brand_name: 'Acme', change: 'renamed' } },
      ])
      const rows = await db.selectFrom('change_events').selectAll().orderBy('event_id').execute()
      assert.deepEqual(rows.map((row) => ({ ...row, event_id: Number(row.event_id), brand_id: Number(row.brand_id), sync_id: row.sync_id === null ? null : Number(row.sync_id), created_at: formatUtcSeconds(row.created_at) })), [
        { event_id: 1, type: 'access.granted', brand_id: 1, user_id: 'usr_a', sync_id: null, created_at: '2026-11-25T10:00:00Z', data: '{"brand_id":1}' },
        { event_id: 2, type: 'access.granted', brand_id: 2, user_id: 'usr_a', sync_id: null, created_at: '2026-11-25T10:00:00Z', data: '{"brand_id":2}' },
        { event_id: 3, type: 'brand.updated', brand_id: 2, user_id: null, sync_id: 1, created_at: '2026-11-25T10:00:01Z', data: '{"brand_id":2,"brand_name":"Acme","change":"renamed"}' },
      ])
      assert.deepEqual(await readChangeClock(db), { lastSyncId: 1, lastEventId: 3, purgedThroughEventId: 0 })
    })
  })
}

describe('change log numbers follow commit order, postgres', () => {
  let test: TestStore
  before(async () => { test = await createTestStore('postgres') })
  after(async () => { await test.cleanup() })

  it('a second transaction taking numbers waits for the first to commit, then continues after its numbers', async () => {
    const connect = async (): Promise<pg.Client> => {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, options: `-c search_path=${test.schema ?? ''}` })
      await client.connect()
      return client
    }
    const [first, second] = [await connect(), await connect()]
    try {
      await first.query('begin')
      const taken = await first.query<{ last_event_id: string }>('update change_clock set last_event_id = last_event_id + 5 where singleton = 1 returning last_event_id')
      assert.equal(Number(taken.rows[0]?.last_event_id), 5)
      await second.query('begin')
      let secondDone = false
      const secondTake = second.query<{ last_event_id: string }>('update change_clock set last_event_id = last_event_id + 1 where singleton = 1 returning last_event_id')
        .then((result) => { secondDone = true; return result })
      await new Promise((resolve) => setTimeout(resolve, 300))
      assert.equal(secondDone, false, 'the second writer waits while the first holds the clock')
      await first.query('commit')
      const result = await secondTake
      assert.equal(Number(result.rows[0]?.last_event_id), 6)
      await second.query('commit')
    } finally {
      await first.end()
      await second.end()
    }
  })
})
