import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { resolvePeriod } from '../../src/domain/period.js'
import { addDays, isCalendarDate } from '../../src/domain/dates.js'

describe('resolvePeriod', () => {
  it('defaults the period to today − 7 days … today', () => {
    assert.deepEqual(resolvePeriod({}, '2026-03-03'), { ok: true, period: { since: '2026-02-24', until: '2026-03-03' } })
  })

  it('defaults since to until − 7 days when only an earlier until is given', () => {
    assert.deepEqual(resolvePeriod({ until: '2026-01-10' }, '2026-03-03'), { ok: true, period: { since: '2026-01-03', until: '2026-01-10' } })
  })

  it('never defaults since before 0001-01-01', () => {
    assert.deepEqual(resolvePeriod({ until: '0001-01-03' }, '2026-03-03'), { ok: true, period: { since: '0001-01-01', until: '0001-01-03' } })
    assert.deepEqual(resolvePeriod({ until: '0001-01-08' }, '2026-03-03'), { ok: true, period: { since: '0001-01-01', until: '0001-01-08' } })
    assert.deepEqual(resolvePeriod({ until: '0001-01-09' }, '2026-03-03'), { ok: true, period: { since: '0001-01-02', until: '0001-01-09' } })
  })

  it('refuses since after until', () => {
    assert.deepEqual(resolvePeriod({ since: '2026-01-02', until: '2026-01-01' }, '2026-03-03'), {
      ok: false,
      problem: { msg: 'since (2026-01-02) must not be after until (2026-01-01)', type: 'date_order', ctx: { since: '2026-01-02', until: '2026-01-01' } },
    })
  })

  it('allows 1096 inclusive days and refuses 1097', () => {
    assert.deepEqual(resolvePeriod({ since: '2024-01-01', until: '2026-12-31' }, '2027-01-01'), { ok: true, period: { since: '2024-01-01', until: '2026-12-31' } })
    assert.deepEqual(resolvePeriod({ since: '2023-12-31', until: '2026-12-31' }, '2027-01-01'), {
      ok: false,
      problem: { msg: 'The period may span at most 1096 days; got 1097', type: 'period_too_long', ctx: { limit_value: 1096, actual_days: 1097 } },
    })
  })
})

describe('calendar dates', () => {
  it('accepts real dates from 0001-01-01 to 9999-12-31, including 29 February of a leap year', () => {
    for (const good of ['2024-02-29', '0001-01-01', '0050-01-01', '9999-12-31', '2000-02-29']) assert.equal(isCalendarDate(good), true, good)
  })

  it('refuses impossible dates, other shapes, and year 0', () => {
    for (const bad of ['2026-02-29', '2026-13-01', '2026-04-31', '2026-1-01', '20260101', '2026-01-01T00:00:00Z', '0000-01-01', '1900-02-29', '', ' 2026-01-01']) {
      assert.equal(isCalendarDate(bad), false, bad)
    }
  })

  it('moves dates across years 0001-9999 and refuses to leave them', () => {
    assert.equal(addDays('0050-03-01', -1), '0050-02-28')
    assert.equal(addDays('9999-12-30', 1), '9999-12-31')
    assert.throws(() => addDays('9999-12-31', 1), RangeError)
    assert.throws(() => addDays('0001-01-01', -1), RangeError)
  })
})
