import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { DailyReport, MonthlyReport } from '../../src/http/schemas/analytics.schemas.js'
import { buildResponseSerializer } from '../../src/http/serializer.js'
import { rebuildReadModel } from '../../src/services/analytics/read-model.js'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * A daily page is written as text: each brand-day's entry is rendered once into the read model
 * (brand_daily.entry_json) and the envelope is written around the entries by hand
 * (src/http/routes/analytics/report-json.ts). Two things must hold for every kind of page:
 * - the text is byte for byte what the DailyReport schema's serializer writes for the same body
 *   (field order, numbers, escaping, optional members);
 * - a page of brands read from the rendered entries is byte for byte the page shaped from the
 *   brand-days' sums (what is served for rows rendered before entry_json existed); the same for
 *   the whole months of a monthly report (brand_monthly.entry_json).
 */

const DATASET = generateDataset({ seed: 424242, start: '2026-02-20', days: 45 })

const QUERIES: Array<Record<string, string>> = [
  { type: 'daily', brand_id: '1', since: '2026-03-01', until: '2026-03-07' },
  { type: 'daily', brand_id: '1,2,3', since: '2026-02-20', until: '2026-04-05' },
  { type: 'daily', since: '2026-02-25', until: '2026-03-31' },
  { type: 'daily', brand_id: '2', since: '2026-01-01', until: '2026-01-31' },
  { type: 'daily', brand_id: '1', platform: 'fb,ig', since: '2026-03-01', until: '2026-03-20' },
  { type: 'daily', split_by_platform: 'true', since: '2026-03-01', until: '2026-03-10' },
  { type: 'daily', platform: 'ig', account_id: '100,101', since: '2026-03-01', until: '2026-03-30' },
]

for (const dialect of DIALECTS) {
  describe(`daily pages written as text (${dialect})`, () => {
    let api: PartnerApi
    const serialize = buildResponseSerializer({})({ schema: DailyReport }) as (body: unknown) => string

    before(async () => {
      api = await openPartnerApi(dialect, { seed: async (test) => { await insertDatasetAndReadModel(test.store, DATASET) }, brandIds: [1, 2, 3] })
    })
    after(async () => { await api.close() })

    /** Every page of a query, walked with its cursors, as the raw body texts. */
    async function pages (query: Record<string, string>): Promise<string[]> {
      const texts: string[] = []
      let cursor: string | undefined
      do {
        const response = await api.app.inject({ method: 'GET', url: '/analytics/', query: cursor === undefined ? query : { ...query, cursor }, headers: api.auth })
        assert.equal(response.statusCode, 200, response.body)
        texts.push(response.body)
        cursor = (JSON.parse(response.body) as { next_cursor?: string }).next_cursor
      } while (cursor !== undefined)
      return texts
    }

    it('writes each monthly report exactly as the MonthlyReport serializer would', async () => {
      const serializeMonthly = buildResponseSerializer({})({ schema: MonthlyReport }) as (body: unknown) => string
      const monthly = QUERIES.map((query) => ({ ...query, type: 'monthly' }))
      let entries = 0
      for (const query of [...monthly, { type: 'monthly', brand_id: '1', since: '2026-02-10', until: '2026-02-10' }]) {
        const response = await api.app.inject({ method: 'GET', url: '/analytics/', query, headers: api.auth })
        assert.equal(response.statusCode, 200, response.body)
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
        const body = JSON.parse(response.body) as { data: unknown[] }
        entries += body.data.length
        assert.equal(response.body, serializeMonthly(body), JSON.stringify(query))
      }
      assert.ok(entries > 20, `only ${entries} entries were compared`)
    })

    it('writes each page exactly as the DailyReport serializer would', async () => {
      let entries = 0
      for (const query of QUERIES) {
        for (const text of await pages(query)) {
          const body = JSON.parse(text) as { data: unknown[] }
          entries += body.data.length
          assert.equal(text, serialize(body), JSON.stringify(query))
        }
      }
      assert.ok(entries > 200, `only ${entries} entries were compared`)
    })

    it('writes pages and monthly reports with include=status exactly as their serializers would', async () => {
      const serializeMonthly = buildResponseSerializer({})({ schema: MonthlyReport }) as (body: unknown) => string
      let entries = 0
      for (const query of QUERIES) {
        for (const text of await pages({ ...query, include: 'status' })) {
          const body = JSON.parse(text) as { data: Array<Record<string, unknown>> }
          assert.ok(body.data.every((entry) => typeof entry.metrics_reported === 'object'))
          entries += body.data.length
          assert.equal(text, serialize(body), JSON.stringify(query))
        }
        const monthly = await api.app.inject({ method: 'GET', url: '/analytics/', query: { ...query, type: 'monthly', include: 'status' }, headers: api.auth })
        assert.equal(monthly.body, serializeMonthly(JSON.parse(monthly.body)), JSON.stringify(query))
      }
      assert.ok(entries > 200, `only ${entries} entries were compared`)
    })

    it('serves the same bytes from the rendered entries as from the sums they were rendered from', async () => {
      const brandQueries = QUERIES.filter((query) => query.platform === undefined && query.split_by_platform === undefined && query.account_id === undefined)
      const rendered = await Promise.all(brandQueries.map(pages))
      const { count } = await api.test.store.db.selectFrom('brand_daily').select((eb) => eb.fn.countAll<number>().as('count')).where('entry_json', 'is', null).executeTakeFirstOrThrow()
      assert.equal(Number(count), 0, 'every brand-day is rendered')
      // As a store summed before entry_json existed would hold them.
      await sql`update brand_daily set entry_json = null`.execute(api.test.store.db)
      try {
        const shaped = await Promise.all(brandQueries.map(pages))
        assert.deepEqual(shaped, rendered)
        assert.ok(rendered.flat().length >= 6)
      } finally {
        await rebuildReadModel(api.test.store)
      }
    })

    it('serves the same monthly bytes from the rendered whole months as from the sums they were rendered from', async () => {
      const monthlyQueries: Array<Record<string, string>> = [
        { type: 'monthly', brand_id: '1,2,3', since: '2026-02-20', until: '2026-04-05' },
        { type: 'monthly', since: '2026-03-01', until: '2026-03-31' },
        { type: 'monthly', brand_id: '2', since: '2026-02-25', until: '2026-03-31' },
        { type: 'monthly', brand_id: '1,3', since: '2026-03-01', until: '2026-04-02', include: 'status' },
      ]
      const bodies = async (): Promise<string[]> => await Promise.all(monthlyQueries.map(async (query) => {
        const response = await api.app.inject({ method: 'GET', url: '/analytics/', query, headers: api.auth })
        assert.equal(response.statusCode, 200, response.body)
        return response.body
      }))
      const rendered = await bodies()
      const { count } = await api.test.store.db.selectFrom('brand_monthly').select((eb) => eb.fn.countAll<number>().as('count')).where('entry_json', 'is', null).executeTakeFirstOrThrow()
      assert.equal(Number(count), 0, 'every brand-month is rendered')
      // As a store summed before brand_monthly.entry_json existed would hold them.
      await sql`update brand_monthly set entry_json = null`.execute(api.test.store.db)
      try {
        assert.deepEqual(await bodies(), rendered)
        assert.ok(rendered.every((body) => (JSON.parse(body) as { data: unknown[] }).data.length >= 2))
      } finally {
        await rebuildReadModel(api.test.store)
      }
    })
  })
}
