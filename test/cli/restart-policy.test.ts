import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { RestartPolicy } from '../../src/cli/cluster/restart-policy.js'

/** A worker that keeps dying is replaced at most 5 times a minute (docs/operations.md "Workers"). */
describe('RestartPolicy', () => {
  it('replaces at once (after 100 ms) up to 5 times in a minute, then a minute after the 5th-last start', () => {
    const policy = new RestartPolicy(5, 60_000, 100)
    const delays = [0, 10, 20, 30, 40].map((at) => policy.nextDelay(at))
    assert.deepEqual(delays, [100, 100, 100, 100, 100])
    // The sixth within the minute waits for the first start (at 100) to leave the window.
    assert.equal(policy.nextDelay(50), 60_100 - 50)
    // And the seventh for the second (at 110).
    assert.equal(policy.nextDelay(60), 60_110 - 60)
  })

  it('forgets starts older than the window', () => {
    const policy = new RestartPolicy(2, 1000, 10)
    assert.equal(policy.nextDelay(0), 10)
    assert.equal(policy.nextDelay(5), 10)
    assert.equal(policy.nextDelay(6), 1010 - 6)
    assert.equal(policy.nextDelay(5000), 10)
  })

  it('never books more than the limit in any window, however fast workers die', () => {
    const policy = new RestartPolicy(3, 1000, 0)
    const starts: number[] = []
    for (let now = 0; now < 10_000; now += 7) starts.push(now + policy.nextDelay(now))
    for (const start of starts) assert.ok(starts.filter((other) => other > start - 1000 && other <= start).length <= 3, `window ending at ${start}`)
  })
})
