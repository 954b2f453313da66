import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { POST_HISTORY_RETENTION_SECONDS, POSTS_WALK_MAX_AGE_SECONDS, type PostsRequest, type PostsWalk } from '../../src/domain/posts.js'
import { CursorCodec } from '../../src/http/cursors/codec.js'
import { decodePostsCursor, encodePostsCursor } from '../../src/http/cursors/posts-cursor.js'
import { importSources } from '../../src/services/import/import.service.js'
import { DIALECTS, createTestStore, type TestStore } from '../helpers/stores.js'
import { TEST_JWT_SECRET } from '../helpers/app.js'
import { insertPostsWorld, memorySource, walkPages, type Client, type PostsWorld, openPostsWorld, closePostsWorld } from './posts-fixtures.js'

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

    before(async () => { ({ test, app, client } = await openPostsWorld(dialect)) })
    after(async () => { await closePostsWorld({ test, app, client }) })

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

describe('GET /posts walk age', () => {
  const asked: PostsRequest = {
    period: { since: '2026-11-01', until: '2026-11-07' },
    brandIds: undefined,
    accountIds: undefined,
    platforms: undefined,
    postTypes: undefined,
    orderBy: 'created_time',
    order: 'desc',
    limit: 10,
    topics: false,
    category: false,
  }
  const bound = { request: asked, givenSince: '2026-11-01', givenUntil: '2026-11-07' }
  const cursors = new CursorCodec(TEST_JWT_SECRET, 'posts')
  const walk = (startedAt: number): PostsWalk => ({
    snapshot: 1, startedAt, period: { since: '2026-11-01', until: '2026-11-07' }, after: { value: '2026-11-03T10:00:00Z', id: 'p1', platformRank: 0 },
  })
  let world: PostsWorld
  before(async () => { world = await openPostsWorld('sqlite') })
  after(async () => { await closePostsWorld(world) })

  it('continues a walk started up to 24 hours ago', () => {
    const now = 2_000_000_000
    const cursor = encodePostsCursor(cursors, bound, walk(now - POSTS_WALK_MAX_AGE_SECONDS))
    assert.deepEqual(decodePostsCursor(cursors, bound, cursor, now), { ok: true, walk: walk(now - POSTS_WALK_MAX_AGE_SECONDS) })
  })

  it('refuses an older cursor with a 422 on cursor: the history it needs may be pruned', async () => {
    const cursor = encodePostsCursor(cursors, bound, walk(Math.floor(Date.now() / 1000) - POSTS_WALK_MAX_AGE_SECONDS - 60))
    const { status, body } = await world.client.get({ since: '2026-11-01', until: '2026-11-07', cursor })
    assert.equal(status, 422)
    assert.deepEqual(body.detail, [{
      loc: ['query', 'cursor'],
      msg: 'Cursor expired: a page walk must finish within 24 hours; start again from the first page',
      type: 'cursor_expired',
      ctx: { max_age_seconds: 86400 },
    }])
  })
})

for (const dialect of DIALECTS) {
  describe(`post history pruning (${dialect})`, () => {
    let test: TestStore
    before(async () => {
      test = await createTestStore(dialect)
      await insertPostsWorld(test.store.db)
    })
    after(async () => { await test.cleanup() })

    it('each import drops versions superseded longer ago than any walk can reach', async () => {
      await importPosts(test, [tiktokPost('h1', 1)])
      await importPosts(test, [tiktokPost('h1', 2)])
      await importPosts(test, [tiktokPost('h1', 3)])
      const versions = async () => await test.store.db.selectFrom('post_history').select(['interactions', 'superseded_at']).where('id', '=', 'h1').orderBy('interactions').execute()
      assert.deepEqual((await versions()).map((row) => row.interactions), [1, 2])
      // Age the first replaced version past the retention; the next import prunes it, not the other.
      const old = new Date(Date.now() - (POST_HISTORY_RETENTION_SECONDS + 60) * 1000).toISOString()
      await test.store.db.updateTable('post_history').set({ superseded_at: old }).where('id', '=', 'h1').where('interactions', '=', 1).execute()
      await importPosts(test, [tiktokPost('unrelated', 5)])
      assert.deepEqual((await versions()).map((row) => row.interactions), [2])
    })
  })
}
