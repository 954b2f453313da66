import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { generateDataset, insertDatasetAndReadModel, type AnalyticsDataset } from '../helpers/analytics-fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'
import type { OracleQuery } from './oracle.js'
import { generatedQueries, queryOf } from './oracle-queries.js'
import { StatusOracle } from './status-oracle.js'

/**
 * /analytics/?include=status (docs/api-reference.md "Completeness"): every entry of every report
 * carries the completeness the independent model computes from the rows, and is otherwise the
 * very entry served without `include` — the same bytes, the same cursors, the numbers untouched.
 */

const DATASET: AnalyticsDataset = generateDataset({ seed: 20261125, start: '2026-01-20', days: 75 })
const ACCESSIBLE = [1, 2, 3]
const STATUS_FIELDS = ['accounts_expected', 'accounts_reported', 'metrics_reported', 'metrics_expected']
const RUNS = Number(process.env.STATUS_RUNS ?? 40)

type Body = { data: Array<Record<string, unknown>>, next_cursor?: string }

const FIXED: OracleQuery[] = [
  { type: 'daily', since: '2026-02-01', until: '2026-02-28', split: false },
  { type: 'daily', since: '2026-01-15', until: '2026-02-05', brandIds: [1], platforms: ['fb', 'ig', 'th'], split: false },
  { type: 'daily', since: '2026-03-01', until: '2026-03-12', split: true },
  { type: 'daily', since: '2026-02-10', until: '2026-03-10', accountIds: [100, 204], platforms: ['fb'], split: false },
  { type: 'monthly', since: '2026-01-10', until: '2026-04-10', split: false },
  { type: 'monthly', since: '2026-01-25', until: '2026-03-03', platforms: ['ig', 'li', 'pi'], split: false },
  { type: 'monthly', since: '2026-02-01', until: '2026-04-30', split: true },
  { type: 'agg', since: '2026-01-01', until: '2026-05-01', split: false },
  { type: 'agg', since: '2026-02-03', until: '2026-02-20', brandIds: [2], platforms: ['ig', 'sc', 'da'], split: false },
  { type: 'agg', since: '2026-01-20', until: '2026-04-04', accountIds: [100, 101], platforms: ['ig'], split: false },
  { type: 'agg', since: '2026-03-01', until: '2026-03-31', split: true },
]

const generated = generatedQueries(ACCESSIBLE)

for (const dialect of DIALECTS) {
  describe(`GET /analytics/?include=status (${dialect})`, () => {
    let api: PartnerApi
    const model = new StatusOracle(DATASET, ACCESSIBLE)

    before(async () => {
      api = await openPartnerApi(dialect, { seed: async (test) => { await insertDatasetAndReadModel(test.store, DATASET) }, brandIds: ACCESSIBLE })
    })
    after(async () => { await api.close() })

    /** Every page of a query as raw texts, following next_cursor (daily). */
    async function texts (query: Record<string, string>): Promise<string[]> {
      const pages: string[] = []
      let cursor: string | undefined
      do {
        const response = await api.app.inject({ method: 'GET', url: '/analytics/', query: cursor === undefined ? query : { ...query, cursor }, headers: api.auth })
        assert.equal(response.statusCode, 200, response.body)
        pages.push(response.body)
        cursor = (JSON.parse(response.body) as Body).next_cursor
        assert.ok(pages.length < 100, 'bounded walk')
      } while (cursor !== undefined)
      return pages
    }

    /** Checks one query; returns how many entries it compared. */
    async function check (q: OracleQuery): Promise<number> {
      const plain = await texts(queryOf(q))
      const withStatus = await texts({ ...queryOf(q), include: 'status' })
      assert.equal(withStatus.length, plain.length, 'the same pages')
      let entries = 0
      for (const [index, text] of withStatus.entries()) {
        const body = JSON.parse(text) as Body
        // Monthly entries also count the month's account-days.
        const fields = q.type === 'monthly' ? [...STATUS_FIELDS, 'account_days_expected', 'account_days_reported'] : STATUS_FIELDS
        for (const entry of body.data) {
          const status = Object.fromEntries(fields.map((field) => [field, entry[field]]))
          assert.deepEqual(status, model.entryStatus(q, entry), `${JSON.stringify(q)} ${JSON.stringify(entry)}`)
          // The status members come last, after every field of the entry.
          assert.deepEqual(Object.keys(entry).slice(-fields.length), fields)
          for (const field of fields) Reflect.deleteProperty(entry, field)
          entries++
        }
        // The envelope ends with how far the scope's data reaches.
        const envelope = body as Body & Record<string, unknown>
        assert.deepEqual(Object.keys(envelope).slice(-2), ['data_through', 'not_synced'])
        assert.deepEqual({ data_through: envelope.data_through, not_synced: envelope.not_synced }, model.through(q), JSON.stringify(q))
        Reflect.deleteProperty(envelope, 'data_through')
        Reflect.deleteProperty(envelope, 'not_synced')
        // Without its status members, the page is the page served without include, byte for byte (its cursor too).
        assert.equal(JSON.stringify(body), plain[index], JSON.stringify(q))
      }
      return entries
    }

    it('adds to every entry what the rows say, and nothing else changes (fixed queries)', async () => {
      let entries = 0
      for (const q of FIXED) entries += await check(q)
      assert.ok(entries > 150, `only ${entries} entries compared`)
    })

    it('agrees with the model on generated queries', async () => {
      await fc.assert(fc.asyncProperty(generated, async (q) => { await check(q) }), { numRuns: RUNS, seed: 2026 })
    })

    it('a daily cursor is the same with or without include, and works with either', async () => {
      const query = { type: 'daily', since: '2026-02-01', until: '2026-03-15' }
      const first = await api.analytics({ ...query, include: 'status' })
      const firstPlain = await api.analytics(query)
      assert.equal(first.body.next_cursor, firstPlain.body.next_cursor)
      const cursor = String(first.body.next_cursor)
      const second = await api.analytics({ ...query, cursor })
      const secondWith = await api.analytics({ ...query, cursor, include: 'STATUS' })
      assert.equal(second.status, 200)
      assert.equal(secondWith.status, 200)
      assert.deepEqual(secondWith.body.data.map((entry) => [entry.date, entry.brand_id]), second.body.data.map((entry) => [entry.date, entry.brand_id]))
      assert.ok(secondWith.body.data.every((entry) => typeof (entry as Record<string, unknown>).accounts_expected === 'number'))
    })

    it('refuses an unknown include value, an empty item and a trailing comma with one 422 item on include', async () => {
      for (const include of ['statuses', 'status,totals', 'status,,status', 'status,']) {
        const response = await api.analytics({ include })
        assert.equal(response.status, 422, include)
        const detail = response.body.detail as Array<{ loc: string[] }>
        assert.deepEqual(detail.map((item) => item.loc), [['query', 'include']], include)
      }
      // Repeated values collapse; case does not matter; an empty value is no include.
      const repeated = await api.analytics({ include: 'status, Status', since: '2026-02-01', until: '2026-02-02' })
      assert.equal(repeated.status, 200)
      assert.ok(repeated.body.data.every((entry) => 'accounts_expected' in entry))
      const empty = await api.analytics({ include: '', since: '2026-02-01', until: '2026-02-02' })
      assert.equal(empty.status, 200)
      assert.ok(empty.body.data.every((entry) => !('accounts_expected' in entry)))
    })
  })
}
