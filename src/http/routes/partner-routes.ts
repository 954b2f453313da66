import type { FastifyInstance } from 'fastify'
import { createAuthenticationHook } from '../../auth/authenticate.js'
import '../../auth/types.js'
import { FixedWindowLimiter } from '../../ratelimit/limiter.js'
import { createRateLimitHook } from '../rate-limit.js'
import { getAnalyticsRoute } from './analytics/get-analytics.js'
import { getMeRoute } from './me/get-me.js'
import { getPostsRoute } from './posts/get-posts.js'

/**
 * The partner scope: every protected route is registered here, behind the one authentication
 * hook and then the per-user rate limit (DECISIONS.md §3, §4). Not wrapped in fastify-plugin on
 * purpose: the hooks must stay inside this scope (no auth on /health, /auth/login, or 404s).
 * Add a protected route with one `await app.register(...)` line below.
 */
export async function partnerRoutes (app: FastifyInstance): Promise<void> {
  app.decorateRequest('user', null as never)
  app.addHook('onRequest', createAuthenticationHook(app.store.db, app.tokens))
  const limiter = new FixedWindowLimiter(app.counters, app.config.rateLimit)
  app.addHook('onRequest', createRateLimitHook(limiter, (request) => `user:${request.user.userId}`))

  await app.register(getMeRoute)
  await app.register(getAnalyticsRoute)
  await app.register(getPostsRoute)
}
