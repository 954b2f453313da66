import type { FastifyInstance, FastifyReply } from 'fastify'
import { AppError } from '../domain/errors.js'
import { utcToday } from '../domain/dates.js'
import type { Services } from '../services/index.js'
import { coerceQuery } from './query/coerce.js'
import { SECURITY_HEADERS } from './security-headers.js'

/**
 * The request hooks every route passes through, in order:
 * 1. onRequest: the security headers, echo the request id, fix "today" for the request;
 * 2. onRequest: the route's declared access (src/http/route-access.ts): the bearer token for
 *    partner routes (401/403 before anything else), then its rate limit (429);
 * 3. preValidation: the strict query coercion and the route's cross-parameter rules;
 * 4. preHandler: those rules' issues, when the schema found nothing (else the error handler
 *    merges them into the schema's 422).
 */
export function registerRequestHooks (app: FastifyInstance, services: Services): void {
  app.decorateRequest('principal', null as never)
  app.decorateRequest('today', '')
  app.decorateRequest('queryIssues', null as never)

  app.addHook('onRequest', async (request, reply) => {
    // First, so that every answer carries them, refusals included (src/http/security-headers.ts).
    reply.headers(SECURITY_HEADERS)
    reply.header('x-request-id', request.id)
    request.today = utcToday(new Date(services.now()))
    request.queryIssues = []
  })

  app.addHook('onRequest', async (request, reply) => {
    const access = request.routeOptions.config?.access
    if (access === undefined) return
    if (access.auth === 'bearer') request.principal = await services.auth.authenticate(bearerToken(request.headers.authorization))
    if (access.rateLimit === 'user') await rateLimit(services, `user:${request.principal.userId}`, reply)
    if (access.rateLimit === 'ip') await rateLimit(services, `login-ip:${request.ip}`, reply)
  })

  app.addHook('preValidation', async (request) => {
    const schema = request.routeOptions.schema?.querystring
    if (schema === undefined) return
    request.query = coerceQuery(request.query as Record<string, unknown>, schema as object)
    for (const rule of request.routeOptions.config?.queryRules ?? []) request.queryIssues.push(...rule(request.query as Record<string, unknown>, request.today))
  })

  app.addHook('preHandler', async (request) => {
    if (request.queryIssues.length > 0) throw new AppError('VALIDATION_ERROR', 'Request validation failed', { issues: request.queryIssues })
  })
}

/**
 * The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or undefined
 * for a missing header, another scheme, or `Bearer` alone. A token anywhere else (the URL) is
 * never read (docs/api-reference.md: tokens are not placed in URLs).
 */
export function bearerToken (header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const match = /^\s*(\S+)(?:\s+(.*))?$/s.exec(header)
  if (match === null || match[1]?.toLowerCase() !== 'bearer') return undefined
  const token = match[2]?.trim() ?? ''
  return token === '' ? undefined : token
}

/** Counts the request, puts the §4 headers on the reply whatever its status, refuses with 429 when a window is spent. */
async function rateLimit (services: Services, subject: string, reply: FastifyReply): Promise<void> {
  // Never waits on a Redis that does not answer, never fails open: the counter store falls back to
  // this process's counters with stricter limits (docs/reliability.md "Redis down").
  const outcome = await services.rateLimits.consume(subject)
  if (outcome === undefined) return
  if (!outcome.allowed) {
    const seconds = outcome.retryAfterSeconds
    throw new AppError('RATE_LIMIT_EXCEEDED', `Rate limit exceeded. Please wait ${seconds} seconds before making another request.`, {
      headers: { ...outcome.headers, 'retry-after': String(seconds) },
      extra: { retry_after: seconds },
    })
  }
  reply.headers(outcome.headers)
}
