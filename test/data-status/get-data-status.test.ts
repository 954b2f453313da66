import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { formatUtcSeconds } from '../../src/domain/dates.js'
import { importSources } from '../../src/services/import/import.service.js'
import type { DataStatusPage } from '../../src/http/schemas/data-status.schemas.js'
import { StatusOracle } from '../analytics/status-oracle.js'
import { accountRow, brandRow, dailyRow, generateDataset, insertDatasetAndReadModel, type AnalyticsDataset } from '../helpers/analytics-fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'
import { memorySource } from '../posts/posts-fixtures.js'

/**
 * GET /data-status (docs/api-reference.md "Data status"): per account in scope, its coverage, its
 * last sync and the missing days of the period, on both stores; the scope rules, errors and
 * paging of /analytics/.
 */

/**
 * Brand 1: fb 10 (days 1–3, 6, 9–10 of March: gaps 4–5 and 7–8), ig 10 (the same id on another
 * platform: 2 and 10 March), tk 12 (no row at all). Brand 2: li 20 (only 28 February), pi 21
 * (15 January, 15–16 March: a gap across two month ends, February without a row). Brand 3 (not
 * granted): fb 30.
 */
const SMALL: AnalyticsDataset = {
  brands: [brandRow(1, 'Acme'), brandRow(2, 'Globex'), brandRow(3, 'Hidden')],
  accounts: [accountRow('tk', 12, 1), accountRow('fb', 10, 1), accountRow('ig', 10, 1), accountRow('li', 20, 2), accountRow('pi', 21, 2), accountRow('fb', 30, 3)],
  daily: [
    ...['01', '02', '03', '06', '09', '10'].map((day) => dailyRow('fb', 10, `2026-03-${day}`, { views: 1 })),
    dailyRow('ig', 10, '2026-03-02'), dailyRow('ig', 10, '2026-03-10'),
    dailyRow('li', 20, '2026-02-28'),
    dailyRow('pi', 21, '2026-01-15'), dailyRow('pi', 21, '2026-03-15'), dailyRow('pi', 21, '2026-03-16'),
    dailyRow('fb', 30, '2026-03-05'),
  ],
}

const account = (brand: number, platform: string, id: number, extra: Record<string, unknown>) => ({
  brand_id: brand, platform, account_id: id, account_name: `${platform} account ${id}`, synced_at: null, ...extra,
})

for (const dialect of DIALECTS) {
  describe(`GET /data-status (${dialect})`, () => {
    let api: PartnerApi
    before(async () => {
      api = await openPartnerApi(dialect, { seed: async (test) => { await insertDatasetAndReadModel(test.store, SMALL) }, brandIds: [1, 2] })
    })
    after(async () => { await api.close() })
    const status = async (query: Record<string, string>) => await api.get<DataStatusPage>('/data-status', query)

    it('lists every account in scope by brand, platform and id, with its coverage and the missing days of the period', async () => {
      const response = await status({ since: '2026-03-02', until: '2026-03-09' })
      assert.equal(response.status, 200)
      assert.deepEqual(response.body, {
        data: [
          account(1, 'fb', 10, { first_date: '2026-03-01', last_date: '2026-03-10', days_expected: 8, days_reported: 4, missing: [{ since: '2026-03-04', until: '2026-03-05' }, { since: '2026-03-07', until: '2026-03-08' }] }),
          // Coverage 2–10 March: 3–9 March are missing, though neither edge of the period has a row.
          account(1, 'ig', 10, { first_date: '2026-03-02', last_date: '2026-03-10', days_expected: 8, days_reported: 1, missing: [{ since: '2026-03-03', until: '2026-03-09' }] }),
          account(1, 'tk', 12, { first_date: null, last_date: null, days_expected: 0, days_reported: 0, missing: [] }),
          // Its only day is before the period: nothing is expected, nothing is missing.
          account(2, 'li', 20, { first_date: '2026-02-28', last_date: '2026-02-28', days_expected: 0, days_reported: 0, missing: [] }),
          // The period lies inside its long gap: every day of it is missing.
          account(2, 'pi', 21, { first_date: '2026-01-15', last_date: '2026-03-16', days_expected: 8, days_reported: 0, missing: [{ since: '2026-03-02', until: '2026-03-09' }] }),
        ],
        total: 5,
        since: '2026-03-02',
        until: '2026-03-09',
        platforms: 'all',
        brand_ids: [1, 2],
        next_cursor: null,
      })
      assert.equal(response.headers['cache-control'], 'private, no-cache')
      assert.match(String(response.headers.etag), /^W\//)
    })

    it('counts only the days inside the coverage: a period wider than the data has no missing edge', async () => {
      const response = await status({ since: '2026-01-01', until: '2026-12-31', brand_id: '1', platform: 'fb' })
      assert.equal(response.status, 200)
      assert.deepEqual(response.body.data, [account(1, 'fb', 10, { first_date: '2026-03-01', last_date: '2026-03-10', days_expected: 10, days_reported: 6, missing: [{ since: '2026-03-04', until: '2026-03-05' }, { since: '2026-03-07', until: '2026-03-08' }] })])
      assert.deepEqual([response.body.platforms, response.body.brand_ids, response.body.brand_id], [['fb'], [1], 1])
    })

    it('finds a gap across month ends, a month without any row included, as one range', async () => {
      const response = await status({ since: '2026-01-01', until: '2026-03-31', platform: 'pi' })
      assert.deepEqual(response.body.data, [account(2, 'pi', 21, { first_date: '2026-01-15', last_date: '2026-03-16', days_expected: 61, days_reported: 3, missing: [{ since: '2026-01-16', until: '2026-03-14' }] })])
      const edges = await status({ since: '2026-01-20', until: '2026-03-15', platform: 'pi' })
      assert.deepEqual(edges.body.data.map((entry) => [entry.days_expected, entry.days_reported, entry.missing]), [[55, 1, [{ since: '2026-01-20', until: '2026-03-14' }]]])
    })

    it('a period inside one gap misses every day of it', async () => {
      const response = await status({ since: '2026-03-04', until: '2026-03-05', account_id: '10', platform: 'facebook' })
      assert.deepEqual(response.body.data.map((entry) => [entry.days_expected, entry.days_reported, entry.missing]), [[2, 0, [{ since: '2026-03-04', until: '2026-03-05' }]]])
    })

    it('pages with a cursor bound to the query, not to limit', async () => {
      const query = { since: '2026-03-01', until: '2026-03-10' }
      const first = await status({ ...query, limit: '3' })
      assert.deepEqual(first.body.data.map((entry) => `${entry.platform}:${entry.account_id}`), ['fb:10', 'ig:10', 'tk:12'])
      assert.equal(first.body.total, 3)
      assert.equal(typeof first.body.next_cursor, 'string')
      const second = await status({ ...query, limit: '50', cursor: String(first.body.next_cursor) })
      assert.equal(second.status, 200)
      assert.deepEqual(second.body.data.map((entry) => `${entry.platform}:${entry.account_id}`), ['li:20', 'pi:21'])
      assert.equal(second.body.next_cursor, null)
      // An exact page holds them all and says so.
      const exact = await status({ ...query, limit: '5' })
      assert.equal(exact.body.next_cursor, null)
      // The same query written differently is the same query.
      const respelled = await status({ since: '2026-03-01', until: '2026-03-10', brand_id: '', cursor: String(first.body.next_cursor) })
      assert.equal(respelled.status, 200)
      for (const other of [{ ...query, until: '2026-03-11' }, { ...query, brand_id: '1' }, { ...query, platform: 'fb' }]) {
        const refused = await status({ ...other, cursor: String(first.body.next_cursor) })
        assert.equal(refused.status, 422, JSON.stringify(other))
        assert.deepEqual((refused.body.detail as Array<{ loc: string[], type: string }>).map((item) => [item.loc, item.type]), [[['query', 'cursor'], 'cursor_invalid']])
      }
      const edited = await status({ ...query, cursor: `${String(first.body.next_cursor)}x` })
      assert.equal(edited.status, 422)
    })

    it('applies the scope rules of /analytics/: 400 → 403 → 404', async () => {
      const bare = await status({ account_id: '10' })
      assert.equal(bare.status, 400)
      assert.deepEqual(bare.body, { detail: 'account_id requires exactly one platform to be specified' })
      const forbidden = await status({ brand_id: '3,1', account_id: '10' })
      assert.equal(forbidden.status, 400, 'the 400 comes first')
      const hidden = await status({ brand_id: '3' })
      assert.equal(hidden.status, 403)
      assert.equal(hidden.body.detail, 'You do not have access to brand_id 3')
      const unknown = await status({ brand_id: '99' })
      assert.equal(unknown.status, 403)
      const notThere = await status({ account_id: '30', platform: 'fb' })
      assert.equal(notThere.status, 404)
      assert.equal(notThere.body.error_code, 'NOT_FOUND')
      const otherBrand = await status({ account_id: '20', platform: 'li', brand_id: '1' })
      assert.equal(otherBrand.status, 404)
    })

    it('validates its parameters like /analytics/, every problem in one 422', async () => {
      const response = await status({ since: '2026-02-30', platform: 'fb,xx', limit: '0', brand_id: '1,,2' })
      assert.equal(response.status, 422)
      const locs = (response.body.detail as Array<{ loc: string[] }>).map((item) => item.loc[1]).sort()
      assert.deepEqual(locs, ['brand_id', 'limit', 'platform', 'since'])
      for (const [query, type] of [[{ since: '2026-03-10', until: '2026-03-01' }, 'date_order'], [{ since: '2023-01-01', until: '2026-01-01' }, 'period_too_long'], [{ limit: '101' }, 'less_than_equal']] as const) {
        const refused = await status(query)
        assert.equal(refused.status, 422, JSON.stringify(query))
        assert.equal((refused.body.detail as Array<{ type: string }>)[0]?.type, type)
      }
    })

    it('defaults to the period of /analytics/: today − 7 days … today', async () => {
      const response = await status({})
      const analytics = await api.analytics({})
      assert.deepEqual([response.body.since, response.body.until], [analytics.body.since, analytics.body.until])
    })

    it('needs the bearer token', async () => {
      const response = await api.get('/data-status', {}, {})
      assert.equal(response.status, 401)
      assert.equal(response.body.error_code, 'INVALID_CREDENTIALS')
    })
  })

  describe(`GET /data-status on generated data and after imports (${dialect})`, () => {
    const dataset = generateDataset({ seed: 7, start: '2026-01-20', days: 75 })
    let api: PartnerApi
    before(async () => {
      api = await openPartnerApi(dialect, { seed: async (test) => { await insertDatasetAndReadModel(test.store, dataset) }, brandIds: [1, 2, 3] })
    })
    after(async () => { await api.close() })

    it('agrees with the row-by-row model for many periods and scopes, page after page', async () => {
      const model = new StatusOracle(dataset, [1, 2, 3])
      const scopes: Array<{ brandIds?: number[], accountIds?: number[], platforms?: string[] }> = [{}, { brandIds: [2] }, { platforms: ['ig', 'fb'] }, { accountIds: [100], platforms: ['ig'] }, { brandIds: [1], platforms: ['pi'] }]
      let compared = 0
      for (const [since, until] of [['2026-01-01', '2026-12-31'], ['2026-02-01', '2026-02-28'], ['2026-03-15', '2026-03-15'], ['2026-04-01', '2026-05-01'], ['2025-01-01', '2026-01-19']]) {
        for (const scope of scopes) {
          const query: Record<string, string> = {
            since: since as string,
            until: until as string,
            limit: '2',
            ...(scope.brandIds === undefined ? {} : { brand_id: scope.brandIds.join(',') }),
            ...(scope.accountIds === undefined ? {} : { account_id: scope.accountIds.join(',') }),
            ...(scope.platforms === undefined ? {} : { platform: scope.platforms.join(',') }),
          }
          const seen: Array<Record<string, unknown>> = []
          let cursor: string | undefined
          do {
            const page = await api.get<DataStatusPage>('/data-status', cursor === undefined ? query : { ...query, cursor })
            assert.equal(page.status, 200, JSON.stringify(page.body))
            seen.push(...page.body.data.map(({ synced_at: _synced, ...rest }) => rest))
            cursor = page.body.next_cursor ?? undefined
            assert.ok(seen.length < 100)
          } while (cursor !== undefined)
          assert.deepEqual(seen, model.dataStatus({ since: since as string, until: until as string, ...scope }), JSON.stringify(query))
          compared += seen.length
        }
      }
      assert.ok(compared > 100, `only ${compared} accounts compared`)
    })

    it('gives synced_at once an import has written an account\'s days, to the second, and widens the coverage', async () => {
      const before = formatUtcSeconds()
      await importSources(api.test.store, [memorySource([
        { kind: 'daily', platform: 'fb', account_id: 100, date: '2026-06-01', views: 5 },
      ])])
      const afterImport = formatUtcSeconds()
      const response = await api.get<DataStatusPage>('/data-status', { account_id: '100', platform: 'fb', since: '2026-04-01', until: '2026-06-30' })
      const [entry] = response.body.data
      assert.ok(entry !== undefined)
      assert.match(String(entry.synced_at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
      assert.ok(String(entry.synced_at) >= before && String(entry.synced_at) <= afterImport, `${String(entry.synced_at)} not in ${before} … ${afterImport}`)
      assert.equal(entry.last_date, '2026-06-01')
      // The days between the old last day and the new one are now a gap of the coverage.
      const old = dataset.daily.filter((row) => row.platform === 'fb' && Number(row.account_id) === 100).map((row) => row.date).sort().at(-1) as string
      assert.deepEqual(entry.missing.at(-1), { since: new Date(Date.parse(old) + 86_400_000).toISOString().slice(0, 10), until: '2026-05-31' })
      // Another account keeps its null synced_at: no import touched it.
      const other = await api.get<DataStatusPage>('/data-status', { account_id: '101', platform: 'ig' })
      assert.equal(other.body.data[0]?.synced_at, null)
    })
  })
}
