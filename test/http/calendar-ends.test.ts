import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { MonthlyReport } from '../../src/http/schemas/analytics.schemas.js'
import { rebuildReadModel } from '../../src/services/analytics/read-model.js'
import { dailyRow } from '../helpers/analytics-fixtures.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'
import { insertPosts, postRow } from '../posts/posts-fixtures.js'

/**
 * Dates at the calendar's ends reach the stores as values they accept (issue 11.4): `until=0001-01-03`
 * (whose default `since` would fall before year 1) and `since=9999-12-25&until=9999-12-31` (whose
 * exclusive upper bound would be year 10000) answered 500 on PostgreSQL. Each report type and
 * /posts is asked on both stores, with data on the very first and last days, and the rows come back.
 */

for (const dialect of DIALECTS) {
  describe(`dates at the calendar's ends (${dialect})`, () => {
    let api: PartnerApi

    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => {
          await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1, accounts: [{ platform: 'fb', account_id: 10 }] }])
          await test.store.db.insertInto('daily_metrics').values([
            dailyRow('fb', 10, '0001-01-01', { views: 1 }),
            dailyRow('fb', 10, '0001-01-03', { views: 3 }),
            dailyRow('fb', 10, '9999-12-25', { views: 25 }),
            dailyRow('fb', 10, '9999-12-31', { views: 31 }),
          ]).execute()
          // Raw rows written by hand: sum them into the read model the reports read, as an import would.
          await rebuildReadModel(test.store)
          await insertPosts(test.store.db, [
            postRow('fb', 'first', 10, '0001-01-01T00:00:00Z'),
            postRow('fb', 'early', 10, '0001-01-03T23:59:59Z'),
            postRow('fb', 'late', 10, '9999-12-25T00:00:00Z'),
            postRow('fb', 'last', 10, '9999-12-31T23:59:59Z'),
          ])
        },
        brandIds: [1],
      })
    })
    after(async () => { await api.close() })

    const PERIODS: Array<{ query: Record<string, string>, since: string, until: string, days: string[], month: string, posts: string[] }> = [
      { query: { until: '0001-01-03' }, since: '0001-01-01', until: '0001-01-03', days: ['0001-01-03', '0001-01-01'], month: '0001-01', posts: ['early', 'first'] },
      { query: { since: '0001-01-01', until: '0001-01-01' }, since: '0001-01-01', until: '0001-01-01', days: ['0001-01-01'], month: '0001-01', posts: ['first'] },
      { query: { since: '9999-12-25', until: '9999-12-31' }, since: '9999-12-25', until: '9999-12-31', days: ['9999-12-31', '9999-12-25'], month: '9999-12', posts: ['last', 'late'] },
      { query: { since: '9999-12-31', until: '9999-12-31' }, since: '9999-12-31', until: '9999-12-31', days: ['9999-12-31'], month: '9999-12', posts: ['last'] },
    ]

    for (const period of PERIODS) {
      const label = new URLSearchParams(period.query).toString()
      it(`/analytics/ daily, monthly and agg, and /posts, for ${label}`, async () => {
        const daily = await api.analytics({ type: 'daily', ...period.query })
        assert.equal(daily.status, 200, daily.body as never)
        assert.deepEqual([daily.body.since, daily.body.until], [period.since, period.until])
        assert.deepEqual(daily.body.data.map((entry) => entry.date), period.days)

        const monthly = await api.analytics<MonthlyReport>({ type: 'monthly', ...period.query })
        assert.equal(monthly.status, 200, JSON.stringify(monthly.body))
        assert.deepEqual(monthly.body.data.map((entry) => entry.month), [period.month])

        const agg = await api.analytics({ type: 'agg', ...period.query })
        assert.equal(agg.status, 200, JSON.stringify(agg.body))
        const views = { '0001-01-01': 1, '0001-01-03': 3, '9999-12-25': 25, '9999-12-31': 31 } as Record<string, number>
        assert.equal(agg.body.data[0]?.views, period.days.reduce((sum, day) => sum + (views[day] ?? 0), 0))

        const posts = await api.posts(period.query)
        assert.equal(posts.status, 200, JSON.stringify(posts.body))
        assert.deepEqual(posts.body.data.map((post) => post.id), period.posts)
        assert.deepEqual([posts.body.since, posts.body.until], [period.since, period.until])
      })
    }

    it('pages /posts across the last day with a cursor', async () => {
      const first = await api.posts({ since: '9999-12-25', until: '9999-12-31', limit: '1' })
      assert.equal(first.status, 200)
      assert.deepEqual(first.body.data.map((post) => [post.id, post.created_time]), [['last', '9999-12-31T23:59:59Z']])
      const second = await api.posts({ since: '9999-12-25', until: '9999-12-31', limit: '1', cursor: first.body.next_cursor ?? '' })
      assert.equal(second.status, 200, JSON.stringify(second.body))
      assert.deepEqual(second.body.data.map((post) => [post.id, post.created_time]), [['late', '9999-12-25T00:00:00Z']])
      assert.equal(second.body.next_cursor, null)
    })

    it('refuses dates outside 0001-01-01 … 9999-12-31 with 422 date_parsing, and a default period that would be too long', async () => {
      const dateParsing = (name: string) => [{ loc: ['query', name], msg: 'Input should be a valid date in the format YYYY-MM-DD', type: 'date_parsing', ctx: {} }]
      for (const [query, name] of [[{ until: '10000-01-01' }, 'until'], [{ since: '0000-12-31' }, 'since'], [{ until: '9999-12-32' }, 'until'], [{ since: '-0001-01-01' }, 'since']] as const) {
        for (const response of [await api.analytics({ type: 'agg', ...query }), await api.posts(query)]) {
          assert.equal(response.status, 422, JSON.stringify(response.body))
          assert.deepEqual(response.body.detail, dateParsing(name))
        }
      }
      // until alone at the end of the calendar: the default since (7 days before today) is too far back.
      const tooLong = await api.analytics({ type: 'agg', until: '9999-12-31' })
      assert.equal(tooLong.status, 422)
      assert.deepEqual((tooLong.body.detail as Array<{ type: string }>).map((issue) => issue.type), ['period_too_long'])
    })
  })
}
