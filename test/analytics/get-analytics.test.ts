import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../helpers/stores.js'
import { insertDatasetAndReadModel, workedExampleDataset } from '../helpers/analytics-fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { bearer, createPartner, loginToken } from '../helpers/partners.js'

/** The worked examples of docs/analytics.md, number for number (user granted brands 1 and 2). */

const PERIOD = { since: '2026-03-30', until: '2026-04-02' }
const ALL_PLATFORM_FIELDS = ['video_views_3s', 'video_views_2s', 'views_video', 'reach', 'impressions', 'likes', 'shares', 'comments', 'views_organic', 'views_paid', 'link_clicks']

function pick (entry: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field, entry[field]]))
}

for (const dialect of DIALECTS) {
  describe(`GET /analytics/ worked examples (${dialect})`, () => {
    let client: PartnerApi
    before(async () => {
      client = await openPartnerApi(dialect, { seed: async (t) => { await insertDatasetAndReadModel(t.store, workedExampleDataset()) }, brandIds: [1, 2] })
    })
    after(async () => { await client.close() })

    it('daily: one entry per date and brand, newest first, summed across platforms', async () => {
      const { status, body } = await client.analytics({ ...PERIOD })
      assert.equal(status, 200)
      assert.deepEqual(body.data.map((entry) => [entry.date, entry.brand_id]), [
        ['2026-04-02', 1], ['2026-04-02', 2], ['2026-04-01', 1], ['2026-04-01', 2], ['2026-03-31', 1], ['2026-03-30', 1], ['2026-03-30', 2],
      ])
      const first = body.data[0] as Record<string, unknown>
      assert.deepEqual(first, {
        date: '2026-04-02',
        brand_id: 1,
        revenue: 2,
        views: 1700,
        followers: 5840,
        new_followers: 8,
        posts_count: 5,
        posts_per_day: 5,
        interactions: 75,
        engagement_rate: 0.051724,
        interaction_rate: 0.051724,
        video_views_3s: 0,
        video_views_2s: 0,
        views_video: 0,
        reach: 1450,
        impressions: 0,
        ad_reach: 0,
        likes: 40,
        shares: 0,
        comments: 0,
        views_organic: 0,
        views_paid: 0,
        link_clicks: 0,
      })
      // 1.005 units of revenue round half-up to 1.01; a day with nothing reported gives 0, not null.
      assert.equal(body.data[4]?.revenue, 1.01)
      assert.equal(body.data[1]?.revenue, 0)
      assert.deepEqual({ ...body, data: undefined }, { data: undefined, total: 7, since: PERIOD.since, until: PERIOD.until, platforms: 'all', brand_ids: [1, 2] })
    })

    it('answers the same on /analytics without the slash', async () => {
      const withSlash = await client.analytics({ ...PERIOD, type: 'agg' })
      const without = await client.analytics({ ...PERIOD, type: 'agg' }, '/analytics')
      assert.equal(without.status, 200)
      assert.deepEqual(without.body, withSlash.body)
    })

    it('monthly: one entry per month; followers at the end of each month window; posts_per_day over days in the period', async () => {
      const { status, body } = await client.analytics({ ...PERIOD, type: 'monthly', brand_id: '1' })
      assert.equal(status, 200)
      assert.deepEqual(body.data.map((entry) => pick(entry, ['month', 'brand_id', 'revenue', 'views', 'followers', 'posts_count', 'posts_per_day', 'interactions', 'engagement_rate'])), [
        { month: '2026-04', brand_id: 1, revenue: 2, views: 2600, followers: 5840, posts_count: 5, posts_per_day: 2.5, interactions: 105, engagement_rate: 0.072414 },
        { month: '2026-03', brand_id: 1, revenue: 2.24, views: 2700, followers: 5810, posts_count: 4, posts_per_day: 2, interactions: 105, engagement_rate: 0.05 },
      ])
      assert.equal('ad_reach' in (body.data[0] ?? {}), false)
      assert.deepEqual([body.total, body.brand_id, body.brand_ids, 'next_cursor' in body], [2, 1, [1], false])
    })

    it('agg: per brand with its name, revenue null when never reported, and aggregates', async () => {
      const { status, body } = await client.analytics({ ...PERIOD, type: 'agg' })
      assert.equal(status, 200)
      assert.deepEqual(body.data.map((entry) => pick(entry, ['brand_id', 'name', 'revenue', 'views', 'followers', 'new_followers', 'posts_count', 'posts_per_day', 'interactions', 'engagement_rate', 'interaction_rate'])), [
        { brand_id: 1, name: 'Acme', revenue: 4.24, views: 5300, followers: 5840, new_followers: 33, posts_count: 9, posts_per_day: 2.25, interactions: 210, engagement_rate: 0.059155, interaction_rate: 0.059155 },
        { brand_id: 2, name: 'Globex', revenue: null, views: 4800, followers: 7300, new_followers: 0, posts_count: 4, posts_per_day: 1, interactions: 230, engagement_rate: 0.048421, interaction_rate: 0.048421 },
      ])
      assert.deepEqual(body.aggregates, {
        total: { views: 10100, revenue: 4.24, interactions: 440, posts_count: 13, new_followers: 33, followers: 13140, posts_per_day: 3.25 },
        average: { views: 5050, revenue: 2.12, interactions: 220, posts_count: 6.5, new_followers: 16.5, followers: 6570, posts_per_day: 1.63 },
      })
      assert.equal('brand_id' in body, false)
    })

    it('agg with no entries: zero aggregates and null revenue', async () => {
      const { body } = await client.analytics({ since: '2020-01-01', until: '2020-01-31', type: 'agg' })
      assert.deepEqual([body.data, body.total], [[], 0])
      const zero = { views: 0, revenue: null, interactions: 0, posts_count: 0, new_followers: 0, followers: 0, posts_per_day: 0 }
      assert.deepEqual(body.aggregates, { total: zero, average: zero })
    })

    it('agg by account: account metadata, platform, and only that platform\'s fields', async () => {
      const { status, body } = await client.analytics({ ...PERIOD, type: 'agg', account_id: '10', platform: 'Facebook' })
      assert.equal(status, 200)
      assert.deepEqual(body.data, [{
        platform: 'fb',
        account_id: 10,
        name: 'Acme FR',
        network_id: 'net-fb-10',
        storage_avatar: 'https://cdn.example.com/avatars/fb/10.png',
        permalink: 'https://example.com/fb/10',
        revenue: 4.24,
        views: 4200,
        followers: 5030,
        new_followers: 33,
        posts_count: 6,
        posts_per_day: 1.5,
        interactions: 165,
        engagement_rate: 0.061111,
        interaction_rate: 0.061111,
        video_views_3s: 0,
        reach: 2700,
        impressions: 0,
        likes: 125,
        shares: 0,
        comments: 0,
        views_organic: 0,
        views_paid: 0,
        link_clicks: 0,
      }])
      assert.deepEqual([body.platforms, body.brand_ids, 'brand_id' in body], [['fb'], [1], false])
    })

    it('daily by account: account_id and account_name instead of brand_id; the same id on another platform is another account', async () => {
      const fb = await client.analytics({ ...PERIOD, account_id: '010', platform: 'fb' })
      assert.deepEqual(fb.body.data.map((entry) => [entry.date, entry.platform, entry.account_id, entry.account_name, 'brand_id' in entry]), [
        ['2026-04-02', 'fb', 10, 'Acme FR', false], ['2026-04-01', 'fb', 10, 'Acme FR', false], ['2026-03-31', 'fb', 10, 'Acme FR', false], ['2026-03-30', 'fb', 10, 'Acme FR', false],
      ])
      const ig = await client.analytics({ ...PERIOD, account_id: '10', platform: 'instagram' })
      assert.deepEqual(ig.body.data.map((entry) => [entry.date, entry.account_name, entry.views]), [['2026-04-01', 'Globex IG', 300]])
      assert.deepEqual(ig.body.brand_ids, [2])
      assert.deepEqual(Object.keys(ig.body.data[0] ?? {}).filter((key) => ALL_PLATFORM_FIELDS.includes(key) || key === 'ad_reach'),
        ['views_video', 'reach', 'ad_reach', 'likes', 'shares', 'comments', 'views_organic', 'views_paid'])
    })

    it('with platform: one entry per requested platform, in canonical order, each carrying platform', async () => {
      const { body } = await client.analytics({ ...PERIOD, type: 'agg', platform: 'TK,fb,ig,fb' })
      assert.deepEqual(body.platforms, ['fb', 'ig', 'tk'])
      assert.deepEqual(body.data.map((entry) => [entry.brand_id, entry.platform, entry.views]), [[1, 'fb', 4200], [1, 'ig', 1100], [2, 'ig', 300], [2, 'tk', 4500]])
      const tk = body.data[3] as Record<string, unknown>
      assert.deepEqual(Object.keys(tk).filter((key) => ALL_PLATFORM_FIELDS.includes(key)), ['views_video', 'likes', 'shares', 'comments'])
      // TikTok divides by views: 220 / 4500.
      assert.equal(tk.engagement_rate, 0.048889)
    })

    it('split_by_platform: grouped by date and platform only, summed across brands, no brand_id', async () => {
      const { body } = await client.analytics({ ...PERIOD, split_by_platform: 'YES', type: 'agg' })
      assert.deepEqual(body.data.map((entry) => [entry.platform, entry.views, entry.followers, 'brand_id' in entry, 'account_id' in entry]), [
        ['fb', 4200, 5030, false, false], ['ig', 1400, 1110, false, false], ['tk', 4500, 7000, false, false],
      ])
      assert.equal(body.platforms, 'all')
      const daily = await client.analytics({ ...PERIOD, split_by_platform: 'on', platform: 'ig' })
      assert.deepEqual(daily.body.data.map((entry) => [entry.date, entry.platform, entry.views]), [['2026-04-02', 'ig', 600], ['2026-04-01', 'ig', 300], ['2026-03-31', 'ig', 500]])
    })

    it('answers a partner granted no brands with empty reports of every type, not an error', async () => {
      const nobody = bearer(await loginToken(client.app, await createPartner(client.test.store, { brandIds: [] })))
      const get = async (query: Record<string, string>) => {
        const response = await client.app.inject({ method: 'GET', url: '/analytics/', query, headers: nobody })
        return { status: response.statusCode, body: response.json() }
      }
      const envelope = { since: PERIOD.since, until: PERIOD.until, platforms: 'all', brand_ids: [] }
      assert.deepEqual(await get({ ...PERIOD }), { status: 200, body: { data: [], total: 0, ...envelope } })
      assert.deepEqual(await get({ ...PERIOD, type: 'monthly' }), { status: 200, body: { data: [], total: 0, ...envelope } })
      const zero = { views: 0, revenue: null, interactions: 0, posts_count: 0, new_followers: 0, followers: 0, posts_per_day: 0 }
      assert.deepEqual(await get({ ...PERIOD, type: 'agg' }), { status: 200, body: { data: [], total: 0, aggregates: { total: zero, average: zero }, ...envelope } })
      assert.deepEqual(await get({ ...PERIOD, type: 'agg', split_by_platform: 'true', platform: 'fb,ig' }), {
        status: 200, body: { data: [], total: 0, aggregates: { total: zero, average: zero }, ...envelope, platforms: ['fb', 'ig'] },
      })
      // Any brand it names is one it cannot read.
      assert.equal((await get({ ...PERIOD, brand_id: '1' })).status, 403)
    })

    it('a day with no data rows gives no entry (no zero-filling)', async () => {
      const { body } = await client.analytics({ since: '2026-03-31', until: '2026-03-31', brand_id: '2' })
      assert.deepEqual([body.data, body.total, body.brand_id], [[], 0, 2])
    })
  })
}
