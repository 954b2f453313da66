import type { CounterStore } from '../../storage/counters/counter-store.js'
import { fallbackLimit } from './fallback-limits.js'

/**
 * Fixed-window rate limiting over two windows at once, a minute and an hour (docs/api-reference.md "Rate limiting").
 * Windows are aligned to the clock (a minute window starts at :00), so every instance sharing a
 * store agrees on them and `x-ratelimit-reset-*` is simply the window's end. Every request counts,
 * refused ones too; a request is refused when any enabled window is over its limit.
 */

export interface RateLimits {
  /** Requests per minute; 0 turns the window off. */
  perMinute: number
  /** Requests per hour; 0 turns the window off. */
  perHour: number
}

export interface RateLimitOutcome {
  allowed: boolean
  /** The response headers of §4, lower-case names. */
  headers: Record<string, string>
  /** When refused: whole seconds until every exhausted window has reset (at least 1). */
  retryAfterSeconds: number
}

interface Window {
  name: 'minutely' | 'hourly'
  seconds: number
  limit: number
}

export class FixedWindowLimiter {
  private readonly windows: Window[]
  private readonly fallbackWindows: Window[]

  /**
   * @param fallbackDivisor while Redis does not answer, each window's limit is divided by this
   *   (src/services/ratelimit/fallback-limits.ts); the headers then show the stricter limit in force.
   */
  constructor (private readonly store: CounterStore, limits: RateLimits, private readonly now: () => number = Date.now, fallbackDivisor = 1) {
    this.windows = [
      { name: 'minutely', seconds: 60, limit: limits.perMinute },
      { name: 'hourly', seconds: 3600, limit: limits.perHour },
    ]
    this.fallbackWindows = this.windows.map((window) => ({ ...window, limit: fallbackLimit(window.limit, fallbackDivisor) }))
  }

  /** False when both windows are off: nothing is counted and no header is sent. */
  get enabled (): boolean {
    return this.windows.some((window) => window.limit > 0)
  }

  /** Counts one request for `subject` (e.g. `user:usr_…`, `login-ip:10.0.0.1`) and decides. */
  async consume (subject: string): Promise<RateLimitOutcome> {
    const now = this.now()
    // The hour is always counted (when limiting is on at all): X-Usage-Total reports it.
    const counted = this.windows.filter((window) => window.limit > 0 || window.name === 'hourly')
    const spans = counted.map((window) => {
      const index = Math.floor(now / (window.seconds * 1000))
      return { window, endMs: (index + 1) * window.seconds * 1000, key: `rl:${subject}:${window.name}:${index}` }
    })
    const result = await this.store.increment(spans.map((span) => ({ key: span.key, expiresAtMs: span.endMs })))

    const headers: Record<string, string> = {}
    let retryAfterSeconds = 0
    spans.forEach(({ window: configured, endMs }, i) => {
      const window = result.fallback ? this.fallbackWindows.find((candidate) => candidate.name === configured.name) ?? configured : configured
      const count = result.values[i] ?? 0
      if (window.name === 'hourly') {
        headers['x-usage-total'] = String(count)
        headers['x-usage-period'] = 'hourly'
      }
      if (window.limit === 0) return
      headers[`x-ratelimit-limit-${window.name}`] = String(window.limit)
      headers[`x-ratelimit-remaining-${window.name}`] = String(Math.max(0, window.limit - count))
      headers[`x-ratelimit-reset-${window.name}`] = String(Math.floor(endMs / 1000))
      if (count > window.limit) retryAfterSeconds = Math.max(retryAfterSeconds, Math.max(1, Math.ceil((endMs - now) / 1000)))
    })
    return { allowed: retryAfterSeconds === 0, headers, retryAfterSeconds }
  }
}
