import { describe, it, before, after, beforeEach, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { POST_HISTORY_RETENTION_SECONDS, POSTS_WALK_MAX_AGE_SECONDS, type PostsRequest, type PostsWalk } from '../../src/domain/posts.js'
import { CursorCodec } from '../../src/http/cursors/codec.js'
import { decodePostsCursor, encodePostsCursor } from '../../src/http/cursors/posts-cursor.js'
import { importSources } from '../../src/services/import/import.service.js'
import { DIALECTS, createTestStore, type TestStore } from '../helpers/stores.js'
import { TEST_JWT_SECRET, wallClock } from '../helpers/app.js'
import { insertPostsWorld, memorySource, postRow, walkPages, type Client, type PostsWorld, openPostsWorld, closePostsWorld } from './posts-fixtures.js'

const PERIOD = { since: '2026-11-01', until: '2026-11-07' }

/** A TikTok post record as the import reads it (account tk 12 of brand 1). */
function tiktokPost (id: string, interactions: number, createdTime = '2026-11-03T10:00:00Z'): Record<string, unknown> {
  return { kind: 'post', id, platform: 'tiktok', account_id: 12, created_time: createdTime, type: 'video', views: 1000, interactions }
}

async function importPosts (test: TestStore, records: unknown[]): Promise<void> {
  await importSources(test.store, [memorySource(records)])
}

const ids = (records: Array<Record<string, unknown>>): string[] => records.map((record) => String(record.id))

/** The `s0`…`s5` posts of 2026-11-02 (interactions 0, 10, …, 50), all at the same time: ties broken by id. */
const SAME_DAY = Array.from({ length: 6 }, (_, k) => ({ ...tiktokPost(`s${k}`, 10 * k), created_time: '2026-11-02T00:00:00Z' }))

for (const dialect of DIALECTS) {
  describe(`GET /posts paging (${dialect})`, () => {
    // Each test imports what it reads into a store of its own.
    let test: TestStore
    let app: FastifyInstance
    let client: Client

    beforeEach(async () => { ({ test, app, client } = await openPostsWorld(dialect)) })
    afterEach(async () => { await closePostsWorld({ test, app, client }) })

    it('pages hold exactly limit records until the one holding the last match, which has next_cursor null', async () => {
      await importPosts(test, SAME_DAY)
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

    it('without limit, a page holds 10 records (the documented default)', async () => {
      // Twelve posts, one an hour on 2026-11-04: u00 … u11.
      await importPosts(test, Array.from({ length: 12 }, (_, k) => tiktokPost(`u${String(k).padStart(2, '0')}`, k, `2026-11-04T${String(k).padStart(2, '0')}:00:00Z`)))
      const first = await client.get({ since: '2026-11-04', until: '2026-11-04' })
      assert.equal(first.status, 200)
      assert.deepEqual(ids(first.body.data), ['u11', 'u10', 'u09', 'u08', 'u07', 'u06', 'u05', 'u04', 'u03', 'u02'])
      assert.equal(first.body.total, 10)
      assert.equal(typeof first.body.next_cursor, 'string')
      const second = await client.get({ since: '2026-11-04', until: '2026-11-04', cursor: first.body.next_cursor })
      assert.deepEqual(ids(second.body.data), ['u01', 'u00'])
      assert.equal(second.body.next_cursor, null)
    })

    it('binds the cursor to the normalised query, not to limit', async () => {
      await importPosts(test, SAME_DAY)
      const query = { since: '2026-11-02', until: '2026-11-02', brand_id: '1', platform: 'tk', post_type: 'Video' }
      const first = await client.get({ ...query, limit: '2' })
      assert.deepEqual(ids(first.body.data), ['s5', 's4'])
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
    })

    it('refuses a cursor whose payload was edited into another valid position, keeping its signature', async () => {
      await importPosts(test, SAME_DAY)
      const query = { since: '2026-11-02', until: '2026-11-02' }
      const first = await client.get({ ...query, limit: '2' })
      const [payload, mac] = (first.body.next_cursor as string).split('.') as [string, string]
      // [snapshot, startedAt, since, until, last value, last id, platform rank]: well-formed, the
      // last id moved from s4 to s2, so that only the signature can tell.
      const walk = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[]
      assert.equal(walk[5], 's4')
      const edited = Buffer.from(JSON.stringify(walk.with(5, 's2')), 'utf8').toString('base64url')
      // Another signature of the same length: its first character changed (replacing its last two with "AA"
      // left it as it was whenever the signature already ended so, about one run in a thousand).
      const otherMac = `${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`
      for (const bad of [`${edited}.${mac}`, `${payload}.${otherMac}`, 'garbage', `${payload}`]) {
        const response = await client.get({ ...query, limit: '2', cursor: bad })
        assert.equal(response.status, 422, bad)
        assert.deepEqual(response.body.detail, [{ loc: ['query', 'cursor'], msg: response.body.detail[0].msg, type: 'cursor_invalid', ctx: {} }])
      }
    })

    it('refuses any other spelling of a cursor it issued: padding or a stray character added, the last character\'s unused bits set', async () => {
      await importPosts(test, SAME_DAY)
      const query = { since: '2026-11-02', until: '2026-11-02' }
      const cursor = (await client.get({ ...query, limit: '2' })).body.next_cursor as string
      const [payload, mac] = cursor.split('.') as [string, string]
      // A 32-byte MAC is 43 characters, the last holding 2 bits that say nothing: set the lowest.
      const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
      const last = ALPHABET.indexOf(mac.at(-1) as string)
      const flipped = `${mac.slice(0, -1)}${ALPHABET[last ^ 1] as string}`
      assert.deepEqual(Buffer.from(flipped, 'base64url'), Buffer.from(mac, 'base64url'), 'the flipped spelling decodes to the same bytes')
      for (const bad of [`${cursor}=`, `${cursor}!`, `${payload}=.${mac}`, `${payload}.${flipped}`]) {
        const response = await client.get({ ...query, limit: '2', cursor: bad })
        assert.equal(response.status, 422, bad)
        assert.deepEqual(response.body.detail, [{ loc: ['query', 'cursor'], msg: response.body.detail[0].msg, type: 'cursor_invalid', ctx: {} }])
      }
      assert.equal((await client.get({ ...query, limit: '2', cursor })).status, 200, 'the cursor as issued still reads')
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
      const versions = async (): Promise<number> => Number((await test.store.db.selectFrom('post_history').select((eb) => eb.fn.countAll<number>().as('n')).where('id', '=', 'v1').executeTakeFirstOrThrow()).n)
      await importPosts(test, [tiktokPost('v1', 70)])
      await importPosts(test, [tiktokPost('v1', 71)])
      assert.equal(await versions(), 1, 'a changed re-import keeps the version it replaced')
      await importPosts(test, [tiktokPost('v1', 71)])
      assert.equal(await versions(), 1)
    })
  })

  describe(`GET /posts default period across midnight (${dialect})`, () => {
    // A walk with no since/until starts a minute before midnight and goes on after it.
    const clock = wallClock('2026-11-07T23:59:30Z')
    let world: PostsWorld
    before(async () => {
      world = await openPostsWorld(dialect, [
        postRow('tk', 'w-before', 12, '2026-10-30T12:00:00Z'),
        postRow('tk', 'w0', 12, '2026-10-31T08:00:00Z'),
        postRow('tk', 'w1', 12, '2026-11-01T09:00:00Z'),
        postRow('tk', 'w2', 12, '2026-11-03T10:00:00Z'),
        postRow('tk', 'w3', 12, '2026-11-05T11:00:00Z'),
        postRow('tk', 'w4', 12, '2026-11-07T23:00:00Z'),
        postRow('tk', 'w5', 12, '2026-11-08T00:00:10Z'),
      ], { now: clock.now })
    })
    after(async () => { await closePostsWorld(world) })

    it('keeps the period of its first page (today − 7 … today then), with only the cursor given', async () => {
      const first = await world.client.get({ limit: '2' })
      assert.equal(first.status, 200)
      assert.deepEqual([first.body.since, first.body.until, ids(first.body.data)], ['2026-10-31', '2026-11-07', ['w4', 'w3']])
      clock.set('2026-11-08T00:00:30Z')
      const second = await world.client.get({ limit: '2', cursor: first.body.next_cursor })
      assert.equal(second.status, 200)
      assert.deepEqual([second.body.since, second.body.until, ids(second.body.data)], ['2026-10-31', '2026-11-07', ['w2', 'w1']])
      const third = await world.client.get({ limit: '2', cursor: second.body.next_cursor })
      assert.deepEqual([third.body.since, third.body.until, ids(third.body.data), third.body.next_cursor], ['2026-10-31', '2026-11-07', ['w0'], null])
      // A walk started now has the new day's period.
      const fresh = await world.client.get({ limit: '50' })
      assert.deepEqual([fresh.body.since, fresh.body.until, ids(fresh.body.data)], ['2026-11-01', '2026-11-08', ['w5', 'w4', 'w3', 'w2', 'w1']])
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
