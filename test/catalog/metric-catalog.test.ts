import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { REPORT_TYPES } from '../../src/domain/analytics.js'
import { METRIC_CATALOG, REPORTED_METRICS } from '../../src/domain/metric-catalog.js'
import { PLATFORM_METRICS } from '../../src/domain/metrics.js'
import { PLATFORM_CODES } from '../../src/domain/platforms.js'
import { AggEntry, DailyEntry, MonthlyEntry } from '../../src/http/schemas/analytics.schemas.js'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * GET /catalog/metrics and the catalogue behind it (src/domain/metric-catalog.ts) cannot drift
 * from the reports: every metric field of every report's schema, and of the entries the reports
 * really write for each platform, is the catalogue's, in the catalogue's order; each metric's
 * platforms are the presence rule; what accounts report is what the daily table stores.
 */

const METADATA = new Set(['date', 'month', 'platform', 'brand_id', 'account_id', 'account_name', 'name', 'network_id', 'storage_avatar', 'permalink'])
const STATUS = new Set(['accounts_expected', 'accounts_reported', 'metrics_reported', 'metrics_expected', 'account_days_expected', 'account_days_reported', 'gaps'])
const SCHEMAS = { daily: DailyEntry, monthly: MonthlyEntry, agg: AggEntry } as const

const metricFields = (fields: string[]): string[] => fields.filter((field) => !METADATA.has(field) && !STATUS.has(field))
const catalogued = (report: string, platform?: string): string[] =>
  METRIC_CATALOG.filter((metric) => metric.reports.includes(report as never) && (platform === undefined || metric.platforms.includes(platform as never))).map((metric) => metric.name)

describe('the metric catalogue and the report schemas', () => {
  it('lists every metric field of each report schema, in the schema\'s order', () => {
    for (const report of REPORT_TYPES) {
      assert.deepEqual(metricFields(Object.keys(SCHEMAS[report].properties)), catalogued(report), report)
    }
  })

  it('gives each platform-specific metric the platforms of the presence rule, and the core ones every platform', () => {
    for (const metric of METRIC_CATALOG) {
      const rule = (PLATFORM_METRICS as Record<string, readonly string[]>)[metric.name]
      assert.deepEqual([...metric.platforms], rule === undefined ? [...PLATFORM_CODES] : [...rule], metric.name)
    }
    assert.deepEqual(METRIC_CATALOG.filter((metric) => metric.reports.length < 3).map((metric) => [metric.name, metric.reports]), [['ad_reach', ['daily']]])
  })

  it('derives only what has inputs in the catalogue, and names each metric once', () => {
    const names = METRIC_CATALOG.map((metric) => metric.name)
    assert.equal(new Set(names).size, names.length)
    for (const metric of METRIC_CATALOG) {
      assert.equal(metric.reported, metric.ratioOf === undefined, metric.name)
      if (metric.ratioOf === undefined) continue
      assert.ok(names.includes(metric.ratioOf.numerator), metric.name)
      assert.ok(['days', 'reach_or_views', ...names].includes(metric.ratioOf.denominator), metric.name)
      for (const input of Object.values(metric.ratioOf.denominatorByPlatform ?? {})) assert.ok(names.includes(input))
    }
  })
})

for (const dialect of DIALECTS) {
  describe(`the metric catalogue and the reports as served (${dialect})`, () => {
    let api: PartnerApi
    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertDatasetAndReadModel(test.store, generateDataset({ seed: 99, start: '2026-01-01', days: 20 })) },
        brandIds: [1, 2, 3],
      })
    })
    after(async () => { await api.close() })

    it('writes, in every report and for every platform, exactly the catalogue\'s metrics for it, in its order', async () => {
      let checked = 0
      for (const report of REPORT_TYPES) {
        const all = await api.analytics({ type: report, since: '2026-01-01', until: '2026-01-20' })
        const [summed] = all.body.data
        assert.ok(summed !== undefined)
        assert.deepEqual(metricFields(Object.keys(summed)), catalogued(report), `${report}, every platform summed`)
        for (const platform of PLATFORM_CODES) {
          const split = await api.analytics({ type: report, since: '2026-01-01', until: '2026-01-20', split_by_platform: 'true', platform })
          const [entry] = split.body.data
          if (entry === undefined) continue
          assert.deepEqual(metricFields(Object.keys(entry)), catalogued(report, platform), `${report}, ${platform}`)
          checked++
        }
      }
      assert.ok(checked >= 3 * 8, `only ${checked} platform entries`)
    })

    it('counts with include=status exactly the metrics accounts report, which are the daily table\'s columns', async () => {
      const columns = dialect === 'sqlite'
        ? (await sql<{ name: string }>`select name from pragma_table_info('daily_metrics')`.execute(api.test.store.db)).rows.map((row) => row.name)
        : (await sql<{ name: string }>`select column_name as name from information_schema.columns where table_name = 'daily_metrics' and table_schema = current_schema() order by ordinal_position`.execute(api.test.store.db)).rows.map((row) => row.name)
      const stored = columns.filter((column) => !['platform', 'account_id', 'date'].includes(column)).map((column) => column === 'revenue_micros' ? 'revenue' : column)
      assert.deepEqual([...stored].sort(), [...REPORTED_METRICS].sort())
      const daily = await api.analytics({ since: '2026-01-05', until: '2026-01-05', include: 'status' })
      const entry = daily.body.data[0] as unknown as { metrics_reported: Record<string, number> }
      assert.deepEqual(Object.keys(entry.metrics_reported), REPORTED_METRICS)
    })

    it('is served publicly at GET /catalog/metrics, cacheable, with the catalogue in its order', async () => {
      const response = await api.app.inject({ method: 'GET', url: '/catalog/metrics' })
      assert.equal(response.statusCode, 200)
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(response.headers['cache-control'], 'public, max-age=300')
      assert.equal(response.headers.pragma, undefined)
      assert.equal(response.headers['x-ratelimit-limit-minutely'], undefined)
      const body = response.json() as { data: Array<Record<string, unknown>>, total: number }
      assert.equal(body.total, METRIC_CATALOG.length)
      assert.deepEqual(body.data.map((metric) => metric.name), METRIC_CATALOG.map((metric) => metric.name))
      const engagement = body.data.find((metric) => metric.name === 'engagement_rate')
      assert.deepEqual(engagement?.ratio_of, {
        numerator: 'interactions',
        denominator: 'reach_or_views',
        denominator_by_platform: { fb: 'reach', ig: 'reach', tk: 'views', yt: 'views', li: 'reach', th: 'views', sc: 'reach', da: 'views', pi: 'views' },
      })
      assert.deepEqual(body.data.find((metric) => metric.name === 'followers')?.combine, { over_days: 'last', over_accounts: 'sum' })
      assert.deepEqual(body.data.find((metric) => metric.name === 'revenue')?.none_reported, { daily: 0, monthly: 0, agg: null })
      assert.equal(body.data.find((metric) => metric.name === 'interaction_rate')?.same_as, 'engagement_rate')
      // Each metric's fields in one order; kind and additive were appended after the first twelve, which keep theirs.
      for (const metric of body.data) {
        assert.deepEqual(Object.keys(metric), ['name', 'label', 'description', 'unit', 'decimals', 'platforms', 'reports', 'combine', 'ratio_of', 'same_as', 'derived', 'none_reported', 'kind', 'additive'])
      }
      const kinds = Object.fromEntries(body.data.map((metric) => [metric.name, [metric.kind, metric.additive]]))
      assert.deepEqual(kinds.followers, ['stock', { over_days: false, over_accounts: true }])
      assert.deepEqual(kinds.views, ['flow', { over_days: true, over_accounts: true }])
      assert.deepEqual(kinds.revenue, ['flow', { over_days: true, over_accounts: true }])
      assert.deepEqual(kinds.posts_per_day, ['rate', { over_days: false, over_accounts: false }])
      assert.deepEqual(kinds.engagement_rate, ['rate', { over_days: false, over_accounts: false }])
      assert.deepEqual(body.data.find((metric) => metric.name === 'posts_per_day')?.ratio_of, { numerator: 'posts_count', denominator: 'days' })
      // A bearer token is not needed, and one sent changes nothing.
      const withToken = await api.app.inject({ method: 'GET', url: '/catalog/metrics', headers: api.auth })
      assert.equal(withToken.body, response.body)
    })
  })
}
