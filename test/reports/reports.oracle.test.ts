import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { generateDataset, insertDatasetAndReadModel, type AnalyticsDataset } from '../helpers/analytics-fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'
import { reportOracle, type OracleReport } from './report-oracle.js'

/**
 * Property-based: seeded random report requests (dimensions, metrics, filters, orders, limits,
 * comparisons, includes; periods crossing month, quarter and year edges and ISO week 2026-W53),
 * each walked page by page on SQLite and PostgreSQL: the two answers byte-identical, page after
 * page, and the whole equal to the independent oracle (report-oracle.ts).
 */

// A year and a half of data: late 2025 to early 2027, so previous_year and 2026-W53 have rows.
const DATASET: AnalyticsDataset = generateDataset({ seed: 20261130, start: '2025-10-01', days: 500 })
const ACCESSIBLE = [1, 2, 3]
const CODES = ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'sc', 'da', 'pi']
const METRICS = ['revenue', 'views', 'followers', 'new_followers', 'posts_count', 'posts_per_day', 'interactions', 'engagement_rate', 'interaction_rate',
  'video_views_3s', 'video_views_2s', 'views_video', 'reach', 'impressions', 'ad_reach', 'likes', 'shares', 'comments', 'views_organic', 'views_paid', 'link_clicks']
const TIME = ['date', 'week', 'month', 'quarter', 'year']
const RUNS = Number(process.env.REPORT_ORACLE_RUNS ?? 320)
const ACCOUNTS_BY_PLATFORM = Object.fromEntries(CODES.map((code) => [code, DATASET.accounts.filter((a) => a.platform === code).map((a) => Number(a.account_id))]))

const day = (offset: number): string => new Date(Date.UTC(2025, 9, 1) + offset * 86_400_000).toISOString().slice(0, 10)

/** Periods anywhere in the data, often across a year end, sometimes around 2026-W53 (2026-12-28 … 2027-01-03). */
const periodArbitrary = fc.oneof(
  fc.record({ start: fc.integer({ min: 0, max: 480 }), length: fc.integer({ min: 0, max: 120 }) }),
  fc.record({ start: fc.integer({ min: 440, max: 460 }), length: fc.integer({ min: 0, max: 30 }) }),
  fc.record({ start: fc.integer({ min: 60, max: 120 }), length: fc.integer({ min: 20, max: 400 }) }),
).map(({ start, length }) => ({ since: day(start), until: day(Math.min(start + length, 520)) }))

const filtersArbitrary = fc.oneof(
  { weight: 5, arbitrary: fc.record({ brand_id: fc.option(fc.subarray(ACCESSIBLE, { minLength: 1 }), { nil: undefined }), platform: fc.option(fc.subarray(CODES, { minLength: 1, maxLength: 4 }), { nil: undefined }) }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(...CODES.filter((code) => (ACCOUNTS_BY_PLATFORM[code] ?? []).length > 0)).chain((code) => fc.record({
      brand_id: fc.option(fc.subarray(ACCESSIBLE, { minLength: 1 }), { nil: undefined, freq: 4 }),
      account_id: fc.subarray(ACCOUNTS_BY_PLATFORM[code] ?? [], { minLength: 1 }),
      platform: fc.constant([code]),
    })),
  },
  { weight: 1, arbitrary: fc.record({ brand_id: fc.option(fc.subarray([1, 2, 3, 4], { minLength: 1 }), { nil: undefined }), account_id: fc.option(fc.subarray([100, 101, 204, 400, 999], { minLength: 1, maxLength: 2 }), { nil: undefined }), platform: fc.option(fc.subarray(CODES, { minLength: 1, maxLength: 2 }), { nil: undefined }) }) },
).map((filters) => Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)))

const requestArbitrary: fc.Arbitrary<OracleReport & { limit: number }> = fc.record({
  metrics: fc.shuffledSubarray(METRICS, { minLength: 1, maxLength: 6 }),
  time: fc.option(fc.constantFrom(...TIME), { nil: undefined, freq: 4 }),
  others: fc.shuffledSubarray(['platform', 'brand', 'account'], { minLength: 0, maxLength: 3 }),
  period: periodArbitrary,
  filters: fc.option(filtersArbitrary, { nil: undefined, freq: 3 }),
  comparison: fc.option(fc.oneof(fc.constantFrom('previous_period' as const, 'previous_year' as const), periodArbitrary), { nil: undefined, freq: 2 }),
  include: fc.subarray(['totals', 'status']),
  orders: fc.array(fc.record({ pick: fc.nat(), metric: fc.boolean(), desc: fc.boolean() }), { maxLength: 2 }),
  limit: fc.oneof(fc.integer({ min: 3, max: 40 }), fc.constant(1000)),
}).map((g) => {
  const dimensions = g.time === undefined ? g.others : [g.time, ...g.others].slice(0, 4)
  const orderBy = g.orders.map((o): { metric?: string, dimension?: string, desc?: boolean } => {
    if (o.metric || dimensions.length === 0) return { metric: g.metrics[o.pick % g.metrics.length] as string, ...(o.desc ? { desc: true } : {}) }
    return { dimension: dimensions[o.pick % dimensions.length] as string, ...(o.desc ? { desc: true } : {}) }
  })
  return {
    metrics: g.metrics,
    ...(dimensions.length === 0 && g.time === undefined && g.others.length === 0 ? {} : { dimensions }),
    since: g.period.since,
    until: g.period.until,
    ...(g.filters === undefined ? {} : { filters: g.filters }),
    ...(orderBy.length === 0 ? {} : { order_by: orderBy }),
    ...(g.comparison === undefined ? {} : { comparison: g.comparison }),
    ...(g.include.length === 0 ? {} : { include: g.include }),
    limit: g.limit,
  }
})

/** Every page of a request on one store: the pages' raw texts and the whole answer put together. */
async function walk (api: PartnerApi, body: Record<string, unknown>): Promise<{ status: number, texts: string[], whole: Record<string, unknown> }> {
  const texts: string[] = []
  const rows: unknown[] = []
  let cursor: string | undefined
  let first: Record<string, unknown> | undefined
  for (let page = 0; page < 500; page++) {
    const response = await api.app.inject({ method: 'POST', url: '/reports', headers: api.auth, payload: cursor === undefined ? body : { ...body, cursor } })
    texts.push(response.body)
    if (response.statusCode !== 200) return { status: response.statusCode, texts, whole: response.json() }
    const json = response.json()
    first ??= json
    rows.push(...json.rows)
    assert.ok(json.rows.length <= Number(body.limit), 'a page holds at most limit rows')
    cursor = json.next_cursor
    if (cursor === undefined) break
    assert.equal(json.rows.length, Number(body.limit), 'a page before the last is full')
  }
  const { next_cursor: _next, cost: _cost, ...envelope } = first as Record<string, unknown>
  return { status: 200, texts, whole: { ...envelope, rows, total: rows.length } }
}

describe('POST /reports against the oracle, SQLite and PostgreSQL byte-identical', () => {
  const apis: PartnerApi[] = []
  before(async () => {
    for (const dialect of DIALECTS) apis.push(await openPartnerApi(dialect, { seed: async (t) => { await insertDatasetAndReadModel(t.store, DATASET) }, brandIds: ACCESSIBLE }))
  })
  after(async () => {
    for (const api of apis) await api.close()
  })

  it(`answers ${RUNS} seeded random requests as the oracle does, identically on both stores`, async () => {
    const [sqlite, postgres] = apis as [PartnerApi, PartnerApi]
    const seen = { ok: 0, rows: 0, multiPage: 0, errors: 0, compared: 0, incomplete: 0, week53: 0 }
    await fc.assert(fc.asyncProperty(requestArbitrary, async (request) => {
      const expected = reportOracle(DATASET, ACCESSIBLE, request)
      const a = await walk(sqlite, request as unknown as Record<string, unknown>)
      const b = await walk(postgres, request as unknown as Record<string, unknown>)
      assert.deepEqual(a.texts.map((text) => text.replace(/"(request_id|timestamp)":"[^"]*"/g, '')), b.texts.map((text) => text.replace(/"(request_id|timestamp)":"[^"]*"/g, '')), JSON.stringify(request))
      assert.equal(a.status, expected.status, JSON.stringify(request))
      if (expected.status !== 200) {
        seen.errors++
        return
      }
      const { limit: _limit, ...asked } = request
      assert.deepEqual(a.whole, expected.body, JSON.stringify(asked))
      seen.ok++
      if (expected.body.rows.length > 0) seen.rows++
      if (a.texts.length > 1) seen.multiPage++
      if (expected.body.rows.some((row) => row.comparison !== undefined && row.comparison !== null && (row.comparison as { complete: boolean }).complete)) seen.compared++
      if (expected.body.rows.some((row) => (row.comparison as { complete?: boolean } | undefined | null)?.complete === false)) seen.incomplete++
      if (expected.body.rows.some((row) => row.week === '2026-W53')) seen.week53++
    }), { numRuns: RUNS, seed: 3030 })
    // The generator must exercise the reports, not mostly errors or empty answers.
    assert.ok(seen.rows >= RUNS / 2 && seen.multiPage >= 20 && seen.errors >= 10 && seen.compared >= 10 && seen.incomplete >= 10 && seen.week53 >= 1, JSON.stringify(seen))
  })
})
