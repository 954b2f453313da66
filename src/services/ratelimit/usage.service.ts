import type { Config } from '../../config/schema.js'
import { formatUtcSeconds } from '../../domain/dates.js'
import { AppError } from '../../domain/errors.js'
import { readRedisCounters } from '../../storage/counters/redis-counter-reader.js'
import type { Store } from '../../storage/db.js'
import { findUserById } from '../../storage/repositories/users.repository.js'

/**
 * A user's requests in the current rate-limit windows, read from the counters the servers keep
 * (the operator's `usage ID`). Only Redis is readable from outside a server: without REDIS_URL
 * every server counts in its own memory, which no other process can see, and the report says so
 * instead of inventing zeros.
 */

export interface UsageWindow {
  window: 'minute' | 'hour'
  /** Requests counted in the window so far. */
  requests: number
  /** The window's limit; null when the window is turned off (its count still kept for X-Usage-Total). */
  limit: number | null
  /** When the window ends and its count starts again. */
  resets_at: string
}

export type UsageReport =
  | { state: 'counted', user_id: string, windows: UsageWindow[] }
  /** REDIS_URL is not set: the counts live in each server's memory. */
  | { state: 'in-process', user_id: string }
  /** Both windows are turned off: nothing is counted. */
  | { state: 'off', user_id: string }

const WINDOWS = [
  { window: 'minute', name: 'minutely', seconds: 60 },
  { window: 'hour', name: 'hourly', seconds: 3600 },
] as const

/**
 * The counter keys the limiter writes for a user (src/services/ratelimit/limiter.ts:
 * `rl:user:<id>:<minutely|hourly>:<window index>`); test/cli/usage.test.ts checks that this reads
 * what the limiter counted.
 */
function windowSpan (userId: string, name: string, seconds: number, nowMs: number): { key: string, endMs: number } {
  const index = Math.floor(nowMs / (seconds * 1000))
  return { key: `rl:user:${userId}:${name}:${index}`, endMs: (index + 1) * seconds * 1000 }
}

export function createUsageService (deps: { config: Config, store: Store }) {
  const { config } = deps
  return {
    read: async (userId: string, nowMs: number = Date.now()): Promise<UsageReport> => {
      if (await findUserById(deps.store.db, userId) === undefined) throw new AppError('NOT_FOUND', `No user with id ${userId}`)
      const limits = { minute: config.rateLimit.perMinute, hour: config.rateLimit.perHour }
      if (limits.minute === 0 && limits.hour === 0) return { state: 'off', user_id: userId }
      if (config.redisUrl === undefined) return { state: 'in-process', user_id: userId }
      // The limiter counts the hour whenever limiting is on (X-Usage-Total), the minute only when its limit is set.
      const counted = WINDOWS.filter((window) => window.window === 'hour' || limits.minute > 0)
      const spans = counted.map((window) => ({ window, ...windowSpan(userId, window.name, window.seconds, nowMs) }))
      let values: number[]
      try {
        values = await readRedisCounters(config.redisUrl, config.redisKeyPrefix, spans.map((span) => span.key))
      } catch (error) {
        throw new Error(`cannot read the counters from Redis at REDIS_URL: ${error instanceof Error ? error.message : String(error)}`)
      }
      return {
        state: 'counted',
        user_id: userId,
        windows: spans.map((span, i) => ({
          window: span.window.window,
          requests: values[i] ?? 0,
          limit: limits[span.window.window] === 0 ? null : limits[span.window.window],
          resets_at: formatUtcSeconds(span.endMs),
        })),
      }
    },
  }
}
export type UsageService = ReturnType<typeof createUsageService>
