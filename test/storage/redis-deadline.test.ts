import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { REDIS_DEADLINES, RedisCounterStore } from '../../src/storage/counters/redis-counter-store.js'
import { RedisDeadlineError, withRedisDeadline } from '../../src/storage/counters/redis-deadline.js'
import { deleteRedisKeys, TEST_REDIS_URL, uniqueRedisPrefix } from '../helpers/redis.js'

/**
 * A busy instance must not declare a healthy Redis down (issue 27 item 9): with the event loop
 * blocked by CPU work for longer than the command deadline, a command Redis answered in time gets
 * its answer instead of failing (a plain ioredis commandTimeout failed it, and the instance
 * switched to its halved in-process limits). A command nobody answers still fails.
 */

/**
 * Lets the command reach the socket (it is written a few promise steps after the call) without
 * giving the loop a turn to read the answer, then holds the loop with CPU work.
 */
async function blockLoopAfterSend (ms: number): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve()
  blockLoop(ms)
}

function blockLoop (ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) { /* CPU work holding the event loop */ }
}

describe('Redis command deadline', () => {
  const prefix = uniqueRedisPrefix('deadline')
  let store: RedisCounterStore

  before(async () => {
    store = RedisCounterStore.connect(TEST_REDIS_URL, prefix)
    await store.ping()
  })

  after(async () => {
    await store.close()
    await deleteRedisKeys(prefix)
  })

  it('gives a command the answer waiting in the socket when the loop was blocked past the deadline', async () => {
    const counting = store.increment([{ key: 'blocked', expiresAtMs: Date.now() + 60_000 }])
    await blockLoopAfterSend(REDIS_DEADLINES.commandMs + 500)
    assert.deepEqual(await counting, { values: [1], fallback: false })
    const pinging = store.ping()
    await blockLoopAfterSend(REDIS_DEADLINES.commandMs + 500)
    await pinging
  })

  it('still answers when the loop is blocked repeatedly while the command waits', async () => {
    const counting = store.increment([{ key: 'repeated', expiresAtMs: Date.now() + 60_000 }])
    await blockLoopAfterSend(REDIS_DEADLINES.commandMs / 2 + 100)
    for (let i = 0; i < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1))
      blockLoop(REDIS_DEADLINES.commandMs / 2 + 100)
    }
    assert.deepEqual(await counting, { values: [1], fallback: false })
  })

  it('fails a command that is never answered, not before its deadline', async () => {
    const started = performance.now()
    await assert.rejects(withRedisDeadline(new Promise<never>(() => {}), 300), (error: unknown) => {
      assert.ok(error instanceof RedisDeadlineError)
      assert.equal(error.message, 'Redis did not answer within 300 ms')
      return true
    })
    assert.ok(performance.now() - started >= 300 - 1, `failed after ${performance.now() - started} ms`)
  })

  it('passes on the command\'s own error', async () => {
    await assert.rejects(withRedisDeadline(Promise.reject(new Error('ERR wrong')), 300), /ERR wrong/)
  })
})
