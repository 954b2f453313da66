import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { ENGAGEMENT_DENOMINATOR } from '../../src/domain/metrics.js'
import { PLATFORM_NAMES, platformRank } from '../../src/domain/platforms.js'
import type { NewPostRow } from '../../src/storage/database.js'
import { DIALECTS, type TestStore } from '../helpers/stores.js'

import { keysOf, postRow, walkPages, type Client, openPostsWorld, closePostsWorld } from './posts-fixtures.js'

const PERIOD = { since: '2026-11-01', until: '2026-11-07', brand_id: '1' }

/** Ties everywhere: equal values, equal times, one id on two platforms, rates equal only once rounded, nulls. */
const POSTS: NewPostRow[] = [
  postRow('fb', 'a', 10, '2026-11-02T10:00:00Z', { interactions: 50, reach: 100, views: 1000, revenue_micros: 1_000_000 }),
  postRow('ig', 'b', 11, '2026-11-03T10:00:00Z', { interactions: 50, reach: 200, views: 10, revenue_micros: 1_004_999 }),
  postRow('tk', 'c', 12, '2026-11-03T10:00:00Z', { interactions: 20, views: 40 }),
  postRow('fb', 'd', 10, '2026-11-01T09:00:00Z'),
  postRow('fb', 'same', 10, '2026-11-04T00:00:00Z', { interactions: 50, reach: 400, views: 5, revenue_micros: 2_000_000 }),
  postRow('ig', 'same', 11, '2026-11-04T00:00:00Z', { interactions: 50, reach: 400, views: 5, revenue_micros: 2_000_000 }),
  postRow('tk', 'e', 12, '2026-11-05T00:00:00Z', { interactions: 0, views: 0, revenue_micros: 0 }),
  postRow('ig', 'f', 11, '2026-11-06T00:00:00Z', { interactions: 7, reach: 7, revenue_micros: 5_000 }),
  postRow('tk', 'g', 12, '2026-11-06T01:00:00Z', { interactions: 1, views: 3 }),
  postRow('tk', 'h', 12, '2026-11-06T02:00:00Z', { interactions: 2, views: 6 }),
  postRow('tk', 'i', 12, '2026-11-06T03:00:00Z', { interactions: 333_333, views: 1_000_000 }),
]

type OrderBy = 'created_time' | 'interactions' | 'revenue' | 'reach' | 'views' | 'engagement_rate'

/** The value a record is sorted by, computed here independently of the SQL: what the record shows. */
function shownValue (post: NewPostRow, orderBy: OrderBy): string | number | null {
  if (orderBy === 'created_time') return post.created_time
  if (orderBy === 'revenue') return post.revenue_micros == null ? null : Math.floor((post.revenue_micros + 5000) / 10000)
  if (orderBy === 'engagement_rate') {
    const denominator = ENGAGEMENT_DENOMINATOR[post.platform] === 'reach' ? post.reach : post.views
    if (post.interactions == null || denominator == null) return null
    return denominator === 0 ? 0 : Math.round(post.interactions * 1e6 / denominator)
  }
  return post[orderBy] ?? null
}

/** Nulls last; then the value, the id, the platform rank, all in the requested direction. */
function expectedOrder (orderBy: OrderBy, order: 'asc' | 'desc'): string[] {
  const sign = order === 'asc' ? 1 : -1
  const compare = (a: string | number, b: string | number): number => a < b ? -1 : a > b ? 1 : 0
  return [...POSTS].sort((x, y) => {
    const [vx, vy] = [shownValue(x, orderBy), shownValue(y, orderBy)]
    if (vx === null || vy === null) {
      if (vx !== vy) return vx === null ? 1 : -1
    } else if (vx !== vy) return sign * compare(vx, vy)
    return sign * (compare(x.id, y.id) || compare(platformRank(x.platform), platformRank(y.platform)))
  }).map((post) => `${post.id}@${PLATFORM_NAMES[post.platform]}`)
}

for (const dialect of DIALECTS) {
  describe(`GET /posts ordering (${dialect})`, () => {
    let test: TestStore
    let app: FastifyInstance
    let client: Client

    before(async () => { ({ test, app, client } = await openPostsWorld(dialect, POSTS)) })
    after(async () => { await closePostsWorld({ test, app, client }) })

    it('orders by interactions with id then platform breaking ties, nulls last, both ways', async () => {
      const desc = await client.get({ ...PERIOD, order_by: 'interactions', limit: '50' })
      assert.deepEqual(keysOf(desc.body.data), [
        'i@tiktok', 'same@instagram', 'same@facebook', 'b@instagram', 'a@facebook', 'c@tiktok', 'f@instagram', 'h@tiktok', 'g@tiktok', 'e@tiktok', 'd@facebook',
      ])
      const asc = await client.get({ ...PERIOD, order_by: 'interactions', order: 'asc', limit: '50' })
      assert.deepEqual(keysOf(asc.body.data), [
        'e@tiktok', 'g@tiktok', 'h@tiktok', 'f@instagram', 'c@tiktok', 'a@facebook', 'b@instagram', 'same@facebook', 'same@instagram', 'i@tiktok', 'd@facebook',
      ])
    })

    it('orders by the engagement rate shown: rates equal to 6 decimals are a tie, broken by id', async () => {
      const desc = await client.get({ ...PERIOD, order_by: 'engagement_rate', limit: '50' })
      assert.deepEqual(keysOf(desc.body.data), [
        'f@instagram', 'c@tiktok', 'a@facebook', 'i@tiktok', 'h@tiktok', 'g@tiktok', 'b@instagram', 'same@instagram', 'same@facebook', 'e@tiktok', 'd@facebook',
      ])
      assert.deepEqual(desc.body.data.slice(3, 6).map((record: { engagement_rate: number }) => record.engagement_rate), [0.333333, 0.333333, 0.333333])
      const asc = await client.get({ ...PERIOD, order_by: 'engagement_rate', order: 'asc', limit: '50' })
      assert.deepEqual(keysOf(asc.body.data), [
        'e@tiktok', 'same@facebook', 'same@instagram', 'b@instagram', 'g@tiktok', 'h@tiktok', 'i@tiktok', 'a@facebook', 'c@tiktok', 'f@instagram', 'd@facebook',
      ])
    })

    it('orders by the revenue shown (cents): 1.00 and 1.004999 are a tie', async () => {
      const desc = await client.get({ ...PERIOD, order_by: 'revenue', limit: '50' })
      assert.deepEqual(keysOf(desc.body.data).slice(0, 6), ['same@instagram', 'same@facebook', 'b@instagram', 'a@facebook', 'f@instagram', 'e@tiktok'])
      assert.deepEqual(desc.body.data.slice(2, 4).map((record: { revenue: number }) => record.revenue), [1, 1])
    })

    for (const orderBy of ['created_time', 'interactions', 'revenue', 'reach', 'views', 'engagement_rate'] as const) {
      for (const order of ['desc', 'asc'] as const) {
        it(`walks order_by=${orderBy} ${order} in pages of 2: every post once, in order, nulls last`, async () => {
          const records = await walkPages(client, { ...PERIOD, order_by: orderBy, order }, 2)
          assert.deepEqual(keysOf(records), expectedOrder(orderBy, order))
        })
      }
    }

    it('defaults to created_time desc, ties (equal times) by id desc', async () => {
      const { body } = await client.get({ ...PERIOD, limit: '50' })
      assert.deepEqual(keysOf(body.data), [
        'i@tiktok', 'h@tiktok', 'g@tiktok', 'f@instagram', 'e@tiktok', 'same@instagram', 'same@facebook', 'c@tiktok', 'b@instagram', 'a@facebook', 'd@facebook',
      ])
    })
  })
}
