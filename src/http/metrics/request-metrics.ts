import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Counter, Gauge, type Registry } from 'prom-client'
import { RequestStats } from './request-stats.js'

/**
 * The request metrics (docs/operations.md "Metrics"), from two hooks and nothing in the routes:
 * count and duration by route template, method and status, in-flight requests, and what the
 * answers of the limited routes say — rate-limit refusals, lockouts, login outcomes — read from
 * the error code the error handler set (`request.errorCode`). Every label value is bounded: the
 * route's template (never the URL), one of a few methods, a status we send.
 */

/** Requests that matched no route (404, 405) share this route label. */
export const UNMATCHED_ROUTE = '(unmatched)'
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

declare module 'fastify' {
  interface FastifyRequest {
    /** True from onRequest until the request is counted as finished (answered or aborted). */
    inFlight: boolean
  }
}

/** The login outcome an answer of POST /auth/login stands for. */
function loginOutcome (status: number, errorCode: string): string {
  if (status === 200) return 'success'
  if (errorCode !== '') return errorCode.toLowerCase()
  return status >= 500 ? 'error' : 'other'
}

export function registerRequestMetrics (app: FastifyInstance, registry: Registry): void {
  const stats = new RequestStats()
  stats.register(registry, { requests: 'pa_http_requests_total', duration: 'pa_http_request_duration_seconds' })
  let inFlight = 0
  // eslint-disable-next-line no-new -- registered on the registry, which owns it
  new Gauge({ name: 'pa_http_requests_in_flight', help: 'Requests being answered now', registers: [registry], collect () { this.set(inFlight) } })
  const refusals = new Counter({ name: 'pa_rate_limit_refusals_total', help: 'Requests refused with 429 by a rate limit: user (partner routes) or ip (login)', labelNames: ['limit'], registers: [registry] })
  const lockouts = new Counter({ name: 'pa_login_lockout_refusals_total', help: 'Logins refused because the client key or the IP is locked out (TOO_MANY_ATTEMPTS)', registers: [registry] })
  const logins = new Counter({ name: 'pa_logins_total', help: 'Logins by outcome: success, or the error code of the refusal', labelNames: ['outcome'], registers: [registry] })
  for (const limit of ['user', 'ip']) refusals.inc({ limit }, 0)
  lockouts.inc(0)
  logins.inc({ outcome: 'success' }, 0)

  const finished = (request: FastifyRequest): void => {
    if (!request.inFlight) return
    request.inFlight = false
    inFlight -= 1
  }
  // Callback hooks, not async ones: no promise per request (they run on every request).
  app.decorateRequest('inFlight', false)
  app.addHook('onRequest', (request, _reply, done) => {
    request.inFlight = true
    inFlight += 1
    done()
  })
  app.addHook('onRequestAbort', (request, done) => {
    finished(request)
    done()
  })
  app.addHook('onResponse', (request, reply, done) => {
    finished(request)
    const status = reply.statusCode
    stats.observe(request.routeOptions.url ?? UNMATCHED_ROUTE, METHODS.has(request.method) ? request.method : 'OTHER', status, reply.elapsedTime / 1000)
    const access = request.routeOptions.config?.access
    if (access !== undefined && access.rateLimit !== 'none') {
      if (request.errorCode === 'RATE_LIMIT_EXCEEDED') refusals.inc({ limit: access.rateLimit })
      if (access.rateLimit === 'ip') {
        if (request.errorCode === 'TOO_MANY_ATTEMPTS') lockouts.inc()
        logins.inc({ outcome: loginOutcome(status, request.errorCode) })
      }
    }
    done()
  })
}
