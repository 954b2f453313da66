import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { BUSY_REQUESTS, FOREGROUND_WINDOW_MS, createForegroundLoad } from '../../src/services/foreground-load.js'
import { sleep } from '../helpers/processes.js'

/**
 * The API counts as busy only when requests keep arriving and the event loop is mostly busy over a
 * window: the webhook deliveries give way then, and only then.
 */

/** Keeps the event loop busy for `ms`, as a saturated process would be. */
function spin (ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) { /* busy */ }
}

describe('foreground load', () => {
  it('is busy when many requests arrive while the event loop is busy', () => {
    const load = createForegroundLoad()
    for (let i = 0; i < BUSY_REQUESTS; i++) load.noteRequest()
    spin(FOREGROUND_WINDOW_MS + 20)
    assert.equal(load.busy(), true)
    // The next window has no request yet: it is judged again once it has passed.
    assert.equal(load.busy(), true)
    spin(FOREGROUND_WINDOW_MS + 20)
    assert.equal(load.busy(), false)
  })

  it('is not busy when the loop is busy without requests (the deliveries themselves)', () => {
    const load = createForegroundLoad()
    spin(FOREGROUND_WINDOW_MS + 20)
    assert.equal(load.busy(), false)
  })

  it('is not busy when a few requests arrive on a busy loop, or many on an idle one', async () => {
    const light = createForegroundLoad()
    for (let i = 0; i < BUSY_REQUESTS - 1; i++) light.noteRequest()
    spin(FOREGROUND_WINDOW_MS + 20)
    assert.equal(light.busy(), false)

    const idle = createForegroundLoad()
    for (let i = 0; i < BUSY_REQUESTS * 10; i++) idle.noteRequest()
    await sleep(FOREGROUND_WINDOW_MS + 50)
    assert.equal(idle.busy(), false)
  })
})
