import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
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

/**
 * Every order of POSTS, worked out by hand from the rows above (not from the service's own
 * denominators or platform ranks): the value shown (revenue in cents, engagement_rate to 6
 * decimals, on reach for fb/ig and views for tk, 0 on a 0 denominator), nulls last either way,
 * ties by id then by platform (facebook, instagram, tiktok) in the requested direction.
 */
const EXPECTED_ORDER: Record<OrderBy, Record<'desc' | 'asc', string[]>> = {
  created_time: {
    desc: ['i@tiktok', 'h@tiktok', 'g@tiktok', 'f@instagram', 'e@tiktok', 'same@instagram', 'same@facebook', 'c@tiktok', 'b@instagram', 'a@facebook', 'd@facebook'],
    asc: ['d@facebook', 'a@facebook', 'b@instagram', 'c@tiktok', 'same@facebook', 'same@instagram', 'e@tiktok', 'f@instagram', 'g@tiktok', 'h@tiktok', 'i@tiktok'],
  },
  interactions: {
    desc: ['i@tiktok', 'same@instagram', 'same@facebook', 'b@instagram', 'a@facebook', 'c@tiktok', 'f@instagram', 'h@tiktok', 'g@tiktok', 'e@tiktok', 'd@facebook'],
    asc: ['e@tiktok', 'g@tiktok', 'h@tiktok', 'f@instagram', 'c@tiktok', 'a@facebook', 'b@instagram', 'same@facebook', 'same@instagram', 'i@tiktok', 'd@facebook'],
  },
  revenue: {
    desc: ['same@instagram', 'same@facebook', 'b@instagram', 'a@facebook', 'f@instagram', 'e@tiktok', 'i@tiktok', 'h@tiktok', 'g@tiktok', 'd@facebook', 'c@tiktok'],
    asc: ['e@tiktok', 'f@instagram', 'a@facebook', 'b@instagram', 'same@facebook', 'same@instagram', 'c@tiktok', 'd@facebook', 'g@tiktok', 'h@tiktok', 'i@tiktok'],
  },
  reach: {
    desc: ['same@instagram', 'same@facebook', 'b@instagram', 'a@facebook', 'f@instagram', 'i@tiktok', 'h@tiktok', 'g@tiktok', 'e@tiktok', 'd@facebook', 'c@tiktok'],
    asc: ['f@instagram', 'a@facebook', 'b@instagram', 'same@facebook', 'same@instagram', 'c@tiktok', 'd@facebook', 'e@tiktok', 'g@tiktok', 'h@tiktok', 'i@tiktok'],
  },
  views: {
    desc: ['i@tiktok', 'a@facebook', 'c@tiktok', 'b@instagram', 'h@tiktok', 'same@instagram', 'same@facebook', 'g@tiktok', 'e@tiktok', 'f@instagram', 'd@facebook'],
    asc: ['e@tiktok', 'g@tiktok', 'same@facebook', 'same@instagram', 'h@tiktok', 'b@instagram', 'c@tiktok', 'a@facebook', 'i@tiktok', 'd@facebook', 'f@instagram'],
  },
  engagement_rate: {
    desc: ['f@instagram', 'c@tiktok', 'a@facebook', 'i@tiktok', 'h@tiktok', 'g@tiktok', 'b@instagram', 'same@instagram', 'same@facebook', 'e@tiktok', 'd@facebook'],
    asc: ['e@tiktok', 'same@facebook', 'same@instagram', 'b@instagram', 'g@tiktok', 'h@tiktok', 'i@tiktok', 'a@facebook', 'c@tiktok', 'f@instagram', 'd@facebook'],
  },
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
          assert.deepEqual(keysOf(records), EXPECTED_ORDER[orderBy][order])
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
