import { Redis } from 'ioredis'
import { withRedisDeadline } from './redis-deadline.js'
import type { Admission, Answered, AttemptRequest, AttemptSettlement, AttemptSubject, CounterSpec, CounterStore, Counted } from './counter-store.js'

/**
 * Counters in Redis, shared by every instance pointed at it. Each operation is one Lua script, so
 * "add 1, and set the expiry if the key is new", "refuse if locked or full, else count the attempt
 * in flight" and "settle the attempt, locking what reached its limit" are atomic even with many
 * instances racing. Every key is prefixed
 * (REDIS_KEY_PREFIX) so several deployments or test files can share a server.
 *
 * Every wait is bounded (docs/reliability.md): a command not answered within REDIS_DEADLINES.commandMs
 * of time this process could have read the answer fails (redis-deadline.ts), nothing is queued
 * while the connection is down (the command fails at once), and a lost connection is retried at
 * most every second. This class only fails fast; standing in for Redis
 * while it does not answer is resilient-counter-store.ts's job.
 */

export const REDIS_DEADLINES = {
  /**
   * A command (script, PING) not answered within this fails (Redis answers in well under a
   * millisecond); time the event loop was blocked counts at most two ticks (redis-deadline.ts).
   */
  commandMs: 1000,
  /** Opening the TCP connection. */
  connectMs: 1000,
  /**
   * How long the first operations wait for the initial connection before giving up on it (counted
   * like commandMs: time the loop was blocked counts at most two ticks).
   */
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

/**
 * KEYS: failures, in-flight set and lock of each subject. ARGV: attempt id, in-flight TTL, then each
 * subject's limit. Answers {1} admitted, {0, ms} locked, {2} busy. The in-flight set is a sorted set
 * scored by each attempt's expiry on Redis's own clock, so every instance ages them alike.
 */
const ADMIT_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local subjects = #KEYS / 3
local locked = 0
for i = 1, subjects do
  local ttl = redis.call('PTTL', KEYS[3 * i])
  if ttl > locked then locked = ttl end
  if tonumber(redis.call('GET', KEYS[3 * i - 2]) or '0') >= tonumber(ARGV[2 + i]) then
    local left = redis.call('PTTL', KEYS[3 * i - 2])
    if left > locked then locked = left end
  end
end
if locked > 0 then return {0, locked} end
for i = 1, subjects do
  redis.call('ZREMRANGEBYSCORE', KEYS[3 * i - 1], '-inf', now)
  if tonumber(redis.call('GET', KEYS[3 * i - 2]) or '0') + redis.call('ZCARD', KEYS[3 * i - 1]) >= tonumber(ARGV[2 + i]) then return {2, 0} end
end
local expires = now + tonumber(ARGV[2])
for i = 1, subjects do
  redis.call('ZADD', KEYS[3 * i - 1], expires, ARGV[1])
  redis.call('PEXPIREAT', KEYS[3 * i - 1], expires)
end
return {1, 0}
`

/**
 * KEYS as ADMIT_SCRIPT's. ARGV: attempt id, outcome, window end, then each subject's limit and
 * whether a success clears its failures (1/0).
 */
const SETTLE_SCRIPT = `
for i = 1, #KEYS / 3 do
  local failures = KEYS[3 * i - 2]
  redis.call('ZREM', KEYS[3 * i - 1], ARGV[1])
  if ARGV[2] == 'failure' then
    local count = redis.call('INCR', failures)
    if count == 1 then redis.call('PEXPIREAT', failures, ARGV[3]) end
    if count >= tonumber(ARGV[2 + 2 * i]) then
      redis.call('SET', KEYS[3 * i], '1', 'PXAT', ARGV[3])
      redis.call('DEL', failures)
    end
  elseif ARGV[2] == 'success' and ARGV[3 + 2 * i] == '1' then
    redis.call('DEL', failures)
  end
end
return 1
`

interface ScriptCommands {
  paIncrement: (numKeys: number, ...args: Array<string | number>) => Promise<number[]>
  paAdmit: (numKeys: number, ...args: Array<string | number>) => Promise<[number, number]>
  paSettle: (numKeys: number, ...args: Array<string | number>) => Promise<number>
}

const SHARED: Answered = { fallback: false }

export class RedisCounterStore implements CounterStore {
  private closed = false
  private readonly scripts: ScriptCommands
  /** Settles once the first connection is ready, or after REDIS_DEADLINES.startupMs (counted as in redis-deadline.ts). */
  private readonly started: Promise<void>

  constructor (private readonly redis: Redis, private readonly prefix: string) {
    redis.defineCommand('paIncrement', { lua: INCREMENT_SCRIPT })
    redis.defineCommand('paAdmit', { lua: ADMIT_SCRIPT })
    redis.defineCommand('paSettle', { lua: SETTLE_SCRIPT })
    this.scripts = redis as unknown as ScriptCommands
    // Counted like a command's deadline (redis-deadline.ts): an instance busy starting up (the
    // loop blocked for seconds) must not give up on a Redis whose answers are waiting to be read.
    this.started = redis.status === 'ready'
      ? Promise.resolve()
      : withRedisDeadline(new Promise<void>((resolve) => { redis.once('ready', () => { resolve() }) }), REDIS_DEADLINES.startupMs).catch(() => {})
  }

  static connect (url: string, prefix: string): RedisCounterStore {
    const redis = new Redis(url, {
      // No ioredis commandTimeout: a plain timer would fail a command whose answer is already
      // waiting when the loop was blocked; every command goes through withRedisDeadline instead.
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
    const values = await this.deadline(this.scripts.paIncrement(counters.length, ...counters.map((counter) => this.prefix + counter.key), ...counters.map((counter) => expiry(counter.expiresAtMs))))
    return { values: values.map(Number), fallback: false }
  }

  async admitAttempt (request: AttemptRequest): Promise<Admission> {
    await this.started
    const [answer, retryAfterMs] = await this.deadline(this.scripts.paAdmit(request.subjects.length * 3, ...this.subjectKeys(request.subjects),
      request.id, Math.ceil(request.inFlightTtlMs), ...request.subjects.map((subject) => subject.limit)))
    if (Number(answer) === 1) return { admitted: true, fallback: false }
    if (Number(answer) === 2) return { admitted: false, reason: 'busy', fallback: false }
    return { admitted: false, reason: 'locked', retryAfterMs: Number(retryAfterMs), fallback: false }
  }

  async settleAttempt (settlement: AttemptSettlement): Promise<Answered> {
    await this.started
    await this.deadline(this.scripts.paSettle(settlement.subjects.length * 3, ...this.subjectKeys(settlement.subjects),
      settlement.id, settlement.outcome, expiry(settlement.windowEndMs),
      ...settlement.subjects.flatMap((subject) => [subject.limit, subject.clearedBySuccess ? 1 : 0])))
    return SHARED
  }

  async ping (): Promise<void> {
    await this.started
    await this.deadline(this.redis.ping())
  }

  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    // QUIT is answered within the command timeout or not at all: then drop the socket.
    await this.deadline(this.redis.quit()).catch(() => { this.redis.disconnect() })
  }

  private async deadline<T> (command: Promise<T>): Promise<T> {
    return await withRedisDeadline(command, REDIS_DEADLINES.commandMs)
  }

  /** Each subject's failures, in-flight set and lock, in the order the scripts read them. */
  private subjectKeys (subjects: readonly AttemptSubject[]): string[] {
    return subjects.flatMap((subject) => [subject.failures, subject.inFlight, subject.lock].map((key) => this.prefix + key))
  }
}

function expiry (ms: number): string {
  return String(Math.ceil(ms))
}
