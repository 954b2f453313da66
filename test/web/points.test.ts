import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { AccountStatus } from '../../packages/client/src/types.js'
import { brandsText, summariseChanges } from '../../web/src/model/changes.js'
import { metricKind, metricTextsOf } from '../../web/src/model/catalog.js'
import { COMPARABLE_SHARE, formatShare, noChangeText, platformCoverage, previousCoverage } from '../../web/src/model/coverage.js'
import { clampToSynced, lastSyncedDay } from '../../web/src/model/period.js'
import { axisRange, clusterMarks, drawnApart, pointStates, stateOf } from '../../web/src/model/points.js'
import { accountDays } from '../../web/src/model/status.js'

/** How the charts draw incomplete data (web/src/model/points.ts) and count a month's account-days. */

describe('dashboard points: partial and carried', () => {
  it('cuts partial points out of the line (never a fall to a smaller sum) and keeps carried ones on it', () => {
    const { line, states } = pointStates([100, 40, 100, null, 90], [false, true, false, false, false], [false, false, false, false, true])
    assert.deepEqual(line, [100, null, 100, null, 90])
    assert.deepEqual(states, ['complete', 'partial', 'complete', 'complete', 'carried'])
  })
})

describe('dashboard points: which incomplete points leave the line', () => {
  it('cuts out every incomplete day, and a month only when an account sent nothing or under 90 % of it reported', () => {
    assert.equal(drawnApart('day', { accountsMissing: false, metric: 0.99 }), true)
    assert.equal(drawnApart('month', { accountsMissing: true, accountDays: 1 }), true)
    assert.equal(drawnApart('month', { accountsMissing: false, accountDays: 95 / 96 }), false)
    assert.equal(drawnApart('month', { accountsMissing: false, accountDays: 0.89 }), true)
    assert.equal(drawnApart('month', { accountsMissing: false, accountDays: 1, metric: 0.5 }), true)
  })
})

describe('dashboard points: drawn by kind', () => {
  it('dashes a carried stock, keeps a rate of the gap rules on the line, cuts out a short flow', () => {
    assert.equal(stateOf('stock', { apart: true, carryRules: true }, 1), 'carried')
    assert.equal(stateOf('stock', { apart: true }, 0), 'partial', 'without gaps=carry a short stock is a partial point')
    assert.equal(stateOf('rate', { apart: true, carryRules: true }, 0), 'complete')
    assert.equal(stateOf('rate', { apart: true }, 0), 'partial')
    assert.equal(stateOf('flow', { apart: true, carryRules: true }, 0), 'partial', 'a flow is never invented')
    assert.equal(stateOf('flow', { apart: false }, 0), 'complete', 'a month short of a day stays on the line')
    assert.equal(stateOf('flow', undefined, 0), 'complete')
  })
})

describe('dashboard points: the y axis', () => {
  it('starts at 0, so a 2 % dip of a stock is drawn as 2 % of the height', () => {
    const range = axisRange('stock', [{ values: [1_490_000, 1_460_000, 1_490_000], states: ['complete', 'complete', 'complete'] }])
    assert.equal(range.min, 0)
    assert.ok(range.max >= 1_490_000 && range.max < 1_700_000)
    assert.equal(range.clipped, false)
  })

  it('scales a rate on its complete points: one partial day (1,212 %) cannot blow it up, and is said to be clipped', () => {
    const range = axisRange('rate', [
      { values: [0.04, 12.118819, 0.05], states: ['complete', 'partial', 'complete'] },
      { values: [0.03, 0.02, null], states: ['complete', 'complete', 'complete'] },
    ])
    assert.deepEqual([range.min, range.clipped], [0, true])
    assert.ok(range.max > 0.05 && range.max < 0.06, String(range.max))
  })

  it('falls back to every point when a rate has no complete one, and to 0..1 with no value at all', () => {
    assert.ok(axisRange('rate', [{ values: [0.5], states: ['partial'] }]).max >= 0.5)
    assert.deepEqual(axisRange('flow', [{ values: [null, null], states: ['complete', 'complete'] }]), { min: 0, max: 1, clipped: false })
  })

  it('a flow is scaled on every point, partial ones included (none is drawn outside the plot)', () => {
    const range = axisRange('flow', [{ values: [10, 500, 20], states: ['complete', 'partial', 'complete'] }])
    assert.ok(range.max >= 500)
    assert.equal(range.clipped, false)
  })
})

describe('dashboard points: marks clustered', () => {
  it('merges marks closer than the spacing into one with their count, a triangle if any has accounts missing', () => {
    const clusters = clusterMarks([{ x: 30, accountsMissing: false }, { x: 10, accountsMissing: false }, { x: 12, accountsMissing: true }, { x: 100, accountsMissing: false }], 26)
    assert.deepEqual(clusters, [{ x: 52 / 3, count: 3, accountsMissing: true }, { x: 100, count: 1, accountsMissing: false }])
  })

  it('turns 329 marks over a 900 px chart into at most one per 26 px', () => {
    const marks = Array.from({ length: 329 }, (_, index) => ({ x: (index * 900) / 329, accountsMissing: index % 2 === 0 }))
    const clusters = clusterMarks(marks, 26)
    assert.ok(clusters.length <= Math.ceil(900 / 26) + 1, String(clusters.length))
    assert.equal(clusters.reduce((sum, cluster) => sum + cluster.count, 0), 329)
    for (const [index, cluster] of clusters.entries()) if (index > 0) assert.ok(cluster.x - (clusters[index - 1]?.x ?? 0) >= 13)
  })
})

const account = (id: number, first: string, last: string, missing: Array<{ since: string, until: string }>): AccountStatus => ({
  brand_id: 1, platform: 'tk', account_id: id, account_name: `Account ${id}`, first_date: first, last_date: last, synced_at: null, days_expected: 0, days_reported: 0, missing,
})

describe('dashboard months in account-days', () => {
  it('counts a month in which an account missed 8 days as incomplete, though the account reported in it', () => {
    const accounts = [
      account(1, '2025-10-24', '2026-11-24', [{ since: '2026-09-03', until: '2026-09-06' }, { since: '2026-09-20', until: '2026-09-23' }, { since: '2026-10-02', until: '2026-10-02' }]),
      account(2, '2025-10-24', '2026-11-24', []),
      account(3, '2026-09-16', '2026-11-24', []),
    ]
    const september = accountDays(accounts, { brandId: 1 }, { since: '2026-09-01', until: '2026-09-30' })
    assert.deepEqual({ expected: september.expected, reported: september.reported }, { expected: 30 + 30 + 15, reported: 22 + 30 + 15 })
    assert.deepEqual(september.short.map(({ account: { account_id: id }, days }) => [id, days]), [[1, 8]])
    const complete = accountDays(accounts, { brandId: 1, platform: 'ig' }, { since: '2026-09-01', until: '2026-09-30' })
    assert.deepEqual(complete, { expected: 0, reported: 0, short: [] })
  })
})

describe('dashboard metric kinds from the catalogue', () => {
  it('reads flow, stock and rate from how the metric combines over days and accounts', () => {
    const texts = metricTextsOf({
      data: [
        { name: 'views', label: 'Views', description: '', combine: { over_days: 'sum', over_accounts: 'sum' } },
        { name: 'followers', label: 'Followers', description: '', combine: { over_days: 'last', over_accounts: 'sum' } },
        { name: 'engagement_rate', label: 'Engagement rate', description: '', combine: { over_days: 'ratio', over_accounts: 'ratio' } },
      ],
      total: 3,
    } as never)
    assert.deepEqual(['views', 'followers', 'engagement_rate', 'unknown'].map((name) => metricKind(texts, name)), ['flow', 'stock', 'rate', 'flow'])
  })
})

describe('dashboard: the last synced day', () => {
  it('is the latest last_date among the accounts, never after today, null without data', () => {
    assert.equal(lastSyncedDay(['2026-11-22', null, '2026-11-24'], '2026-11-28'), '2026-11-24')
    assert.equal(lastSyncedDay(['2026-12-02'], '2026-11-28'), '2026-11-28')
    assert.equal(lastSyncedDay([null], '2026-11-28'), null)
  })

  it('moves an end after it back to it, and says from where; a period wholly after it is left to the API', () => {
    assert.deepEqual(clampToSynced({ since: '2026-12-01', until: '2026-12-31' }, '2026-11-24'), { since: '2026-12-01', until: '2026-12-31' })
    assert.deepEqual(clampToSynced({ since: '2026-11-01', until: '2026-12-31' }, '2026-11-24'), { since: '2026-11-01', until: '2026-11-24', clampedFrom: '2026-12-31' })
    assert.deepEqual(clampToSynced({ since: '2026-11-01', until: '2026-11-20' }, '2026-11-24'), { since: '2026-11-01', until: '2026-11-20' })
    assert.deepEqual(clampToSynced({ since: '2026-11-01', until: '2026-11-30' }, null), { since: '2026-11-01', until: '2026-11-30' })
  })
})

const covered = (id: number, daysReported: number): AccountStatus => ({ ...account(id, '2025-10-24', '2026-11-24', []), days_reported: daysReported, days_expected: daysReported })

describe('dashboard: the previous period\'s coverage', () => {
  it('expects every account with data now on every day of the previous period', () => {
    const previous = { since: '2024-12-07', until: '2025-11-30' }
    const coverage = previousCoverage([covered(1, 359), covered(2, 300), covered(3, 0)], [covered(1, 38), covered(2, 38), covered(3, 359)], previous)
    assert.deepEqual([coverage.reported, coverage.expected], [76, 2 * 359])
    assert.ok(coverage.share < COMPARABLE_SHARE)
    assert.equal(formatShare(coverage.share), '10.5 %')
    assert.equal(formatShare(0.8999), '89.9 %', 'never rounded up to 90.0 %')
    assert.equal(previousCoverage([], [], previous).share, 1, 'nothing compared: nothing missing')
  })

  it('per platform, compares only that platform\'s accounts with data now (the Platforms view\'s Change column)', () => {
    const previous = { since: '2026-09-30', until: '2026-10-27' }
    const on = (platform: string, id: number, daysReported: number): AccountStatus => ({ ...covered(id, daysReported), platform })
    // Instagram's account 1 missed 5 of 28 days; Facebook's reported every day; TikTok's 2 had no data now.
    const now = [on('ig', 1, 28), on('fb', 1, 28), on('tk', 2, 0)]
    const then = [on('ig', 1, 23), on('fb', 1, 28), on('tk', 2, 1)]
    const instagram = platformCoverage(now, then, 'ig', previous)
    assert.deepEqual([instagram.reported, instagram.expected], [23, 28])
    assert.ok(instagram.share < COMPARABLE_SHARE, 'Instagram: no change shown')
    assert.equal(noChangeText(instagram), 'No change shown: previous period 82.1 % reported')
    assert.deepEqual(platformCoverage(now, then, 'fb', previous), { reported: 28, expected: 28, share: 1 }, 'Facebook is not lowered by Instagram')
    assert.equal(platformCoverage(now, then, 'tk', previous).share, 1, 'TikTok: no account with data now, nothing compared')
    assert.deepEqual(platformCoverage(now, [], 'fb', previous), { reported: 0, expected: 28, share: 0 }, 'no account of the platform in the previous period: none reported')
  })
})

describe('dashboard: what the change feed says arrived', () => {
  const event = (id: number, brandId: number, syncId: number, createdAt: string) => ({ id: `evt_${id}`, type: 'analytics.updated', created_at: createdAt, sync_id: syncId, data: { brand_id: brandId, accounts: [] } }) as never
  it('names the brands and imports once each, and the newest time', () => {
    const first = summariseChanges([event(1, 4, 7, '2026-11-28T08:00:00Z'), event(2, 1, 7, '2026-11-28T08:00:01Z')])
    const both = summariseChanges([event(3, 4, 8, '2026-11-28T08:05:00Z')], first)
    assert.deepEqual(both, { events: 3, brandIds: [4, 1], syncIds: [7, 8], latest: '2026-11-28T08:05:00Z' })
    const names = new Map([[1, 'Evergreen Outdoors'], [4, 'Solstice Labs']])
    assert.equal(brandsText(both.brandIds, names), 'Solstice Labs and Evergreen Outdoors')
    assert.equal(brandsText([1, 2, 3, 4], names), '4 brands')
    assert.equal(brandsText([9], names), 'Brand 9')
  })
})
