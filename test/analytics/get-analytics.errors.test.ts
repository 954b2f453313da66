import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { DIALECTS } from '../helpers/stores.js'
import { insertDatasetAndReadModel, workedExampleDataset } from '../helpers/analytics-fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'

const ACCOUNT_400 = { detail: 'account_id requires exactly one platform to be specified' }

function locs (body: Record<string, unknown>): string[] {
  return (body.detail as Array<{ loc: string[] }>).map((item) => item.loc.join('.'))
}

for (const dialect of DIALECTS) {
  describe(`GET /analytics/ errors (${dialect})`, () => {
    let client: PartnerApi
    before(async () => {
      client = await openPartnerApi(dialect, { seed: async (t) => { await insertDatasetAndReadModel(t.store, workedExampleDataset()) }, brandIds: [1, 2] })
    })
    after(async () => { await client.close() })

    it('401 without a token, before any parameter is judged', async () => {
      const response = await client.app.inject({ method: 'GET', url: '/analytics/?type=nope&brand_id=x' })
      assert.equal(response.statusCode, 401)
      assert.equal(response.json().error_code, 'INVALID_CREDENTIALS')
    })

    it('422 lists every offending parameter once, in the contract shape', async () => {
      const { status, body } = await client.analytics({ type: 'DAILY', since: '2026-02-30', until: 'x', brand_id: '1,,2', account_id: '-3', platform: 'fb,myspace', split_by_platform: 'maybe' })
      assert.equal(status, 422)
      assert.deepEqual(locs(body), ['query.type', 'query.since', 'query.until', 'query.brand_id', 'query.account_id', 'query.platform', 'query.split_by_platform'])
      assert.deepEqual((body.detail as unknown[])[0], { loc: ['query', 'type'], msg: "String should match pattern '^(daily|agg|monthly)$'", type: 'string_pattern_mismatch', ctx: { pattern: '^(daily|agg|monthly)$' } })
      assert.deepEqual([body.error_code, body.status_code, body.status, typeof body.request_id, typeof body.timestamp], ['VALIDATION_ERROR', 422, 'error', 'string', 'string'])
    })

    it('422 for since after until, and for a period over 1096 days, on since', async () => {
      const reversed = await client.analytics({ since: '2026-04-02', until: '2026-04-01' })
      assert.deepEqual([reversed.status, locs(reversed.body)], [422, ['query.since']])
      const long = await client.analytics({ since: '2023-01-01', until: '2026-01-01' })
      assert.deepEqual([long.status, locs(long.body), (long.body.detail as Array<{ ctx: unknown }>)[0]?.ctx], [422, ['query.since'], { limit_value: 1096, actual_days: 1097 }])
      const limit = await client.analytics({ since: '2023-01-02', until: '2026-01-01' })
      assert.equal(limit.status, 200)
    })

    it('422 for 101 distinct ids; 100 with duplicates passes validation (then 403: brands 3…100 are not granted)', async () => {
      const hundred = Array.from({ length: 100 }, (_, i) => i + 1)
      const response = await client.analytics({ brand_id: [...hundred, 101].join(',') })
      assert.deepEqual([response.status, locs(response.body)], [422, ['query.brand_id']])
      assert.equal((await client.analytics({ brand_id: [...hundred, 1, 2].join(',') })).status, 403)
    })

    it('ignores unknown parameters and treats empty values as absent', async () => {
      const { status, body } = await client.analytics({ since: '2026-03-30', until: '2026-04-02', brand_id: '', frobnicate: '1' })
      assert.deepEqual([status, body.brand_ids], [200, [1, 2]])
    })

    it('400 with exactly {detail} for account_id without exactly one platform', async () => {
      for (const query of [{ account_id: '10' } as Record<string, string>, { account_id: '10', platform: 'fb,ig' }, { account_id: '10', brand_id: '3' }]) {
        const { status, body } = await client.analytics(query)
        assert.equal(status, 400)
        assert.deepEqual(body, ACCOUNT_400)
      }
    })

    it('403 for a brand not granted or not existing', async () => {
      for (const brandId of ['3', '1,3', '999']) {
        const { status, body } = await client.analytics({ brand_id: brandId })
        assert.deepEqual([status, body.error_code, body.status_code, body.status], [403, 'FORBIDDEN', 403, 'error'])
      }
    })

    it('404 for an unknown account, one on another platform, one in an inaccessible brand, or outside the given brands', async () => {
      for (const query of [
        { account_id: '77', platform: 'fb' } as Record<string, string>,
        { account_id: '20', platform: 'fb' },
        { account_id: '30', platform: 'fb' },
        { account_id: '10', platform: 'fb', brand_id: '2' },
      ]) {
        const { status, body } = await client.analytics(query)
        assert.deepEqual([status, body.error_code, body.status_code], [404, 'NOT_FOUND', 404], JSON.stringify(query))
      }
    })

    it('checks in the order 422 → 400 → 403 → 404', async () => {
      assert.equal((await client.analytics({ account_id: '10', type: 'bad' })).status, 422)
      assert.equal((await client.analytics({ account_id: '77', brand_id: '3' })).status, 400)
      assert.equal((await client.analytics({ account_id: '77', platform: 'fb', brand_id: '3' })).status, 403)
      assert.equal((await client.analytics({ account_id: '77', platform: 'fb', brand_id: '1' })).status, 404)
    })

    it('500 says "Error fetching analytics" and nothing of the failure', async () => {
      const broken = await openPartnerApi(dialect, { seed: async (t) => { await insertDatasetAndReadModel(t.store, workedExampleDataset()) }, brandIds: [1] })
      try {
        await sql`drop table daily_metrics`.execute(broken.test.store.db)
        const { status, body } = await broken.analytics({ type: 'agg' })
        assert.equal(status, 500)
        assert.deepEqual([body.detail, body.error_code, body.status_code, body.status], ['Error fetching analytics', 'INTERNAL_SERVER_ERROR', 500, 'error'])
        assert.doesNotMatch(JSON.stringify(body), /daily_metrics|select|sqlite|relation|stack/i)
      } finally {
        await broken.close()
      }
    })
  })
}
