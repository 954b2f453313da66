import type { Config } from '../../config/schema.js'
import type { CounterStore } from '../../storage/counters/counter-store.js'
import { FixedWindowLimiter, type RateLimitOutcome } from './limiter.js'

/**
 * The per-user and per-IP rate limits (docs/api-reference.md "Rate limiting"), over the shared counter store.
 * `consume` gives undefined when limiting is off (both windows 0): nothing counted, no headers.
 * It rejects when the counter store cannot answer; the caller decides what that means.
 */
export interface RateLimitService {
  consume: (subject: string) => Promise<RateLimitOutcome | undefined>
}

export function createRateLimitService (deps: { config: Config, counters: CounterStore }): RateLimitService {
  const limiter = new FixedWindowLimiter(deps.counters, deps.config.rateLimit)
  return {
    consume: async (subject) => limiter.enabled ? await limiter.consume(subject) : undefined,
  }
}
