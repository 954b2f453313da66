import { Redis } from 'ioredis'
import type { CounterStore } from './counter-store.js'

/**
 * Counters in Redis, shared by every instance pointed at it. Each increment is one Lua script, so
 * "add 1, and set the expiry if the key is new" is atomic even with many instances racing.
 * Every key is prefixed (REDIS_KEY_PREFIX) so several deployments or test files can share a server.
 */

const INCREMENT_SCRIPT = `
local results = {}
for i, key in ipairs(KEYS) do
  local value = redis.call('INCR', key)
  if value == 1 then redis.call('PEXPIREAT', key, ARGV[i]) end
  results[i] = value
end
return results
`

export class RedisCounterStore implements CounterStore {
  private closed = false

  constructor (private readonly redis: Redis, private readonly prefix: string) {}

  static connect (url: string, prefix: string): RedisCounterStore {
    const redis = new Redis(url, {
      // Fail a command after a short retry instead of queueing requests behind a dead server.
      maxRetriesPerRequest: 2,
      connectTimeout: 2000,
      lazyConnect: false,
    })
    // Connection errors surface on the commands that need Redis; without a listener ioredis
    // would also print every reconnect attempt as an unhandled error event.
    redis.on('error', () => {})
    return new RedisCounterStore(redis, prefix)
  }

  async increment (counters: ReadonlyArray<{ key: string, expiresAtMs: number }>): Promise<number[]> {
    if (counters.length === 0) return []
    const keys = counters.map((counter) => this.prefix + counter.key)
    const expiries = counters.map((counter) => String(Math.ceil(counter.expiresAtMs)))
    const values = await this.redis.eval(INCREMENT_SCRIPT, keys.length, ...keys, ...expiries) as number[]
    return values.map(Number)
  }

  async remainingMs (keys: readonly string[]): Promise<number[]> {
    if (keys.length === 0) return []
    const pipeline = this.redis.pipeline()
    for (const key of keys) pipeline.pttl(this.prefix + key)
    const results = await pipeline.exec()
    return (results ?? []).map(([error, ttl]) => {
      if (error !== null) throw error
      // PTTL is -2 for a missing key and -1 for one without expiry (never written by us).
      return Math.max(0, Number(ttl))
    })
  }

  async setUntil (key: string, expiresAtMs: number): Promise<void> {
    await this.redis.set(this.prefix + key, '1', 'PXAT', Math.ceil(expiresAtMs))
  }

  async delete (key: string): Promise<void> {
    await this.redis.del(this.prefix + key)
  }

  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.redis.quit().catch(() => { this.redis.disconnect() })
  }
}
