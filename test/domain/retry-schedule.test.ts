import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, retryDelayMs } from '../../src/domain/webhooks/retry-schedule.js'

/** The retry schedule: its text, the jitter's bounds, and that the default spans more than a day. */
describe('webhook retry schedule', () => {
  it('parses durations in ms, s, m and h', () => {
    assert.deepEqual(parseRetrySchedule('200ms, 5s,5m ,2h'), [200, 5000, 300_000, 7_200_000])
    assert.throws(() => parseRetrySchedule('5d'), RangeError)
    assert.throws(() => parseRetrySchedule(''), RangeError)
  })

  it('moves each wait by at most ±10 %, and ends after the last one', () => {
    const schedule = parseRetrySchedule('10s,1m')
    assert.equal(retryDelayMs(schedule, 1, 0), 9000)
    assert.equal(retryDelayMs(schedule, 1, 0.5), 10_000)
    assert.equal(retryDelayMs(schedule, 1, 0.999999), 11_000)
    assert.equal(retryDelayMs(schedule, 2, 0.5), 60_000)
    assert.equal(retryDelayMs(schedule, 3, 0.5), undefined)
  })

  it('by default spans more than a day even with every wait shrunk: 8 attempts', () => {
    const schedule = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE)
    assert.equal(schedule.length + 1, 8)
    const shortest = schedule.reduce((sum, _, index) => sum + (retryDelayMs(schedule, index + 1, 0) ?? 0), 0)
    assert.ok(shortest > 24 * 3_600_000, String(shortest / 3_600_000))
  })
})
