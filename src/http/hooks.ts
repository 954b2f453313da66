import type { FastifyInstance, FastifyReply } from 'fastify'
import { AppError, rateLimitExceeded } from '../domain/errors.js'
import { utcToday } from '../domain/dates.js'
import type { Services } from '../services/index.js'
import { coerceQuery } from './query/coerce.js'
import { JSON_MEDIA_TYPE, answersJson } from './media-type.js'
import { SECURITY_HEADERS } from './security-headers.js'
import { unstorableInputIssues } from './storable-input.js'
import { responseTraceparent, traceContextOf } from './trace-context.js'

/**
 * The request hooks every route passes through, in order:
 * 1. onRequest: count the request (services.foreground: background work gives way to a busy API),
 *    the security headers, echo the request id, the W3C traceparent, the JSON media type of API
 *    routes, fix "today" for the request;
 * 2. in the same hook, the route's declared access (src/http/route-access.ts): the bearer token for
 *    partner routes (401/403 before anything else), then its rate limit (429);
 * 3. preValidation: text no store can hold (a path id 404, a query or body member a 422 item),
 *    the strict query coercion and the route's cross-parameter rules;
 * 4. preHandler: those rules' issues, when the schema found nothing (else the error handler
 *    merges them into the schema's 422).
 */
export function registerRequestHooks (app: FastifyInstance, services: Services): void {
  app.decorateRequest('principal', null as never)
  app.decorateRequest('today', '')
  app.decorateRequest('queryIssues', null as never)

  // One hook for both steps: every hook Fastify runs costs a pass of its own on every request.
  app.addHook('onRequest', async (request, reply) => {
    services.foreground.noteRequest()
    // First, so that every answer carries them, refusals included (src/http/security-headers.ts).
    reply.headers(SECURITY_HEADERS)
    reply.header('x-request-id', request.id)
    reply.header('traceparent', responseTraceparent(traceContextOf(request.raw)))
    // An API route answers JSON whichever serializer writes its body (src/http/media-type.ts).
    if (answersJson(request.routeOptions.config)) reply.type(JSON_MEDIA_TYPE)
    request.today = utcToday(new Date(services.now()))
    request.queryIssues = []

    const access = request.routeOptions.config?.access
    if (access === undefined) return
    if (access.auth === 'bearer') request.principal = await services.auth.authenticate(bearerToken(request.headers.authorization))
    if (access.rateLimit === 'user') await rateLimit(services, `user:${request.principal.userId}`, reply)
    if (access.rateLimit === 'ip') await rateLimit(services, `login-ip:${request.ip}`, reply)
  })

  app.addHook('preValidation', async (request) => {
    // Text no store can hold, on every route (src/http/storable-input.ts): a path id 404 here, a member a 422 item.
    request.queryIssues.push(...unstorableInputIssues(request))
    const schema = request.routeOptions.schema?.querystring
    if (schema === undefined) return
    request.query = coerceQuery(request.query as Record<string, unknown>, schema as object)
    // A parameter already refused for its text is not judged again by the rules: one item per parameter.
    const named = request.queryIssues.length === 0 ? undefined : new Set(request.queryIssues.map((found) => found.loc.join('.')))
    for (const rule of request.routeOptions.config?.queryRules ?? []) {
      const issues = rule(request.query as Record<string, unknown>, request.today)
      request.queryIssues.push(...(named === undefined ? issues : issues.filter((found) => !named.has(found.loc.join('.')))))
    }
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
    throw rateLimitExceeded(outcome.retryAfterSeconds, outcome.headers)
  }
  reply.headers(outcome.headers)
}
