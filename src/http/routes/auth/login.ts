import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { LoginLockout } from '../../../auth/lockout.js'
import { login } from '../../../auth/login.service.js'
import { FixedWindowLimiter } from '../../../ratelimit/limiter.js'
import { createRateLimitHook } from '../../rate-limit.js'
import { ErrorBody, ValidationErrorBody } from '../../schemas/errors.schemas.js'

export const TokenResponseBody = Type.Object({
  access_token: Type.String({ description: 'JWT bearer token' }),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ description: 'Seconds of validity (TOKEN_TTL_SECONDS)' }),
  user_id: Type.String({ description: 'Opaque id of the authenticated user' }),
})

/**
 * POST /auth/login (SPEC.md, DECISIONS.md §3). The body is checked by the service, not by Ajv:
 * the app's Ajv coerces types, and a number must not pass as a key. Rate limited per IP.
 */
export const loginRoute: FastifyPluginAsyncTypebox = async (app) => {
  const lockout = new LoginLockout(app.counters, app.config.login)
  const limiter = new FixedWindowLimiter(app.counters, app.config.rateLimit)
  const deps = { db: app.store.db, tokens: app.tokens, lockout, tokenTtlSeconds: app.config.tokenTtlSeconds }

  app.post('/auth/login', {
    onRequest: createRateLimitHook(limiter, (request) => `login-ip:${request.ip}`),
    schema: {
      operationId: 'login',
      tags: ['auth'],
      summary: 'Trade an API client key and secret for a bearer token',
      response: { 200: TokenResponseBody, 401: ErrorBody, 403: ErrorBody, 422: ValidationErrorBody, 429: ErrorBody, 500: ErrorBody },
    },
  }, async (request) => {
    return await login(deps, request.body, request.ip)
  })
}
