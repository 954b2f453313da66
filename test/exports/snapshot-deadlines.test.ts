import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createStore, type Store } from '../../src/storage/db.js'
import { SERVING_DEADLINES } from '../../src/storage/deadlines.js'
import { openSnapshot } from '../../src/storage/exports/snapshot.js'
import { createMigratedSchema, dropSchema, TEST_POSTGRES_URL } from '../helpers/stores.js'

/**
 * An export's statements are not requests (src/storage/exports/snapshot.ts): on a store opened with
 * the serving deadlines, a snapshot's statement that takes longer than the pool's statement and
 * read timeouts — as counting or sorting two years of 1,000 brands does — still answers, where a
 * request's statement on the same pool is cut. The deadlines are shortened here to 300 ms so that
 * a 1.2 s statement stands for the slow one.
 */
describe('an export snapshot outlives the serving deadlines (postgres)', () => {
  let store: Store
  let schema: string
  before(async () => {
    schema = await createMigratedSchema()
    store = createStore({ kind: 'postgres', url: TEST_POSTGRES_URL, schema }, { deadlines: { ...SERVING_DEADLINES, statementMs: 300, queryMs: 300 } })
  })
  after(async () => {
    await store.destroy()
    await dropSchema(TEST_POSTGRES_URL, schema)
  })

  it('a request\'s slow statement is cut by the pool\'s deadline', async () => {
    await assert.rejects(sql`select pg_sleep(1.2)`.execute(store.db), /statement timeout|Query read timeout/)
  })

  it('the snapshot\'s slow count and slow cursor answer', async () => {
    const snapshot = await openSnapshot(store)
    try {
      const [counted] = await snapshot.all<{ rows: number }>(sql`select count(*)::int as rows from (select pg_sleep(1.2)) s`.compile(store.db))
      assert.deepEqual(counted, { rows: 1 })
      const batches: unknown[][][] = []
      for await (const batch of snapshot.batches(sql`select n, pg_sleep(case when n = 1 then 1.2 else 0 end) is not null as slept from generate_series(1, 3) n`.compile(store.db), 2)) batches.push(batch)
      assert.deepEqual(batches, [[[1, true], [2, true]], [[3, true]]])
    } finally {
      await snapshot.close()
    }
  })
})
