import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { METRIC_CATALOG, metricDefinition, type MetricDefinition } from '../../src/domain/metric-catalog.js'
import { accountWindow, combineAccounts, rateValue, stockOn, type AccountDays, type DayValues } from '../../src/domain/gaps/index.js'
import type { PlatformCode } from '../../src/domain/platforms.js'

/** The gap rules of src/domain/gaps/ on small hand-made accounts whose answers are worked out here. */

function account (platform: PlatformCode, accountId: number, rows: Record<string, DayValues>, extra: Partial<AccountDays> = {}): AccountDays {
  const dates = Object.keys(rows).sort()
  return {
    platform,
    accountId,
    coverage: dates.length === 0 ? undefined : { since: dates[0] as string, until: dates[dates.length - 1] as string },
    days: new Map(Object.entries(rows)),
    ...extra,
  }
}

const metric = (name: string): MetricDefinition => metricDefinition(name) as MetricDefinition

describe('gap rules: the carry of a stock', () => {
  const tk = account('tk', 7, {
    '2026-09-01': { followers: 100 },
    '2026-09-02': { followers: null, views: 5 },
    '2026-09-05': { followers: 130 },
    '2026-09-09': { followers: 150 },
  })

  it('takes the value reported that day, else the last one before it, saying from which day', () => {
    assert.deepEqual(stockOn(tk, 'followers', '2026-09-01'), { value: 100, date: '2026-09-01', carried: false })
    assert.deepEqual(stockOn(tk, 'followers', '2026-09-02'), { value: 100, date: '2026-09-01', carried: true }, 'a row without the metric')
    assert.deepEqual(stockOn(tk, 'followers', '2026-09-04'), { value: 100, date: '2026-09-01', carried: true }, 'a day without a row')
    assert.deepEqual(stockOn(tk, 'followers', '2026-09-08'), { value: 130, date: '2026-09-05', carried: true })
  })

  it('never carries from after the day, nor outside the coverage', () => {
    assert.equal(stockOn(tk, 'followers', '2026-08-31'), undefined, 'before the first row (the next value is not taken)')
    assert.equal(stockOn(tk, 'followers', '2026-09-10'), undefined, 'after the last row: not yet synced, not carried')
    assert.equal(stockOn(account('tk', 8, {}), 'followers', '2026-09-01'), undefined, 'an account without rows')
  })

  it('carries a value reported before the rows read (stocksBefore), inside the coverage only', () => {
    const late = account('ig', 9, { '2026-09-10': { followers: 50 } }, {
      coverage: { since: '2026-08-01', until: '2026-09-10' },
      stocksBefore: { followers: { date: '2026-08-20', value: 40 } },
    })
    assert.deepEqual(stockOn(late, 'followers', '2026-09-03'), { value: 40, date: '2026-08-20', carried: true })
    assert.equal(stockOn(late, 'followers', '2026-08-19'), undefined, 'the value is from after that day')
    assert.deepEqual(stockOn(late, 'followers', '2026-09-10'), { value: 50, date: '2026-09-10', carried: false })
  })
})

describe('gap rules: an account over a window', () => {
  const fb = account('fb', 1, {
    '2026-09-01': { views: 10, followers: 100, interactions: 4, reach: 40, posts_count: 2, revenue: 1_500_000 },
    '2026-09-02': { views: 20, followers: null, interactions: 6, reach: null, posts_count: 1, revenue: null },
    '2026-09-04': { views: null, followers: 104, interactions: 2, reach: 10, posts_count: null, revenue: 500_000 },
  })
  const window = { since: '2026-09-01', until: '2026-09-05' }

  it('sums flows over the days that reported them, and counts the days that did not', () => {
    const figures = accountWindow(fb, window)
    assert.deepEqual(figures.span, { since: '2026-09-01', until: '2026-09-04' }, 'the window inside the coverage')
    assert.equal(figures.expectedDays, 4)
    assert.equal(figures.reportedDays, 3)
    assert.equal(figures.flows.views, 30)
    assert.equal(figures.flows.revenue, 2_000_000)
    assert.equal(figures.flows.video_views_3s, null, 'reported by no day: null, never 0')
    assert.equal(figures.flows.views_video, undefined, 'not a Facebook metric')
    assert.equal(figures.missingDays.views, 2)
    assert.equal(figures.missingDays.followers, 2)
    assert.equal(figures.missingDays.views_video, undefined)
  })

  it('takes a stock on the window\'s last covered day', () => {
    assert.deepEqual(accountWindow(fb, window).stocks.followers, { value: 104, date: '2026-09-04', carried: false })
    assert.deepEqual(accountWindow(fb, { since: '2026-09-02', until: '2026-09-03' }).stocks.followers, { value: 100, date: '2026-09-01', carried: true })
  })

  it('computes a rate only over the days that reported both parts', () => {
    const rates = accountWindow(fb, window).rates
    // 2026-09-02 reported interactions (6) but not reach: left out of both parts.
    assert.deepEqual(rates.engagement_rate, { numerator: 6, denominator: 50, days: 2 })
    // posts_per_day divides by the days that reported posts_count.
    assert.deepEqual(rates.posts_per_day, { numerator: 3, denominator: 2, days: 2 })
  })

  it('has nothing outside the coverage: no missing day, no stock', () => {
    const figures = accountWindow(fb, { since: '2026-09-06', until: '2026-09-30' })
    assert.equal(figures.span, undefined)
    assert.equal(figures.expectedDays, 0)
    assert.equal(figures.missingDays.views, 0)
    assert.equal(figures.stocks.followers, undefined)
  })
})

describe('gap rules: a group of accounts', () => {
  // Brand 5 on 2026-11-27 of the issue: interactions from three accounts, views from two of them.
  const day = { since: '2026-11-27', until: '2026-11-27' }
  const accounts = [
    account('tk', 1, { '2026-11-26': { followers: 1000 }, '2026-11-27': { views: 1000, interactions: 50, followers: 1010, posts_count: 2 } }),
    account('yt', 2, { '2026-11-26': { followers: 500 }, '2026-11-27': { views: 3000, interactions: 60, followers: null, posts_count: 1 } }),
    account('th', 3, { '2026-11-26': { followers: 200 }, '2026-11-27': { views: null, interactions: 9000, followers: 210, posts_count: 0 } }),
  ]

  it('never divides one account\'s numerator by another\'s denominator', () => {
    const figures = combineAccounts(accounts.map((one) => accountWindow(one, day)))
    // Today's answer would be (50 + 60 + 9000) / 4000 = 2.2775; over the pairs: 110 / 4000.
    assert.equal(rateValue(figures, metric('engagement_rate')), 0.0275)
    assert.equal(rateValue(figures, metric('interaction_rate')), 0.0275)
    assert.equal(figures.sums.views, 4000)
    assert.equal(figures.sums.interactions, 9110)
    assert.equal(figures.sums.followers, 1010 + 500 + 210, 'the YouTube account\'s 500 carried')
    assert.equal(figures.carried.followers, 1)
    assert.deepEqual(figures.missing.views, [{ platform: 'th', account_id: 3, days: 1 }])
    assert.deepEqual(figures.missing.followers, [{ platform: 'yt', account_id: 2, days: 1 }])
    assert.deepEqual(figures.missing.interactions, [])
    assert.equal(rateValue(figures, metric('posts_per_day')), 3)
  })

  it('sums the accounts\' posts per reported day, exactly', () => {
    const week = { since: '2026-11-01', until: '2026-11-07' }
    const everyDay = (posts: number): Record<string, DayValues> =>
      Object.fromEntries(Array.from({ length: 7 }, (_, index) => [`2026-11-0${index + 1}`, { posts_count: posts }]))
    const a = account('fb', 1, everyDay(1))
    // Three days of 1 post, then nothing reported: 1 per day, not 3/7.
    const b = account('ig', 2, { '2026-11-01': { posts_count: 1 }, '2026-11-02': { posts_count: 1 }, '2026-11-03': { posts_count: 1 }, '2026-11-07': { posts_count: null } })
    const figures = combineAccounts([a, b].map((one) => accountWindow(one, week)))
    assert.equal(rateValue(figures, metric('posts_per_day')), 2)
    assert.deepEqual(figures.missing.posts_count, [{ platform: 'ig', account_id: 2, days: 4 }])
    // 1/3 + 1/6: exactly 0.5, added as fractions, not floats.
    const third = account('li', 3, { '2026-11-01': { posts_count: 1 }, '2026-11-02': { posts_count: 0 }, '2026-11-03': { posts_count: 0 } })
    const sixth = account('pi', 4, Object.fromEntries(Array.from({ length: 6 }, (_, index) => [`2026-11-0${index + 1}`, { posts_count: index === 0 ? 1 : 0 }])))
    assert.equal(rateValue(combineAccounts([third, sixth].map((one) => accountWindow(one, week))), metric('posts_per_day')), 0.5)
  })

  it('gives null sums and zero rates when no account had anything', () => {
    const figures = combineAccounts([])
    assert.equal(figures.sums.views, null)
    assert.equal(figures.sums.followers, null)
    assert.equal(rateValue(figures, metric('engagement_rate')), 0)
    assert.equal(rateValue(figures, metric('posts_per_day')), 0)
  })
})

describe('the catalogue kinds the rules read', () => {
  it('makes followers the one stock, the derived metrics rates, every other metric a flow', () => {
    const byKind = (kind: string): string[] => METRIC_CATALOG.filter((one) => one.kind === kind).map((one) => one.name)
    assert.deepEqual(byKind('stock'), ['followers'])
    assert.deepEqual(byKind('rate'), ['posts_per_day', 'engagement_rate', 'interaction_rate'])
    for (const one of METRIC_CATALOG) assert.equal(one.kind === 'rate', one.ratioOf !== undefined, one.name)
    for (const one of METRIC_CATALOG) assert.equal(one.kind === 'flow', one.overDays === 'sum', one.name)
  })
})
