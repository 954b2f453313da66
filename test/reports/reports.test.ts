import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { HEAVY_BRAND_DAYS } from '../../src/storage/heavy-reads.js'
import { accountRow, brandRow, generateDataset, insertDatasetAndReadModel, type AnalyticsDataset } from '../helpers/analytics-fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * POST /reports (and GET /reports) beside GET /analytics/: the overlapping answers equal field by
 * field, access exactly as /analytics/, the size bound, every refused request's 422, GET = POST,
 * cursors bound to their request, the cost.
 */

const DATASET: AnalyticsDataset = generateDataset({ seed: 20261121, start: '2026-01-20', days: 75 })
const GRANTED = [1, 2, 3]
const ALL_METRICS = ['revenue', 'views', 'followers', 'new_followers', 'posts_count', 'posts_per_day', 'interactions', 'engagement_rate', 'interaction_rate',
  'video_views_3s', 'video_views_2s', 'views_video', 'reach', 'impressions', 'ad_reach', 'likes', 'shares', 'comments', 'views_organic', 'views_paid', 'link_clicks']
const KEY_FIELDS = new Set(['date', 'month', 'platform', 'brand_id', 'account_id', 'account_name', 'name', 'network_id', 'storage_avatar', 'permalink'])

type Row = Record<string, unknown> & { metrics: Record<string, number | null> }

async function report (api: PartnerApi, body: Record<string, unknown>) {
  const response = await api.app.inject({ method: 'POST', url: '/reports', headers: api.auth, payload: body })
  return { status: response.statusCode, body: response.json(), text: response.body }
}

/** Every row of a report, page after page. */
async function allRows (api: PartnerApi, body: Record<string, unknown>): Promise<Row[]> {
  const rows: Row[] = []
  let cursor: string | undefined
  do {
    const page = await report(api, cursor === undefined ? body : { ...body, cursor })
    assert.equal(page.status, 200, page.text)
    rows.push(...page.body.rows)
    cursor = page.body.next_cursor
  } while (cursor !== undefined)
  return rows
}

/** Every entry of an /analytics/ answer, daily pages walked. */
async function allEntries (api: PartnerApi, query: Record<string, string>): Promise<Array<Record<string, unknown>>> {
  const entries: Array<Record<string, unknown>> = []
  let cursor: string | undefined
  do {
    const page = await api.analytics(cursor === undefined ? query : { ...query, cursor })
    assert.equal(page.status, 200)
    entries.push(...(page.body.data as Array<Record<string, unknown>>))
    cursor = page.body.next_cursor
  } while (cursor !== undefined)
  return entries
}

/** Each entry's metric fields equal its row's, the rows and entries one for one by their keys. */
function assertSameFigures (entries: Array<Record<string, unknown>>, rows: Row[], keyOfEntry: (entry: Record<string, unknown>) => string, keyOfRow: (row: Row) => string): void {
  assert.ok(entries.length > 0)
  assert.equal(rows.length, entries.length)
  const byKey = new Map(rows.map((row) => [keyOfRow(row), row]))
  for (const entry of entries) {
    const row = byKey.get(keyOfEntry(entry))
    assert.ok(row !== undefined, keyOfEntry(entry))
    let compared = 0
    for (const [field, value] of Object.entries(entry)) {
      if (KEY_FIELDS.has(field)) continue
      // agg's revenue is null when nothing was reported; a report row's is 0 (as daily and monthly entries).
      assert.equal(row.metrics[field], value === null && field === 'revenue' ? 0 : value, `${keyOfEntry(entry)} ${field}`)
      compared++
    }
    assert.ok(compared >= 9)
  }
}

for (const dialect of DIALECTS) {
  describe(`POST /reports beside GET /analytics/ (${dialect})`, () => {
    let api: PartnerApi
    before(async () => {
      api = await openPartnerApi(dialect, { seed: async (t) => { await insertDatasetAndReadModel(t.store, DATASET) }, brandIds: GRANTED })
    })
    after(async () => { await api.close() })

    const period = { since: '2026-01-25', until: '2026-03-10' }

    it('[date, brand] equals type=daily, field by field', async () => {
      const rows = await allRows(api, { metrics: ALL_METRICS, dimensions: ['date', 'brand'], ...period, limit: 37 })
      const entries = await allEntries(api, { type: 'daily', ...period })
      assertSameFigures(entries, rows, (e) => `${String(e.date)}|${String(e.brand_id)}`, (r) => `${String(r.date)}|${String(r.brand_id)}`)
    })

    it('[date, brand, platform] equals type=daily with platforms, [date, account] equals it with account_id', async () => {
      const rows = await allRows(api, { metrics: ALL_METRICS, dimensions: ['date', 'brand', 'platform'], ...period, filters: { platform: ['fb', 'ig', 'li'] }, limit: 1000 })
      const entries = await allEntries(api, { type: 'daily', ...period, platform: 'fb,ig,li' })
      assertSameFigures(entries, rows, (e) => `${String(e.date)}|${String(e.brand_id)}|${String(e.platform)}`, (r) => `${String(r.date)}|${String(r.brand_id)}|${String(r.platform)}`)
      const accountRows = await allRows(api, { metrics: ALL_METRICS, dimensions: ['date', 'account'], ...period, filters: { account_id: [100, 204], platform: ['facebook'] } })
      const accountEntries = await allEntries(api, { type: 'daily', ...period, account_id: '100,204', platform: 'fb' })
      assertSameFigures(accountEntries, accountRows, (e) => `${String(e.date)}|${String(e.account_id)}`, (r) => `${String(r.date)}|${String(r.account_id)}`)
    })

    it('[month, brand] equals type=monthly (partial months at both edges), with platforms too', async () => {
      const rows = await allRows(api, { metrics: ALL_METRICS, dimensions: ['month', 'brand'], ...period })
      const entries = await allEntries(api, { type: 'monthly', ...period })
      assertSameFigures(entries, rows, (e) => `${String(e.month)}|${String(e.brand_id)}`, (r) => `${String(r.month)}|${String(r.brand_id)}`)
      const split = await allRows(api, { metrics: ALL_METRICS, dimensions: ['brand', 'month', 'platform'], ...period, filters: { platform: ['tk', 'yt', 'sc'] } })
      const splitEntries = await allEntries(api, { type: 'monthly', ...period, platform: 'tk,yt,sc' })
      assertSameFigures(splitEntries, split, (e) => `${String(e.month)}|${String(e.brand_id)}|${String(e.platform)}`, (r) => `${String(r.month)}|${String(r.brand_id)}|${String(r.platform)}`)
    })

    it('[brand] equals type=agg, and the totals are the period figures of the whole scope', async () => {
      const rows = await allRows(api, { metrics: ALL_METRICS, dimensions: ['brand'], ...period })
      const entries = await allEntries(api, { type: 'agg', ...period })
      assertSameFigures(entries, rows, (e) => String(e.brand_id), (r) => String(r.brand_id))
      const whole = await report(api, { metrics: ['views', 'followers', 'posts_per_day', 'engagement_rate'], dimensions: ['week'], ...period, include: ['totals'] })
      const scope = await report(api, { metrics: ['views', 'followers', 'posts_per_day', 'engagement_rate'], ...period })
      assert.deepEqual(whole.body.totals, scope.body.rows[0].metrics, 'totals by the same rules, not the rows added')
      const splitAgg = await allEntries(api, { type: 'agg', ...period, split_by_platform: 'true' })
      const byPlatform = await allRows(api, { metrics: ALL_METRICS, dimensions: ['platform'], ...period })
      assertSameFigures(splitAgg, byPlatform, (e) => String(e.platform), (r) => String(r.platform))
    })

    it('never shows a brand not granted, through any dimension or filter (400 → 403 → 404 as /analytics/)', async () => {
      const rows = await allRows(api, { metrics: ['views'], dimensions: ['brand', 'account'], since: '2026-01-01', until: '2026-12-31' })
      assert.ok(rows.length > 0)
      assert.ok(rows.every((row) => GRANTED.includes(Number(row.brand_id))), 'only granted brands')
      assert.ok(!rows.some((row) => row.platform === 'fb' && row.account_id === 400), 'no account of brand 4')
      const noRows = await report(api, { metrics: ['views'], dimensions: ['brand'], since: '2026-01-01', until: '2026-12-31', filters: { brand_id: [3] } })
      assert.deepEqual([noRows.status, noRows.body.rows, noRows.body.brand_ids], [200, [], [3]])
      const cases: Array<[Record<string, unknown>, number, string | undefined]> = [
        [{ account_id: [100] }, 400, undefined],
        [{ account_id: [100], platform: ['fb', 'ig'] }, 400, undefined],
        [{ brand_id: [4] }, 403, 'FORBIDDEN'],
        [{ brand_id: [1, 5] }, 403, 'FORBIDDEN'],
        [{ account_id: [400], platform: ['fb'] }, 404, 'NOT_FOUND'],
        [{ account_id: [100], platform: ['ig'], brand_id: [1] }, 404, 'NOT_FOUND'],
        [{ account_id: [100], platform: ['fb'], brand_id: [4] }, 403, 'FORBIDDEN'],
      ]
      for (const [filters, status, code] of cases) {
        const answer = await report(api, { metrics: ['views'], dimensions: ['account'], filters })
        assert.equal(answer.status, status, JSON.stringify(filters))
        if (status === 400) assert.deepEqual(answer.body, { detail: 'account_id requires exactly one platform to be specified' })
        else assert.equal(answer.body.error_code, code)
      }
      const viaGet = await api.get('/reports', { metrics: 'views', brand_id: '4' })
      assert.equal(viaGet.status, 403)
    })

    it('GET /reports with repeated or comma-separated parameters answers what POST does', async () => {
      const post = await report(api, { metrics: ['views', 'followers', 'engagement_rate'], dimensions: ['week', 'platform'], ...period, filters: { brand_id: [1, 2], platform: ['fb', 'ig'] }, order_by: [{ metric: 'views', desc: true }, { dimension: 'platform' }], include: ['totals', 'status'], comparison: 'previous_year', limit: 4 })
      const url = '/reports?metrics=views&metrics=followers,engagement_rate&dimensions=week&dimensions=platform&since=2026-01-25&until=2026-03-10' +
        '&brand_id=1,2&platform=FB&platform=instagram&order_by=-views&order_by=platform&include=totals&include=status&comparison=previous_year&limit=4'
      const get = await api.app.inject({ method: 'GET', url, headers: api.auth })
      assert.equal(get.statusCode, 200)
      assert.equal(get.body, post.text)
      const next = await api.app.inject({ method: 'GET', url: `${url}&cursor=${encodeURIComponent(post.body.next_cursor as string)}`, headers: api.auth })
      const postNext = await report(api, { metrics: ['views', 'followers', 'engagement_rate'], dimensions: ['week', 'platform'], ...period, filters: { brand_id: [1, 2], platform: ['fb', 'ig'] }, order_by: [{ metric: 'views', desc: true }, { dimension: 'platform' }], include: ['totals', 'status'], comparison: 'previous_year', limit: 4, cursor: post.body.next_cursor })
      assert.equal(next.body, postNext.text)
      const custom = await api.app.inject({ method: 'GET', url: '/reports?metrics=views&dimensions=month&since=2026-02-01&until=2026-03-31&comparison_since=2026-01-01&comparison_until=2026-01-31', headers: api.auth })
      const customPost = await report(api, { metrics: ['views'], dimensions: ['month'], since: '2026-02-01', until: '2026-03-31', comparison: { since: '2026-01-01', until: '2026-01-31' } })
      assert.equal(custom.body, customPost.text)
      assert.equal(customPost.body.rows[1].comparison, null, 'the comparison period has one month: the second row has no bucket to compare with')
    })

    it('pages with a cursor bound to its request; offset gives the same rows', async () => {
      const body = { metrics: ['views'], dimensions: ['date', 'platform'], ...period, order_by: [{ metric: 'views', desc: true }], limit: 25 }
      const first = await report(api, body)
      const second = await report(api, { ...body, cursor: first.body.next_cursor })
      const byOffset = await report(api, { ...body, offset: 25 })
      assert.deepEqual(second.body.rows, byOffset.body.rows)
      assert.equal(second.body.total_rows, first.body.total_rows)
      const views = [...first.body.rows, ...second.body.rows].map((row: Row) => row.metrics.views as number)
      assert.deepEqual(views, [...views].sort((a, b) => b - a), 'top-N: views descending across pages')
      const elsewhere = await report(api, { ...body, metrics: ['likes'], order_by: undefined, cursor: first.body.next_cursor })
      assert.equal(elsewhere.status, 422)
      assert.deepEqual(elsewhere.body.detail.map((item: { loc: string[], type: string }) => [item.loc, item.type]), [[['body', 'cursor'], 'cursor_invalid']])
    })

    it('says what it cost: the rows estimate, the account-days read, the heavy lane', async () => {
      const small = await report(api, { metrics: ['views'], dimensions: ['week', 'brand'], ...period })
      const accountDays = DATASET.daily.filter((row) => row.date >= period.since && row.date <= period.until && ['fb:100', 'ig:101', 'tk:102', 'yt:103', 'ig:100', 'li:201', 'sc:202', 'pi:203', 'fb:204', 'da:205', 'th:206'].includes(`${row.platform}:${row.account_id}`)).length
      // 7 ISO weeks from Sunday 25 January to Tuesday 10 March × brands 1 and 2 (brand 3 has no account).
      assert.deepEqual(small.body.cost, { requests: 1, rows_estimate: 8 * 2, account_days_read: accountDays, heavy: false })
      const since = '2024-01-01'
      const until = '2026-12-31'
      const large = await report(api, { metrics: ['views'], dimensions: ['quarter'], since, until })
      assert.equal(large.body.cost.heavy, GRANTED.length * 1096 > HEAVY_BRAND_DAYS)
    })
  })
}

describe('POST /reports refuses what it cannot answer: the 422 table', () => {
  let api: PartnerApi
  before(async () => {
    // Brand 1 with 100 accounts (no rows needed: the bound is judged before anything is read).
    const accounts = Array.from({ length: 100 }, (_, index) => accountRow('fb', 1000 + index, 1))
    api = await openPartnerApi('sqlite', { seed: async (t) => { await insertDatasetAndReadModel(t.store, { brands: [brandRow(1)], accounts, daily: [] }) }, brandIds: [1] })
  })
  after(async () => { await api.close() })

  const CASES: Array<[string, Record<string, unknown>, Array<[string[], string]>]> = [
    ['no metrics', { dimensions: ['date'] }, [[['body', 'metrics'], 'missing']]],
    ['an unknown metric', { metrics: ['views', 'nope'] }, [[['body', 'metrics'], 'enum']]],
    ['no metric at all', { metrics: [] }, [[['body', 'metrics'], 'too_short']]],
    ['an unknown dimension', { metrics: ['views'], dimensions: ['hour'] }, [[['body', 'dimensions'], 'enum']]],
    ['five dimensions', { metrics: ['views'], dimensions: ['date', 'platform', 'brand', 'account', 'week'] }, [[['body', 'dimensions'], 'too_long']]],
    ['two time dimensions', { metrics: ['views'], dimensions: ['week', 'month'] }, [[['body', 'dimensions'], 'time_dimensions']]],
    ['an order by a metric not asked', { metrics: ['views'], order_by: [{ metric: 'likes' }] }, [[['body', 'order_by'], 'order_by_unknown']]],
    ['an order by a dimension not asked', { metrics: ['views'], dimensions: ['brand'], order_by: [{ dimension: 'platform' }] }, [[['body', 'order_by'], 'order_by_unknown']]],
    ['an order naming both', { metrics: ['views'], dimensions: ['date'], order_by: [{ metric: 'views', dimension: 'date' }] }, [[['body', 'order_by'], 'order_by_item']]],
    ['limit 0', { metrics: ['views'], limit: 0 }, [[['body', 'limit'], 'greater_than_equal']]],
    ['limit 1001', { metrics: ['views'], limit: 1001 }, [[['body', 'limit'], 'less_than_equal']]],
    ['since after until', { metrics: ['views'], since: '2026-03-01', until: '2026-02-01' }, [[['body', 'since'], 'date_order']]],
    ['a period over 1096 days', { metrics: ['views'], since: '2020-01-01', until: '2026-01-01' }, [[['body', 'since'], 'period_too_long']]],
    ['not a date', { metrics: ['views'], since: '2026-02-30' }, [[['body', 'since'], 'date_parsing']]],
    ['an unknown comparison', { metrics: ['views'], comparison: 'last_week' }, [[['body', 'comparison'], 'string_pattern_mismatch']]],
    ['a comparison period upside down', { metrics: ['views'], comparison: { since: '2026-02-01', until: '2026-01-01' } }, [[['body', 'comparison'], 'date_order']]],
    ['a comparison before year 1', { metrics: ['views'], since: '0001-01-01', until: '0001-01-05', comparison: 'previous_year' }, [[['body', 'comparison'], 'comparison_out_of_range']]],
    ['a garbage cursor', { metrics: ['views'], cursor: 'garbage' }, [[['body', 'cursor'], 'cursor_invalid']]],
    ['cursor and offset', { metrics: ['views'], cursor: 'x.y', offset: 5 }, [[['body', 'offset'], 'cursor_and_offset']]],
    ['a member the request does not have', { metrics: ['views'], top: 10 }, [[['body', 'top'], 'extra_forbidden']]],
    ['an unknown platform', { metrics: ['views'], filters: { platform: ['myspace'] } }, [[['body', 'filters'], 'enum']]],
    ['two problems at once', { metrics: ['views'], dimensions: ['date', 'year'], since: '2026-03-01', until: '2026-02-01' }, [[['body', 'dimensions'], 'time_dimensions'], [['body', 'since'], 'date_order']]],
  ]

  for (const [label, body, expected] of CASES) {
    it(label, async () => {
      const answer = await report(api, body)
      assert.equal(answer.status, 422, answer.text)
      assert.equal(answer.body.error_code, 'VALIDATION_ERROR')
      assert.deepEqual(answer.body.detail.map((item: { loc: string[], type: string }) => [item.loc, item.type]), expected, answer.text)
    })
  }

  it('a report over the row limit: 422 naming the limit and what to narrow, before anything runs', async () => {
    const answer = await report(api, { metrics: ['views'], dimensions: ['date', 'account'], since: '2024-01-01', until: '2026-12-31' })
    assert.equal(answer.status, 422)
    assert.deepEqual(answer.body.detail, [{
      loc: ['body'],
      msg: 'The report could have 109600 rows (1096 date bucket(s) × 100 platform/brand/account value(s)), over the limit of 100000: narrow the period, the filters (brand_id, account_id, platform) or use a coarser time dimension',
      type: 'report_too_large',
      ctx: { limit: 100000, rows_estimate: 109600 },
    }])
    const weekly = await report(api, { metrics: ['views'], dimensions: ['week', 'account'], since: '2024-01-01', until: '2026-12-31' })
    assert.equal(weekly.status, 200, 'a coarser time dimension fits')
  })

  it('GET /reports names the query parameter', async () => {
    const missing = await api.get('/reports', { dimensions: 'date' })
    assert.equal(missing.status, 422)
    assert.deepEqual((missing.body.detail as Array<{ loc: string[] }>).map((item) => item.loc), [['query', 'metrics']])
    const order = await api.get('/reports', { metrics: 'views', order_by: '-nope' })
    assert.deepEqual([order.status, (order.body.detail as Array<{ loc: string[] }>).map((item) => item.loc)], [422, [['query', 'order_by']]])
    const limit = await api.get('/reports', { metrics: 'views', limit: '1e3' })
    assert.deepEqual([limit.status, (limit.body.detail as Array<{ loc: string[] }>).map((item) => item.loc)], [422, [['query', 'limit']]])
  })
})
