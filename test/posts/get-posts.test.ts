import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { wallClock } from '../helpers/app.js'
import { DIALECTS, type TestStore } from '../helpers/stores.js'

import { postRow, postsClient, type Client, openPostsWorld, closePostsWorld } from './posts-fixtures.js'

const PERIOD = { since: '2026-11-01', until: '2026-11-07' }

/** One post per platform in brands 1 and 2, two outside the period, one in brand 3 (not granted). */
const POSTS = [
  postRow('fb', 'fb-1', 10, '2026-11-03T10:00:00Z', {
    type: 'video_inline',
    post_type: 'video',
    description: 'A launch video',
    thumbnail_url: 'https://cdn.example.com/fb-1.jpg',
    subjects: 'launch',
    category: 'Product',
    views: 1000,
    likes: 50,
    comments: 10,
    shares: 5,
    interactions: 65,
    reach: 800,
    impressions: 1200,
    revenue_micros: 1_234_567,
  }),
  postRow('ig', 'ig-1', 11, '2026-11-04T09:00:00Z', { type: 'REELS', post_type: 'reel', views: 500, likes: 40, comments: 4, shares: 2, interactions: 46, reach: 400 }),
  postRow('tk', 'tk-1', 12, '2026-11-05T12:00:00Z', { type: 'video', post_type: 'video', views: 2000, likes: 100, comments: 20, shares: 10, interactions: 130 }),
  postRow('yt', 'yt-1', 13, '2026-11-02T08:00:00Z', { type: 'short', post_type: 'short', views: 3000, interactions: 90 }),
  postRow('li', 'li-1', 14, '2026-11-06T15:00:00Z', { type: 'document', post_type: 'document', reach: 0, interactions: 0, impressions: 100 }),
  postRow('th', 'th-1', 20, '2026-11-01T00:00:00Z', { type: 'text_post', post_type: 'text', interactions: 7 }),
  postRow('sc', 'sc-1', 21, '2026-11-07T23:59:59Z', { type: 'story', post_type: 'story', views: 700, shares: 3, reach: 650, interactions: 13, revenue_micros: 5000 }),
  postRow('da', 'da-1', 22, '2026-11-05T06:00:00Z', { type: 'video', post_type: 'video', views: 100, likes: 3, impressions: 300, interactions: 3 }),
  postRow('pi', 'pi-1', 23, '2026-11-04T18:00:00Z', { type: 'image_pin', post_type: 'image', views: 50, likes: 2, comments: 1, impressions: 900, interactions: 3 }),
  postRow('ig', 'ig-2', 10, '2026-11-03T11:00:00Z', { type: 'CAROUSEL_ALBUM', post_type: 'carousel', views: 10, reach: 20, interactions: 2 }),
  postRow('fb', 'fb-old', 10, '2026-10-31T23:59:59Z', { post_type: 'video' }),
  postRow('fb', 'fb-late', 10, '2026-11-08T00:00:00Z', { post_type: 'video' }),
  postRow('fb', 'fb-3', 30, '2026-11-03T10:00:00Z', { post_type: 'video' }),
]

const BY_TIME_DESC = ['sc-1', 'li-1', 'tk-1', 'da-1', 'pi-1', 'ig-1', 'ig-2', 'fb-1', 'yt-1', 'th-1']
const ids = (body: { data: Array<{ id: string }> }): string[] => body.data.map((record) => record.id)

const COMMON = ['id', 'platform', 'account_id', 'account_name', 'brand_id', 'created_time', 'type', 'post_type', 'title', 'description', 'permalink', 'thumbnail_url', 'views']
const TAIL = ['interactions', 'total_interactions', 'revenue', 'engagement_rate']
/** Exactly the fields each platform's records carry (docs/posts.md, the platform-specific fields). */
const FIELDS_BY_PLATFORM: Record<string, string[]> = {
  facebook: [...COMMON, 'likes', 'comments', 'shares', 'reach', 'impressions', ...TAIL],
  instagram: [...COMMON, 'likes', 'comments', 'shares', 'reach', ...TAIL],
  tiktok: [...COMMON, 'likes', 'comments', 'shares', ...TAIL],
  youtube: [...COMMON, 'likes', 'comments', 'shares', ...TAIL],
  linkedin: [...COMMON, 'likes', 'comments', 'shares', 'reach', 'impressions', ...TAIL],
  threads: [...COMMON, 'likes', 'comments', 'shares', ...TAIL],
  snapchat: [...COMMON, 'shares', 'reach', ...TAIL],
  dailymotion: [...COMMON, 'likes', 'impressions', ...TAIL],
  pinterest: [...COMMON, 'likes', 'comments', 'impressions', ...TAIL],
}

for (const dialect of DIALECTS) {
  describe(`GET /posts (${dialect})`, () => {
    let test: TestStore
    let app: FastifyInstance
    let client: Client
    // "Today" for the default period: the app reads this clock, not the machine's.
    const clock = wallClock('2026-11-05T18:00:00Z')

    before(async () => { ({ test, app, client } = await openPostsWorld(dialect, POSTS, { now: clock.now })) })
    after(async () => { await closePostsWorld({ test, app, client }) })

    it('lists the accessible posts of the period, newest first, in the §7 envelope', async () => {
      const { status, body } = await client.get({ ...PERIOD, limit: '50' })
      assert.equal(status, 200)
      assert.deepEqual(Object.keys(body), ['data', 'total', 'since', 'until', 'platforms', 'brand_ids', 'next_cursor'])
      assert.deepEqual(ids(body), BY_TIME_DESC)
      assert.equal(body.total, 10)
      assert.equal(body.since, '2026-11-01')
      assert.equal(body.until, '2026-11-07')
      assert.equal(body.platforms, 'all')
      assert.deepEqual(body.brand_ids, [1, 2])
      assert.equal(body.next_cursor, null)
    })

    it('answers the same on /posts/ as on /posts', async () => {
      const plain = await client.get({ ...PERIOD, limit: '50' })
      const slash = await client.get({ ...PERIOD, limit: '50' }, '/posts/')
      assert.equal(slash.status, 200)
      assert.deepEqual(slash.body, plain.body)
    })

    it('gives a full Facebook record: metrics, revenue to 2 decimals, engagement on reach', async () => {
      const { body } = await client.get({ ...PERIOD, platform: 'fb' })
      assert.deepEqual(body.data, [{
        id: 'fb-1',
        platform: 'facebook',
        account_id: 10,
        account_name: 'fb account 10',
        brand_id: 1,
        created_time: '2026-11-03T10:00:00Z',
        type: 'video_inline',
        post_type: 'video',
        title: 'Title fb-1',
        description: 'A launch video',
        permalink: 'https://example.com/fb/fb-1',
        thumbnail_url: 'https://cdn.example.com/fb-1.jpg',
        views: 1000,
        likes: 50,
        comments: 10,
        shares: 5,
        reach: 800,
        impressions: 1200,
        interactions: 65,
        total_interactions: 65,
        revenue: 1.23,
        engagement_rate: 0.08125,
      }])
    })

    it('carries exactly the metrics each platform has; those not imported are null', async () => {
      const { body } = await client.get({ ...PERIOD, limit: '50' })
      for (const record of body.data) {
        assert.deepEqual(Object.keys(record), FIELDS_BY_PLATFORM[record.platform], `fields of ${record.id}`)
      }
      const byId = new Map(body.data.map((record: { id: string }) => [record.id, record]))
      const snap = byId.get('sc-1') as Record<string, unknown>
      assert.deepEqual([snap.views, snap.shares, snap.reach, snap.interactions, snap.revenue, snap.engagement_rate], [700, 3, 650, 13, 0.01, 0.02])
      const youtube = byId.get('yt-1') as Record<string, unknown>
      assert.deepEqual([youtube.likes, youtube.comments, youtube.shares, youtube.revenue, youtube.engagement_rate], [null, null, null, null, 0.03])
    })

    it('computes engagement_rate per platform: views for tk/yt/th/da/pi, reach for fb/ig/sc/li; 0 on a 0 denominator; null when not imported', async () => {
      const { body } = await client.get({ ...PERIOD, limit: '50' })
      const rates = Object.fromEntries(body.data.map((record: { id: string, engagement_rate: number | null }) => [record.id, record.engagement_rate]))
      assert.deepEqual(rates, {
        'fb-1': 0.08125, 'ig-1': 0.115, 'tk-1': 0.065, 'yt-1': 0.03, 'li-1': 0, 'th-1': null, 'sc-1': 0.02, 'da-1': 0.03, 'pi-1': 0.06, 'ig-2': 0.1,
      })
    })

    it('includes created_time on since 00:00:00 and until 23:59:59 UTC, and nothing outside', async () => {
      const { body } = await client.get({ since: '2026-11-01', until: '2026-11-01' })
      assert.deepEqual(ids(body), ['th-1'])
      const last = await client.get({ since: '2026-11-07', until: '2026-11-07' })
      assert.deepEqual(ids(last.body), ['sc-1'])
      const wide = await client.get({ since: '2026-10-31', until: '2026-11-08', platform: 'fb', limit: '50' })
      assert.deepEqual(ids(wide.body), ['fb-late', 'fb-1', 'fb-old'])
    })

    it('uses the default period today − 7 days … today (UTC)', async () => {
      const { status, body } = await client.get()
      assert.equal(status, 200)
      assert.deepEqual([body.since, body.until], ['2026-10-29', '2026-11-05'])
      assert.deepEqual(ids(body), ['tk-1', 'da-1', 'pi-1', 'ig-1', 'ig-2', 'fb-1', 'yt-1', 'th-1', 'fb-old'])
      // Only until given: since is until − 7 days.
      const ending = await client.get({ until: '2026-11-03' })
      assert.deepEqual([ending.body.since, ending.body.until, ids(ending.body)], ['2026-10-27', '2026-11-03', ['ig-2', 'fb-1', 'yt-1', 'th-1', 'fb-old']])
    })

    it('filters by brand_id and names the single brand', async () => {
      const { body } = await client.get({ ...PERIOD, brand_id: '02', limit: '50' })
      assert.deepEqual(ids(body), ['sc-1', 'da-1', 'pi-1', 'ig-2', 'th-1'])
      assert.equal(body.brand_id, 2)
      assert.deepEqual(body.brand_ids, [2])
    })

    it('filters by platform codes or names, reporting codes in canonical order', async () => {
      const { body } = await client.get({ ...PERIOD, platform: 'instagram, FB' })
      assert.deepEqual(ids(body), ['ig-1', 'ig-2', 'fb-1'])
      assert.deepEqual(body.platforms, ['fb', 'ig'])
      assert.deepEqual(body.data.map((record: { platform: string }) => record.platform), ['instagram', 'instagram', 'facebook'])
    })

    it('filters by account_id on the one platform given (the same id on another platform is another account)', async () => {
      const instagram = await client.get({ ...PERIOD, account_id: '10', platform: 'ig' })
      assert.deepEqual(ids(instagram.body), ['ig-2'])
      assert.deepEqual(instagram.body.brand_ids, [2])
      const facebook = await client.get({ ...PERIOD, account_id: '10', platform: 'facebook' })
      assert.deepEqual(ids(facebook.body), ['fb-1'])
      assert.deepEqual(facebook.body.brand_ids, [1])
    })

    it('filters by post_type categories, case-insensitive, reels = reel', async () => {
      const { body } = await client.get({ ...PERIOD, post_type: 'Reels, video,video' })
      assert.deepEqual(ids(body), ['tk-1', 'da-1', 'ig-1', 'fb-1'])
      const stories = await client.get({ ...PERIOD, post_type: 'story' })
      assert.deepEqual(ids(stories.body), ['sc-1'])
      const none = await client.get({ ...PERIOD, post_type: 'share' })
      assert.deepEqual(none.body.data, [])
      assert.equal(none.body.next_cursor, null)
    })

    it('combines filters', async () => {
      const { body } = await client.get({ ...PERIOD, brand_id: '1', platform: 'fb,ig,tk', post_type: 'video', order_by: 'views', order: 'asc' })
      assert.deepEqual(ids(body), ['fb-1', 'tk-1'])
    })

    it('adds subjects with topics=true and category with category=true (null when none)', async () => {
      const plain = await client.get({ ...PERIOD, brand_id: '1', platform: 'fb,tk' })
      assert.equal('subjects' in plain.body.data[0], false)
      assert.equal('category' in plain.body.data[0], false)
      const { body } = await client.get({ ...PERIOD, platform: 'fb,tk', topics: 'yes', category: 'TRUE' })
      assert.deepEqual(body.data.map((record: Record<string, unknown>) => [record.id, record.subjects, record.category]), [['tk-1', null, null], ['fb-1', 'launch', 'Product']])
      const keys = Object.keys(body.data[1])
      assert.deepEqual(keys.slice(-2), ['subjects', 'category'])
      const off = await client.get({ ...PERIOD, platform: 'fb', topics: 'off', category: '0' })
      assert.equal('subjects' in off.body.data[0], false)
    })

    it('never shows posts of brands the user cannot read', async () => {
      const { body } = await client.get({ since: '2026-10-01', until: '2026-11-30', platform: 'fb', limit: '50' })
      assert.equal(ids(body).includes('fb-3'), false)
    })

    it('answers an empty page to a user with no brands', async () => {
      const nobody = await postsClient(app, test, [])
      const { status, body } = await nobody.get(PERIOD)
      assert.equal(status, 200)
      assert.deepEqual(body, { data: [], total: 0, since: PERIOD.since, until: PERIOD.until, platforms: 'all', brand_ids: [], next_cursor: null })
    })
  })
}
