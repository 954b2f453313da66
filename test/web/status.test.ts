import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { AccountStatus } from '../../packages/client/src/types.js'
import { metricDescription, metricLabel, metricTextsOf } from '../../web/src/model/catalog.js'
import { dataStatusQuery, seriesQuery, tableQuery, analyticsExportArgs } from '../../web/src/model/queries.js'
import { DEFAULT_FILTERS } from '../../web/src/model/filters.js'
import { buildSeries } from '../../web/src/model/series.js'
import { formatAgo, formatRanges, freshnessOf, missingAccounts, periodMark, shortfall, splitStatus, windowOf } from '../../web/src/model/status.js'

/** The dashboard's reading of data status and completeness (web/src/model/status.ts, catalog.ts), in Node. */

const account = (brand: number, platform: string, id: number, extra: Partial<AccountStatus>): AccountStatus => ({
  brand_id: brand,
  platform,
  account_id: id,
  account_name: `${platform} ${id}`,
  first_date: '2026-11-01',
  last_date: '2026-11-24',
  synced_at: '2026-11-24T10:00:00Z',
  days_expected: 0,
  days_reported: 0,
  missing: [],
  ...extra,
})

const ACCOUNTS: AccountStatus[] = [
  account(4, 'fb', 40, { missing: [{ since: '2026-11-04', until: '2026-11-04' }], days_expected: 7, days_reported: 6 }),
  account(4, 'ig', 41, { last_date: '2026-11-23', synced_at: '2026-11-24T12:30:00Z' }),
  account(4, 'tk', 42, { first_date: '2026-11-05', missing: [{ since: '2026-11-06', until: '2026-11-30' }] }),
  account(5, 'fb', 50, { first_date: null, last_date: null, synced_at: null }),
]

describe('dashboard data status', () => {
  it('splits the include=status members off an entry, leaving what the export writes', () => {
    const { entry, status } = splitStatus({ date: '2026-11-04', brand_id: 4, views: 10, accounts_expected: 3, accounts_reported: 2, metrics_reported: { views: 1, reach: 0 }, metrics_expected: { views: 2, reach: 1 } })
    assert.deepEqual(entry, { date: '2026-11-04', brand_id: 4, views: 10 })
    assert.deepEqual(status, { expected: 3, reported: 2, metrics: { views: [1, 2], reach: [0, 1] } })
    assert.deepEqual(splitStatus({ date: '2026-11-04', views: 1 }), { entry: { date: '2026-11-04', views: 1 }, status: undefined })
  })

  it('says why a point is incomplete: accounts missing, or a metric (or a rate\'s input) left out', () => {
    const status = { expected: 3, reported: 2, metrics: { views: [1, 2], interactions: [2, 2], reach: [1, 1] } as Record<string, [number, number]> }
    assert.equal(shortfall(status, 'interactions', 'day'), '2 of 3 accounts reported')
    assert.equal(shortfall(status, 'views', 'day'), '2 of 3 accounts reported; views reported by 1 of 2 accounts')
    assert.equal(shortfall({ ...status, reported: 3 }, 'engagement_rate', 'month'), 'views reported by 1 of 2 account-days')
    assert.equal(shortfall({ ...status, reported: 3 }, 'followers', 'day'), undefined)
    assert.equal(shortfall(undefined, 'views', 'day'), undefined)
  })

  it('marks a period\'s figure (agg, gaps=carry): a carried stock, a flow short of account-days, a carried-only entry\'s flows as no data', () => {
    const gaps = (carried: number) => ({ followers: { carried, missing: [] }, views: { carried: 0, missing: [] } })
    // Brand 4's Facebook on 2026-11-04 alone: a carried-only entry.
    const carriedOnly = { expected: 1, reported: 0, metrics: { views: [0, 0], followers: [0, 0] } as Record<string, [number, number]>, gaps: gaps(1) }
    assert.deepEqual(periodMark(carriedOnly, 'followers', 'stock'), { kind: 'carried', text: '1 account carried from its last report' })
    assert.deepEqual(periodMark(carriedOnly, 'views', 'flow'), { kind: 'no-data', text: '0 of 1 account-days reported' })
    assert.deepEqual(periodMark(carriedOnly, 'engagement_rate', 'rate'), { kind: 'no-data', text: '0 of 1 account-days reported' })
    const short = { expected: 28, reported: 27, metrics: { views: [27, 27], followers: [27, 27] } as Record<string, [number, number]>, gaps: gaps(2) }
    assert.deepEqual(periodMark(short, 'views', 'flow'), { kind: 'partial', text: '27 of 28 account-days reported' })
    assert.deepEqual(periodMark(short, 'followers', 'stock'), { kind: 'carried', text: '2 accounts carried from their last report' })
    assert.equal(periodMark({ ...short, gaps: gaps(0) }, 'followers', 'stock'), undefined, 'a stock whose last day every account reported: days missed before it do not count')
    const complete = { expected: 28, reported: 28, metrics: { views: [28, 28] } as Record<string, [number, number]>, gaps: gaps(0) }
    assert.equal(periodMark(complete, 'views', 'flow'), undefined)
    assert.equal(periodMark(complete, 'followers', 'stock'), undefined)
    assert.equal(periodMark(undefined, 'views', 'flow'), undefined)
  })

  it('names the accounts of a group with no row in a day or a month (inside their coverage only)', () => {
    const names = (group: Parameters<typeof missingAccounts>[1], x: string) => missingAccounts(ACCOUNTS, group, windowOf(x, { since: '2026-10-20', until: '2026-11-24' })).map((found) => found.account_name)
    assert.deepEqual(names({ brandId: 4 }, '2026-11-04'), ['fb 40'])
    assert.deepEqual(names({ brandId: 4, platform: 'tk' }, '2026-11-04'), [], 'before its first day: not missing')
    assert.deepEqual(names({ brandId: 4 }, '2026-11-10'), ['tk 42'])
    assert.deepEqual(names({ brandId: 4 }, '2026-11'), [], 'a month with some rows is not a month without')
    assert.deepEqual(names({ platform: 'tk' }, '2026-11-20'), ['tk 42'])
    assert.deepEqual(windowOf('2026-11', { since: '2026-11-03', until: '2026-12-31' }), { since: '2026-11-03', until: '2026-11-30' })
    assert.deepEqual(windowOf('2024-02', { since: '2024-01-01', until: '2024-12-31' }), { since: '2024-02-01', until: '2024-02-29' })
  })

  it('gives each brand "data through" (every account has data to it), its last sync and its gaps', () => {
    const [four, five] = freshnessOf(ACCOUNTS, [4, 5])
    assert.deepEqual([four?.dataThrough, four?.latest, four?.syncedAt], ['2026-11-23', '2026-11-24', '2026-11-24T12:30:00Z'])
    assert.deepEqual(four?.gaps.map((gap) => [gap.account.account_id, gap.days]), [[40, 1]])
    assert.deepEqual([five?.dataThrough, five?.latest, five?.syncedAt, five?.gaps], [null, null, null, []])
    const now = Date.parse('2026-11-24T12:30:00Z')
    assert.deepEqual(['2026-11-24T12:29:31Z', '2026-11-24T12:29:00Z', '2026-11-24T10:00:00Z', '2026-11-22T12:30:00Z', '2026-11-24T13:00:00Z'].map((time) => formatAgo(time, now)),
      ['just now', '1 minute ago', '2 hours ago', '2 days ago', 'just now'])
    assert.equal(formatRanges([{ since: '2026-11-04', until: '2026-11-04' }, { since: '2026-11-06', until: '2026-11-08' }]), '2026-11-04, 2026-11-06 – 2026-11-08')
    assert.equal(formatRanges(Array.from({ length: 7 }, () => ({ since: '2026-01-01', until: '2026-01-01' })), 5).endsWith(' and 2 more'), true)
  })

  it('asks for include=status on charts and tables, and leaves it out of the export command; charts ask for gaps=carry, and the command too', () => {
    const scope = { brand_id: [4], platform: ['fb' as const], split_by_platform: true as const }
    const period = { since: '2026-11-01', until: '2026-11-24' }
    const query = seriesQuery(DEFAULT_FILTERS, scope, period)
    assert.deepEqual(query.include, ['status'])
    assert.equal(query.gaps, 'carry')
    assert.deepEqual(tableQuery(scope, period).include, ['status'])
    assert.deepEqual(analyticsExportArgs(query), ['analytics', '--type', 'daily', '--since', '2026-11-01', '--until', '2026-11-24', '--brand-id', '4', '--platform', 'fb', '--split-by-platform', '--gaps', 'carry', '--format', 'csv'])
    assert.deepEqual(dataStatusQuery(scope, period), { since: '2026-11-01', until: '2026-11-24', brand_id: [4], platform: ['fb'] })
  })

  it('keeps each point\'s status on its line', () => {
    const model = buildSeries([
      { date: '2026-11-05', brand_id: 4, views: 5 },
      { date: '2026-11-04', brand_id: 4, views: 1 },
    ], 'daily', { since: '2026-11-03', until: '2026-11-05' }, new Map(), [undefined, { expected: 3, reported: 2, metrics: {} }])
    assert.deepEqual(model.lines[0]?.status, [undefined, { expected: 3, reported: 2, metrics: {} }, undefined])
    assert.deepEqual(model.lines[0]?.group, { brandId: 4 })
  })

  it('reads labels and help text from the metric catalogue', () => {
    const texts = metricTextsOf({ data: [{ name: 'views', label: 'Views', description: 'Views of the content' }], total: 1 } as never)
    assert.equal(metricLabel(texts, 'views'), 'Views')
    assert.equal(metricDescription(texts, 'views'), 'Views of the content')
    assert.equal(metricLabel(texts, 'unknown_metric'), 'unknown_metric')
  })
})
