import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { LagClock, holdsEverything, parseLsn } from '../../src/storage/replicas/positions.js'
import { SyncVisibility } from '../../src/storage/replicas/sync-visibility.js'

/** The two clocks of the replica routing (docs/operations.md "Read replicas"), on fixed times. */
describe('SyncVisibility', () => {
  it('shows a sync only once the delay has passed since this instance first saw it on the primary', () => {
    const visibility = new SyncVisibility(500)
    assert.equal(visibility.visibleThrough(0), 0)
    visibility.observe(3, 100)
    assert.equal(visibility.visibleThrough(600), 0)
    assert.equal(visibility.visibleThrough(601), 3)
    // Seen again later: the first sighting counts.
    visibility.observe(3, 700)
    visibility.observe(5, 800)
    assert.equal(visibility.visibleThrough(1300), 3)
    assert.equal(visibility.visibleThrough(1301), 5)
    // Never goes back.
    visibility.observe(4, 1400)
    assert.equal(visibility.visibleThrough(5000), 5)
  })
})

describe('LagClock and positions', () => {
  it('parses pg_lsn and compares positions', () => {
    assert.equal(parseLsn('0/16B3748'), 0x16b3748n)
    assert.equal(parseLsn('1/0'), 1n << 32n)
    assert.ok(parseLsn('1/0') > parseLsn('0/FFFFFFFF'))
    const at = (sync: number, event: number) => ({ lastSyncId: sync, lastEventId: event, lsn: 0n, standby: true })
    assert.equal(holdsEverything(at(3, 10), at(3, 10)), true)
    assert.equal(holdsEverything(at(2, 10), at(3, 10)), false)
    assert.equal(holdsEverything(at(3, 9), at(3, 10)), false)
  })

  it('measures lag as the age of the oldest primary position the standby has not replayed', () => {
    const lag = new LagClock(10_000)
    lag.mark(0, 100n)
    lag.mark(500, 200n)
    lag.mark(1000, 300n)
    assert.equal(lag.lagMs(300n, 1200), 0)
    assert.equal(lag.lagMs(250n, 1200), 200)
    assert.equal(lag.lagMs(150n, 1200), 700)
    assert.equal(lag.lagMs(50n, 1200), 1200)
  })

  it('keeps marks for its window only, so a standby missing them all is at least that far behind', () => {
    const lag = new LagClock(1000)
    for (let at = 0; at <= 5000; at += 100) lag.mark(at, BigInt(at + 1))
    assert.ok(lag.lagMs(0n, 5000) >= 1000)
  })
})
