import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { insertDatasetAndReadModel, workedExampleDataset } from '../helpers/analytics-fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'
import { datasetWithCoverages } from './carry-dataset.js'
import { CarryOracle } from './carry-oracle.js'
import type { OracleQuery } from './oracle.js'
import { generatedQueries, queryOf } from './oracle-queries.js'

/**
 * /analytics/?gaps=carry (docs/analytics.md "Missing data") against an independent model of the
 * gap rules, on random accounts with random missing days and missing metrics whose coverages
 * start and end on different days: every entry's stock and rates are the model's, everything
 * else is the entry served without `gaps` (the same pages and cursors; flows never invented);
 * a group whose accounts all missed a window inside their coverage is an entry too (carried-only:
 * its stock carried, its flows 0), exactly where the model says; and with include=status each
 * entry says which accounts were carried and missing.
 */

const DATASET = datasetWithCoverages()
const ACCESSIBLE = [1, 2, 3]
const CARRIED = ['followers', 'posts_per_day', 'engagement_rate', 'interaction_rate']
const STATUS = ['accounts_expected', 'accounts_reported', 'metrics_reported', 'metrics_expected']
const RUNS = Number(process.env.CARRY_RUNS ?? 30)

type Body = { data: Array<Record<string, unknown>>, next_cursor?: string, aggregates?: unknown }

const FIXED: OracleQuery[] = [
  { type: 'daily', since: '2026-02-01', until: '2026-02-28', split: false },
  { type: 'daily', since: '2026-01-15', until: '2026-02-20', brandIds: [1], platforms: ['tk', 'yt', 'th'], split: false },
  { type: 'daily', since: '2026-03-01', until: '2026-03-12', split: true },
  { type: 'daily', since: '2026-02-10', until: '2026-03-10', accountIds: [100, 204], platforms: ['fb'], split: false },
  { type: 'monthly', since: '2026-01-10', until: '2026-04-10', split: false },
  { type: 'monthly', since: '2026-01-25', until: '2026-03-03', platforms: ['ig', 'li', 'pi'], split: false },
  { type: 'monthly', since: '2026-02-01', until: '2026-04-30', split: true },
  { type: 'agg', since: '2026-01-01', until: '2026-05-01', split: false },
  { type: 'agg', since: '2026-02-03', until: '2026-02-20', brandIds: [2], platforms: ['ig', 'sc', 'li'], split: false },
  { type: 'agg', since: '2026-01-20', until: '2026-04-04', accountIds: [100, 101], platforms: ['ig'], split: false },
  { type: 'agg', since: '2026-03-01', until: '2026-03-31', split: true },
  // One day per brand and platform, and one brand split by platform (the dashboard's Platforms view of a day): accounts alone missing it.
  { type: 'agg', since: '2026-02-12', until: '2026-02-12', platforms: ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'sc', 'da', 'pi'], split: false },
  { type: 'agg', since: '2026-03-03', until: '2026-03-03', brandIds: [2], split: true },
]

const generated = generatedQueries(ACCESSIBLE)

for (const dialect of DIALECTS) {
  describe(`GET /analytics/?gaps=carry (${dialect})`, () => {
    let api: PartnerApi
    const model = new CarryOracle(DATASET, ACCESSIBLE)

    before(async () => {
      api = await openPartnerApi(dialect, { seed: async (test) => { await insertDatasetAndReadModel(test.store, DATASET) }, brandIds: ACCESSIBLE })
    })
    after(async () => { await api.close() })

    async function pages (query: Record<string, string>): Promise<Body[]> {
      const bodies: Body[] = []
      let cursor: string | undefined
      do {
        const response = await api.app.inject({ method: 'GET', url: '/analytics/', query: cursor === undefined ? query : { ...query, cursor }, headers: api.auth })
        assert.equal(response.statusCode, 200, response.body)
        const body = JSON.parse(response.body) as Body
        bodies.push(body)
        cursor = body.next_cursor
        assert.ok(bodies.length < 100, 'bounded walk')
      } while (cursor !== undefined)
      return bodies
    }

    /** An entry's key fields (its bucket and group), as the oracle's carriedOnly lists them. */
    const keyOf = (entry: Record<string, unknown>): string => JSON.stringify(Object.fromEntries(['date', 'month', 'brand_id', 'account_id', 'platform'].filter((field) => field in entry).map((field) => [field, entry[field]])))

    /** Checks one query with and without status; returns the entries compared, how many had a carried stock, and how many were carried-only. */
    async function check (q: OracleQuery): Promise<[number, number, number]> {
      const zero = await pages(queryOf(q))
      const carriedOnly = model.carriedOnly(q).map((key) => JSON.stringify(key))
      let entries = 0
      let carried = 0
      let added = 0
      for (const withStatus of [false, true]) {
        const carry = await pages({ ...queryOf(q), gaps: 'carry', ...(withStatus ? { include: 'status' } : {}) })
        assert.equal(carry.length, zero.length, 'the same pages')
        const seenAdded: string[] = []
        for (const [index, body] of carry.entries()) {
          const plain = zero[index] as Body
          assert.equal(body.next_cursor, plain.next_cursor, 'the same cursor')
          // The page's entries are the ones without gaps, in their order, with the carried-only ones among them.
          const plainKeys = plain.data.map(keyOf)
          const rowBacked = body.data.filter((entry) => plainKeys.includes(keyOf(entry)))
          assert.deepEqual(rowBacked.map(keyOf), plainKeys, 'the same entries, in the same order')
          for (const entry of body.data) {
            const label = `${JSON.stringify(q)} ${JSON.stringify(entry)}`
            const expected = model.expected(q, entry, withStatus)
            for (const field of CARRIED) assert.equal(entry[field], expected[field], `${field}: ${label}`)
            if (withStatus) {
              assert.deepEqual(entry.gaps, expected.gaps, `gaps: ${label}`)
              assert.deepEqual(Object.keys(entry).slice(-5), [...STATUS, ...(q.type === 'monthly' ? ['account_days_expected', 'account_days_reported'] : []), 'gaps'].slice(-5))
              if ((entry.gaps as { followers: { carried: number } }).followers.carried > 0) carried++
            }
            const rest = Object.fromEntries(Object.entries(entry).filter(([field]) => !CARRIED.includes(field) && !STATUS.includes(field) && !field.startsWith('account_days_') && field !== 'gaps'))
            const position = plainKeys.indexOf(keyOf(entry))
            if (position >= 0) {
              // Everything else (keys, flows, revenue, platform fields) is the entry served without gaps.
              const plainRest = Object.fromEntries(Object.entries(plain.data[position] as Record<string, unknown>).filter(([field]) => !CARRIED.includes(field)))
              assert.deepEqual(rest, plainRest, label)
            } else {
              // A carried-only entry: no flow invented (0; agg revenue null), nothing reported.
              seenAdded.push(keyOf(entry))
              for (const [field, value] of Object.entries(rest)) {
                if (['date', 'month', 'brand_id', 'account_id', 'platform', 'name', 'account_name', 'network_id', 'storage_avatar', 'permalink'].includes(field)) continue
                assert.equal(value, field === 'revenue' && q.type === 'agg' ? null : 0, `${field} of a carried-only entry: ${label}`)
              }
              if (withStatus) assert.equal(entry.accounts_reported, 0, `nothing reported: ${label}`)
              added++
            }
            entries++
          }
          if (q.type === 'agg') {
            // The aggregates are the carried entries' (followers and posts_per_day rounded as the contract's are).
            const total = body.aggregates as { total: { followers: number, posts_per_day: number } }
            assert.equal(total.total.followers, body.data.reduce((sum, entry) => sum + Number(entry.followers), 0))
            assert.equal(total.total.posts_per_day, body.data.reduce((sum, entry) => sum + Math.round(Number(entry.posts_per_day) * 100), 0) / 100)
          }
        }
        // Exactly the model's carried-only entries, in the report's order.
        assert.deepEqual(seenAdded, carriedOnly, `carried-only entries of ${JSON.stringify(q)}`)
      }
      return [entries, carried, added]
    }

    it('gives every entry the model\'s stocks and rates, and leaves everything else as without gaps (fixed queries)', async () => {
      let entries = 0
      let carried = 0
      let added = 0
      for (const q of FIXED) {
        const [compared, withCarry, carriedOnly] = await check(q)
        entries += compared
        carried += withCarry
        added += carriedOnly
      }
      assert.ok(entries > 300, `only ${entries} entries compared`)
      assert.ok(carried > 50, `only ${carried} entries with a carried stock`)
      assert.ok(added > 10, `only ${added} carried-only entries (a group whose accounts all missed the window)`)
    })

    it('agrees with the model on generated queries', async () => {
      await fc.assert(fc.asyncProperty(generated, async (q) => { await check(q) }), { numRuns: RUNS, seed: 28 })
    })

    it('refuses an unknown gaps value with one 422 item on gaps', async () => {
      for (const gaps of ['CARRY', 'fill', 'carry,zero']) {
        const response = await api.analytics({ gaps })
        assert.equal(response.status, 422, gaps)
        const detail = response.body.detail as Array<{ loc: string[] }>
        assert.deepEqual(detail.map((item) => item.loc), [['query', 'gaps']], gaps)
      }
      // gaps=zero is the default answer, byte for byte.
      const query = { type: 'monthly', since: '2026-01-20', until: '2026-04-03' }
      const plain = await api.app.inject({ method: 'GET', url: '/analytics/', query, headers: api.auth })
      const zero = await api.app.inject({ method: 'GET', url: '/analytics/', query: { ...query, gaps: 'zero' }, headers: api.auth })
      assert.equal(zero.statusCode, 200)
      assert.equal(zero.body, plain.body)
    })
  })
}

for (const dialect of DIALECTS) {
  describe(`gaps=carry on the worked example of docs/analytics.md (${dialect})`, () => {
    let api: PartnerApi
    before(async () => {
      api = await openPartnerApi(dialect, { seed: async (test) => { await insertDatasetAndReadModel(test.store, workedExampleDataset()) }, brandIds: [1, 2] })
    })
    after(async () => { await api.close() })

    it('carries brand 1\'s followers on 2026-04-01 and divides no account\'s interactions by another\'s reach', async () => {
      const query = { brand_id: '1', since: '2026-04-01', until: '2026-04-01' }
      const zero = await api.analytics(query)
      const carry = await api.analytics({ ...query, gaps: 'carry', include: 'status' })
      assert.equal(zero.body.data[0]?.followers, 0)
      const entry = carry.body.data[0] as Record<string, unknown>
      assert.equal(entry.followers, 5810)
      assert.equal(entry.views, 900)
      assert.equal(entry.engagement_rate, 0)
      const gaps = entry.gaps as Record<string, unknown>
      assert.deepEqual(gaps.followers, { carried: 2, missing: [{ platform: 'fb', account_id: 10, days: 1 }, { platform: 'ig', account_id: 11, days: 1 }] })
      assert.deepEqual(gaps.views, { carried: 0, missing: [{ platform: 'ig', account_id: 11, days: 1 }] })
      assert.deepEqual(gaps.reach, { carried: 0, missing: [{ platform: 'fb', account_id: 10, days: 1 }, { platform: 'ig', account_id: 11, days: 1 }] })
    })

    it('marks a period reaching past the data as not synced, and counts none of those days', async () => {
      // The data ends 2026-04-02; the period runs to 2026-04-30 (as a future until would).
      const query = { type: 'agg', brand_id: '1', since: '2026-03-30', until: '2026-04-30' }
      const zero = await api.analytics({ ...query, include: 'status' })
      const carry = await api.analytics({ ...query, include: 'status', gaps: 'carry' })
      for (const body of [zero.body, carry.body]) {
        assert.equal(body.data_through, '2026-04-02')
        assert.deepEqual(body.not_synced, { since: '2026-04-03', until: '2026-04-30' })
        assert.equal(body.until, '2026-04-30', 'the period is kept as asked')
        // Account-days expected stop at each account's last row: fb 10 4 days, ig 11 2026-03-31 … 2026-04-02.
        assert.equal(body.data[0]?.accounts_expected, 7)
      }
      // The contract's posts_per_day divides 9 posts by 32 days; by the gap rules each account's posts per day it reported: 6/4 + 3/2.
      assert.equal(zero.body.data[0]?.posts_per_day, 0.28)
      assert.equal(carry.body.data[0]?.posts_per_day, 3)
      assert.equal(carry.body.data[0]?.followers, 5030 + 810)
      // Without include=status the envelope is the contract's.
      const plain = await api.analytics(query)
      assert.equal('data_through' in plain.body, false)
      assert.equal('not_synced' in plain.body, false)
      const inside = await api.analytics({ ...query, until: '2026-04-02', include: 'status' })
      assert.equal(inside.body.not_synced, null)
    })
  })
}
