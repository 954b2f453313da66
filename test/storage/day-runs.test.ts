import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { dayNumber } from '../../src/storage/changes/day-runs.js'

/** The day numbers SQLite's change capture folds runs of consecutive days with (src/storage/changes/day-runs.ts). */
describe('dayNumber', () => {
  it('counts days from 1970-01-01 exactly, across months, leap years and centuries, 0001 to 9999', () => {
    assert.equal(dayNumber('1970-01-01'), 0)
    assert.equal(dayNumber('1969-12-31'), -1)
    assert.equal(dayNumber('2000-03-01') - dayNumber('2000-02-28'), 2)
    assert.equal(dayNumber('1900-03-01') - dayNumber('1900-02-28'), 1)
    for (let day = Date.UTC(1896, 0, 1); day <= Date.UTC(2104, 11, 31); day += 86_400_000) {
      assert.equal(dayNumber(new Date(day).toISOString().slice(0, 10)), day / 86_400_000)
    }
    for (const date of ['0001-01-01', '0400-02-29', '9999-12-31']) {
      const at = new Date(0)
      at.setUTCFullYear(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)))
      assert.equal(dayNumber(date), at.getTime() / 86_400_000, date)
    }
  })
})
