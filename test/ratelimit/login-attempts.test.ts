import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { AttemptSettlement, AttemptSubject, CounterStore } from '../../src/storage/counters/counter-store.js'
import { MemoryCounterStore } from '../../src/storage/counters/memory-counter-store.js'
import { RedisCounterStore } from '../../src/storage/counters/redis-counter-store.js'
import { TEST_REDIS_URL, deleteRedisKeys, uniqueRedisPrefix } from '../helpers/redis.js'

/**
 * The lockout's two atomic steps (src/storage/counters/counter-store.ts, docs/authentication.md
 * "Lockout"), alike in process and in Redis: attempts in flight hold a place but are not failures;
 * only failures lock; an attempt that is never settled stops holding its place after its expiry.
 */

const STORES = ['memory', 'redis'] as const

for (const kind of STORES) {
  describe(`login attempts in the ${kind} counter store`, () => {
    const prefix = uniqueRedisPrefix('attempts')
    const store: CounterStore = kind === 'memory' ? new MemoryCounterStore() : RedisCounterStore.connect(TEST_REDIS_URL, prefix)
    let subjects = 0
    after(async () => {
      await store.close()
      if (kind === 'redis') await deleteRedisKeys(prefix)
    })

    /** A subject of its own per test, limit 3. */
    function subject (clearedBySuccess = true): AttemptSubject {
      subjects += 1
      return { failures: `f${subjects}`, inFlight: `i${subjects}`, lock: `l${subjects}`, limit: 3, fallbackLimit: 3, clearedBySuccess }
    }
    const admit = async (id: string, on: AttemptSubject[], inFlightTtlMs = 10_000) => await store.admitAttempt({ id, subjects: on, inFlightTtlMs })
    const settle = async (id: string, on: AttemptSubject[], outcome: AttemptSettlement['outcome'], windowMs = 60_000) =>
      await store.settleAttempt({ id, subjects: on, outcome, windowEndMs: Date.now() + windowMs, admittedInFallback: false })

    it('admits up to the limit in flight, then answers busy (not locked), and admits again once one settles as a success', async () => {
      const on = [subject()]
      for (const id of ['a', 'b', 'c']) assert.deepEqual(await admit(id, on), { admitted: true, fallback: false })
      assert.deepEqual(await admit('d', on), { admitted: false, reason: 'busy', fallback: false })
      await settle('a', on, 'success')
      assert.deepEqual(await admit('d', on), { admitted: true, fallback: false })
      for (const id of ['b', 'c', 'd']) await settle(id, on, 'abandoned')
      for (const id of ['e', 'f', 'g']) assert.equal((await admit(id, on)).admitted, true, 'abandoned attempts hold no place and are no failures')
    })

    it('counts failures plus attempts in flight against the limit, and locks only when failures reach it', async () => {
      const on = [subject()]
      await admit('a', on)
      await settle('a', on, 'failure')
      await admit('b', on)
      await settle('b', on, 'failure')
      assert.equal((await admit('c', on)).admitted, true)
      // Two failures and one in flight: full, but not locked.
      assert.deepEqual(await admit('d', on), { admitted: false, reason: 'busy', fallback: false })
      await settle('c', on, 'failure')
      const locked = await admit('d', on)
      assert.equal(locked.admitted, false)
      assert.equal(!locked.admitted && locked.reason, 'locked')
      assert.ok(!locked.admitted && locked.reason === 'locked' && locked.retryAfterMs > 50_000 && locked.retryAfterMs <= 60_000, JSON.stringify(locked))
    })

    it('clears the failures on a success only for a subject cleared by success (a key, not an address)', async () => {
      const key = subject(true)
      const address = subject(false)
      for (const id of ['a', 'b']) {
        await admit(id, [key, address])
        await settle(id, [key, address], 'failure')
      }
      await admit('c', [key, address])
      await settle('c', [key, address], 'success')
      // The key starts over (three admitted); the address keeps its two failures (one admitted).
      for (const id of ['d', 'e', 'f']) assert.equal((await admit(id, [key])).admitted, true)
      assert.equal((await admit('g', [address])).admitted, true)
      assert.deepEqual(await admit('h', [address]), { admitted: false, reason: 'busy', fallback: false })
    })

    it('stops holding the place of an attempt never settled once its in-flight expiry passes (a crashed instance)', async () => {
      const on = [subject()]
      for (const id of ['a', 'b', 'c']) await admit(id, on, 300)
      assert.equal((await admit('d', on)).admitted, false)
      await new Promise((resolve) => setTimeout(resolve, 400))
      assert.equal((await admit('d', on)).admitted, true)
    })

    it('refuses on the first subject locked, whatever the others', async () => {
      const key = subject()
      const address = subject(false)
      for (const id of ['a', 'b', 'c']) {
        await admit(id, [address])
        await settle(id, [address], 'failure', 5_000)
      }
      const refused = await admit('d', [key, address])
      assert.equal(!refused.admitted && refused.reason, 'locked')
      assert.equal((await admit('e', [key])).admitted, true, 'the key itself is not locked')
    })
  })
}
