import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { AttemptRequest, AttemptSubject } from '../../src/storage/counters/counter-store.js'
import { MemoryCounterStore } from '../../src/storage/counters/memory-counter-store.js'
import { FixedWindowLimiter } from '../../src/services/ratelimit/limiter.js'
import { fallbackLimit } from '../../src/services/ratelimit/fallback-limits.js'
import { ResilientCounterStore } from '../../src/storage/counters/resilient-counter-store.js'

/** The two-window fixed limiter on a fake clock (docs/rate-limiting.md). */

// 2026-11-21T12:00:10Z: 10 s into a minute and into an hour.
const START = Date.UTC(2026, 10, 21, 12, 0, 10)

function clock (start = START) {
  let now = start
  return { now: () => now, advance: (ms: number) => { now += ms } }
}

describe('FixedWindowLimiter', () => {
  it('reports limit, remaining and the Unix reset of both windows, and the hourly usage', async () => {
    const time = clock()
    const limiter = new FixedWindowLimiter(new MemoryCounterStore(time.now), { perMinute: 3, perHour: 10 }, time.now)
    const first = await limiter.consume('user:a')
    assert.equal(first.allowed, true)
    assert.deepEqual(first.headers, {
      'x-ratelimit-limit-minutely': '3',
      'x-ratelimit-remaining-minutely': '2',
      'x-ratelimit-reset-minutely': String(Date.UTC(2026, 10, 21, 12, 1, 0) / 1000),
      'x-ratelimit-limit-hourly': '10',
      'x-ratelimit-remaining-hourly': '9',
      'x-ratelimit-reset-hourly': String(Date.UTC(2026, 10, 21, 13, 0, 0) / 1000),
      'x-usage-total': '1',
      'x-usage-period': 'hourly',
    })
  })

  it('refuses past the minute limit, counts refusals, and starts over in the next minute', async () => {
    const time = clock()
    const limiter = new FixedWindowLimiter(new MemoryCounterStore(time.now), { perMinute: 2, perHour: 100 }, time.now)
    await limiter.consume('user:a')
    await limiter.consume('user:a')
    const refused = await limiter.consume('user:a')
    assert.equal(refused.allowed, false)
    assert.equal(refused.retryAfterSeconds, 50)
    assert.equal(refused.headers['x-ratelimit-remaining-minutely'], '0')
    assert.equal(refused.headers['x-usage-total'], '3')
    // Another subject has its own counters.
    assert.equal((await limiter.consume('user:b')).allowed, true)
    time.advance(50_000)
    const next = await limiter.consume('user:a')
    assert.equal(next.allowed, true)
    assert.equal(next.headers['x-ratelimit-remaining-minutely'], '1')
    assert.equal(next.headers['x-usage-total'], '4')
  })

  it('gives the longer wait when both windows are exhausted', async () => {
    const time = clock()
    const limiter = new FixedWindowLimiter(new MemoryCounterStore(time.now), { perMinute: 1, perHour: 1 }, time.now)
    await limiter.consume('user:a')
    const refused = await limiter.consume('user:a')
    assert.equal(refused.allowed, false)
    assert.equal(refused.retryAfterSeconds, 3590)
  })

  it('sends none of a window\'s three headers when it is set to 0, and nothing counts when both are 0', async () => {
    const time = clock()
    const store = new MemoryCounterStore(time.now)
    const hourOnly = new FixedWindowLimiter(store, { perMinute: 0, perHour: 5 }, time.now)
    assert.deepEqual(Object.keys((await hourOnly.consume('user:a')).headers).sort(), [
      'x-ratelimit-limit-hourly', 'x-ratelimit-remaining-hourly', 'x-ratelimit-reset-hourly', 'x-usage-period', 'x-usage-total',
    ])
    const minuteOnly = new FixedWindowLimiter(store, { perMinute: 5, perHour: 0 }, time.now)
    const outcome = await minuteOnly.consume('user:b')
    assert.deepEqual(Object.keys(outcome.headers).sort(), [
      'x-ratelimit-limit-minutely', 'x-ratelimit-remaining-minutely', 'x-ratelimit-reset-minutely', 'x-usage-period', 'x-usage-total',
    ])
    assert.equal(new FixedWindowLimiter(store, { perMinute: 0, perHour: 0 }, time.now).enabled, false)
  })

  it('never refuses for a window set to 0', async () => {
    const time = clock()
    const limiter = new FixedWindowLimiter(new MemoryCounterStore(time.now), { perMinute: 0, perHour: 2 }, time.now)
    const outcomes = []
    for (let i = 0; i < 3; i++) outcomes.push(await limiter.consume('user:a'))
    assert.deepEqual(outcomes.map((outcome) => outcome.allowed), [true, true, false])
    assert.equal(outcomes[2]?.retryAfterSeconds, 3590)
  })
})

describe('MemoryCounterStore', () => {
  it('expires counters and flags at their time, and sweeps expired entries', async () => {
    const time = clock()
    const store = new MemoryCounterStore(time.now)
    assert.deepEqual(await store.increment([{ key: 'a', expiresAtMs: START + 1000 }]), { values: [1], fallback: false })
    assert.deepEqual(await store.increment([{ key: 'a', expiresAtMs: START + 9000 }]), { values: [2], fallback: false })
    assert.deepEqual([store.remainingMs('a'), store.remainingMs('missing')], [1000, 0])
    time.advance(1000)
    assert.equal(store.remainingMs('a'), 0)
    assert.deepEqual((await store.increment([{ key: 'a', expiresAtMs: START + 5000 }])).values, [1])
    for (let i = 0; i < 2000; i++) await store.increment([{ key: `k${i}`, expiresAtMs: START + 1500 }])
    time.advance(1000)
    for (let i = 0; i < 1000; i++) await store.increment([{ key: `f${i}`, expiresAtMs: START + 60_000 }])
    assert.ok(store.size <= 1001 + 1, `expired entries were not swept (size ${store.size})`)
  })
})

describe('ResilientCounterStore (a primary that fails, then answers again)', () => {
  const SUBJECT: AttemptSubject = { failures: 'fail', inFlight: 'busy', lock: 'lock', limit: 4, fallbackLimit: 2, clearedBySuccess: true }
  const attempt = (id: string): AttemptRequest => ({ id, subjects: [SUBJECT], inFlightTtlMs: 10_000 })

  /** A stand-in for Redis that fails while `down` is true. */
  function flakyPrimary () {
    const inner = new MemoryCounterStore()
    const state = { down: false, calls: 0 }
    const guard = async <T>(run: () => Promise<T>): Promise<T> => {
      state.calls += 1
      if (state.down) throw new Error('connection refused')
      return await run()
    }
    const primary = {
      increment: async (counters: Parameters<MemoryCounterStore['increment']>[0]) => await guard(async () => await inner.increment(counters)),
      admitAttempt: async (request: Parameters<MemoryCounterStore['admitAttempt']>[0]) => await guard(async () => await inner.admitAttempt(request)),
      settleAttempt: async (settlement: Parameters<MemoryCounterStore['settleAttempt']>[0]) => await guard(async () => await inner.settleAttempt(settlement)),
      ping: async () => { await guard(async () => {}) },
      close: async () => {},
    }
    return { primary, state }
  }

  it('falls back at the first failure, with fallback limits and the flag set, logs once, asks the primary nothing more until a probe answers', async () => {
    const { primary, state } = flakyPrimary()
    const store = new ResilientCounterStore(primary, new MemoryCounterStore(), 20)
    const events: string[] = []
    store.watch((event) => events.push(event.state))
    try {
      assert.deepEqual(await store.admitAttempt(attempt('a')), { admitted: true, fallback: false })
      state.down = true
      assert.deepEqual(await store.admitAttempt(attempt('b')), { admitted: true, fallback: true })
      const callsWhenDown = state.calls
      assert.deepEqual(await store.admitAttempt(attempt('c')), { admitted: true, fallback: true })
      // The fallback limit (2) applies to what memory counted: two attempts in flight there.
      assert.deepEqual(await store.admitAttempt(attempt('d')), { admitted: false, reason: 'busy', fallback: true })
      assert.deepEqual((await store.increment([{ key: 'rl', expiresAtMs: Date.now() + 60_000 }])), { values: [1], fallback: true })
      assert.ok(state.calls - callsWhenDown <= 2, 'requests in fallback do not wait for the primary (only probes call it)')
      assert.deepEqual(events, ['fallback'])
      state.down = false
      const deadline = Date.now() + 5000
      while (store.inFallback && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
      assert.equal(store.inFallback, false)
      assert.deepEqual(events, ['fallback', 'shared'])
      assert.deepEqual((await store.increment([{ key: 'rl', expiresAtMs: Date.now() + 60_000 }])).fallback, false)
    } finally {
      await store.close()
    }
  })

  it('keeps refusing a key locked in memory after the primary is back', async () => {
    const { primary, state } = flakyPrimary()
    const store = new ResilientCounterStore(primary, new MemoryCounterStore(), 20)
    try {
      state.down = true
      const subjects = [{ ...SUBJECT, fallbackLimit: 1 }]
      assert.deepEqual(await store.admitAttempt({ id: 'a', subjects, inFlightTtlMs: 10_000 }), { admitted: true, fallback: true })
      await store.settleAttempt({ id: 'a', subjects, outcome: 'failure', windowEndMs: Date.now() + 60_000, admittedInFallback: true })
      state.down = false
      const deadline = Date.now() + 5000
      while (store.inFallback && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
      assert.equal(store.inFallback, false)
      const outcome = await store.admitAttempt({ id: 'b', subjects, inFlightTtlMs: 10_000 })
      assert.equal(outcome.admitted, false)
      assert.equal(outcome.admitted === false && outcome.reason, 'locked')
    } finally {
      await store.close()
    }
  })
})

describe('fallback limits', () => {
  it('divides, rounds down, never below 1, keeps 0 (a window turned off)', () => {
    assert.deepEqual([fallbackLimit(600, 2), fallbackLimit(10, 3), fallbackLimit(1, 2), fallbackLimit(0, 2), fallbackLimit(7, 1)], [300, 3, 1, 0, 7])
  })

  it('the limiter reports the divided limits when the store answered from the fallback', async () => {
    const time = clock()
    const fallbackStore = { increment: async () => ({ values: [1, 1], fallback: true }) } as unknown as MemoryCounterStore
    const limiter = new FixedWindowLimiter(fallbackStore, { perMinute: 600, perHour: 20000 }, time.now, 2)
    const outcome = await limiter.consume('user:a')
    assert.equal(outcome.headers['x-ratelimit-limit-minutely'], '300')
    assert.equal(outcome.headers['x-ratelimit-remaining-minutely'], '299')
    assert.equal(outcome.headers['x-ratelimit-limit-hourly'], '10000')
  })
})
