import { Redis } from 'ioredis'
import type { Answered, CounterSpec, CounterStore, Counted, Reservation, ReserveRequest, SettleEntry } from './counter-store.js'

/**
 * Counters in Redis, shared by every instance pointed at it. Each operation is one Lua script, so
 * "add 1, and set the expiry if the key is new", "refuse if locked or full, else count" and "lock
 * what reached its limit" are atomic even with many instances racing. Every key is prefixed
 * (REDIS_KEY_PREFIX) so several deployments or test files can share a server.
 *
 * Every wait is bounded (docs/reliability.md): a command not answered within REDIS_DEADLINES.commandMs
 * fails, nothing is queued while the connection is down (the command fails at once), and a lost
 * connection is retried at most every second. This class only fails fast; standing in for Redis
 * while it does not answer is resilient-counter-store.ts's job.
 */

export const REDIS_DEADLINES = {
  /** A command (script, PING) not answered within this fails (Redis answers in well under a millisecond). */
  commandMs: 1000,
  /** Opening the TCP connection. */
  connectMs: 1000,
  /** How long the first operations wait for the initial connection before giving up on it. */
  startupMs: 2000,
  /** Reconnection attempts back off to at most this interval. */
  maxReconnectIntervalMs: 1000,
} as const

const INCREMENT_SCRIPT = `
local results = {}
for i, key in ipairs(KEYS) do
  local value = redis.call('INCR', key)
  if value == 1 then redis.call('PEXPIREAT', key, ARGV[i]) end
  results[i] = value
end
return results
`

/** KEYS: flags then counters. ARGV: number of flags, blockedForMs, then limit and expiry per counter. */
const RESERVE_SCRIPT = `
local flags = tonumber(ARGV[1])
local longest = 0
for i = 1, flags do
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl > longest then longest = ttl end
end
if longest > 0 then return {0, longest} end
for i = flags + 1, #KEYS do
  local limit = tonumber(ARGV[1 + 2 * (i - flags)])
  if tonumber(redis.call('GET', KEYS[i]) or '0') >= limit then return {0, tonumber(ARGV[2])} end
end
for i = flags + 1, #KEYS do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('PEXPIREAT', KEYS[i], ARGV[2 + 2 * (i - flags)]) end
end
return {1, 0}
`

/** KEYS: counter, flag pairs. ARGV: limit, flag expiry pairs. */
const SETTLE_SCRIPT = `
for i = 1, #KEYS / 2 do
  local counter = KEYS[2 * i - 1]
  if tonumber(redis.call('GET', counter) or '0') >= tonumber(ARGV[2 * i - 1]) then
    redis.call('SET', KEYS[2 * i], '1', 'PXAT', ARGV[2 * i])
    redis.call('DEL', counter)
  end
end
return 1
`

const RELEASE_SCRIPT = `
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 and redis.call('DECR', key) <= 0 then redis.call('DEL', key) end
end
return 1
`

interface ScriptCommands {
  paIncrement: (numKeys: number, ...args: Array<string | number>) => Promise<number[]>
  paReserve: (numKeys: number, ...args: Array<string | number>) => Promise<[number, number]>
  paSettle: (numKeys: number, ...args: Array<string | number>) => Promise<number>
  paRelease: (numKeys: number, ...args: Array<string | number>) => Promise<number>
}

const SHARED: Answered = { fallback: false }

export class RedisCounterStore implements CounterStore {
  private closed = false
  private readonly scripts: ScriptCommands
  /** Settles once the first connection is ready, or after REDIS_DEADLINES.startupMs. */
  private readonly started: Promise<void>

  constructor (private readonly redis: Redis, private readonly prefix: string) {
    redis.defineCommand('paIncrement', { lua: INCREMENT_SCRIPT })
    redis.defineCommand('paReserve', { lua: RESERVE_SCRIPT })
    redis.defineCommand('paSettle', { lua: SETTLE_SCRIPT })
    redis.defineCommand('paRelease', { lua: RELEASE_SCRIPT })
    this.scripts = redis as unknown as ScriptCommands
    this.started = new Promise((resolve) => {
      if (redis.status === 'ready') return resolve()
      const timer = setTimeout(resolve, REDIS_DEADLINES.startupMs)
      timer.unref()
      redis.once('ready', () => { clearTimeout(timer); resolve() })
    })
  }

  static connect (url: string, prefix: string): RedisCounterStore {
    const redis = new Redis(url, {
      commandTimeout: REDIS_DEADLINES.commandMs,
      connectTimeout: REDIS_DEADLINES.connectMs,
      // No offline queue: while the connection is down a command fails at once (and the caller
      // falls back) instead of waiting in a queue and running late, counting requests twice.
      enableOfflineQueue: false,
      // A command in flight when the connection drops fails rather than being replayed.
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt: number) => Math.min(attempt * 200, REDIS_DEADLINES.maxReconnectIntervalMs),
    })
    // Connection errors surface on the commands that need Redis; without a listener ioredis
    // would also print every reconnect attempt as an unhandled error event.
    redis.on('error', () => {})
    return new RedisCounterStore(redis, prefix)
  }

  async increment (counters: readonly CounterSpec[]): Promise<Counted> {
    if (counters.length === 0) return { values: [], fallback: false }
    await this.started
    const values = await this.scripts.paIncrement(counters.length, ...counters.map((counter) => this.prefix + counter.key), ...counters.map((counter) => expiry(counter.expiresAtMs)))
    return { values: values.map(Number), fallback: false }
  }

  async reserve (request: ReserveRequest): Promise<Reservation> {
    await this.started
    const keys = [...request.flags, ...request.counters.map((counter) => counter.key)].map((key) => this.prefix + key)
    const args = [request.flags.length, Math.ceil(request.blockedForMs), ...request.counters.flatMap((counter) => [counter.limit, expiry(counter.expiresAtMs)])]
    const [granted, retryAfterMs] = await this.scripts.paReserve(keys.length, ...keys, ...args)
    return Number(granted) === 1 ? { granted: true, fallback: false } : { granted: false, retryAfterMs: Number(retryAfterMs), fallback: false }
  }

  async settle (entries: readonly SettleEntry[]): Promise<Answered> {
    if (entries.length === 0) return SHARED
    await this.started
    const keys = entries.flatMap((entry) => [this.prefix + entry.counter, this.prefix + entry.flag])
    await this.scripts.paSettle(keys.length, ...keys, ...entries.flatMap((entry) => [entry.limit, expiry(entry.flagExpiresAtMs)]))
    return SHARED
  }

  async release (keys: readonly string[]): Promise<Answered> {
    if (keys.length === 0) return SHARED
    await this.started
    await this.scripts.paRelease(keys.length, ...keys.map((key) => this.prefix + key))
    return SHARED
  }

  async delete (keys: readonly string[]): Promise<Answered> {
    if (keys.length === 0) return SHARED
    await this.started
    await this.redis.del(...keys.map((key) => this.prefix + key))
    return SHARED
  }

  async ping (): Promise<void> {
    await this.started
    await this.redis.ping()
  }

  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    // QUIT is answered within the command timeout or not at all: then drop the socket.
    await this.redis.quit().catch(() => { this.redis.disconnect() })
  }
}

function expiry (ms: number): string {
  return String(Math.ceil(ms))
}
