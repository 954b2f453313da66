import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { importSources } from '../../src/import/import.service.js'
import { DIALECTS, createTestStore, type TestStore } from '../helpers/stores.js'
import { buildTestApp } from '../helpers/app.js'
import { insertPostsWorld, memorySource, postsClient, walkPages, type Client } from './posts-fixtures.js'

const PERIOD = { since: '2026-11-01', until: '2026-11-07' }

/** A TikTok post record as the import reads it (account tk 12 of brand 1). */
function tiktokPost (id: string, interactions: number, createdTime = '2026-11-03T10:00:00Z'): Record<string, unknown> {
  return { kind: 'post', id, platform: 'tiktok', account_id: 12, created_time: createdTime, type: 'video', views: 1000, interactions }
}

async function importPosts (test: TestStore, records: unknown[]): Promise<void> {
  await importSources(test.store, [memorySource(records)])
}

const ids = (records: Array<Record<string, unknown>>): string[] => records.map((record) => String(record.id))

for (const dialect of DIALECTS) {
  describe(`GET /posts paging (${dialect})`, () => {
    let test: TestStore
    let app: FastifyInstance
    let client: Client

    before(async () => {
      test = await createTestStore(dialect)
      await insertPostsWorld(test.store.db)
      app = await buildTestApp(test.store)
      client = await postsClient(app, test)
    })
    after(async () => {
      await app.close()
      await test.cleanup()
    })

    it('pages hold exactly limit records until the one holding the last match, which has next_cursor null', async () => {
      await importPosts(test, Array.from({ length: 6 }, (_, k) => ({ ...tiktokPost(`s${k}`, 10 * k), created_time: '2026-11-02T00:00:00Z' })))
      const query = { ...PERIOD, since: '2026-11-02', until: '2026-11-02' }
      const first = await client.get({ ...query, limit: '3' })
      assert.deepEqual(ids(first.body.data), ['s5', 's4', 's3'])
      assert.equal(typeof first.body.next_cursor, 'string')
      const second = await client.get({ ...query, limit: '3', cursor: first.body.next_cursor })
      assert.deepEqual(ids(second.body.data), ['s2', 's1', 's0'])
      assert.equal(second.body.total, 3)
      assert.equal(second.body.next_cursor, null)
      assert.deepEqual(ids(await walkPages(client, query, 4)), ['s5', 's4', 's3', 's2', 's1', 's0'])
      assert.deepEqual(ids(await walkPages(client, query, 6)), ['s5', 's4', 's3', 's2', 's1', 's0'])
      assert.deepEqual(ids(await walkPages(client, query, 1)), ['s5', 's4', 's3', 's2', 's1', 's0'])
    })

    it('binds the cursor to the normalised query, not to limit', async () => {
      const query = { since: '2026-11-02', until: '2026-11-02', brand_id: '1', platform: 'tk', post_type: 'Video' }
      const first = await client.get({ ...query, limit: '2' })
      const cursor = first.body.next_cursor as string
      const same = await client.get({ since: '2026-11-02', until: '2026-11-02', brand_id: '01', platform: 'TikTok', post_type: 'video', limit: '3', cursor })
      assert.equal(same.status, 200)
      assert.deepEqual(ids(same.body.data), ['s3', 's2', 's1'])
      const changes: Array<Record<string, string>> = [{ order: 'asc' }, { order_by: 'views' }, { platform: 'tk,fb' }, { until: '2026-11-03' }, { brand_id: '1,2' }, { topics: 'true' }, { post_type: 'image' }]
      for (const changed of changes) {
        const other = await client.get({ ...query, ...changed, cursor })
        assert.equal(other.status, 422, JSON.stringify(changed))
        assert.deepEqual(other.body.detail.map((item: { loc: string[] }) => item.loc), [['query', 'cursor']])
      }
      const [payload, mac] = cursor.split('.') as [string, string]
      const edited = Buffer.from(JSON.stringify([0, '2026-11-02', '2026-11-02', 999, 's9', 2])).toString('base64url')
      for (const bad of [`${edited}.${mac}`, `${payload}.${mac.slice(0, -2)}AA`, 'garbage', `${payload}`]) {
        const response = await client.get({ ...query, cursor: bad })
        assert.equal(response.status, 422)
        assert.equal(response.body.detail[0].type, 'cursor_invalid')
      }
    })

    it('returns every post that matched at the start exactly once, as it was then, while imports insert, update and delete between pages', async () => {
      // p1..p8 on 2026-11-05, interactions 80, 70, …, 10.
      await importPosts(test, Array.from({ length: 8 }, (_, k) => tiktokPost(`p${k + 1}`, 80 - 10 * k, '2026-11-05T12:00:00Z')))
      const query = { ...PERIOD, since: '2026-11-05', until: '2026-11-05', order_by: 'interactions' }
      const records = await walkPages(client, query, 2, async (page) => {
        if (page === 1) {
          await importPosts(test, [
            tiktokPost('p8', 1000, '2026-11-05T12:00:00Z'), // not yet served: jumps before the cursor
            tiktokPost('p1', 5, '2026-11-05T12:00:00Z'), // served: drops behind the cursor
            tiktokPost('p9', 65, '2026-11-05T12:00:00Z'), // new, lands among the posts still to come
            tiktokPost('p4', 50, '2026-10-01T00:00:00Z'), // not yet served: moves out of the period
          ])
        }
        if (page === 2) {
          await test.store.db.deleteFrom('posts').where('platform', '=', 'tk').where('id', '=', 'p6').execute()
          await importPosts(test, [tiktokPost('p7', 75, '2026-11-05T12:00:00Z'), tiktokPost('p3', 60, '2026-11-05T12:00:00Z')])
        }
      })
      assert.deepEqual(ids(records), ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8'])
      assert.deepEqual(records.map((record) => record.interactions), [80, 70, 60, 50, 40, 30, 20, 10])
      assert.equal(records[3]?.created_time, '2026-11-05T12:00:00Z')

      // A new walk reads the store as it is now.
      const now = await walkPages(client, query, 2)
      assert.deepEqual(ids(now), ['p8', 'p7', 'p2', 'p9', 'p3', 'p5', 'p1'])
      assert.deepEqual(now.map((record) => record.interactions), [1000, 75, 70, 65, 60, 40, 5])
    })

    it('keeps no new version when a re-import changes nothing', async () => {
      const before = await test.store.db.selectFrom('post_history').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
      await importPosts(test, [tiktokPost('p2', 70, '2026-11-05T12:00:00Z')])
      const afterImport = await test.store.db.selectFrom('post_history').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
      assert.equal(Number(afterImport.n), Number(before.n))
    })
  })
}
