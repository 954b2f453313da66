import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import type { AccountStatus, ExportJob, ReportRow } from '../../packages/client/src/types.js'
import { changeOf } from '../../src/services/reports/figures.js'
import { accountCoverage } from '../../web/src/model/coverage.js'
import { DEFAULT_FILTERS } from '../../web/src/model/filters.js'
import { describeJob, describeProgress, exportBody, formatBytes, isUnderway } from '../../web/src/model/exports.js'
import { formatInteger, formatRatioAsPercent } from '../../web/src/model/format.js'
import { describeReportChange, headlineReport, reportChange, topAccountsReport } from '../../web/src/model/reports.js'

/** The dashboard's report and export logic (web/src/model/reports.ts, exports.ts), run in Node. */

const row = (now: Record<string, number>, then: Record<string, number>, complete: boolean, change: Record<string, number | null> = {}, relative: Record<string, number | null> = {}): ReportRow => ({
  metrics: now,
  comparison: { complete, metrics: then, change, relative_change: relative },
})

describe('dashboard report requests', () => {
  const period = { since: '2026-10-28', until: '2026-11-24' }
  const previous = { since: '2026-09-30', until: '2026-10-27' }

  it('asks the Summary as one row compared with the period line\'s previous period, with status', () => {
    assert.deepEqual(headlineReport(DEFAULT_FILTERS, period, previous), {
      metrics: ['views', 'interactions', 'engagement_rate', 'followers', 'new_followers', 'posts_count'],
      since: '2026-10-28',
      until: '2026-11-24',
      comparison: { since: '2026-09-30', until: '2026-10-27' },
      include: ['status'],
      gaps: 'carry',
    })
    const scoped = headlineReport({ ...DEFAULT_FILTERS, brands: [4, 2], platforms: ['fb'] }, period, previous)
    assert.deepEqual(scoped.filters, { brand_id: [4, 2], platform: ['fb'] })
  })

  it('asks the top N accounts by the chosen metric, highest first', () => {
    const request = topAccountsReport({ ...DEFAULT_FILTERS, metric: 'engagement_rate', limit: 25 }, period, previous)
    assert.deepEqual(request.dimensions, ['account'])
    assert.deepEqual(request.comparison, previous)
    assert.deepEqual(request.order_by, [{ metric: 'engagement_rate', desc: true }])
    assert.equal(request.limit, 25)
    assert.deepEqual(request.include, ['status'])
    assert.equal(request.gaps, 'carry', 'the rates and followers of the charts')
    assert.equal(request.filters, undefined, 'no filter: every accessible brand and platform')
  })
})

describe('a change from a report row', () => {
  it('is the report\'s own when its comparison is complete', () => {
    const change = reportChange(row({ views: 110 }, { views: 100 }, true, { views: 10 }, { views: 0.1 }), 'views')
    assert.deepEqual(change, { absolute: 10, relative: 0.1, source: 'report' })
    assert.deepEqual(describeReportChange(change, formatInteger), { direction: 'up', text: '+10.0 % (+10)' })
  })

  it('is computed by the report\'s rule when the comparison is incomplete (the page\'s 90 % rule decides whether to show it)', () => {
    assert.deepEqual(reportChange(row({ views: 90 }, { views: 120 }, false), 'views'), { absolute: -30, relative: -0.25, source: 'page' })
    assert.deepEqual(reportChange(row({ views: 5 }, { views: 0 }, false), 'views'), { absolute: 5, relative: null, source: 'page' })
    assert.deepEqual(describeReportChange({ absolute: 5, relative: null, source: 'page' }, formatInteger), { direction: 'new', text: '+5 (previous period had 0)' })
    assert.deepEqual(describeReportChange({ absolute: -0.001234, relative: -0.05, source: 'page' }, formatRatioAsPercent), { direction: 'down', text: '−5.0 % (−0.1234 pt)' })
    assert.equal(reportChange(row({ views: 5 }, {}, false), 'views'), undefined, 'no figure, no change')
    assert.equal(reportChange({ metrics: { views: 5 } }, 'views'), undefined, 'no comparison')
  })

  it('equals the API\'s changeOf for any integers and any 6-decimal rates', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 40 }), (now, then) => {
      const expected = changeOf('views', now, then)
      const got = reportChange(row({ views: now }, { views: then }, false), 'views')
      assert.deepEqual({ absolute: got?.absolute, relative: got?.relative }, expected)
    }))
    fc.assert(fc.property(fc.integer({ min: 0, max: 5_000_000 }), fc.integer({ min: 0, max: 5_000_000 }), (a, b) => {
      const [now, then] = [a / 1e6, b / 1e6]
      const expected = changeOf('engagement_rate', now, then)
      const got = reportChange(row({ engagement_rate: now }, { engagement_rate: then }, false), 'engagement_rate')
      assert.deepEqual({ absolute: got?.absolute, relative: got?.relative }, expected)
    }))
  })
})

describe('an account\'s coverage of the previous period', () => {
  it('counts its days with data over every day of the period, an unknown account as none', () => {
    const period = { since: '2026-10-01', until: '2026-10-30' }
    const status = (platform: string, accountId: number, days: number) => ({ platform, account_id: accountId, days_reported: days }) as unknown as AccountStatus
    const statuses = [status('fb', 7, 27), status('ig', 7, 30), status('tk', 9, 3)]
    assert.deepEqual(accountCoverage(statuses, 'fb', 7, period), { reported: 27, expected: 30, share: 0.9 })
    assert.deepEqual(accountCoverage(statuses, 'ig', 7, period), { reported: 30, expected: 30, share: 1 })
    assert.deepEqual(accountCoverage(statuses, 'tk', 7, period), { reported: 0, expected: 30, share: 0 })
  })
})

describe('dashboard exports', () => {
  const job = (status: ExportJob['status'], written: number, estimate: number | null) => ({ status, progress: { rows_written: written, rows_estimate: estimate } })

  it('sends the form as POST /exports asks it: the whole history without dates, every brand without brand_id', () => {
    const period = { since: '2026-11-01', until: '2026-11-24' }
    assert.deepEqual(exportBody({ dataset: 'daily', format: 'csv', range: 'period', period, brand: 3 }), { dataset: 'daily', format: 'csv', since: '2026-11-01', until: '2026-11-24', brand_id: [3] })
    assert.deepEqual(exportBody({ dataset: 'posts', format: 'parquet', range: 'history', period, brand: null }), { dataset: 'posts', format: 'parquet' })
  })

  it('writes progress, sizes and what a job holds', () => {
    assert.equal(describeProgress(job('queued', 0, null)), 'Queued: waiting for a worker')
    assert.equal(describeProgress(job('running', 2000, 8000)), 'Running: 2,000 rows of 8,000 written (25 %)')
    assert.equal(describeProgress(job('running', 0, null)), 'Running: 0 rows written')
    assert.equal(describeProgress(job('succeeded', 9300, 9300)), '9,300 rows of 9,300 written (100 %)')
    assert.equal(isUnderway(job('running', 0, null)), true)
    assert.equal(isUnderway(job('cancelled', 0, null)), false)
    assert.equal(formatBytes(1), '1 byte')
    assert.equal(formatBytes(148_211), '145 KB')
    assert.equal(formatBytes(3 * 1024 * 1024 + 1), '3.0 MB')
    const held = { dataset: 'daily' as const, format: 'csv' as const, compression: 'gzip' as const, since: null, until: null, brand_ids: [1, 2], platforms: null }
    assert.equal(describeJob(held, (id) => `Brand ${id}`), 'daily, whole history, Brand 1, Brand 2, csv gzip')
    assert.equal(describeJob({ ...held, since: '2026-11-01', until: '2026-11-24', brand_ids: null, platforms: ['fb'], compression: 'none' }, String), 'daily, 2026-11-01 – 2026-11-24, every brand, fb, csv')
  })
})
