import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { datasetWithCoverages } from '../analytics/carry-dataset.js'
import type { DemoOptions } from '../../src/services/demo/generator.js'
import { demoSource } from '../../src/services/demo/source.js'
import { importSources } from '../../src/services/import/import.service.js'
import { insertDatasetAndReadModel, workedExampleDataset } from '../helpers/analytics-fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * POST /reports with `gaps: "carry"` (docs/reports.md "Missing data"): the gap rules of
 * /analytics/?gaps=carry, from the same place. On the seeded random data of the carry oracle
 * tests (missing days, missing metrics, coverages starting late and stopping early), the report's
 * rows equal /analytics/?gaps=carry's entries field by field; a rate never divides one account's
 * numerator by another's denominator; without gaps the answer is the default's, byte for byte.
 */

const DATASET = datasetWithCoverages()
const GRANTED = [1, 2, 3]
const ALL_METRICS = ['revenue', 'views', 'followers', 'new_followers', 'posts_count', 'posts_per_day', 'interactions', 'engagement_rate', 'interaction_rate',
  'video_views_3s', 'video_views_2s', 'views_video', 'reach', 'impressions', 'ad_reach', 'likes', 'shares', 'comments', 'views_organic', 'views_paid', 'link_clicks']
const KEY_FIELDS = new Set(['date', 'month', 'platform', 'brand_id', 'account_id', 'account_name', 'name', 'network_id', 'storage_avatar', 'permalink'])

type Row = Record<string, unknown> & { metrics: Record<string, number | null> }

async function report (api: PartnerApi, body: Record<string, unknown>) {
  const response = await api.app.inject({ method: 'POST', url: '/reports', headers: api.auth, payload: body })
  return { status: response.statusCode, body: response.json(), text: response.body }
}

async function allRows (api: PartnerApi, body: Record<string, unknown>): Promise<Row[]> {
  const rows: Row[] = []
  let cursor: string | undefined
  do {
    const page = await report(api, cursor === undefined ? body : { ...body, cursor })
    assert.equal(page.status, 200, page.text)
    rows.push(...page.body.rows)
    cursor = page.body.next_cursor
    assert.ok(rows.length < 20_000, 'bounded walk')
  } while (cursor !== undefined)
  return rows
}

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
function assertSameFigures (entries: Array<Record<string, unknown>>, rows: Row[], keyOf: (item: Record<string, unknown>) => string): void {
  assert.ok(entries.length > 0)
  assert.equal(rows.length, entries.length)
  const byKey = new Map(rows.map((row) => [keyOf(row), row]))
  for (const entry of entries) {
    const row = byKey.get(keyOf(entry))
    assert.ok(row !== undefined, keyOf(entry))
    let compared = 0
    for (const [field, value] of Object.entries(entry)) {
      if (KEY_FIELDS.has(field)) continue
      // agg's revenue is null when nothing was reported; a report row's is 0.
      assert.equal(row.metrics[field], value === null && field === 'revenue' ? 0 : value, `${keyOf(entry)} ${field}`)
      compared++
    }
    assert.ok(compared >= 9)
  }
}

/** How many rows differ between the two answers in a metric (the data really has gaps there). */
function differing (carry: Row[], zero: Row[], keyOf: (item: Record<string, unknown>) => string, metric: string): number {
  const byKey = new Map(zero.map((row) => [keyOf(row), row]))
  return carry.filter((row) => byKey.get(keyOf(row))?.metrics[metric] !== row.metrics[metric]).length
}

const dateBrand = (item: Record<string, unknown>): string => `${String(item.date)}|${String(item.brand_id)}`
const monthBrand = (item: Record<string, unknown>): string => `${String(item.month)}|${String(item.brand_id)}`

for (const dialect of DIALECTS) {
  describe(`POST /reports with gaps carry beside GET /analytics/?gaps=carry (${dialect})`, () => {
    let api: PartnerApi
    before(async () => {
      api = await openPartnerApi(dialect, { seed: async (t) => { await insertDatasetAndReadModel(t.store, DATASET) }, brandIds: GRANTED })
    })
    after(async () => { await api.close() })

    // Crosses the coverages' cuts (tk 102 from 02-10, th 206 to 02-14, li 201 02-20 … 03-20, yt 103 to 03-05) and runs past the data's end.
    const period = { since: '2026-01-25', until: '2026-04-10' }

    it('[date, brand] equals type=daily&gaps=carry field by field, and differs from gaps zero where accounts are missing', async () => {
      const rows = await allRows(api, { metrics: ALL_METRICS, dimensions: ['date', 'brand'], ...period, gaps: 'carry', limit: 1000 })
      assertSameFigures(await allEntries(api, { type: 'daily', ...period, gaps: 'carry' }), rows, dateBrand)
      const zero = await allRows(api, { metrics: ALL_METRICS, dimensions: ['date', 'brand'], ...period, limit: 1000 })
      // The rows of gaps zero are rows here; the others are carried-only: a brand-day inside an account's coverage that none of the brand's accounts reported.
      const reportedKeys = new Set(zero.map(dateBrand))
      const reported = rows.filter((row) => reportedKeys.has(dateBrand(row)))
      const carriedOnly = rows.filter((row) => !reportedKeys.has(dateBrand(row)))
      assert.equal(reported.length, zero.length, 'every row of gaps zero is a row of gaps carry')
      assert.ok(carriedOnly.length > 0, 'a carried-only brand-day')
      assert.ok(differing(reported, zero, dateBrand, 'followers') > 20, 'followers carried on many brand-days')
      assert.ok(differing(reported, zero, dateBrand, 'engagement_rate') > 20, 'rates over both parts on many brand-days')
      assert.equal(differing(reported, zero, dateBrand, 'views'), 0, 'flows never invented')
      for (const row of carriedOnly) {
        for (const flow of ['views', 'interactions', 'posts_count', 'new_followers', 'revenue', 'likes']) assert.equal(row.metrics[flow], 0, `${flow} of the carried-only row ${dateBrand(row)}`)
      }
      assert.ok(carriedOnly.every((row) => Number(row.metrics.followers) > 0), 'followers carried on carried-only rows')
    })

    it('a carried-only row says so in its status, as the analytics entry does, and is absent without gaps', async () => {
      const body = { metrics: ['followers', 'views', 'engagement_rate'], dimensions: ['date', 'brand', 'platform'], ...period, include: ['status'], limit: 1000 }
      const keyOf = (item: Record<string, unknown>): string => `${dateBrand(item)}|${String(item.platform)}`
      const carry = await allRows(api, { ...body, gaps: 'carry' })
      const zero = new Set((await allRows(api, body)).map(keyOf))
      const carriedOnly = carry.filter((row) => !zero.has(keyOf(row)))
      assert.ok(carriedOnly.length > 5, `only ${carriedOnly.length} carried-only rows`)
      const entries = new Map((await allEntries(api, { type: 'daily', ...period, platform: 'fb,ig,tk,yt,li,th,sc,da,pi', gaps: 'carry', include: 'status' })).map((entry) => [keyOf(entry), entry]))
      for (const row of carriedOnly) {
        const entry = entries.get(keyOf(row))
        assert.ok(entry !== undefined, `the analytics entry of the carried-only row ${keyOf(row)}`)
        assert.equal(row.accounts_reported, 0, `nothing reported on ${keyOf(row)}`)
        assert.equal(entry.accounts_reported, 0, `the entry reports nothing on ${keyOf(row)}`)
        assert.ok(Number(row.accounts_expected) > 0, `an account in coverage on ${keyOf(row)}`)
        assert.ok(Number(row.metrics.followers) > 0, `followers carried on ${keyOf(row)}`)
        assert.deepEqual(row.metrics, { followers: entry.followers, views: 0, engagement_rate: entry.engagement_rate }, keyOf(row))
      }
    })

    it('[date, brand, platform] and [date, account] equal type=daily&gaps=carry with platforms and accounts', async () => {
      const rows = await allRows(api, { metrics: ALL_METRICS, dimensions: ['date', 'brand', 'platform'], ...period, filters: { platform: ['tk', 'yt', 'li', 'th'] }, gaps: 'carry', limit: 1000 })
      const entries = await allEntries(api, { type: 'daily', ...period, platform: 'tk,yt,li,th', gaps: 'carry' })
      assertSameFigures(entries, rows, (item) => `${dateBrand(item)}|${String(item.platform)}`)
      const accountRows = await allRows(api, { metrics: ALL_METRICS, dimensions: ['date', 'account'], ...period, filters: { account_id: [100, 204], platform: ['fb'] }, gaps: 'carry', limit: 1000 })
      const accountEntries = await allEntries(api, { type: 'daily', ...period, account_id: '100,204', platform: 'fb', gaps: 'carry' })
      assertSameFigures(accountEntries, accountRows, (item) => `${String(item.date)}|${String(item.account_id)}`)
    })

    it('[month, brand] equals type=monthly&gaps=carry (partial months at both edges), with platforms too', async () => {
      const rows = await allRows(api, { metrics: ALL_METRICS, dimensions: ['month', 'brand'], ...period, gaps: 'carry' })
      assertSameFigures(await allEntries(api, { type: 'monthly', ...period, gaps: 'carry' }), rows, monthBrand)
      const split = await allRows(api, { metrics: ALL_METRICS, dimensions: ['brand', 'month', 'platform'], ...period, filters: { platform: ['tk', 'yt', 'li', 'th'] }, gaps: 'carry' })
      const splitEntries = await allEntries(api, { type: 'monthly', ...period, platform: 'tk,yt,li,th', gaps: 'carry' })
      assertSameFigures(splitEntries, split, (item) => `${monthBrand(item)}|${String(item.platform)}`)
    })

    it('[brand] and [platform] equal type=agg&gaps=carry; no dimensions equals its aggregate, and totals are the same rule over the scope', async () => {
      const rows = await allRows(api, { metrics: ALL_METRICS, dimensions: ['brand'], ...period, gaps: 'carry' })
      const entries = await allEntries(api, { type: 'agg', ...period, gaps: 'carry' })
      assertSameFigures(entries, rows, (item) => String(item.brand_id))
      const byPlatform = await allRows(api, { metrics: ALL_METRICS, dimensions: ['platform'], ...period, gaps: 'carry' })
      assertSameFigures(await allEntries(api, { type: 'agg', ...period, split_by_platform: 'true', gaps: 'carry' }), byPlatform, (item) => String(item.platform))

      const agg = await api.analytics({ type: 'agg', ...period, gaps: 'carry' })
      const aggregate = (agg.body.aggregates as { total: Record<string, number | null> }).total
      const whole = await report(api, { metrics: ['views', 'interactions', 'posts_count', 'new_followers', 'followers', 'revenue', 'engagement_rate', 'posts_per_day'], ...period, gaps: 'carry' })
      assert.equal(whole.status, 200, whole.text)
      const figures = whole.body.rows[0].metrics as Record<string, number>
      // posts_per_day is left out: the aggregate adds the entries' rounded values.
      for (const field of ['views', 'interactions', 'posts_count', 'new_followers', 'followers', 'revenue']) assert.equal(figures[field], aggregate[field], field)
      // Over the whole period each account's last followers are the same either way; the rate is not.
      const zero = await report(api, { metrics: ['followers', 'engagement_rate'], ...period })
      assert.equal(figures.followers, zero.body.rows[0].metrics.followers)
      assert.notEqual(figures.engagement_rate, zero.body.rows[0].metrics.engagement_rate, 'the rate over both parts is not the default\'s')

      const weekly = await report(api, { metrics: ['views', 'followers', 'posts_per_day', 'engagement_rate'], dimensions: ['week'], ...period, include: ['totals'], gaps: 'carry' })
      assert.deepEqual(weekly.body.totals, { views: figures.views, followers: figures.followers, posts_per_day: figures.posts_per_day, engagement_rate: figures.engagement_rate }, 'totals by the rules over the whole period, not the rows added')
    })

    it('compares by the same rule: the other period\'s buckets are the carried report of that period', async () => {
      const asked = { metrics: ['followers', 'engagement_rate', 'views'], dimensions: ['week', 'brand'], since: '2026-03-02', until: '2026-03-29', gaps: 'carry', include: ['totals'] }
      const compared = await allRows(api, { ...asked, comparison: { since: '2026-02-02', until: '2026-03-01' } })
      const before = await allRows(api, { ...asked, since: '2026-02-02', until: '2026-03-01' })
      const weekOf = new Map(before.map((row) => [`${String(row.week)}|${String(row.brand_id)}`, row]))
      for (const row of compared) {
        const comparison = row.comparison as { week: string, metrics: Record<string, number> }
        const other = weekOf.get(`${comparison.week}|${String(row.brand_id)}`)
        assert.ok(other !== undefined)
        assert.deepEqual(comparison.metrics, other.metrics)
      }
      const page = await report(api, { ...asked, comparison: { since: '2026-02-02', until: '2026-03-01' } })
      const beforeTotals = await report(api, { ...asked, since: '2026-02-02', until: '2026-03-01' })
      assert.deepEqual(page.body.comparison.totals, beforeTotals.body.totals)
    })

    it('answers without gaps, with gaps zero and through GET byte for byte as the default; refuses a bad gaps with a 422 naming it', async () => {
      const body = { metrics: ALL_METRICS, dimensions: ['week', 'platform'], ...period, include: ['totals', 'status'], comparison: 'previous_period', limit: 7 }
      const plain = await report(api, body)
      const zero = await report(api, { ...body, gaps: 'zero' })
      assert.equal(zero.text, plain.text)
      const next = await report(api, { ...body, cursor: plain.body.next_cursor })
      assert.equal(next.status, 200, 'a default cursor still reads')
      const carry = await report(api, { ...body, gaps: 'carry' })
      assert.equal(carry.status, 200)
      assert.notEqual(carry.text, plain.text)
      const foreign = await report(api, { ...body, gaps: 'carry', cursor: plain.body.next_cursor })
      assert.equal(foreign.status, 422, 'a cursor is bound to its gaps')
      const viaGet = await api.app.inject({ method: 'GET', url: `/reports?metrics=views,followers,engagement_rate&dimensions=date&since=${period.since}&until=${period.until}&gaps=carry`, headers: api.auth })
      const viaPost = await report(api, { metrics: ['views', 'followers', 'engagement_rate'], dimensions: ['date'], ...period, gaps: 'carry' })
      assert.equal(viaGet.body, viaPost.text)
      for (const [gaps, where] of [['CARRY', 'body'], ['fill', 'body'], [1, 'body']] as const) {
        const refused = await report(api, { metrics: ['views'], gaps })
        assert.equal(refused.status, 422, String(gaps))
        assert.deepEqual(refused.body.detail.map((item: { loc: unknown[] }) => item.loc), [[where, 'gaps']])
      }
      const refusedGet = await api.app.inject({ method: 'GET', url: '/reports?metrics=views&gaps=fill', headers: api.auth })
      assert.equal(refusedGet.statusCode, 422)
      assert.deepEqual(refusedGet.json().detail.map((item: { loc: unknown[] }) => item.loc), [['query', 'gaps']])
    })
  })

  describe(`POST /reports with gaps carry on the demo data of issue 28 (${dialect})`, () => {
    // The demo as the issue saw it: brand 4's Facebook account, alone of its platform, has no row for 2026-11-04.
    const DEMO: DemoOptions = { brands: 8, days: 400, seed: 42, until: '2026-11-24', asOf: '2026-11-24T18:00:00Z' }
    let api: PartnerApi
    before(async () => {
      api = await openPartnerApi(dialect, { seed: async (t) => { await importSources(t.store, [demoSource(DEMO)]) }, brandIds: [4] })
    })
    after(async () => { await api.close() })

    it('gives brand 4\'s Facebook on 2026-11-04 a carried-only row, equal to the analytics entry, and none without gaps', async () => {
      const asked = { metrics: ['followers', 'views', 'interactions', 'engagement_rate'], dimensions: ['date', 'platform'], since: '2026-11-03', until: '2026-11-05', include: ['status'] }
      const zero = await report(api, asked)
      assert.equal(zero.status, 200, zero.text)
      const zeroDays = (zero.body.rows as Row[]).filter((row) => row.platform === 'fb').map((row) => row.date)
      assert.deepEqual(zeroDays, ['2026-11-03', '2026-11-05'], 'without gaps, no Facebook row on 2026-11-04')
      const carry = await report(api, { ...asked, gaps: 'carry' })
      assert.equal(carry.status, 200, carry.text)
      const fb = (carry.body.rows as Row[]).filter((row) => row.platform === 'fb')
      assert.deepEqual(fb.map((row) => row.date), ['2026-11-03', '2026-11-04', '2026-11-05'])
      const day = fb[1] as Row
      const entries = await allEntries(api, { type: 'daily', since: '2026-11-04', until: '2026-11-04', platform: 'fb', gaps: 'carry', include: 'status' })
      assert.equal(entries.length, 1, 'the analytics carried-only entry')
      const entry = entries[0] as Record<string, unknown>
      assert.ok(Number(entry.followers) > 1_000_000, `followers carried: ${String(entry.followers)}`)
      assert.deepEqual({ ...day.metrics, accounts_expected: day.accounts_expected, accounts_reported: day.accounts_reported },
        { followers: entry.followers, views: 0, interactions: 0, engagement_rate: entry.engagement_rate, accounts_expected: 1, accounts_reported: 0 })
      // Carried from the day before: the account's followers of 2026-11-03.
      assert.equal(day.metrics.followers, (fb[0] as Row).metrics.followers)
    })
  })

  describe(`POST /reports with gaps carry on the worked example of docs/analytics.md (${dialect})`, () => {
    let api: PartnerApi
    before(async () => {
      api = await openPartnerApi(dialect, { seed: async (t) => { await insertDatasetAndReadModel(t.store, workedExampleDataset()) }, brandIds: [1, 2] })
    })
    after(async () => { await api.close() })

    it('never divides one account\'s interactions by another\'s reach, and carries followers only from on or before the day', async () => {
      const asked = { metrics: ['followers', 'interactions', 'engagement_rate'], filters: { brand_id: [1] }, since: '2026-03-30', until: '2026-04-02' }
      // fb 10: interactions 40+45+30+50 with reach 800+900+—+1000 (04-01 has no reach); ig 11: 20+25 over reach 400+450.
      const zero = await report(api, asked)
      assert.deepEqual(zero.body.rows[0].metrics, { followers: 5030 + 810, interactions: 210, engagement_rate: 0.059155 })
      const carry = await report(api, { ...asked, gaps: 'carry' })
      assert.deepEqual(carry.body.rows[0].metrics, { followers: 5030 + 810, interactions: 210, engagement_rate: 0.050704 }, '(40+45+50+20+25) / 3550')

      const days = await report(api, { ...asked, dimensions: ['date'], gaps: 'carry' })
      assert.deepEqual(days.body.rows.map((row: Row) => [row.date, row.metrics]), [
        // ig 11's coverage starts 2026-03-31: on 03-30 it is neither missing nor carried.
        ['2026-03-30', { followers: 5000, interactions: 40, engagement_rate: 0.05 }],
        ['2026-03-31', { followers: 5810, interactions: 65, engagement_rate: 0.05 }],
        // Both carried from 03-31 (never from 04-02); fb 10's interactions have no reach that day.
        ['2026-04-01', { followers: 5810, interactions: 30, engagement_rate: 0 }],
        ['2026-04-02', { followers: 5840, interactions: 75, engagement_rate: 0.051724 }],
      ])
    })
  })
}
