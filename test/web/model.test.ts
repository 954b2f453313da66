import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { roundedRatio } from '../../src/domain/rounding.js'
import { combinedEngagementRate, roundedRatio6 } from '../../web/src/model/engagement.js'
import { DEFAULT_FILTERS, formatFilters, parseFilters, periodOf } from '../../web/src/model/filters.js'
import { describeChange, formatInteger, formatRatioAsPercent, formatUpTo2 } from '../../web/src/model/format.js'
import { dateFieldProblem, daysInPeriod, monthsOf, presetPeriod, previousPeriod } from '../../web/src/model/period.js'
import { analyticsExportArgs, analyticsScope, postsExportArgs, postsQuery, seriesQuery } from '../../web/src/model/queries.js'
import { buildSeries } from '../../web/src/model/series.js'

/** The dashboard's pure parts (web/src/model), run in Node: URL state, periods, numbers, CSV, queries. */

describe('dashboard filters in the URL', () => {
  it('leaves defaults out and reads back what it wrote', () => {
    assert.equal(formatFilters(DEFAULT_FILTERS), '')
    const filters = { ...DEFAULT_FILTERS, view: 'posts' as const, brands: [1, 2], platforms: ['fb' as const, 'ig' as const], period: 'custom' as const, since: '2026-01-01', until: '2026-01-31', granularity: 'monthly' as const, split: true, orderBy: 'reach' as const, postType: 'reel' as const, limit: 50 }
    const search = formatFilters(filters)
    assert.equal(search, '?view=posts&brands=1,2&platforms=fb,ig&since=2026-01-01&until=2026-01-31&granularity=monthly&split=1&order_by=reach&post_type=reel&limit=50')
    assert.deepEqual(parseFilters(search), filters)
  })

  it('falls back to defaults for values it does not know, but passes brand ids and date shapes to the API', () => {
    const filters = parseFilters('?view=nope&platforms=FB,xx,fb&brands=8,abc,0,8&since=2026-02-30&until=2026-03-01&limit=7&granularity=hourly')
    assert.equal(filters.view, 'overview')
    assert.deepEqual(filters.platforms, ['fb'])
    assert.deepEqual(filters.brands, [8])
    assert.equal(filters.period, 'custom')
    assert.equal(filters.since, '2026-02-30', 'the API says what is wrong with it')
    assert.equal(filters.limit, 10)
    assert.equal(filters.granularity, 'daily')
  })

  it('never carries a secret: only the known parameters are written back', () => {
    assert.equal(formatFilters(parseFilters('?token=abc&api_secret_key=pas_x&period=7d')), '?period=7d')
  })
})

describe('dashboard periods', () => {
  it('resolves presets against today (UTC), ending today', () => {
    assert.deepEqual(presetPeriod('7d', '2026-03-10'), { since: '2026-03-04', until: '2026-03-10' })
    assert.deepEqual(presetPeriod('28d', '2026-03-10'), { since: '2026-02-11', until: '2026-03-10' })
    assert.deepEqual(presetPeriod('month', '2026-03-10'), { since: '2026-03-01', until: '2026-03-10' })
    assert.deepEqual(presetPeriod('12m', '2026-03-10'), { since: '2025-04-01', until: '2026-03-10' })
    assert.deepEqual(presetPeriod('12m', '2026-12-31'), { since: '2026-01-01', until: '2026-12-31' })
    assert.deepEqual(periodOf({ ...DEFAULT_FILTERS, period: 'custom', since: '2026-01-01', until: '2026-01-02' }, '2026-03-10'), { since: '2026-01-01', until: '2026-01-02' })
  })

  it('compares with the period of the same length just before', () => {
    assert.deepEqual(previousPeriod({ since: '2026-03-01', until: '2026-03-10' }), { since: '2026-02-19', until: '2026-02-28' })
    fc.assert(fc.property(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 1095 }), (start, length) => {
      const since = new Date(Date.UTC(2020, 0, 1) + start * 86_400_000).toISOString().slice(0, 10)
      const until = new Date(Date.UTC(2020, 0, 1) + (start + length) * 86_400_000).toISOString().slice(0, 10)
      const previous = previousPeriod({ since, until })
      assert.equal(daysInPeriod(previous), length + 1)
      assert.equal(daysInPeriod({ since: previous.since, until }), 2 * (length + 1))
    }))
  })

  it('lists the months a period touches', () => {
    assert.deepEqual(monthsOf({ since: '2025-11-15', until: '2026-02-01' }), ['2025-11', '2025-12', '2026-01', '2026-02'])
  })

  it('takes a typed date only as a real YYYY-MM-DD on or before the last day with data', () => {
    assert.equal(dateFieldProblem('2026-11-24', '2026-11-24'), undefined)
    assert.equal(dateFieldProblem('2024-02-29', '2026-11-24'), undefined)
    assert.equal(dateFieldProblem('2027-01-01', null), undefined, 'no last day known: no bound')
    for (const text of ['11/24/2026', '24.11.2026', '2026-11-4', '2026-02-29', '2026-13-01', '2026-11-24 ', '0000-01-01']) {
      assert.equal(dateFieldProblem(text, '2026-11-24'), `"${text}" is not a date: write it as YYYY-MM-DD, e.g. 2026-11-24.`, text)
    }
    assert.equal(dateFieldProblem('', null), 'Enter a date as YYYY-MM-DD, e.g. 2026-01-31.')
    assert.equal(dateFieldProblem('2026-11-25', '2026-11-24'), 'The data goes through 2026-11-24: choose a day on or before it.')
  })
})

describe('dashboard numbers', () => {
  it('writes counts with separators and a ratio as a percentage without float error', () => {
    assert.equal(formatInteger(63780168), '63,780,168')
    assert.equal(formatInteger(null), '—')
    assert.equal(formatUpTo2(779968.5), '779,968.5')
    assert.equal(formatRatioAsPercent(0.034512), '3.4512 %')
    assert.equal(formatRatioAsPercent(0.000001), '0.0001 %')
    assert.equal(formatRatioAsPercent(0), '0.0000 %')
    fc.assert(fc.property(fc.integer({ min: 0, max: 5_000_000 }), (millionths) => {
      const shown = formatRatioAsPercent(millionths / 1e6)
      assert.equal(Math.round(Number(shown.replace(/[ ,%]/g, '')) * 10_000), millionths)
    }))
  })

  it('describes a change with its direction in words, not colour alone', () => {
    assert.deepEqual(describeChange(110, 100, formatInteger), { direction: 'up', text: '+10.0 % (+10)' })
    assert.deepEqual(describeChange(90, 100, formatInteger), { direction: 'down', text: '−10.0 % (−10)' })
    assert.deepEqual(describeChange(5, 0, formatInteger), { direction: 'new', text: '+5 (previous period had 0)' })
    assert.deepEqual(describeChange(7, 7, formatInteger), { direction: 'flat', text: 'no change' })
  })

  it('rounds the combined engagement rate exactly as the API does', () => {
    fc.assert(fc.property(fc.nat({ max: 2 ** 40 }), fc.nat({ max: 2 ** 40 }), (numerator, denominator) => {
      assert.equal(roundedRatio6(numerator, denominator), roundedRatio(numerator, denominator, 6))
    }))
    // Reach on fb/ig/sc/li, views elsewhere, summed before dividing.
    assert.equal(combinedEngagementRate([
      { platform: 'fb', interactions: 30, reach: 600, views: 9999 },
      { platform: 'tk', interactions: 10, views: 400 },
    ]), 0.04)
  })
})

describe('dashboard queries', () => {
  const brands = [
    { brand_id: 1, brand_name: 'Acme', fb_accounts: [{ account_id: 10, account_name: 'Acme FR' }], li_accounts: [] },
    { brand_id: 2, brand_name: 'Globex', fb_accounts: [{ account_id: 7, account_name: 'Globex' }, { account_id: 10, account_name: 'dup' }] },
  ]
  const period = { since: '2026-01-01', until: '2026-01-31' }

  it('groups by brand, by platform when split, or by the accounts of one platform', () => {
    assert.deepEqual(analyticsScope(DEFAULT_FILTERS, brands), {})
    assert.deepEqual(analyticsScope({ ...DEFAULT_FILTERS, brands: [2], platforms: ['fb'], split: true }, brands), { brand_id: [2], platform: ['fb'], split_by_platform: true })
    assert.deepEqual(analyticsScope({ ...DEFAULT_FILTERS, platforms: ['fb'], rows: 'account' }, brands), { platform: ['fb'], account_id: [7, 10] })
    assert.match(analyticsScope({ ...DEFAULT_FILTERS, platforms: ['fb', 'ig'], rows: 'account' }, brands).note ?? '', /exactly one platform/)
    assert.match(analyticsScope({ ...DEFAULT_FILTERS, platforms: ['li'], rows: 'account' }, brands).note ?? '', /has an account/)
  })

  it('names the export command that writes the same rows', () => {
    const scope = analyticsScope({ ...DEFAULT_FILTERS, brands: [1, 2], platforms: ['fb', 'ig'], split: true }, brands)
    assert.deepEqual(analyticsExportArgs(seriesQuery({ ...DEFAULT_FILTERS, granularity: 'monthly' }, scope, period)),
      ['analytics', '--type', 'monthly', '--since', '2026-01-01', '--until', '2026-01-31', '--brand-id', '1,2', '--platform', 'fb,ig', '--split-by-platform', '--gaps', 'carry', '--format', 'csv'])
    assert.deepEqual(postsExportArgs(postsQuery({ ...DEFAULT_FILTERS, postType: 'reel', orderBy: 'interactions', limit: 25 }, period)),
      ['posts', '--since', '2026-01-01', '--until', '2026-01-31', '--post-type', 'reel', '--order-by', 'interactions', '--page-size', '25', '--format', 'csv'])
  })
})

describe('dashboard chart series', () => {
  it('puts each entry at its date and leaves days without an entry as gaps, not zeros', () => {
    const model = buildSeries([
      { date: '2026-01-03', brand_id: 2, views: 5, interactions: 1, followers: 9, engagement_rate: 0.2 },
      { date: '2026-01-01', brand_id: 2, views: 0, interactions: 0, followers: 8, engagement_rate: 0 },
      { date: '2026-01-01', brand_id: 1, platform: 'fb', views: 7, interactions: 2, followers: 3, engagement_rate: 0.1 },
    ], 'daily', { since: '2026-01-01', until: '2026-01-03' }, new Map([[2, 'Globex']]))
    assert.deepEqual(model.x, ['2026-01-01', '2026-01-02', '2026-01-03'])
    assert.deepEqual(model.lines.map((line) => line.label), ['Brand 1 · Facebook', 'Globex'])
    assert.deepEqual(model.lines[1]?.values.views, [0, null, 5])
    assert.deepEqual(model.lines[0]?.values.engagement_rate, [0.1, null, null])
  })
})
