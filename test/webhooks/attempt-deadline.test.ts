import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { attemptDeadline, createStopController } from '../../src/services/webhooks/attempt-deadline.js'
import { collectGarbage } from '../helpers/garbage.js'
import { sleep } from '../helpers/processes.js'

/**
 * An attempt's deadline fires at its limit whatever the garbage collector does meanwhile (Node 20
 * collects the timeout signal inside `AbortSignal.any([AbortSignal.timeout(…), …])`, which then
 * never fires), follows the service's stop, and once cleared fires no more; the worker's stop
 * takes a listener from each attempt under way without Node's listener-leak warning.
 */

describe('attempt deadline', () => {
  it('aborts with a TimeoutError at its limit, a garbage collection meanwhile', async () => {
    const stop = new AbortController()
    const deadline = attemptDeadline(300, stop.signal)
    const reasons: unknown[] = []
    deadline.signal.addEventListener('abort', () => { reasons.push(deadline.signal.reason) })
    await sleep(50)
    collectGarbage()
    // Bounded: far past the limit on a busy machine; never reached only if the timer was lost.
    const bound = Date.now() + 10_000
    while (!deadline.signal.aborted && Date.now() < bound) await sleep(50)
    assert.equal(deadline.signal.aborted, true, 'the deadline fired')
    assert.equal((reasons[0] as Error | undefined)?.name, 'TimeoutError')
    deadline.clear()
  })

  it('aborts with the stop\'s reason when the service stops first, and when it had already stopped', () => {
    const stop = new AbortController()
    const deadline = attemptDeadline(60_000, stop.signal)
    assert.equal(deadline.signal.aborted, false)
    stop.abort(new Error('stopping'))
    assert.equal((deadline.signal.reason as Error).message, 'stopping')
    deadline.clear()
    const late = attemptDeadline(60_000, stop.signal)
    assert.equal((late.signal.reason as Error).message, 'stopping')
    late.clear()
  })

  it('once cleared, neither the limit nor the stop aborts it', async () => {
    const stop = new AbortController()
    const deadline = attemptDeadline(50, stop.signal)
    deadline.clear()
    await sleep(150)
    stop.abort()
    assert.equal(deadline.signal.aborted, false)
  })

  it('takes the worker\'s full width of attempts on one stop without a listener-leak warning', async () => {
    const warnings: string[] = []
    const onWarning = (warning: Error): void => { warnings.push(warning.name) }
    process.on('warning', onWarning)
    try {
      const stop = createStopController()
      const deadlines = Array.from({ length: 64 }, () => attemptDeadline(60_000, stop.signal))
      // Warnings are emitted on a later tick.
      await sleep(50)
      for (const deadline of deadlines) deadline.clear()
    } finally {
      process.off('warning', onWarning)
    }
    assert.deepEqual(warnings, [])
  })
})
