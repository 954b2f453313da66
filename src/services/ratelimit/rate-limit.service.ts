import type { Config } from '../../config/schema.js'
import type { CounterStore } from '../../storage/counters/counter-store.js'
import { FixedWindowLimiter, type RateLimitOutcome } from './limiter.js'

/**
 * The per-user and per-IP rate limits (docs/api-reference.md "Rate limiting"), over the shared counter store.
 * `consume` gives undefined when limiting is off (both windows 0): nothing counted, no headers.
 * With Redis configured it never waits on a Redis that does not answer: the counter store falls
 * back to this process's counters and the limits are divided (docs/reliability.md "Redis down").
 */
export interface RateLimitService {
  consume: (subject: string) => Promise<RateLimitOutcome | undefined>
}

export function createRateLimitService (deps: { config: Config, counters: CounterStore }): RateLimitService {
  const limiter = new FixedWindowLimiter(deps.counters, deps.config.rateLimit, Date.now, deps.config.redisFallbackDivisor)
  return {
    consume: async (subject) => limiter.enabled ? await limiter.consume(subject) : undefined,
  }
}
