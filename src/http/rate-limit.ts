import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../errors.js'
import type { FixedWindowLimiter } from '../ratelimit/limiter.js'

/**
 * The onRequest hook that applies a FixedWindowLimiter to a scope: it counts the request under
 * the subject the caller names (a user, an IP), puts the §4 headers on the response whatever its
 * status, and refuses with the contract's 429 when a window is exhausted (DECISIONS.md §2, §4).
 */

export function rateLimitExceeded (retryAfterSeconds: number, headers: Record<string, string>): AppError {
  return new AppError('RATE_LIMIT_EXCEEDED', `Rate limit exceeded. Please wait ${retryAfterSeconds} seconds before making another request.`, {
    headers: { ...headers, 'retry-after': String(retryAfterSeconds) },
    extra: { retry_after: retryAfterSeconds },
  })
}

export function createRateLimitHook (limiter: FixedWindowLimiter, subjectOf: (request: FastifyRequest) => string) {
  return async function rateLimit (request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!limiter.enabled) return
    let outcome
    try {
      outcome = await limiter.consume(subjectOf(request))
    } catch (error) {
      // The limiter's store (Redis) is down: serve unlimited rather than fail every request.
      request.log.warn({ err: error }, 'rate limiter unavailable; request not limited')
      return
    }
    if (!outcome.allowed) throw rateLimitExceeded(outcome.retryAfterSeconds, outcome.headers)
    reply.headers(outcome.headers)
  }
}
