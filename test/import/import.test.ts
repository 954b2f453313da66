import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { sql } from 'kysely'
import { importSources } from '../../src/services/import/import.service.js'
import { runCliCaptured } from '../helpers/cli.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { memorySource } from '../posts/posts-fixtures.js'
import { countRows, dailyRow, emptyStore, FIXTURES, importFiles, ndjson, postRow, tempFiles, type TempFiles } from './import-helpers.js'

const VALID = join(FIXTURES, 'valid.ndjson')
const INVALID = join(FIXTURES, 'invalid.ndjson')

const brand = (id: number, name = `Brand ${id}`) => ({ kind: 'brand', brand_id: id, brand_name: name })
const account = (platform: string, id: number, brandId: number, name = `Account ${id}`) =>
  ({ kind: 'account', platform, account_id: id, brand_id: brandId, account_name: name })
const daily = (platform: string, id: number, date: string, metrics: Record<string, unknown> = {}) =>
  ({ kind: 'daily', platform, account_id: id, date, ...metrics })

for (const dialect of DIALECTS) {
  describe(`import service (${dialect})`, () => {
    let testStore: TestStore
    let files: TempFiles
    before(async () => {
      testStore = await createTestStore(dialect)
      files = tempFiles()
    })
    after(async () => {
      await testStore.cleanup()
      files.cleanup()
    })
    beforeEach(async () => { await emptyStore(testStore.store) })

    it('writes a valid file: values, revenue micros, nulls, aliases, derived post_type, UTC times', async () => {
      const { store } = testStore
      const outcome = await importFiles(store, [VALID])
      assert.deepEqual(outcome.errors, [])
      assert.deepEqual(outcome.summary?.counts, { brand: 1, account: 2, daily: 2, post: 2 })
      assert.equal(outcome.summary?.records, 7)
      assert.equal(outcome.summary?.dryRun, false)
      assert.deepEqual(await countRows(store), { brands: 1, accounts: 2, daily: 2, posts: 2 })

      const fb = await dailyRow(store, 'fb', 10, '2026-11-01')
      assert.ok(fb)
      assert.equal(fb.views, 1200)
      assert.equal(fb.revenue_micros, 12_345_678)
      assert.equal(fb.video_views_3s, 800)
      assert.equal(fb.reach, 3000)
      assert.equal(fb.link_clicks, 7)
      assert.equal(fb.ad_reach, null, 'a metric left out is null (not reported)')
      assert.equal(fb.views_video, null)

      // `IG` (any case) and `instagram` are aliases of ig.
      const ig = await dailyRow(store, 'ig', 20, '2026-11-01')
      assert.ok(ig)
      assert.equal(ig.revenue_micros, null, 'explicit null revenue stays null')
      assert.equal(ig.reach, 700)
      assert.equal(ig.followers, null)

      const account = await store.db.selectFrom('accounts').selectAll().where('platform', '=', 'fb').where('account_id', '=', 10).executeTakeFirstOrThrow()
      assert.equal(account.brand_id, 1)
      assert.equal(account.network_id, '1234')
      assert.equal(account.permalink, 'https://facebook.com/acme.fr')

      const reel = await postRow(store, 'ig', 'ig_1')
      assert.ok(reel)
      assert.equal(new Date(reel.created_time).toISOString(), '2026-11-01T10:30:00.000Z', '+02:00 normalised to UTC')
      assert.equal(reel.type, 'REELS')
      assert.equal(reel.post_type, 'reel', 'derived from Instagram REELS')
      assert.equal(reel.revenue_micros, 500_000)
      assert.equal(reel.reach, 4000)
      assert.equal(reel.impressions, null)
      const photo = await postRow(store, 'fb', 'fb_1')
      assert.equal(photo?.post_type, 'reel', 'an explicit post_type (alias Reels) wins over type')
      assert.equal(photo?.impressions, 90)
    })

    it('rejects an invalid file with every error as FILE:LINE: message and writes nothing', async () => {
      const { store } = testStore
      await importFiles(store, [VALID])
      const before = await countRows(store)
      const outcome = await importFiles(store, [INVALID])
      assert.equal(outcome.summary, undefined)
      assert.deepEqual(outcome.errors, [
        `${INVALID}:3: date must be a real calendar date YYYY-MM-DD (got "2026-02-30")`,
        `${INVALID}:3: views must not be negative (got -5)`,
        `${INVALID}:4: views must be an integer (got 1.5)`,
        `${INVALID}:4: video_views_3s does not apply to tiktok (tk); leave it out or null`,
        `${INVALID}:7: unknown kind "widget" (expected brand, account, daily, post)`,
        `${INVALID}:8: unknown field "vews" on a daily record`,
        `${INVALID}:9: missing required field "date"`,
        `${INVALID}:10: invalid JSON: Unexpected end of JSON input`,
        `${INVALID}:11: revenue has more than 6 decimals (got 1.1234567); money is stored in micro-units`,
        `${INVALID}:12: created_time must be an ISO-8601 time with Z or an offset, e.g. 2026-11-01T10:30:00Z (got "2026-11-01 10:00")`,
        `${INVALID}:12: post_type must be one of video, image, carousel, reel, story, short, text, share, document, other (got "podcast")`,
        `${INVALID}:12: reach does not apply to tiktok (tk); leave it out or null`,
        `${INVALID}:13: platform must be a platform code or alias such as fb or facebook (got "xx")`,
        `${INVALID}:5: unknown account tk:99 (not in the database and not declared in this import)`,
        `${INVALID}:6: account tk:31 refers to unknown brand 77 (not in the database and not declared in this import)`,
      ])
      assert.equal(outcome.errorCount, 15)
      // The file's valid brand 2 and account tk:30 were not written either.
      assert.deepEqual(await countRows(store), before)
    })

    it('lists the errors of every file, and a rejected batch leaves valid files unwritten too', async () => {
      const { store } = testStore
      const good = files.write('good.ndjson', ndjson(brand(5), account('li', 50, 5)))
      const first = files.write('first.ndjson', ndjson(daily('li', 50, '2026-11-01', { views: 'many' })))
      const second = files.write('second.ndjson', ndjson(daily('li', 50, '2026-11-01'), brand(0)))
      const outcome = await importFiles(store, [good, first, second])
      assert.deepEqual(outcome.errors, [
        `${first}:1: views must be an integer or null (got "many")`,
        `${second}:2: brand_id must be a positive integer (got 0)`,
      ])
      assert.deepEqual(await countRows(store), { brands: 0, accounts: 0, daily: 0, posts: 0 })
    })

    it('reports other record-level errors: non-object, missing kind, bad names and texts, money type', async () => {
      const { store } = testStore
      const path = files.write('odd.ndjson', [
        '[1,2]',
        '{"brand_id":1}',
        JSON.stringify({ kind: 'brand', brand_id: 1, brand_name: '  ' }),
        JSON.stringify({ kind: 'account', platform: 'fb', account_id: 1, brand_id: 1, account_name: 'A', network_id: 42 }),
        JSON.stringify({ kind: 'daily', platform: 'fb', account_id: 1, date: '2026-11-01', revenue: '10', posts_per_day: 1 }),
        JSON.stringify({ kind: 'post', platform: 'fb', account_id: 1, id: 'p', created_time: '2026-11-01T24:00:00Z' }),
      ].join('\n'))
      const outcome = await importFiles(store, [path])
      assert.deepEqual(outcome.errors, [
        `${path}:1: a record must be a JSON object (got [1,2])`,
        `${path}:2: missing required field "kind"`,
        `${path}:3: brand_name must be a non-empty string (got "  ")`,
        `${path}:4: network_id must be a string or null (got 42)`,
        `${path}:5: unknown field "posts_per_day" on a daily record`,
        `${path}:5: revenue must be a number or null (got "10")`,
        `${path}:6: created_time must be an ISO-8601 time with Z or an offset, e.g. 2026-11-01T10:30:00Z (got "2026-11-01T24:00:00Z")`,
      ])
    })

    it('lists every error in one pass: a record with a bad field is also checked for an unknown account', async () => {
      const { store } = testStore
      const path = files.write('both.ndjson', ndjson(
        brand(1),
        account('fb', 10, 1, ''),
        daily('fb', 10, '2026-11-01', { views: -1 }),
        daily('ig', 99, '2026-11-02', { views: -2 }),
        account('tk', 11, 5),
      ))
      const outcome = await importFiles(store, [path])
      assert.deepEqual(outcome.errors, [
        `${path}:2: account_name must be a non-empty string (got "")`,
        `${path}:3: views must not be negative (got -1)`,
        `${path}:4: views must not be negative (got -2)`,
        // fb:10 is declared on line 2 (with a bad name): naming it is no error of its own.
        `${path}:4: unknown account ig:99 (not in the database and not declared in this import)`,
        `${path}:5: account tk:11 refers to unknown brand 5 (not in the database and not declared in this import)`,
      ])
      assert.equal(outcome.errorCount, 5)
      assert.deepEqual(await countRows(store), { brands: 0, accounts: 0, daily: 0, posts: 0 })
    })

    it('accepts rows that refer to an account declared later in the same file, or in a later file', async () => {
      const { store } = testStore
      const early = files.write('early.ndjson', ndjson(
        daily('pi', 7, '2026-11-01', { video_views_2s: 3 }),
        { kind: 'post', platform: 'pinterest', account_id: 7, id: 'pin1', created_time: '2026-11-01T00:00:00Z', type: 'video_pin' },
        account('pinterest', 7, 9),
        daily('da', 8, '2026-11-01', { impressions: 4 }),
      ))
      const late = files.write('late.ndjson', ndjson(account('da', 8, 9), brand(9)))
      const outcome = await importFiles(store, [early, late])
      assert.deepEqual(outcome.errors, [])
      assert.deepEqual(await countRows(store), { brands: 1, accounts: 2, daily: 2, posts: 1 })
      assert.equal((await postRow(store, 'pi', 'pin1'))?.post_type, 'video')
      assert.equal((await dailyRow(store, 'pi', 7, '2026-11-01'))?.video_views_2s, 3)
    })

    it('stores texts exactly: tabs, line breaks, backslashes, quotes, \\N, unicode', async () => {
      const { store } = testStore
      const title = 'a\tb\nc\r\nd \\ e \\N "q" ☃ 🎉'
      const path = files.write('texts.ndjson', ndjson(
        brand(8, title), account('fb', 80, 8, title),
        { kind: 'post', platform: 'fb', account_id: 80, id: 'x\ty', created_time: '2026-11-01T00:00:00Z', title, description: '\\N' },
      ))
      assert.deepEqual((await importFiles(store, [path])).errors, [])
      const post = await postRow(store, 'fb', 'x\ty')
      assert.equal(post?.title, title)
      assert.equal(post?.description, '\\N')
      const named = await store.db.selectFrom('brands').select('brand_name').where('brand_id', '=', 8).executeTakeFirstOrThrow()
      assert.equal(named.brand_name, title)
    })

    it('accepts rows for accounts and brands already in the store', async () => {
      const { store } = testStore
      await importFiles(store, [files.write('base.ndjson', ndjson(brand(3), account('yt', 30, 3)))])
      const outcome = await importFiles(store, [files.write('more.ndjson', ndjson(daily('youtube', 30, '2026-11-02', { views: 5 }), account('yt', 31, 3)))])
      assert.deepEqual(outcome.errors, [])
      assert.deepEqual(await countRows(store), { brands: 1, accounts: 2, daily: 1, posts: 0 })
    })

    it('is idempotent: a re-import keeps the counts, and a changed record replaces the row', async () => {
      const { store } = testStore
      await importFiles(store, [VALID])
      await importFiles(store, [VALID])
      assert.deepEqual(await countRows(store), { brands: 1, accounts: 2, daily: 2, posts: 2 })
      assert.equal((await dailyRow(store, 'fb', 10, '2026-11-01'))?.revenue_micros, 12_345_678)

      const changed = files.write('changed.ndjson', ndjson(
        brand(1, 'Acme Renamed'),
        daily('fb', 10, '2026-11-01', { views: 1300 }),
        { kind: 'post', platform: 'ig', account_id: 20, id: 'ig_1', created_time: '2026-11-01T10:30:00Z', type: 'IMAGE', likes: 1 },
      ))
      await importFiles(store, [changed])
      assert.deepEqual(await countRows(store), { brands: 1, accounts: 2, daily: 2, posts: 2 })
      const row = await dailyRow(store, 'fb', 10, '2026-11-01')
      assert.equal(row?.views, 1300)
      assert.equal(row?.revenue_micros, null, 'the whole row is replaced: what the new record leaves out is null')
      assert.equal(row?.reach, null)
      const post = await postRow(store, 'ig', 'ig_1')
      assert.equal(post?.post_type, 'image')
      assert.equal(post?.views, null)
      assert.equal(post?.likes, 1)
      const named = await store.db.selectFrom('brands').select('brand_name').where('brand_id', '=', 1).executeTakeFirstOrThrow()
      assert.equal(named.brand_name, 'Acme Renamed')
    })

    it('keeps the last record of each key within one import', async () => {
      const { store } = testStore
      const path = files.write('repeats.ndjson', ndjson(
        brand(4, 'First'),
        account('th', 40, 4, 'Old name'),
        daily('th', 40, '2026-11-01', { views: 1 }),
        daily('th', 40, '2026-11-01', { views: 2, likes: 9 }),
        { kind: 'post', platform: 'th', account_id: 40, id: 't1', created_time: '2026-11-01T00:00:00Z', views: 1 },
        { kind: 'post', platform: 'threads', account_id: 40, id: 't1', created_time: '2026-11-02T00:00:00Z', views: 2 },
        brand(4, 'Second'),
        account('th', 40, 4, 'New name'),
      ))
      const outcome = await importFiles(store, [path])
      assert.deepEqual(outcome.summary?.counts, { brand: 2, account: 2, daily: 2, post: 2 })
      assert.deepEqual(await countRows(store), { brands: 1, accounts: 1, daily: 1, posts: 1 })
      const row = await dailyRow(store, 'th', 40, '2026-11-01')
      assert.equal(row?.views, 2)
      assert.equal(row?.likes, 9)
      const post = await postRow(store, 'th', 't1')
      assert.equal(post?.views, 2)
      assert.equal(new Date(post?.created_time ?? '').toISOString(), '2026-11-02T00:00:00.000Z')
      const names = await store.db.selectFrom('accounts').select('account_name').execute()
      assert.deepEqual(names, [{ account_name: 'New name' }])
      const brands = await store.db.selectFrom('brands').select('brand_name').execute()
      assert.deepEqual(brands, [{ brand_name: 'Second' }])
    })

    it('keeps the last record of a key across batches of a large import', async () => {
      const { store } = testStore
      // More rows than one PostgreSQL batch, with every key repeated far apart and close together.
      const rows: object[] = [brand(6), account('tk', 60, 6)]
      for (let round = 1; round <= 2; round += 1) {
        for (let day = 0; day < 6000; day += 1) {
          const date = new Date(Date.UTC(2000, 0, 1) + day * 86_400_000).toISOString().slice(0, 10)
          rows.push(daily('tk', 60, date, { views: round * 100_000 + day }))
          if (day % 2000 === 0) rows.push(daily('tk', 60, date, { views: round * 100_000 + day + 1 }))
        }
      }
      const outcome = await importFiles(store, [files.write('big.ndjson', ndjson(...rows))])
      assert.deepEqual(outcome.errors, [])
      assert.deepEqual(await countRows(store), { brands: 1, accounts: 1, daily: 6000, posts: 0 })
      assert.equal((await dailyRow(store, 'tk', 60, '2000-01-01'))?.views, 200_001)
      assert.equal((await dailyRow(store, 'tk', 60, '2000-01-02'))?.views, 200_001)
      const total = await store.db.selectFrom('daily_metrics').select((eb) => eb.fn.sum<number>('views').as('s')).executeTakeFirstOrThrow()
      // Round 2 wins everywhere: sum of 200000 + day for 6000 days, plus 1 on the 3 doubled days.
      assert.equal(Number(total.s), 6000 * 200_000 + (5999 * 6000) / 2 + 3)
    })

    it('moves an account re-imported with another brand_id; its daily rows follow', async () => {
      const { store } = testStore
      await importFiles(store, [files.write('a.ndjson', ndjson(brand(1), brand(2), account('sc', 11, 1), daily('sc', 11, '2026-11-01', { views: 5 })))])
      const outcome = await importFiles(store, [files.write('b.ndjson', ndjson(account('snapchat', 11, 2)))])
      assert.deepEqual(outcome.errors, [])
      const moved = await store.db.selectFrom('accounts').select('brand_id').where('platform', '=', 'sc').where('account_id', '=', 11).executeTakeFirstOrThrow()
      assert.equal(moved.brand_id, 2)
      assert.equal((await dailyRow(store, 'sc', 11, '2026-11-01'))?.views, 5)
    })

    it('dry run: validates everything, reports the same summary, writes nothing', async () => {
      const { store } = testStore
      const outcome = await importFiles(store, [VALID], { dryRun: true })
      assert.deepEqual(outcome.errors, [])
      assert.equal(outcome.summary?.dryRun, true)
      assert.deepEqual(outcome.summary?.counts, { brand: 1, account: 2, daily: 2, post: 2 })
      assert.deepEqual(await countRows(store), { brands: 0, accounts: 0, daily: 0, posts: 0 })
      const rejected = await importFiles(store, [INVALID], { dryRun: true })
      assert.equal(rejected.errorCount, 15)
    })

    it('reports progress once, at the end, for a file under 10,000 records', async () => {
      const { store } = testStore
      const seen: number[] = []
      await importFiles(store, [VALID], { onProgress: (done) => seen.push(done) })
      assert.deepEqual(seen, [7])
    })

    /** What the store holds, to compare before and after a failed import. */
    const snapshot = async () => ({
      brands: await testStore.store.db.selectFrom('brands').select(['brand_id', 'brand_name']).orderBy('brand_id').execute(),
      accounts: await testStore.store.db.selectFrom('accounts').select(['platform', 'account_id', 'brand_id']).orderBy('account_id').execute(),
      daily: await testStore.store.db.selectFrom('daily_metrics').select(['account_id', 'date', 'views']).orderBy('account_id').orderBy('date').execute(),
      posts: await testStore.store.db.selectFrom('posts').select(['id']).execute(),
      brandDays: (await testStore.store.db.selectFrom('brand_daily').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
    })
    const FIRST = [brand(1, 'Before'), account('fb', 10, 1), daily('fb', 10, '2026-11-01', { views: 1 })]
    /** Renames brand 1, adds brand 2 with an account and rows; the last row (views 666) is one the store will refuse. */
    const SECOND = [
      brand(1, 'After'), brand(2), account('fb', 20, 2),
      daily('fb', 10, '2026-11-02', { views: 5 }),
      { kind: 'post', platform: 'fb', account_id: 20, id: 'p1', created_time: '2026-11-02T10:00:00Z', views: 3 },
      daily('fb', 20, '2026-11-02', { views: 666 }),
    ]

    // A transaction left open would hold its locks and make the next import wait: the timeout
    // turns that wait into a failure (a bound, far above the second these tests take).
    it('rolls everything back when the store refuses a write mid-import, reports the store\'s error, and takes the next import', { timeout: 60_000 }, async () => {
      const { store } = testStore
      await importSources(store, [memorySource(FIRST)])
      const before = await snapshot()
      await refuseViews666(testStore)
      try {
        await assert.rejects(importSources(store, [memorySource(SECOND)]), /refused by the test trigger/)
        assert.deepEqual(await snapshot(), before)
        // What an operator sees: exit 1, one line with the store's reason, nothing written.
        const run = await runCliCaptured(['import', files.write('second.ndjson', ndjson(...SECOND))], { DATABASE_URL: testStore.databaseUrl })
        assert.equal(run.code, 1)
        assert.match(run.stderr, /^error: .*refused by the test trigger/m)
        assert.deepEqual(await snapshot(), before)
      } finally {
        await allowViews666(testStore)
      }
      // The store is not left in a transaction: the same import now goes through whole.
      const summary = await importSources(store, [memorySource(SECOND)])
      assert.deepEqual(summary.counts, { brand: 2, account: 1, daily: 2, post: 1 })
      const after = await snapshot()
      assert.deepEqual(after.brands.map((row) => [Number(row.brand_id), row.brand_name]), [[1, 'After'], [2, 'Brand 2']])
      assert.deepEqual(after.daily.map((row) => [Number(row.account_id), row.date, row.views]), [[10, '2026-11-01', 1], [10, '2026-11-02', 5], [20, '2026-11-02', 666]])
    })

    it('rolls everything back when a source fails while being read (e.g. a file gone mid-import)', { timeout: 60_000 }, async () => {
      const { store } = testStore
      await importSources(store, [memorySource(FIRST)])
      const before = await snapshot()
      const failing = {
        name: 'broken.ndjson',
        read: async function * () {
          for (const [index, value] of SECOND.slice(0, 5).entries()) yield { line: index + 1, value }
          throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' })
        },
      }
      await assert.rejects(importSources(store, [memorySource([brand(3)]), failing]), { message: 'EIO: i/o error, read' })
      assert.deepEqual(await snapshot(), before)
      assert.deepEqual((await importSources(store, [memorySource([brand(3)])])).counts, { brand: 1, account: 0, daily: 0, post: 0 })
    })
  })
}

/** A trigger that makes the store refuse any daily row with views = 666 (a write failing mid-import). */
async function refuseViews666 (test: TestStore): Promise<void> {
  if (test.store.dialect === 'sqlite') {
    await sql`create trigger refuse_666 before insert on daily_metrics when new.views = 666 begin select raise(abort, 'refused by the test trigger'); end`.execute(test.store.db)
    return
  }
  await sql`create function refuse_666() returns trigger language plpgsql as $$ begin if new.views = 666 then raise exception 'refused by the test trigger'; end if; return new; end $$`.execute(test.store.db)
  await sql`create trigger refuse_666 before insert on daily_metrics for each row execute function refuse_666()`.execute(test.store.db)
}

async function allowViews666 (test: TestStore): Promise<void> {
  await sql`drop trigger refuse_666${sql.raw(test.store.dialect === 'postgres' ? ' on daily_metrics' : '')}`.execute(test.store.db)
  if (test.store.dialect === 'postgres') await sql`drop function refuse_666()`.execute(test.store.db)
}
